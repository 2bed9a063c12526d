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
 * Calls into the raw module and rethrows whatever it throws as a clean `Error` of the same class
 * (`TypeError`, `RangeError` or `Error`) with the same message and `field`, created here: uncaught
 * in Node, the error then points at this readable module, not at a line of the minified glue.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
export function call(fn) {
  try {
    return fn();
  } catch (e) {
    throw cleanError(e, call);
  }
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

/** @param {unknown} e */
const reason = (e) => (e instanceof Error ? e.message : String(e));

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

/** Objects whose own fields are read as nested specs (their fields are named `key.field`). */
const NESTED = new Set(['weights', 'rope', 'model']);

/**
 * Checks one value of a spec (or an argument) before it reaches the core: a typed array must not be
 * detached; an Array of numbers becomes a Float32Array (a BigInt or any other non-number element is
 * a TypeError naming `field[i]`), provided it is not longer than `maxElements`.
 * @param {unknown} v
 * @param {string} field
 * @param {number} maxElements
 */
function checkValue(v, field, maxElements) {
  if (ArrayBuffer.isView(v)) {
    if (isDetached(v.buffer)) {
      throw fieldTypeError(field, `${field} is a view of a detached ArrayBuffer (transferred to a worker or freed): pass a live array`);
    }
    return v;
  }
  if (Array.isArray(v)) {
    if (v.length > maxElements) {
      const err = /** @type {RangeError & { field?: string }} */ (
        new RangeError(`${field} has ${v.length} elements, above the size cap (${maxElements})`));
      err.field = field;
      throw err;
    }
    const out = new Float32Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const e = v[i];
      if (typeof e !== 'number') {
        throw fieldTypeError(field, `${field}[${i}] must be a number, got ${typeof e}${typeof e === 'bigint' ? ` (${String(e)}n)` : ''}`);
      }
      out[i] = e;
    }
    return out;
  }
  if (typeof v === 'bigint') throw fieldTypeError(field, `${field} must be a number, got a bigint (${String(v)}n)`);
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
 * Wraps the raw Embind modules: the attention module `M` now, the training module (the lab's
 * trainer, a second Emscripten module of the same build) when `loadTraining()` is called.
 * @param {any} M the instantiated Emscripten attention module
 * @param {'simd' | 'scalar'} build
 * @param {() => Promise<any>} [loadTrainingModule] instantiates the training module of this build
 * @param {{ pretrained?: () => Promise<any>, tokenizer?: (json: unknown, config?: unknown) => Promise<any> }} [lazy]
 *   what loads on demand: `pretrained` instantiates the pretrained module of this build and resolves to
 *   its API (pretrained-api.mjs); `tokenizer` imports tokenizer.mjs and makes a tokenizer
 * @returns {Attention}
 */
export function makeAttention(M, build, loadTrainingModule, lazy = {}) {
  /** @type {any} the instantiated training module, null until loadTraining() resolves */
  let T = null;
  /** @type {Promise<Attention> | null} */
  let trainingLoad = null;
  /** @type {any} the pretrained module's API, null until loadPretrained first resolves it */
  let pretrained = null;
  /** @type {Promise<any> | null} */
  let pretrainedLoad = null;
  /**
   * The training module, or an Error saying how to load it (field 'training': the load option).
   * @param {string} where e.g. 'createTrainer'
   */
  const training = (where) => {
    if (T) return T;
    const err = /** @type {Error & { field?: string }} */ (new Error(
      `${where}: the training module is not loaded (this Attention object was loaded with ` +
      '`loadAttention({ training: false })`): call `await attn.loadTraining()` first, ' +
      'or load with `loadAttention()` (training: true, the default)'));
    err.field = 'training';
    if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(err, training);
    throw err;
  };

  /** A decoding session: the weights and a KV cache in wasm memory (see `Attention.createSession`). */
  class Session extends Handle {
    /** @param {any} raw */
    constructor(raw) {
      super(raw, 'session');
    }

    /** Tokens in the cache. */
    get length() {
      return call(() => this.live().length());
    }

    /** Bytes the cache holds now, at float32. */
    get cacheBytes() {
      return call(() => this.live().cacheBytes());
    }

    /** The most tokens the cache can hold. */
    get maxLen() {
      return call(() => this.live().maxLen());
    }

    /**
     * Appends k >= 1 tokens and returns their outputs (and weights `(H, k, length)` when asked).
     * @param {Float32Array} x `(k, dModel)`
     */
    append(x) {
      const raw = this.live();
      const checked = checkValue(x, 'x', maxElements);
      return call(() => raw.append(checked)); // the binding returns copies JS owns
    }

    /** Empties the cache; positions count from 0 again. */
    reset() {
      call(() => this.live().reset());
    }

    /**
     * Keeps the first `n` cached tokens.
     * @param {number} n
     */
    truncate(n) {
      call(() => this.live().truncate(n));
    }
  }

  /** A block with its weights packed once in wasm memory (see `Attention.createLayer`). */
  class Layer extends Handle {
    /** @param {any} raw */
    constructor(raw) {
      super(raw, 'layer');
    }

    /** The layer's dModel: x holds a whole number of rows of this many floats. */
    get dModel() {
      return call(() => this.live().dModel());
    }

    /**
     * Runs x `(N, dModel)`, any N >= 1, through the block: the same `{ output, weights? }`, bit for
     * bit, as `attn.forward` with the layer's spec and `seqLen: N`.
     * @param {Float32Array} x
     */
    forward(x) {
      const raw = this.live();
      const checked = checkValue(x, 'x', maxElements);
      return call(() => raw.forward(checked));
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
      return call(() => this.live().steps());
    }

    /** Tokens of the task's vocabulary. */
    get vocabSize() {
      return call(() => this.live().vocabSize());
    }

    /**
     * Runs n optimiser steps; `loss` is the last step's mean training cross-entropy (nats per token).
     * n is an integer >= 1 and at most `maxStepsPerCall` (kMaxStepTokens training tokens per call).
     */
    step(n = 1) {
      const raw = this.live();
      if (typeof n !== 'number') {
        throw fieldTypeError('n', `n must be a number, got ${n === null ? 'null' : Array.isArray(n) ? 'an Array' : typeof n}`);
      }
      return call(() => raw.step(n));
    }

    /** The most steps one synchronous step(n) call may run: floor(maxStepTokens / (batchSize * seqLen)), >= 1. */
    get maxStepsPerCall() {
      return call(() => this.live().maxStepsPerCall());
    }

    /**
     * Runs `steps` optimiser steps in chunks of at most `maxStepsPerCall`, yielding to the event loop
     * between chunks, so that the page (or worker) stays responsive. Stops when `signal` aborts: the
     * promise rejects with `signal.reason` (an AbortError DOMException by default) and the trainer
     * keeps the steps already taken. `onProgress({ step, loss, done, steps, evaluation? })` is called after
     * each chunk; with `evalEvery`, chunks end at every multiple of `evalEvery` steps and the progress of
     * those carries `evaluation` (the result of `evaluate()`). Resolves to the last chunk's `{ step, loss }`.
     * @param {{ steps: number, signal?: AbortSignal, onProgress?: (p: { step: number, loss: number, done: number, steps: number, evaluation?: { loss: number, bitsPerToken: number, accuracy: number } }) => void, chunk?: number, evalEvery?: number }} options
     */
    async train(options) {
      if (options === null || typeof options !== 'object') {
        throw new TypeError(`train: options must be an object { steps, signal?, onProgress?, chunk?, evalEvery? }, got ${options === null ? 'null' : typeof options}`);
      }
      const o = ownFields(options, '', 0);
      for (const k of Object.keys(o)) {
        if (!['steps', 'signal', 'onProgress', 'chunk', 'evalEvery'].includes(k)) {
          throw fieldTypeError(k, `train options have an unknown field '${k}'; known fields: chunk, evalEvery, onProgress, signal, steps`);
        }
      }
      const { steps, signal, onProgress } = /** @type {any} */ (o);
      if (typeof steps !== 'number') throw fieldTypeError('steps', `steps must be a number, got ${typeof steps}`);
      if (!Number.isInteger(steps) || steps < 1 || steps > 1e9) {
        const err = /** @type {RangeError & { field?: string }} */ (new RangeError(`steps (${steps}) must be an integer between 1 and 1000000000`));
        err.field = 'steps';
        throw err;
      }
      if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof signal.aborted === 'boolean')) {
        throw fieldTypeError('signal', 'signal must be an AbortSignal');
      }
      if (onProgress !== undefined && typeof onProgress !== 'function') {
        throw fieldTypeError('onProgress', `onProgress must be a function, got ${typeof onProgress}`);
      }
      const cap = this.maxStepsPerCall;
      let chunk = cap;
      if (o.chunk !== undefined) {
        if (typeof o.chunk !== 'number' || !Number.isInteger(o.chunk) || o.chunk < 1 || o.chunk > cap) {
          const err = /** @type {RangeError & { field?: string }} */ (new RangeError(`chunk (${String(o.chunk)}) must be an integer between 1 and maxStepsPerCall (${cap})`));
          err.field = 'chunk';
          throw err;
        }
        chunk = o.chunk;
      }
      const evalEvery = o.evalEvery;
      if (evalEvery !== undefined && (typeof evalEvery !== 'number' || !Number.isInteger(evalEvery) || evalEvery < 1 || evalEvery > 1e9)) {
        const err = /** @type {RangeError & { field?: string }} */ (new RangeError(`evalEvery (${String(evalEvery)}) must be an integer between 1 and 1000000000`));
        err.field = 'evalEvery';
        throw err;
      }
      let done = 0;
      let last = { step: this.steps, loss: NaN };
      while (done < steps) {
        signal?.throwIfAborted();
        const toEval = evalEvery === undefined ? Infinity : evalEvery - (done % evalEvery);
        const n = Math.min(chunk, steps - done, toEval);
        last = this.step(n);
        done += n;
        /** @type {{ step: number, loss: number, done: number, steps: number, evaluation?: any }} */
        const progress = { step: last.step, loss: last.loss, done, steps };
        if (evalEvery !== undefined && done % evalEvery === 0) progress.evaluation = this.evaluate();
        onProgress?.(progress);
        await new Promise((resolve) => setTimeout(resolve, 0)); // let events (and aborts) in
      }
      signal?.throwIfAborted();
      return last;
    }

    /** Loss, bits per token and accuracy on held-out data. */
    evaluate() {
      return call(() => this.live().evaluate());
    }

    /** Per layer and head: previousToken, induction, firstToken and diagonal scores in [0, 1]. */
    headScores() {
      return call(() => this.live().headScores());
    }

    /** Attention weights for a token sequence: `weights` is (layers, H, N, N). */
    attention(tokens) {
      const raw = this.live();
      const checked = checkValue(tokens, 'tokens', maxElements);
      return call(() => raw.attention(checked));
    }

    /** The model as bytes (spec, step, weights): `attn.loadModel(bytes)` restores it. */
    exportModel() {
      return call(() => this.live().exportModel());
    }
  }

  const buildInfo = M.buildInfo();
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
      maxSyncFlops: buildInfo.maxSyncFlops,
      maxStepTokens: buildInfo.maxStepTokens,
    }),
    forward(spec) {
      const s = own('forward', spec);  // a prototype-free copy: keep it so (no spread)
      const { returnIntermediates } = s;
      delete s.returnIntermediates;
      if (returnIntermediates === undefined || returnIntermediates === false) return call(() => M.forward(s));
      if (returnIntermediates !== true) {
        throw fieldTypeError('returnIntermediates', `returnIntermediates must be a boolean, got ${typeof returnIntermediates}`);
      }
      const r = call(() => M.forwardIntermediates(s));
      if (s.returnWeights === true) r.weights = r.intermediates.attention.data.slice();
      return r;
    },
    resolveShape(spec) {
      const s = own('resolveShape', spec);
      return call(() => M.resolveShape(s));
    },
    createSession(spec) {
      const s = own('createSession', spec);
      return new Session(call(() => M.createSession(s)));
    },
    createLayer(spec) {
      const s = own('createLayer', spec);
      return new Layer(call(() => M.createLayer(s)));
    },
    paramCount(cfg) {
      const s = own('paramCount', cfg);
      return call(() => M.paramCount(s));
    },
    kvCacheBytes(cfg) {
      const s = own('kvCacheBytes', cfg);
      return call(() => M.kvCacheBytes(s));
    },
    presets() {
      return call(() => M.presets());
    },
    recommend(request) {
      const s = own('recommend', request);
      return call(() => M.recommend(s));
    },
    deploymentTargets() {
      return call(() => M.deploymentTargets());
    },
    sizeTable() {
      return call(() => M.sizeTable());
    },
    createTrainer(spec) {
      const raw = training('createTrainer');
      const s = own('createTrainer', spec);
      return new Trainer(call(() => new raw.RawTrainer(s)));
    },
    loadModel(bytes) {
      const raw = training('loadModel');
      if (!(bytes instanceof Uint8Array)) {
        const got = bytes === null ? 'null' : ArrayBuffer.isView(bytes) ? `a ${bytes.constructor.name}` : typeof bytes;
        throw fieldTypeError('bytes', `loadModel needs a Uint8Array, got ${got}`);
      }
      checkValue(bytes, 'bytes', Infinity); // detached?
      return new Trainer(call(() => raw.loadModel(bytes))); // size and magic are checked before copying
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
      if (!trainingLoad) {
        trainingLoad = (async () => {
          if (!loadTrainingModule) throw new Error('loadTraining: this Attention object was made without a training module');
          T = await loadTrainingModule();
          return api;
        })();
        trainingLoad.catch(() => { trainingLoad = null; });
      }
      return trainingLoad;
    },
    /**
     * Opens a Hugging Face checkpoint (docs/api.md, "Pretrained checkpoints"); the first call loads the
     * pretrained module of this build.
     */
    async loadPretrained(options) {
      if (!pretrainedLoad) {
        if (!lazy.pretrained) throw new Error('loadPretrained: this Attention object was made without the pretrained module');
        pretrainedLoad = lazy.pretrained().then((p) => (pretrained = p));
        pretrainedLoad.catch(() => { pretrainedLoad = null; });
      }
      return (await pretrainedLoad).loadPretrained(options);
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
    /** Bytes of wasm memory the core holds now: the attention module's heap plus the training and pretrained modules'. */
    heapBytes() {
      return M.HEAPU8.buffer.byteLength + (T ? T.HEAPU8.buffer.byteLength : 0) + (pretrained ? pretrained.heapBytes() : 0);
    },
  });
  return api;
}
