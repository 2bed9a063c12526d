// attention-api.mjs: the Attention object of the JS API, made from an instantiated Emscripten module.
// Shared by the ES-module loader (attention.mjs) and the standalone page's worker (classic build);
// it imports nothing, so any bundle format can include it.

// The smallest module using a v128 instruction (the probe of wasm-feature-detect's `simd()`):
// (func (result v128) i32.const 0  i8x16.splat  i8x16.popcnt)
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);


/** @returns {boolean} whether this engine validates WebAssembly SIMD (v128) code */
export function engineHasSimd() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * Calls into a raw module (`mod`: the attention or the training module) and returns what `fn`
 * returns. The binding *returns* its errors (`{ $attnError: 'TypeError' | 'RangeError' | 'Error',
 * message, field? }`, see wasm/js_convert.hpp: thrown from inside wasm, they would leave the wasm
 * stack pointer where the throw happened); they are thrown here as errors of that class, with that
 * message and `field`, created here: uncaught in Node, the error then points at this readable module, not at a
 * line of the minified glue. A JS exception raised inside wasm (a caller's Proxy whose trap throws,
 * an Embind conversion error) cannot be caught in wasm: the stack pointer saved before the call is
 * restored before it is rethrown the same way.
 * @template T
 * @param {any} mod
 * @param {() => T} fn
 * @returns {T}
 */
export function call(mod, fn) {
  const sp = mod.stackSave();
  let r;
  try {
    r = fn();
  } catch (e) {
    mod.stackRestore(sp);
    throw cleanError(e, call);
  }
  if (r !== null && typeof r === 'object' && typeof (/** @type {any} */ (r).$attnError) === 'string') {
    throw refusal(/** @type {any} */ (r), call);
  }
  return r;
}

/**
 * The Error a refusal of the binding stands for: `{ $attnError: class, message, field? }`.
 * @param {{ $attnError: string, message: string, field?: string }} r
 * @param {Function} above  frames above this function are dropped from the stack
 * @returns {Error & { field?: string }}
 */
function refusal(r, above) {
  /** @type {Error & { field?: string }} */
  const err = r.$attnError === 'TypeError' ? new TypeError(r.message)
    : r.$attnError === 'RangeError' ? new RangeError(r.message) : new Error(r.message);
  if (typeof r.field === 'string') err.field = r.field;
  if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(err, above);
  return err;
}

/**
 * @param {unknown} e  what the raw module threw
 * @param {Function} above  frames above this function are dropped from the stack
 * @returns {Error & { field?: string }}
 */
function cleanError(e, above) {
  /** @type {Error & { field?: string }} */
  let err;
  if (e instanceof TypeError) err = new TypeError(e.message);
  else if (e instanceof RangeError) err = new RangeError(e.message);
  else if (e instanceof Error) err = new Error(e.message);
  else err = new Error(`the attention core failed with a non-Error exception (${String(e)})`);
  if (e instanceof Error && typeof (/** @type {any} */ (e).field) === 'string') {
    err.field = /** @type {any} */ (e).field;
  }
  if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(err, above);
  return err;
}

/**
 * @param {string} where  e.g. 'forward'
 * @param {unknown} spec
 */
function requireObject(where, spec) {
  if (spec === null || typeof spec !== 'object') {
    throw new TypeError(`${where}: spec must be an object, got ${spec === null ? 'null' : typeof spec}`);
  }
}

/**
 * A TypeError about `field` (its path), created here so that its stack points at the API.
 * @param {string} field
 * @param {string} message
 */
export function fieldTypeError(field, message) {
  const err = /** @type {TypeError & { field?: string }} */ (new TypeError(message));
  err.field = field;
  return err;
}

/**
 * A number argument of a method (not a spec field), or a TypeError naming it.
 * @param {string} field @param {unknown} v
 * @returns {number}
 */
function numberArg(field, v) {
  if (typeof v !== 'number') throw fieldTypeError(field, `${field} must be a number, got ${v === null ? 'null' : typeof v}`);
  return v;
}

/** @param {unknown} e */
const reason = (e) => (e instanceof Error ? e.message : String(e));

/**
 * A resolved shape as results carry it: frozen (sessions and layers share one between results).
 * @param {any} shape
 */
