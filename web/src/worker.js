// worker.js — the module Web Worker that owns the attention core for the served page: the page
// never runs the core on its main thread, so long work cannot freeze it. Protocol: worker-methods.js.
import { loadAttention } from '@core/attention.mjs';
// The FMA build's loader (Emscripten's JS; the build Chromium and Firefox load) is bundled into this
// file, so the core's start does not wait for one more request (docs/performance.md); the SIMD and
// scalar builds' stay chunks of their own.
import '@core/attention-fma.mjs';
import { serve } from './worker-methods.js';

// The light load: the lab's training module is fetched only when a lab asks for a trainer.
serve((simd) => loadAttention({ simd, training: false }));
