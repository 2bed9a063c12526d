// worker-standalone.js — the core worker of dist/standalone.html, which must work from file://:
// a classic worker (built from a Blob) that evaluates the single-file Emscripten builds (wasm
// inlined as base64) instead of importing ES modules and fetching .wasm files, both refused there.
// Every build is inlined (FMA where the engine has relaxed SIMD, SIMD, scalar); the training module
// is evaluated only when a lab asks for a trainer, the configurator module (one for every build)
// when a view asks for the configurator's search, the pretrained module (its SIMD build only, to keep
// the file small) when a checkpoint is opened.
import fmaSource from '@core/attention-fma-single.js?raw';
import simdSource from '@core/attention-simd-single.js?raw';
import scalarSource from '@core/attention-scalar-single.js?raw';
import trainFmaSource from '@core/attention-train-fma-single.js?raw';
import trainSimdSource from '@core/attention-train-simd-single.js?raw';
import trainScalarSource from '@core/attention-train-scalar-single.js?raw';
import configuratorSource from '@core/attention-configurator-single.js?raw';
import pretrainedSource from '@core/attention-pretrained-simd-single.js?raw';
import { engineHasSimd, makeAttention } from '@core/attention-api.mjs';
import { makePretrained } from '@core/pretrained-api.mjs';
import { engineHasRelaxedSimd } from '@core/engine-features.mjs';
import { serve } from './worker-methods.js';

const SOURCES = {
  fma: [fmaSource, trainFmaSource],
  simd: [simdSource, trainSimdSource],
  scalar: [scalarSource, trainScalarSource],
};

/** Runs a classic single-file build through importScripts and returns the factory it defines. */
function factory(source, name) {
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  self.importScripts(url);
  URL.revokeObjectURL(url);
  return self[name];
}

serve(async (simd) => {
  const build = simd === false || !engineHasSimd() ? 'scalar' : engineHasRelaxedSimd() ? 'fma' : 'simd';
  const [source, trainSource] = SOURCES[build];
  const createAttentionModule = factory(source, 'createAttentionModule');
  const loadTraining = () => factory(trainSource, 'createAttentionTrainModule')();
  const configurator = () => factory(configuratorSource, 'createAttentionConfiguratorModule')();
  const pretrained = async () => {
    if (!engineHasSimd()) throw new Error('loadPretrained: this standalone page carries the pretrained module for engines with WebAssembly SIMD only');
    return makePretrained(await factory(pretrainedSource, 'createAttentionPretrainedModule')());
  };
  return makeAttention(await createAttentionModule(), build, loadTraining, { configurator, pretrained });
});
