// Vite bundles web/ into dist/: the playground (index.html), the single-view page (embed.html) and
// the element alone (attention-playground.js, a stable name for course pages). base './' makes
// every URL relative, so dist/ works from any sub-path of a static host.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  publicDir: false,
  resolve: {
    alias: { '@core': here('../build-wasm/lib'), 'attn-worker-factory': here('src/worker-factory.js'),
      'attn-tokenizer-worker-factory': here('src/tokenizer-worker-factory.js'), 'attn-zoo-files': here('src/sources/zoo-files.js') },
  },
  build: {
    outDir: here('../dist'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    // Every browser the page supports has <link rel="modulepreload"> (Chromium 66, Firefox 115,
    // Safari 17); without it a page only loses the hint, not a module. Saves the first map 0.6 KB.
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        index: here('index.html'),
        embed: here('embed.html'),
        'attention-playground': here('src/element.js'),
      },
      output: {
        // The page's words and the DOM kit in one chunk of the first map, whichever lazy chunk (a catalog
        // fetched with its view's data, a Hub reader) also needs them: never a chunk of their own.
        manualChunks: (id) => (/\/web\/src\/(kit|i18n\/index|i18n\/english)\.js$/.test(id) ? 'kit' : undefined),
        entryFileNames: (chunk) => (chunk.name === 'attention-playground' ? 'attention-playground.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  worker: { format: 'es' },
});
