// Vite config of dist/standalone.html's script: the whole playground as one classic script (IIFE)
// with everything inlined (styles, the worker, both single-file WebAssembly builds), because a page
// opened from file:// may not load ES modules, fetch .wasm files or start workers from URLs.
// scripts/build.mjs puts the result inside web/standalone.html. Same aliases as vite.config.mjs,
// except the worker factories and the zoo's files (inlined).
import { mergeConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import base from './vite.config.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

export default mergeConfig(
  { ...base, build: {} },  // keep root, base and aliases; replace the multi-page build
  {
    resolve: { alias: { 'attn-worker-factory': here('src/worker-factory-standalone.js'),
      'attn-tokenizer-worker-factory': here('src/tokenizer-worker-factory-standalone.js'),
      'attn-zoo-files': here('src/sources/zoo-files-standalone.js') } },
    assetsInclude: ['**/*.safetensors'],  // the zoo's models, inlined (sources/zoo-files-standalone.js)
    build: {
      outDir: here('../build-wasm/standalone'),
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: Number.MAX_SAFE_INTEGER,
      lib: { entry: here('src/main.js'), formats: ['iife'], name: 'AttentionPlayground', fileName: () => 'standalone.js' },
    },
    worker: { format: 'iife' },
  },
);
