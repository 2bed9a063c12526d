// attention.mjs: the JS entry point of the attention core (shipped as dist/lib/attention.mjs).
//
// Picks one of three WebAssembly builds (FMA: SIMD with relaxed SIMD's fused multiply-add, where the
// engine validates it; SIMD otherwise; scalar on engines without SIMD), instantiates it once per build
// (the attention module at once, the training module of the lab with it or later, on
// `attn.loadTraining()`, the configurator's small module with it or on `attn.loadConfigurator()`
// (one for every build), the pretrained module when `attn.loadPretrained()` first opens a checkpoint,
// the tokenizer library on `attn.loadTokenizer()`), and wraps the raw
// Embind module into the `Attention` object of the JS API (docs/api.md). It runs unchanged
// in a browser page, a module Web Worker and Node >= 20, has no dependencies and never generates code
// from strings. Value checks live in C++ (which throws Error / TypeError / RangeError naming the
// field, with error.field); attention-api.mjs reads a spec's own fields only and checks what only JS
// can see (throwing getters, detached buffers, BigInts) before anything reaches the wasm heap.

import { engineHasSimd, makeAttention } from './attention-api.mjs';
import { engineHasRelaxedSimd } from './engine-features.mjs';

/**
 * @typedef {import('./attention.d.ts').Attention} Attention
 * @typedef {import('./attention.d.ts').LoadOptions} LoadOptions
 */

const isNode = typeof globalThis.process?.versions?.node === 'string';

/** @type {Map<'fma' | 'simd' | 'scalar', Promise<Attention>>} one instantiation per build (training loads into it) */
const loaded = new Map();

const KNOWN_OPTIONS = ['simd', 'fma', 'training'];

/**
 * Loads the attention core and returns the `Attention` API. Memoised: every call asking for the
 * same build resolves to the same object.
 *
 * @param {LoadOptions} [options]
 *   `simd`: `'auto'` (default: the SIMD build where the engine supports it, the scalar one otherwise),
 *   `true` (a SIMD build, or an error where the engine lacks SIMD) or `false` (the scalar build).
 *   `fma`: `'auto'` (default: among the SIMD builds, the FMA one where the engine validates relaxed
 *   SIMD), `true` (the FMA build, or an error where the engine lacks relaxed SIMD or `simd` is false)
 *   or `false` (the plain SIMD build).
 *   `training`: `true` (default: the training module too, so `createTrainer` and `loadModel` work at
 *   once) or `false` (the attention module only, a lighter load: `await attn.loadTraining()` later).
 * @returns {Promise<Attention>}
 */
export async function loadAttention(options = {}) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    const got = options === null ? 'null' : Array.isArray(options) ? 'an Array' : `${typeof options} (${String(options)})`;
    throw new TypeError(`loadAttention: options must be an object { simd?: 'auto' | true | false, fma?: 'auto' | true | false, training?: boolean }, got ${got}`);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) throw new TypeError(`loadAttention: unknown option '${key}'; known options: ${KNOWN_OPTIONS.join(', ')}`);
  }
  const simd = Object.hasOwn(options, 'simd') && options.simd !== undefined ? options.simd : 'auto';
  if (simd !== 'auto' && simd !== true && simd !== false) {
    throw new TypeError(`options.simd (${String(simd)}) must be 'auto', true or false`);
  }
  const fma = Object.hasOwn(options, 'fma') && options.fma !== undefined ? options.fma : 'auto';
  if (fma !== 'auto' && fma !== true && fma !== false) {
    throw new TypeError(`options.fma (${String(fma)}) must be 'auto', true or false`);
  }
  if (fma === true && simd === false) {
    throw new TypeError('options.fma is true but options.simd is false: the FMA build is a SIMD build');
  }
  const training = Object.hasOwn(options, 'training') && options.training !== undefined ? options.training : true;
  if (training !== true && training !== false) {
    throw new TypeError(`options.training (${String(training)}) must be true (the default: load the training module too) or false`);
  }
  const hasSimd = engineHasSimd();
  if (simd === true && !hasSimd) {
    throw new Error("options.simd is true, but this WebAssembly engine does not support SIMD: use simd: 'auto' or false");
  }
  const hasFma = hasSimd && engineHasRelaxedSimd();
  if (fma === true && !hasFma) {
    throw new Error("options.fma is true, but this WebAssembly engine does not support relaxed SIMD: use fma: 'auto' or false");
  }
  /** @type {'fma' | 'simd' | 'scalar'} */
  const build = simd === false || !hasSimd ? 'scalar' : fma !== false && hasFma ? 'fma' : 'simd';
  let attention = loaded.get(build);
  if (!attention) {
    attention = instantiate(build);
    loaded.set(build, attention);
    attention.catch(() => loaded.delete(build)); // a failed load may be retried
  }
  if (!training) return attention;
  return (await attention).loadTraining(); // the same object, with the training module loaded
}

