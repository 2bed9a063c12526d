// Vite config of dist/standalone.html's script: the whole playground as one classic script (IIFE)
// with everything inlined (styles, the worker, both single-file WebAssembly builds), because a page
// opened from file:// may not load ES modules, fetch .wasm files or start workers from URLs.
// scripts/build.mjs puts the result inside web/standalone.html.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  publicDir: false,
  resolve: {
    alias: { '@core': here('../build-wasm/lib'), 'attn-worker-factory': here('src/worker-factory-standalone.js') },
  },
  build: {
    outDir: here('../build-wasm/standalone'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    lib: { entry: here('src/main.js'), formats: ['iife'], name: 'AttentionPlayground', fileName: () => 'standalone.js' },
  },
  worker: { format: 'iife' },
});