function frozenShape(shape) {
  Object.freeze(shape.kvHeadOf);
  return Object.freeze(shape);
}

/** @param {ArrayBufferLike} buffer */
function isDetached(buffer) {
  if (typeof (/** @type {any} */ (buffer).detached) === 'boolean') return /** @type {any} */ (buffer).detached;
  if (buffer.byteLength !== 0) return false;
  try {
    new Uint8Array(buffer); // throws on a detached buffer
    return false;
  } catch {
    return true;
  }
}

// The typed arrays' own accessors (%TypedArray%.prototype), which a subclass or a Proxy cannot
// replace: `tagOf(v)` is 'Float32Array' etc. for a real typed array and undefined for anything else
// (a DataView, a Proxy of a typed array, an object with a typed array's constructor).
const TYPED_ARRAY_PROTO = Object.getPrototypeOf(Uint8Array.prototype);
const accessor = (/** @type {PropertyKey} */ key) => /** @type {(this: any) => any} */ (
  /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(TYPED_ARRAY_PROTO, key)).get);
const taTag = accessor(Symbol.toStringTag);
const taBuffer = accessor('buffer');
const taByteOffset = accessor('byteOffset');
const taLength = accessor('length');
/** @param {unknown} v */
const tagOf = (v) => /** @type {string | undefined} */ (taTag.call(v));
const TYPED_ARRAY_NAME = /^(Float(32|64)|(Big)?(Ui|I)nt(8|16|32|64)|Uint8Clamped)Array$/;

/**
 * A typed array of the intrinsic class over the same memory as `v` (no copy): what reaches wasm has
 * no overridden `length`, `subarray` or `set` of a subclass.
 * @param {ArrayBufferView} v  a real typed array (tagOf(v) defined)
 */
function plainView(v) {
  const Ctor = /** @type {any} */ (globalThis)[/** @type {string} */ (tagOf(v))];
  return Object.getPrototypeOf(v) === Ctor.prototype ? v : new Ctor(taBuffer.call(v), taByteOffset.call(v), taLength.call(v));
}

/** The fields of trainer.train's options. */
const TRAIN_OPTIONS = ['steps', 'signal', 'onProgress', 'evalEvery', 'chunk'];
/** Seconds of work per chunk of trainer.train: an abort waits for at most one chunk. */
const CHUNK_SECONDS = 0.05;

/** Objects whose own fields are read as nested specs (their fields are named `key.field`). */
const NESTED = new Set(['weights', 'rope', 'model']);

/**
 * Checks one value of a spec (or an argument) before it reaches the core: a typed array must not be
 * detached, and reaches the core as a plain one of its class (plainView); an Array of numbers
 * becomes a Float32Array (a BigInt or any other non-number element is a TypeError naming
 * `field[i]`), provided it is not longer than `maxElements`; an object that imitates a typed array
 * (a Proxy of one) is a TypeError saying so; an object whose constructor cannot be read, or a
 * revoked Proxy, is a TypeError naming the field. So no caller's value can throw inside wasm.
 * @param {unknown} v
 * @param {string} field
 * @param {number} maxElements
 */
function checkValue(v, field, maxElements) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) {
    if (typeof v === 'bigint') throw fieldTypeError(field, `${field} must be a number, got a bigint (${String(v)}n)`);
    return v;
  }
  if (tagOf(v) !== undefined) {
    if (isDetached(taBuffer.call(v))) {
      throw fieldTypeError(field, `${field} is a view of a detached ArrayBuffer (transferred to a worker or freed): pass a live array`);
    }
    return plainView(/** @type {ArrayBufferView} */ (v));
  }
  let isArray, ctorName;
  try {
    isArray = Array.isArray(v);
    ctorName = isArray || ArrayBuffer.isView(v) ? undefined : /** @type {any} */ (v).constructor?.name;
  } catch (e) {
    throw fieldTypeError(field, `${field} could not be read (${reason(e)})`);
  }
  if (typeof ctorName === 'string' && TYPED_ARRAY_NAME.test(ctorName)) {
    throw fieldTypeError(field, `${field} must be a ${ctorName} itself, got an object imitating one (a Proxy of it?): ` +
      'pass the typed array, or a copy of it');
  }
  if (isArray) {
    const a = /** @type {unknown[]} */ (v);
    if (a.length > maxElements) {
      const err = /** @type {RangeError & { field?: string }} */ (
        new RangeError(`${field} has ${a.length} elements, above the size cap (${maxElements})`));
      err.field = field;
      throw err;
    }
    const out = new Float32Array(a.length);
    for (let i = 0; i < a.length; i++) {
      const e = a[i];
      if (typeof e !== 'number') {
        throw fieldTypeError(field, `${field}[${i}] must be a number, got ${typeof e}${typeof e === 'bigint' ? ` (${String(e)}n)` : ''}`);
      }
      out[i] = e;
    }
    return out;
  }
  return v;
}

