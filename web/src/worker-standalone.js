// worker-standalone.js — the core worker of dist/standalone.html, which must work from file://:
// a classic worker (built from a Blob) that evaluates the single-file Emscripten builds (wasm
// inlined as base64) instead of importing ES modules and fetching .wasm files, both refused there.
import simdSource from '@core/attention-simd-single.js?raw';
import scalarSource from '@core/attention-scalar-single.js?raw';
import { engineHasSimd, makeAttention } from '@core/attention-api.mjs';
import { serve } from './worker-methods.js';

serve(async (simd) => {
  const build = simd === false || !engineHasSimd() ? 'scalar' : 'simd';
  // The classic build defines a global createAttentionModule; run it through importScripts.
  const url = URL.createObjectURL(new Blob([build === 'simd' ? simdSource : scalarSource], { type: 'text/javascript' }));
  self.importScripts(url);
  URL.revokeObjectURL(url);
  return makeAttention(await self.createAttentionModule(), build);
});
