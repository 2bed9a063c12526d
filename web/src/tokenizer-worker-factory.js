// tokenizer-worker-factory.js — how the page starts a checkpoint's tokenizer worker (worker-tokenizer.js):
// a module worker next to the bundle. (standalone.html swaps in tokenizer-worker-factory-standalone.js.)
export function createTokenizerWorker() {
  return new Worker(new URL('./worker-tokenizer.js', import.meta.url), { type: 'module' });
}
