// pretrained-api.mjs: `attn.loadPretrained` (docs/api.md, "Pretrained checkpoints"), made from the
// instantiated pretrained module (attention-pretrained-<build>.mjs). attention.mjs imports this file
// and that module only when a checkpoint is first opened, so the first map never loads them.
//
// A checkpoint's files are read tensor by tensor: the 8-byte header length and the JSON header of
// each file first (the core plans and checks everything from them and the config before allocating),
// then each tensor's byte range, copied into the wasm heap where the model keeps it. A Blob (a File
// from a picker or a drop) is read by slices, so a 2 GB file is never held whole in JS.

import { Handle, call, fieldTypeError } from './attention-api.mjs';

/** A RangeError about `field`. @param {string} field @param {string} message */
function fieldRangeError(field, message) {
  const err = /** @type {RangeError & { field?: string }} */ (new RangeError(message));
  err.field = field;
  return err;
}

const LOAD_OPTIONS = ['config', 'weights', 'onProgress', 'signal'];

// Brand checks: true only for a real ArrayBuffer / Uint8Array / Blob (a Proxy of one, or an object
// whose prototype was set to one, is none: `instanceof` alone would let them through).
const bufferBytes = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')?.get;
const typedTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)?.get;
const blobSize = typeof Blob === 'function' ? Object.getOwnPropertyDescriptor(Blob.prototype, 'size')?.get : undefined;
/** @param {unknown} w @param {Function | undefined} getter */
const branded = (w, getter) => {
  if (w === null || typeof w !== 'object' || !getter) return false;
  try { getter.call(w); return true; } catch { return false; }
};
/** Is this ArrayBuffer detached (transferred or structuredClone'd away)? @param {ArrayBuffer} b */
const detached = (b) => {
  if (typeof (/** @type {any} */ (b)).detached === 'boolean') return (/** @type {any} */ (b)).detached;
  if (b.byteLength !== 0) return false;
  try { new Uint8Array(b); return false; } catch { return true; }
};

const streamLocked = typeof ReadableStream === 'function' ? Object.getOwnPropertyDescriptor(ReadableStream.prototype, 'locked')?.get : undefined;

/**
 * A streamed file, `{ stream, size }`: its bytes in order as they arrive (a download's body), read once.
 * The header is read from its start (those chunks are kept and handed on again by stream()), so the
 * tensors after it are copied into the heap while the rest of the file is still on its way.
 * @param {any} w  @param {string} field
 */
function streamedSource(w, field) {
  const { stream, size } = w;
  if (!branded(stream, streamLocked)) throw fieldTypeError(`${field}.stream`, `${field}.stream must be a ReadableStream of the file's bytes`);
  if (stream.locked) throw fieldTypeError(`${field}.stream`, `${field}.stream is locked (already being read): pass a stream no one reads`);
  if (!Number.isSafeInteger(size) || size < 0) throw fieldRangeError(`${field}.size`, `${field}.size must be the file's length in bytes, got ${String(size)}`);
  const reader = ReadableStream.prototype.getReader.call(stream);
  /** @type {Uint8Array[]} */
  const head = [];  // the chunks read for the header, handed on again by stream()
  let headBytes = 0, handed = false;
  const chunk = (/** @type {unknown} */ value) => {
    if (!(typedTag && value !== null && typeof value === 'object' && typedTag.call(value) === 'Uint8Array')) {
      throw fieldTypeError(`${field}.stream`, `${field}.stream gave a chunk that is not a Uint8Array`);
    }
    return /** @type {Uint8Array} */ (value);
  };
  return {
    field, size,
    read: async (/** @type {number} */ b, /** @type {number} */ e) => {
      while (headBytes < e) {
        const { done, value } = await reader.read();
        if (done) throw fieldRangeError(field, `${field} ended after ${headBytes} bytes, inside its header (bytes ${b} to ${e})`);
        head.push(chunk(value));
        headBytes += value.length;
      }
      const out = new Uint8Array(e - b);
      let at = 0;
      for (const c of head) {
        const from = Math.max(b - at, 0), to = Math.min(e - at, c.length);
        if (from < to) out.set(c.subarray(from, to), at + from - b);
        at += c.length;
      }
      return out;
    },
    stream: () => {
      if (handed) throw fieldTypeError(field, `${field} was already read (a stream is read once)`);
      handed = true;
      let i = 0;
      return {
        read: async () => (i < head.length ? { done: false, value: head[i++] } : reader.read().then((r) => (r.done ? r : { done: false, value: chunk(r.value) }))),
        cancel: (/** @type {unknown} */ reason) => reader.cancel(reason),
      };
    },
    cancel: (/** @type {unknown} */ reason) => reader.cancel(reason).catch(() => {}),
  };
}

