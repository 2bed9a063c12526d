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
function call(fn) {
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
 * Wraps the raw Embind module.
 * @param {any} M the instantiated Emscripten module
 * @param {'simd' | 'scalar'} build
 * @returns {Attention}
 */
export function makeAttention(M, build) {
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

  /** Owns one raw Embind object (a session or a trainer): frees it on dispose() or when dropped. */
  class Handle {
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
      return call(() => this.live().append(x)); // the binding returns copies JS owns
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

    /** Runs n optimiser steps; `loss` is the last step's mean training cross-entropy (nats per token). */
    step(n = 1) {
      return call(() => this.live().step(n));
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
      return call(() => this.live().attention(tokens));
    }

    /** The model as bytes (spec, step, weights): `attn.loadModel(bytes)` restores it. */
    exportModel() {
      return call(() => this.live().exportModel());
    }
  }

  const buildInfo = M.buildInfo();
  return Object.freeze({
    info: Object.freeze({
      simd: Boolean(buildInfo.simd),
      build,
      version: buildInfo.version,
      maxWorkBytes: buildInfo.maxWorkBytes,
    }),
    forward(spec) {
      requireObject('forward', spec);
      if (!Object.prototype.hasOwnProperty.call(spec, 'returnIntermediates')) return call(() => M.forward(spec));
      const { returnIntermediates, ...rest } = spec;
      if (typeof returnIntermediates !== 'boolean') {
        throw new TypeError(`returnIntermediates must be a boolean, got ${typeof returnIntermediates}`);
      }
      if (!returnIntermediates) return call(() => M.forward(rest));
      const r = call(() => M.forwardIntermediates(rest));
      if (spec.returnWeights === true) r.weights = r.intermediates.attention.data.slice();
      return r;
    },
    createSession(spec) {
      requireObject('createSession', spec);
      return new Session(call(() => M.createSession(spec)));
    },
    paramCount(cfg) {
      requireObject('paramCount', cfg);
      return call(() => M.paramCount(cfg));
    },
    kvCacheBytes(cfg) {
      requireObject('kvCacheBytes', cfg);
      return call(() => M.kvCacheBytes(cfg));
    },
    presets() {
      return call(() => M.presets());
    },
    recommend(request) {
      requireObject('recommend', request);
      return call(() => M.recommend(request));
    },
    deploymentTargets() {
      return call(() => M.deploymentTargets());
    },
    sizeTable() {
      return call(() => M.sizeTable());
    },
    createTrainer(spec) {
      requireObject('createTrainer', spec);
      return new Trainer(call(() => new M.RawTrainer(spec)));
    },
    loadModel(bytes) {
      return new Trainer(call(() => M.loadModel(bytes)));
    },
  });
}