/**
 * Emscripten factory options for one .wasm file: in Node, its bytes read from disk next to this
 * module (the modules are built for web and worker only); in a browser, nothing (each module finds
 * its .wasm through its own import.meta.url).
 * @param {string} file e.g. 'attention-simd.wasm'
 */
async function factoryOptions(file) {
  if (!isNode) return {};
  // The specifier is not a literal so that browser bundlers leave this import alone.
  const fsModule = 'node:fs/promises';
  const { readFile } = await import(/* @vite-ignore */ /* webpackIgnore: true */ fsModule);
  return { wasmBinary: await readFile(new URL(file, import.meta.url)) };
}

/**
 * Imports the Emscripten factory of one build and instantiates it; the training module of the same
 * build is imported only when `attn.loadTraining()` asks for it.
 * @param {'fma' | 'simd' | 'scalar'} build
 * @returns {Promise<Attention>}
 */
async function instantiate(build) {
  // Literal specifiers, resolved against this module's URL, so that bundlers can follow them (and
  // split the training module into a chunk of its own, fetched on demand).
  const { default: createAttentionModule } = build === 'fma' ? await import('./attention-fma.mjs')
    : build === 'simd' ? await import('./attention-simd.mjs') : await import('./attention-scalar.mjs');
  const M = await createAttentionModule(await factoryOptions('attention-' + build + '.wasm'));
  const loadTrainingModule = async () => {
    const { default: createAttentionTrainModule } = build === 'fma' ? await import('./attention-train-fma.mjs')
      : build === 'simd' ? await import('./attention-train-simd.mjs') : await import('./attention-train-scalar.mjs');
    return createAttentionTrainModule(await factoryOptions('attention-train-' + build + '.wasm'));
  };
  const loadConfiguratorModule = async () => {
    const { default: createAttentionConfiguratorModule } = await import('./attention-configurator.mjs');
    return createAttentionConfiguratorModule(await factoryOptions('attention-configurator.wasm'));
  };
  const loadPretrainedApi = async () => {
    const [{ default: createAttentionPretrainedModule }, { makePretrained }] = await Promise.all([
      build === 'fma' ? import('./attention-pretrained-fma.mjs')
        : build === 'simd' ? import('./attention-pretrained-simd.mjs') : import('./attention-pretrained-scalar.mjs'),
      import('./pretrained-api.mjs'),
    ]);
    return makePretrained(await createAttentionPretrainedModule(await factoryOptions('attention-pretrained-' + build + '.wasm')));
  };
  const loadTokenizer = async (/** @type {unknown} */ json, /** @type {unknown} */ config) => {
    const { makeTokenizer } = await import('./tokenizer.mjs');
    return makeTokenizer(json, config);
  };
  return makeAttention(M, build, loadTrainingModule,
    { configurator: loadConfiguratorModule, pretrained: loadPretrainedApi, tokenizer: loadTokenizer });
}
