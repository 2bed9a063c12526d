// worker-factory.js — how the page starts its core worker: a module worker next to the bundle.
// (standalone.html swaps in worker-factory-standalone.js.)
export function createWorker() {
  return new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
}