/**
 * A copy of `spec` holding its own enumerable fields only (inherited ones, e.g. a field set on
 * Object.prototype, are not read), in an object without a prototype, with nested specs (weights,
 * rope, model) copied the same way and each value checked by `checkValue`. A getter that throws
 * becomes a TypeError naming its field.
 * @param {object} spec
 * @param {string} prefix  '' at the top, 'weights' etc. below
 * @param {number} maxElements
 * @returns {Record<string, unknown>}
 */
function ownFields(spec, prefix, maxElements) {
  /** @type {string[]} */
  let keys;
  try {
    keys = Object.keys(spec);
  } catch (e) {
    throw fieldTypeError(prefix || undefined, `${prefix || 'the spec'}: its fields could not be listed (${reason(e)})`);
  }
  const out = Object.create(null);
  for (const key of keys) {
    const field = prefix ? `${prefix}.${key}` : key;
    let v;
    try {
      v = /** @type {any} */ (spec)[key];
    } catch (e) {
      throw fieldTypeError(field, `${field} could not be read: its getter threw (${reason(e)})`);
    }
    const plain = v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v);
    out[key] = plain && NESTED.has(key) && !prefix ? ownFields(v, field, maxElements) : checkValue(v, field, maxElements);
  }
  return out;
}

// Frees the wasm side of sessions that were dropped without dispose().
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((raw) => {
        try {
          raw.delete();
        } catch {
          /* already gone */
        }
      })
    : null;

/** Owns one raw Embind object (a session, a layer or a trainer): frees it on dispose() or when dropped. */
export class Handle {
  /** @type {any} the raw Embind object, null once disposed */
  #raw;
  #what;

  /** @param {any} raw  @param {string} what  e.g. 'session', for messages */
  constructor(raw, what) {
    this.#raw = raw;
    this.#what = what;
    finalizer?.register(this, raw, this);
  }

