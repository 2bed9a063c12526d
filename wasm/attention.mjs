// attention.mjs: the JS entry point of the attention core (shipped as dist/lib/attention.mjs).
//
// Picks the SIMD or the scalar WebAssembly build, instantiates it once per build, and wraps the raw
// Embind module into the `Attention` object of the JS API (shared spec/js-api.md). It runs unchanged
// in a browser page, a module Web Worker and Node >= 20, has no dependencies and never generates code
// from strings. Input checks live in C++ (which throws Error / TypeError / RangeError naming the
// field); this file only adapts.

/**
 * @typedef {import('./attention.d.ts').Attention} Attention
 * @typedef {import('./attention.d.ts').LoadOptions} LoadOptions
 */

// The smallest module using a v128 instruction (the probe of wasm-feature-detect's `simd()`):
// (func (result v128) i32.const 0  i8x16.splat  i8x16.popcnt)
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

const isNode = typeof globalThis.process?.versions?.node === 'string';

/** @type {Map<'simd' | 'scalar', Promise<Attention>>} one instantiation per build */
const loaded = new Map();

/** @returns {boolean} whether this engine validates WebAssembly SIMD (v128) code */
function engineHasSimd() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * Loads the attention core and returns the `Attention` API. Memoised: every call asking for the
 * same build resolves to the same object.
 *
 * @param {LoadOptions} [options]
 *   `simd`: `'auto'` (default: the SIMD build where the engine supports it, the scalar one otherwise),
 *   `true` (the SIMD build, or an error where the engine lacks SIMD) or `false` (the scalar build).
 * @returns {Promise<Attention>}
 */
export async function loadAttention(options = {}) {
  const simd = options?.simd ?? 'auto';
  if (simd !== 'auto' && simd !== true && simd !== false) {
    throw new TypeError(`options.simd (${String(simd)}) must be 'auto', true or false`);
  }
  const hasSimd = engineHasSimd();
  if (simd === true && !hasSimd) {
    throw new Error("options.simd is true, but this WebAssembly engine does not support SIMD: use simd: 'auto' or false");
  }
  /** @type {'simd' | 'scalar'} */
  const build = simd === false || !hasSimd ? 'scalar' : 'simd';
  let attention = loaded.get(build);
  if (!attention) {
    attention = instantiate(build);
    loaded.set(build, attention);
    attention.catch(() => loaded.delete(build)); // a failed load may be retried
  }
  return attention;
}

/**
 * Imports the Emscripten factory of one build and instantiates it.
 * @param {'simd' | 'scalar'} build
 * @returns {Promise<Attention>}
 */
async function instantiate(build) {
  // Literal specifiers, resolved against this module's URL, so that bundlers can follow them.
  const { default: createAttentionModule } =
    build === 'simd' ? await import('./attention-simd.mjs') : await import('./attention-scalar.mjs');

  let M;
  if (isNode) {
    // The module is built for web and worker only: in Node, hand it the .wasm bytes ourselves.
    // The specifier is not a literal so that browser bundlers leave this import alone.
    const fsModule = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ /* webpackIgnore: true */ fsModule);
    const wasmBinary = await readFile(new URL('attention-' + build + '.wasm', import.meta.url));
    M = await createAttentionModule({ wasmBinary });
  } else {
    M = await createAttentionModule(); // finds its .wasm through import.meta.url
  }
  return makeAttention(M, build);
}

/**
 * Calls into the raw module and makes sure whatever it throws is an `Error`.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
function call(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Error) throw e;
    throw new Error(`the attention core failed with a non-Error exception (${String(e)})`);
  }
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
function makeAttention(M, build) {
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

  /** A decoding session: the weights and a KV cache in wasm memory (see `Attention.createSession`). */
  class Session {
    /** @type {any} the raw Embind session, null once disposed */
    #raw;

    /** @param {any} raw */
    constructor(raw) {
      this.#raw = raw;
      finalizer?.register(this, raw, this);
    }

    #live() {
      if (!this.#raw) throw new Error('session is disposed');
      return this.#raw;
    }

    /** Tokens in the cache. */
    get length() {
      return call(() => this.#live().length());
    }

    /** Bytes the cache holds now, at float32. */
    get cacheBytes() {
      return call(() => this.#live().cacheBytes());
    }

    /** The most tokens the cache can hold. */
    get maxLen() {
      return call(() => this.#live().maxLen());
    }

    /**
     * Appends k >= 1 tokens and returns their outputs (and weights `(H, k, length)` when asked).
     * @param {Float32Array} x `(k, dModel)`
     */
    append(x) {
      return call(() => this.#live().append(x)); // the binding returns copies JS owns
    }

    /** Empties the cache; positions count from 0 again. */
    reset() {
      call(() => this.#live().reset());
    }

    /**
     * Keeps the first `n` cached tokens.
     * @param {number} n
     */
    truncate(n) {
      call(() => this.#live().truncate(n));
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
      return call(() => M.forward(spec));
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
  });
}