/**
 * One weights file as { field, size, read(begin, end) -> Promise<Uint8Array>, stream?, cancel? }: a Blob
 * and a streamed file also have stream() (the bytes in order: the tensors are copied as they pass, see
 * streamCopies); a streamed file is cancelled by cancel() when the load stops before reading it all.
 * @param {unknown} w  @param {string} field
 */
function fileSource(w, field) {
  if (w !== null && typeof w === 'object' && !Array.isArray(w) && Object.getPrototypeOf(w) === Object.prototype && 'stream' in w) {
    return streamedSource(w, field);
  }
  if (branded(w, blobSize)) {
    const blob = /** @type {Blob} */ (w);
    return { field, size: blob.size, read: async (/** @type {number} */ b, /** @type {number} */ e) => new Uint8Array(await blob.slice(b, e).arrayBuffer()),
      stream: () => {
        try {
          return Blob.prototype.stream.call(blob).getReader();
        } catch (e) {
          throw fieldTypeError(field, `${field} could not be read as a stream (${e instanceof Error ? e.message : String(e)})`);
        }
      } };
  }
  /** @type {Uint8Array | null} */
  let bytes = null;
  if (branded(w, bufferBytes)) {
    if (detached(/** @type {ArrayBuffer} */ (w))) throw fieldTypeError(field, `${field} is a detached ArrayBuffer (it was transferred): pass the file's bytes again`);
    bytes = new Uint8Array(/** @type {ArrayBuffer} */ (w));
  } else if (typedTag && w !== null && typeof w === 'object' && typedTag.call(w) === 'Uint8Array') {
    bytes = /** @type {Uint8Array} */ (w);
    if (detached(bytes.buffer)) throw fieldTypeError(field, `${field} is a view of a detached ArrayBuffer (it was transferred): pass the file's bytes again`);
  }
  if (!bytes) {
    let got = w === null ? 'null' : typeof w;
    if (typedTag && typeof w === 'object' && w !== null && typedTag.call(w)) got = `a ${typedTag.call(w)}`;
    else if (typeof w === 'object' && w !== null) got = 'an object that is not one (a Proxy or a look-alike)';
    throw fieldTypeError(field, `${field} must be a .safetensors file as a Uint8Array, an ArrayBuffer, a Blob or { stream, size }, got ${got}`);
  }
  const held = bytes;
  return { field, size: held.byteLength, read: async (/** @type {number} */ b, /** @type {number} */ e) => held.subarray(b, e) };
}

// The event loop gets a turn (a task, not a microtask: a click on Stop, a timer, an AbortSignal fired
// from either can land) between a load's steps, at least this often while tensors are copied. In
// browsers and workers through a MessageChannel (a chain of setTimeout(0) is clamped to 4 ms a turn);
// in Node through setTimeout, after the timers already due.
const YIELD_EVERY_MS = 25;
const nextTask = (() => {
  const node = typeof process === 'object' && process !== null && Boolean(process.versions?.node);
  if (node || typeof MessageChannel !== 'function') return () => new Promise((resolve) => setTimeout(resolve, 0));
  const channel = new MessageChannel();
  /** @type {(() => void)[]} */
  const waiting = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  return () => new Promise((resolve) => {
    waiting.push(() => resolve(undefined));
    channel.port2.postMessage(0);
  });
})();

