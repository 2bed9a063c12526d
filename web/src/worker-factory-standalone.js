// worker-factory-standalone.js — standalone.html's core worker: inlined into the page and started
// from a Blob, since file:// refuses worker scripts loaded by URL.
import StandaloneWorker from './worker-standalone.js?worker&inline';

export function createWorker() {
  return new StandaloneWorker();
}