  /** The raw object; throws once disposed. (For the subclasses.) */
  live() {
    if (!this.#raw) throw new Error(`${this.#what} is disposed`);
    return this.#raw;
  }

  /** Frees the wasm memory. Later calls throw; calling dispose() again does nothing. */
  dispose() {
    if (!this.#raw) return;
    finalizer?.unregister(this);
    const raw = this.#raw;
    this.#raw = null;
    raw.delete();
  }
}

/**
 * An Error for a call that needs an on-demand module not loaded yet (this Attention object was loaded
 * with `loadAttention({ training: false })`), naming how to load it; `field: 'training'`, the load option.
 * @param {string} where  the call, e.g. 'createTrainer'
 * @param {string} name  the module, e.g. 'training'
 * @param {string} how  what to call, e.g. '`await attn.loadTraining()`'
 * @param {Function} above  frames above this function are dropped from the stack
 * @returns {never}
 */
function notLoaded(where, name, how, above) {
  /** @type {Error & { field?: string }} */
  const err = new Error(`${where}: the ${name} module is not loaded (this Attention object was loaded with ` +
    `\`loadAttention({ training: false })\`): call ${how} first, or load with \`loadAttention()\` (training: true, the default)`);
  err.field = 'training';
  if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(err, above);
  throw err;
}

/**
 * A load that runs once: later calls return the same promise; after a failure the next call tries again.
 * @template T
 * @param {() => Promise<T>} load
 * @returns {() => Promise<T>}
 */
function once(load) {
  /** @type {Promise<T> | null} */
  let pending = null;
  return () => {
    if (!pending) {
      pending = load();
      pending.catch(() => { pending = null; });
    }
    return pending;
  };
}

/**
 * Wraps the raw Embind modules: the attention module `M` now, the training module (the lab's
 * trainer, a second Emscripten module of the same build) when `loadTraining()` is called.
 * @param {any} M the instantiated Emscripten attention module
 * @param {'fma' | 'simd' | 'scalar'} build
 * @param {() => Promise<any>} [loadTrainingModule] instantiates the training module of this build
 * @param {{ configurator?: () => Promise<any>, pretrained?: () => Promise<any>, tokenizer?: (json: unknown, config?: unknown) => Promise<any> }} [lazy]
 *   what loads on demand: `configurator` instantiates the configurator module (the same for every
 *   build); `pretrained` instantiates the pretrained module of this build and resolves to its API
 *   (pretrained-api.mjs); `tokenizer` imports tokenizer.mjs and makes a tokenizer
 * @returns {Attention}
 */
export function makeAttention(M, build, loadTrainingModule, lazy = {}) {
  /** @type {any} the instantiated training module, null until loadTraining() resolves */
  let T = null;
  /** @type {any} the instantiated configurator module, null until loadConfigurator() resolves */
  let C = null;
  /** @type {any} the pretrained module's API, null until loadPretrained first resolves it */
  let pretrained = null;
  /** The training module, or an Error saying how to load it. @param {string} where e.g. 'createTrainer' */
  const training = (where) => T ?? notLoaded(where, 'training', '`await attn.loadTraining()`', training);
  /** The configurator module, or an Error saying how to load it. @param {string} where e.g. 'recommend' */
  const configurator = (where) => C ?? notLoaded(where, 'configurator',
    '`await attn.loadConfigurator()` (or `await attn.loadTraining()`, which loads it too)', configurator);
  const loadTrainingOnce = once(async () => {
    if (!loadTrainingModule) throw new Error('loadTraining: this Attention object was made without a training module');
    const [trainingModule] = await Promise.all([loadTrainingModule(), api.loadConfigurator()]);
    T = trainingModule;
    return api;
  });
  const loadConfiguratorOnce = once(async () => {
    if (!lazy.configurator) throw new Error('loadConfigurator: this Attention object was made without the configurator module');
    C = await lazy.configurator();
    return api;
  });
  const loadPretrainedOnce = once(async () => {
    if (!lazy.pretrained) throw new Error('loadPretrained: this Attention object was made without the pretrained module');
    return (pretrained = await lazy.pretrained());
  });

  /** A decoding session: the weights and a KV cache in wasm memory (see `Attention.createSession`). */
  class Session extends Handle {
    /** @type {any} */
    #shape;

    /** @param {any} raw */
    constructor(raw) {
      super(raw, 'session');
      this.#shape = frozenShape(call(M, () => raw.shape()));
    }

    /** The resolved geometry (as `forward`'s `shape`). */
    get shape() {
      this.live();
      return this.#shape;
    }

    /** Tokens in the cache. */
    get length() {
      return call(M, () => this.live().length());
    }

    /** Bytes the cache holds now, at float32. */
    get cacheBytes() {
      return call(M, () => this.live().cacheBytes());
    }

    /** The most tokens the cache can hold. */
    get maxLen() {
      return call(M, () => this.live().maxLen());
    }

    /**
     * Appends k >= 1 tokens and returns their outputs (and weights `(H, k, length)` when asked).
     * @param {Float32Array} x `(k, dModel)`
     */
    append(x) {
      const raw = this.live();
      const checked = checkValue(x, 'x', maxElements);
      const r = call(M, () => raw.append(checked)); // the binding returns copies JS owns
      r.shape = this.#shape;
      return r;
    }

    /** Empties the cache; positions count from 0 again. */
    reset() {
      call(M, () => this.live().reset());
    }

    /**
     * Keeps the first `n` cached tokens.
     * @param {number} n
     */
    truncate(n) {
      call(M, () => this.live().truncate(n));
    }
  }

  /** A block with its weights packed once in wasm memory (see `Attention.createLayer`). */
  class Layer extends Handle {
    /** @type {any} */
    #shape;

    /** @param {any} raw */
    constructor(raw) {
      super(raw, 'layer');
      this.#shape = frozenShape(call(M, () => raw.shape()));
    }

    /** The resolved geometry (as `forward`'s `shape`). */
    get shape() {
      this.live();
      return this.#shape;
    }

    /** The layer's dModel: x holds a whole number of rows of this many floats. */
    get dModel() {
      return call(M, () => this.live().dModel());
    }

    /**
     * Runs x `(N, dModel)`, any N >= 1, through the block: the same `{ output, weights? }`, bit for
     * bit, as `attn.forward` with the layer's spec and `seqLen: N`.
     * @param {Float32Array} x
     */
    forward(x) {
      const raw = this.live();
      const checked = checkValue(x, 'x', maxElements);
      const r = call(M, () => raw.forward(checked));
      r.shape = this.#shape;
      return r;
    }
  }

  /** One layer and a KV cache, for timing one generated token (see `Attention.createDecodeProbe`). */
  class DecodeProbe extends Handle {
    /** @param {any} raw */
    constructor(raw) {
      super(raw, 'decode probe');
    }

    /**
     * One token against `context` cached tokens, timed for about budgetMs.
     * @param {number} context @param {number} budgetMs
     */
    cachedStep(context, budgetMs) {
      const raw = this.live();
      return call(T, () => raw.cachedStep(numberArg('context', context), numberArg('budgetMs', budgetMs)));
    }

    /**
     * The step without a cache (every earlier key and value recomputed), in calls of about budgetMs.
     * @param {number} context @param {number} budgetMs
     */
    uncachedStep(context, budgetMs) {
      const raw = this.live();
      return call(T, () => raw.uncachedStep(numberArg('context', context), numberArg('budgetMs', budgetMs)));
    }
  }

  /** A training run of a tiny transformer in wasm memory (see `Attention.createTrainer`). */
  class Trainer extends Handle {
    /** @param {any} raw */
    constructor(raw) {
      super(raw, 'trainer');
    }

    /** Optimiser steps taken so far. */
    get steps() {
      return call(T, () => this.live().steps());
    }

    /** Tokens of the task's vocabulary. */
    get vocabSize() {
      return call(T, () => this.live().vocabSize());
    }

    /**
     * Runs n optimiser steps; `loss` is the last step's mean training cross-entropy (nats per token).
     * n is an integer >= 1 and at most `maxStepsPerCall` (about a second of work).
     */
    step(n = 1) {
      const raw = this.live();
      if (typeof n !== 'number') {
        throw fieldTypeError('n', `n must be a number, got ${n === null ? 'null' : Array.isArray(n) ? 'an Array' : typeof n}`);
      }
      return call(T, () => raw.step(n));
    }

    /** The most steps one synchronous step(n) call may run: about a second of work (the core's cost model), >= 1. */
    get maxStepsPerCall() {
      return call(T, () => this.live().maxStepsPerCall());
    }

    /**
     * Runs `steps` optimiser steps in chunks sized by time (about CHUNK_SECONDS of work each, from the
     * core's estimate of a step and then from the chunks measured, at most `maxStepsPerCall`),
     * yielding to the event loop between chunks, so that the page (or worker) stays responsive and an
     * abort lands within about 100 ms. With `evalEvery`, `evaluate()` runs after every `evalEvery`
     * steps (chunks end there) and its result is passed to onProgress as `evaluation`.
     * `signal`: an AbortSignal, or any object with a boolean `aborted` (a worker may pass its own);
     * when it is aborted before a chunk, the promise rejects with `signal.reason` (an AbortError
     * DOMException when it has none) and the trainer keeps the steps already taken. An abort after
     * the last chunk changes nothing: every step ran, the promise resolves.
     * `onProgress({ step, loss, done, steps, evaluation? })` is called after each chunk.
     * Resolves to the last chunk's `{ step, loss }`.
     * @param {import('./attention.d.ts').TrainOptions} options
     */
    async train(options) {
      if (options === null || typeof options !== 'object') {
        throw new TypeError(`train: options must be an object { steps, signal?, onProgress?, evalEvery?, chunk? }, got ${options === null ? 'null' : typeof options}`);
      }
      const o = /** @type {any} */ (ownFields(options, '', 0));
      for (const k of Object.keys(o)) {
        if (!TRAIN_OPTIONS.includes(k)) {
          throw fieldTypeError(k, `train options have an unknown field '${k}'; known fields: ${TRAIN_OPTIONS.join(', ')}`);
        }
      }
      const { steps, signal, onProgress, evalEvery } = o;
      const integer = (/** @type {string} */ field, /** @type {unknown} */ v, /** @type {number} */ max) => {
        if (typeof v !== 'number') throw fieldTypeError(field, `${field} must be a number, got ${typeof v}`);
        if (!Number.isInteger(v) || v < 1 || v > max) {
          const err = /** @type {RangeError & { field?: string }} */ (new RangeError(`${field} (${v}) must be an integer between 1 and ${max}`));
          err.field = field;
          throw err;
        }
        return v;
      };
      integer('steps', steps, 1e9);
      if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof signal.aborted === 'boolean')) {
        throw fieldTypeError('signal', 'signal must be an AbortSignal (or an object with a boolean `aborted`)');
      }
      if (onProgress !== undefined && typeof onProgress !== 'function') {
        throw fieldTypeError('onProgress', `onProgress must be a function, got ${typeof onProgress}`);
      }
      if (evalEvery !== undefined) integer('evalEvery', evalEvery, 1e9);
      const cap = this.maxStepsPerCall;
      if (o.chunk !== undefined) integer('chunk', o.chunk, cap);
      // Steps per chunk: from the core's estimate at first, then from the time the chunks took.
      let perStep = call(T, () => this.live().stepSeconds());
      let done = 0;
      let last = { step: this.steps, loss: NaN };
      while (done < steps) {
        if (signal?.aborted) {
          throw signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
        }
        const sized = o.chunk ?? Math.max(1, Math.min(cap, Math.floor(CHUNK_SECONDS / Math.max(perStep, 1e-9))));
        const toEval = evalEvery === undefined ? Infinity : evalEvery - (done % evalEvery);
        const n = Math.min(sized, steps - done, toEval);
        const t0 = performance.now();
        last = this.step(n);
        perStep = Math.max(1e-9, (performance.now() - t0) / 1000 / n);
        done += n;
        /** @type {{ step: number, loss: number, done: number, steps: number, evaluation?: any }} */
        const progress = { step: last.step, loss: last.loss, done, steps };
        if (evalEvery !== undefined && done % evalEvery === 0) progress.evaluation = this.evaluate();
        onProgress?.(progress);
        if (done < steps) await new Promise((resolve) => setTimeout(resolve, 0)); // let events (and aborts) in
      }
      return last;
    }

    /** Loss, bits per token and accuracy on held-out data. */
    evaluate() {
      return call(T, () => this.live().evaluate());
    }

    /** Per layer and head: previousToken, induction, firstToken and diagonal scores in [0, 1]. */
    headScores() {
      return call(T, () => this.live().headScores());
    }

    /** Attention weights for a token sequence: `weights` is (layers, H, N, N). */
    attention(tokens) {
      const raw = this.live();
      const checked = checkValue(tokens, 'tokens', maxElements);
      return call(T, () => raw.attention(checked));
    }

    /**
     * One layer's attention over a token sequence, as the inference core runs it: `{ spec, x, weights }`
     * with `x` (N, D) what the layer's attention reads (after its LayerNorm) and `weights` its
     * projections in `forward`'s names, so that `attn.forward({ ...spec, x, weights })` gives the maps of
     * `attention(tokens)` for that layer (and a session of the same spec decodes it).
     * @param {ArrayLike<number>} tokens @param {number} layer 0 to nLayers - 1
     */
    layer(tokens, layer) {
      const raw = this.live();
      const checked = checkValue(tokens, 'tokens', maxElements);
      return call(T, () => raw.layer(checked, layer));
    }

    /** The model's probabilities for the token after the sequence: a Float32Array of vocabSize. */
    nextTokenProbs(tokens) {
      const raw = this.live();
      const checked = checkValue(tokens, 'tokens', maxElements);
      return call(T, () => raw.nextTokenProbs(checked));
    }

    /** The model as bytes (spec, step, weights): `attn.loadModel(bytes)` restores it. */
    exportModel() {
      return call(T, () => this.live().exportModel());
    }

    /**
     * The model as a Hugging Face checkpoint: `{ config, safetensors }`, the text of its `config.json` and the
     * bytes of its `model.safetensors` (docs/api.md): block 'llama' as llama, 'deepseek' as deepseek_v2, the
     * GPT-style block's MHA as gpt2 and its MQA as gpt_bigcode. Throws a RangeError naming the field where no
     * architecture computes the model.
     */
    exportCheckpoint() {
      return call(T, () => this.live().exportCheckpoint());
    }

    /** The `model_type` that `exportCheckpoint()` writes ('llama', 'deepseek_v2', 'gpt2', 'gpt_bigcode'), or '' where it refuses. */
    get checkpointType() {
      return call(T, () => this.live().checkpointType());
    }
  }