/**
 * Copies the tensors of one Blob into the loader's destinations as the file streams past, in file
 * order: each chunk read goes straight into the wasm heap, piece by piece (loader.writeAt), so the
 * weights are never gathered in JavaScript, and a file costs one read, not one per tensor (in
 * Chromium a worker's Blob.slice().arrayBuffer() per tensor read a 269 MB checkpoint at ~60-80 MB/s,
 * its stream at ~290 MB/s; docs/performance.md).
 * @param {any} P @param {any} loader
 * @param {{ stream: () => ReadableStreamDefaultReader<Uint8Array> }} file
 * @param {{ i: number, name: string, begin: number, end: number }[]} copies  this file's, sorted by begin
 * @param {{ signal?: AbortSignal, onBytes: (n: number) => void }} options
 */
async function streamCopies(P, loader, file, copies, { signal, onBytes }) {
  const written = copies.map(() => 0);
  const last = copies.reduce((m, c) => Math.max(m, c.end), 0);
  const reader = file.stream();
  let pos = 0, first = 0, turn = Date.now();
  try {
    while (pos < last) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) break;
      const from = pos, to = pos + value.length;  // this chunk's bytes of the file
      pos = to;
      while (first < copies.length && copies[first].end <= from) first++;
      for (let k = first; k < copies.length && copies[k].begin < to; k++) {
        const c = copies[k];
        const b = Math.max(c.begin, from), e = Math.min(c.end, to);
        if (b >= e) continue;
        call(P, () => loader.writeAt(c.i, b - c.begin, value.subarray(b - from, e - from)));
        written[k] += e - b;
        onBytes(e - b);
      }
      if (Date.now() - turn >= YIELD_EVERY_MS) {
        await nextTask();
        turn = Date.now();
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  signal?.throwIfAborted();
  copies.forEach((c, k) => {
    if (written[k] !== c.end - c.begin) {
      throw fieldRangeError(`weights.${c.name}`, `weights.${c.name}: read ${written[k]} bytes, expected ${c.end - c.begin} (the file changed while loading?)`);
    }
  });
}

/**
 * The pretrained part of the API over the raw module P (its objects are Handles of attention-api.mjs:
 * freed on dispose() or when dropped).
 * @param {any} P  the instantiated attention-pretrained module
 */
export function makePretrained(P) {
  /**
   * `{ attentions, allowLongWork }` of forward / append.
   * @param {unknown} options @param {string} where
   */
  // forward takes roles too (the head-role scores of its maps); append does not.
  const callOptions = (options, where) => {
    const known = where === 'forward' ? ['allowLongWork', 'attentions', 'roles'] : ['allowLongWork', 'attentions'];
    const out = { attentions: false, roles: false, allowLongWork: false };
    if (options === undefined) return out;
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw new TypeError(`${where}: options must be an object { ${known.map((k) => `${k}?`).join(', ')} }`);
    }
    for (const key of Object.keys(options)) {
      if (!known.includes(key)) {
        throw fieldTypeError(key, `${where} options have an unknown field '${key}'; known fields: ${known.join(', ')}`);
      }
      const v = /** @type {any} */ (options)[key];
      if (v !== undefined && typeof v !== 'boolean') throw fieldTypeError(key, `${key} must be a boolean, got ${typeof v}`);
      out[/** @type {'attentions' | 'roles' | 'allowLongWork'} */ (key)] = v === true;
    }
    return out;
  };

  class PretrainedSession extends Handle {
    /** @param {any} raw */
    constructor(raw) { super(raw, 'session'); }
    get length() { return call(P, () => this.live().length()); }
    get maxLen() { return call(P, () => this.live().maxLen()); }
    /** Bytes the cache holds now (float32, every layer). */
    get cacheBytes() { return call(P, () => this.live().cacheBytes()); }
    /** @param {ArrayLike<number>} ids @param {{ attentions?: boolean, allowLongWork?: boolean }} [options] */
    append(ids, options) {
      const raw = this.live();
      const o = callOptions(options, 'append');
      return call(P, () => raw.append(ids, o.attentions, o.allowLongWork));
    }
    reset() { call(P, () => this.live().reset()); }
  }

  class Pretrained extends Handle {
    /** @type {any} */ #info;
    /** @param {any} raw */
    constructor(raw) {
      super(raw, 'model');
      this.#info = Object.freeze(call(P, () => raw.info()));
    }
    get info() { this.live(); return this.#info; }
    /** @param {ArrayLike<number>} ids @param {{ attentions?: boolean, roles?: boolean, allowLongWork?: boolean }} [options] */
    forward(ids, options) {
      const raw = this.live();
      const o = callOptions(options, 'forward');
      return call(P, () => raw.forward(ids, o.attentions, o.roles, o.allowLongWork));
    }
    /**
     * One layer's attention stage by stage, the tensors forward computes there (docs/api.md, "The stages of one layer").
     * @param {ArrayLike<number>} ids @param {{ layer: number, allowLongWork?: boolean }} options
     */
    stages(ids, options) {
      const raw = this.live();
      if (options === null || typeof options !== 'object' || Array.isArray(options)) {
        throw new TypeError('stages: options must be an object { layer, allowLongWork? }');
      }
      for (const key of Object.keys(options)) {
        if (key !== 'layer' && key !== 'allowLongWork') {
          throw fieldTypeError(key, `stages options have an unknown field '${key}'; known fields: allowLongWork, layer`);
        }
      }
      const { layer, allowLongWork = false } = /** @type {any} */ (options);
      if (layer === undefined) throw fieldTypeError('layer', `layer is required: the layer to show, 0 to ${this.#info.nLayers - 1}`);
      if (typeof layer !== 'number') throw fieldTypeError('layer', `layer must be a number, got ${layer === null ? 'null' : typeof layer}`);
      if (typeof allowLongWork !== 'boolean') throw fieldTypeError('allowLongWork', `allowLongWork must be a boolean, got ${typeof allowLongWork}`);
      return call(P, () => raw.stages(ids, layer, allowLongWork));
    }
    /** @param {{ maxLen: number }} options */
    createSession(options) {
      const raw = this.live();
      if (options === null || typeof options !== 'object') throw new TypeError('createSession: options must be an object { maxLen }');
      for (const key of Object.keys(options)) {
        if (key !== 'maxLen') throw fieldTypeError(key, `createSession options have an unknown field '${key}'; known fields: maxLen`);
      }
      if (options.maxLen === undefined) throw fieldTypeError('maxLen', 'maxLen is required');
      return new PretrainedSession(call(P, () => raw.createSession(options.maxLen)));
    }
  }

  /**
   * @param {{ config: object, weights: unknown, onProgress?: (p: { loaded: number, total: number }) => void, signal?: AbortSignal }} options
   * @returns {Promise<Pretrained>}
   */
  async function loadPretrained(options) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw new TypeError('loadPretrained: options must be an object { config, weights, onProgress?, signal? }');
    }
    for (const key of Object.keys(options)) {
      if (!LOAD_OPTIONS.includes(key)) throw fieldTypeError(key, `loadPretrained options have an unknown field '${key}'; known fields: ${LOAD_OPTIONS.join(', ')}`);
    }
    const { config, weights, onProgress, signal } = /** @type {any} */ (options);
    const text = configText(config);
    if (onProgress !== undefined && typeof onProgress !== 'function') throw fieldTypeError('onProgress', 'onProgress must be a function');
    if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof signal.aborted === 'boolean')) {
      throw fieldTypeError('signal', 'signal must be an AbortSignal');
    }
    if (weights === undefined) throw fieldTypeError('weights', 'weights is required: the .safetensors file(s) of the checkpoint');
    const list = Array.isArray(weights) ? weights : [weights];
    if (list.length === 0) throw fieldTypeError('weights', 'weights is an empty Array: pass the .safetensors file(s)');
    /** @type {any[]} */
    const files = [];
    try {
      for (const [i, w] of list.entries()) files.push(fileSource(w, Array.isArray(weights) && weights.length > 1 ? `weights[${i}]` : 'weights'));
      return await loadFiles(files, text, { signal, onProgress });
    } catch (e) {
      // a streamed file the load did not read to its end: its download stops (a stream is read once)
      for (const f of files) f.cancel?.(e);
      for (const w of list) if (w !== null && typeof w === 'object' && branded(w.stream, streamLocked) && !w.stream.locked) w.stream.cancel(e).catch(() => {});
      throw e;
    }
  }

  /**
   * The load proper, once every file is a source (fileSource): the headers, the plan, the tensors.
   * @param {any[]} files @param {string} text
   * @param {{ signal?: AbortSignal, onProgress?: (p: { loaded: number, total: number }) => void }} options
   */
  async function loadFiles(files, text, { signal, onProgress }) {
    const headers = [];
    for (const f of files) {
      await nextTask();
      signal?.throwIfAborted();
      const first = await f.read(0, Math.min(8, f.size));
      const length = call(P, () => P.headerLength(first, f.size, f.field));
      headers.push(await f.read(8, 8 + length));
    }
    await nextTask();
    signal?.throwIfAborted();
    const loader = call(P, () => P.createPretrainedLoader(text, headers, files.map((f) => f.size)));
    try {
      const count = loader.copyCount();
      const total = loader.bytes();
      const copies = Array.from({ length: count }, (_, i) => ({ i, ...loader.copy(i) }));
      let loaded = 0;
      const onBytes = (/** @type {number} */ n) => {
        loaded += n;
        onProgress?.({ loaded, total });
      };
      // Blobs: each file streamed once, in order; bytes in memory: each tensor a view of them
      for (const [f, file] of files.entries()) {
        if (!file.stream) continue;
        const mine = copies.filter((c) => c.file === f).sort((a, b) => a.begin - b.begin);
        if (mine.length) await streamCopies(P, loader, file, mine, { signal, onBytes });
      }
      let turn = Date.now();
      for (const c of copies) {
        const file = files[c.file];
        if (file.stream) continue;
        if (Date.now() - turn >= YIELD_EVERY_MS) {
          await nextTask();
          turn = Date.now();
        }
        signal?.throwIfAborted();
        const bytes = await file.read(c.begin, c.end);
        call(P, () => loader.write(c.i, bytes));
        onBytes(c.end - c.begin);
      }
      await nextTask();
      signal?.throwIfAborted();
      return new Pretrained(call(P, () => loader.finish()));
    } finally {
      loader.delete();
    }
  }

  /**
   * What the loader reads of a config.json alone (`info` without params, weightBytes and
   * kvBytesPerToken), or the error naming the key it refuses: checked before any weight is fetched.
   * @param {unknown} config  the parsed config.json
   */
  function checkConfig(config) {
    const text = configText(config);
    return call(P, () => P.checkPretrainedConfig(text));
  }

  /** The parsed config.json as the JSON text the core reads, checked: an object, at most maxConfigBytes. */
  function configText(config) {
    if (config === null || typeof config !== 'object' || Array.isArray(config)) {
      throw fieldTypeError('config', 'config must be the parsed config.json (an object)');
    }
    let text;
    try {
      text = JSON.stringify(config);
    } catch (e) {
      throw fieldTypeError('config', `config could not be written as JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    const { maxConfigBytes } = P.pretrainedLimits();
    // characters <= UTF-8 bytes: a text over the cap in characters is over it in bytes (the core checks bytes)
    if (text.length > maxConfigBytes) {
      throw fieldRangeError('config', `config has ${text.length} characters as JSON, more than the ${maxConfigBytes} bytes a config.json is read with`);
    }
    return text;
  }

  return {
    loadPretrained,
    checkConfig,
    /** Bytes of the pretrained module's heap. */
    heapBytes: () => P.HEAPU8.buffer.byteLength,
    limits: P.pretrainedLimits(),
  };
}