  const buildInfo = M.buildInfo();
  if (buildInfo.build !== build) {
    throw new Error(`makeAttention: the module is the ${buildInfo.build} build, not the ${build} build it was loaded as`);
  }
  const maxElements = Math.floor(buildInfo.maxWorkBytes / 4);
  /** The spec's own fields, checked (see ownFields), after the object check. */
  const own = (/** @type {string} */ where, /** @type {unknown} */ spec) => {
    requireObject(where, spec);
    return ownFields(/** @type {object} */ (spec), '', maxElements);
  };
  /** @type {Attention} */
  const api = Object.freeze({
    info: Object.freeze({
      simd: Boolean(buildInfo.simd),
      build,
      version: buildInfo.version,
      maxWorkBytes: buildInfo.maxWorkBytes,
      maxSyncSeconds: buildInfo.maxSyncSeconds,
    }),
    forward(spec) {
      const s = own('forward', spec);  // a prototype-free copy: keep it so (no spread)
      const { returnIntermediates } = s;
      delete s.returnIntermediates;
      if (returnIntermediates === undefined || returnIntermediates === false) {
        const r = call(M, () => M.forward(s));
        frozenShape(r.shape);
        return r;
      }
      if (returnIntermediates !== true) {
        throw fieldTypeError('returnIntermediates', `returnIntermediates must be a boolean, got ${typeof returnIntermediates}`);
      }
      const r = call(M, () => M.forwardIntermediates(s));
      if (s.returnWeights === true) r.weights = r.intermediates.attention.data.slice();
      frozenShape(r.shape);
      return r;
    },
    resolveShape(spec) {
      const s = own('resolveShape', spec);
      return frozenShape(call(M, () => M.resolveShape(s)));
    },
    createSession(spec) {
      const s = own('createSession', spec);
      return new Session(call(M, () => M.createSession(s)));
    },
    createLayer(spec) {
      const s = own('createLayer', spec);
      return new Layer(call(M, () => M.createLayer(s)));
    },
    paramCount(cfg) {
      const s = own('paramCount', cfg);
      return call(M, () => M.paramCount(s));
    },
    kvCacheBytes(cfg) {
      const s = own('kvCacheBytes', cfg);
      return call(M, () => M.kvCacheBytes(s));
    },
    presets() {
      return call(M, () => M.presets());
    },
    // The configurator's search lives in a small module of its own, loaded on demand (the first map does not need it).
    recommend(request) {
      const raw = configurator('recommend');
      const s = own('recommend', request);
      return call(raw, () => raw.recommend(s));
    },
    deploymentTargets() {
      const raw = configurator('deploymentTargets');
      return call(raw, () => raw.deploymentTargets());
    },
    sizeTable() {
      return call(M, () => M.sizeTable());
    },
    createTrainer(spec) {
      const raw = training('createTrainer');
      const s = own('createTrainer', spec);
      return new Trainer(call(raw, () => raw.createTrainer(s)));
    },
    loadModel(bytes, options) {
      const raw = training('loadModel');
      let allowLongWork = false;
      let text;  // a file saved without its 'chars' text (the bundled models) is given it here
      let tokens;  // a task 'tokens' file (it keeps its ids by reference) is given them here
      if (options !== undefined) {
        const o = own('loadModel options', options);
        for (const k of Object.keys(o)) {
          if (k !== 'allowLongWork' && k !== 'text' && k !== 'tokens') {
            throw fieldTypeError(k, `loadModel options have an unknown field '${k}'; known fields: allowLongWork, text, tokens`);
          }
        }
        if (o.allowLongWork !== undefined && typeof o.allowLongWork !== 'boolean') {
          throw fieldTypeError('allowLongWork', `allowLongWork must be a boolean, got ${typeof o.allowLongWork}`);
        }
        if (o.text !== undefined && typeof o.text !== 'string') {
          throw fieldTypeError('text', `text must be a string, got ${o.text === null ? 'null' : typeof o.text}`);
        }
        allowLongWork = o.allowLongWork === true;
        text = o.text;
        tokens = o.tokens;  // a live, plain view or an Array (own() checked it); the binding checks its elements
      }
      const checked = checkValue(bytes, 'bytes', Infinity); // a plain view; detached, an imitation: refused
      if (tagOf(checked) !== 'Uint8Array') {
        const got = bytes === null ? 'null' : tagOf(bytes) ? `a ${tagOf(bytes)}` : typeof bytes;
        throw fieldTypeError('bytes', `loadModel needs a Uint8Array, got ${got}`);
      }
      return new Trainer(call(raw, () => raw.loadModel(checked, allowLongWork, text, tokens))); // read from bytes range by range
    },
    createDecodeProbe(spec) {
      const raw = training('createDecodeProbe');
      const s = own('createDecodeProbe', spec);
      return new DecodeProbe(call(raw, () => raw.createDecodeProbe(s)));
    },
    copyBandwidth(budgetMs) {
      const raw = training('copyBandwidth');
      return call(raw, () => raw.decodeCopyBandwidth(numberArg('budgetMs', budgetMs)));
    },
    /** Whether the training module is loaded (createTrainer and loadModel work). */
    get trainingLoaded() {
      return T !== null;
    },
    /**
     * Loads the training module of this build (once; later calls return the same promise) and
     * resolves to this same Attention object. A failed load may be retried.
     */
    loadTraining() {
      return loadTrainingOnce();
    },
    /** Whether the configurator module is loaded (recommend and deploymentTargets work). */
    get configuratorLoaded() {
      return C !== null;
    },
    /**
     * Loads the configurator module (the configurator's search: recommend, deploymentTargets) once;
     * later calls return the same promise. Resolves to this same Attention object; a failed load may
     * be retried. `loadTraining()` loads it too.
     */
    loadConfigurator() {
      return loadConfiguratorOnce();
    },
    /**
     * Opens a Hugging Face checkpoint (docs/api.md, "Pretrained checkpoints"); the first call loads the
     * pretrained module of this build.
     */
    async loadPretrained(options) {
      return (await loadPretrainedOnce()).loadPretrained(options);
    },
    /**
     * What the loader reads of a config.json alone, or the error naming the key it refuses (docs/api.md,
     * "Checking a config first"): a checkpoint can be refused before any weight is fetched.
     */
    async checkPretrainedConfig(config) {
      return (await loadPretrainedOnce()).checkConfig(config);
    },
    /** The pretrained module's limits: { maxCheckpointBytes, maxHeaderBytes }. */
    async pretrainedLimits() {
      return { ...(await loadPretrainedOnce()).limits };
    },
    /**
     * A checkpoint's tokenizer (tokenizer.json, and tokenizer_config.json when there is one) through the
     * Hugging Face tokenizers port for JavaScript, which loads on the first call (docs/api.md, "Tokenizers").
     */
    async loadTokenizer(tokenizerJson, tokenizerConfig) {
      if (!lazy.tokenizer) throw new Error('loadTokenizer: this Attention object was made without the tokenizer');
      return lazy.tokenizer(tokenizerJson, tokenizerConfig);
    },
    /** Whether the pretrained module is loaded. */
    get pretrainedLoaded() {
      return pretrained !== null;
    },
    /** Bytes of wasm memory the core holds now: the attention module's heap plus the training, configurator and pretrained modules'. */
    heapBytes() {
      return M.HEAPU8.buffer.byteLength + (T ? T.HEAPU8.buffer.byteLength : 0) + (C ? C.HEAPU8.buffer.byteLength : 0) +
        (pretrained ? pretrained.heapBytes() : 0);
    },
  });
  return api;
}
