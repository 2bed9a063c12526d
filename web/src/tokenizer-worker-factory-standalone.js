// tokenizer-worker-factory-standalone.js — standalone.html's tokenizer worker: inlined into the page and
// started from a Blob, since file:// refuses worker scripts loaded by URL.
import TokenizerWorker from './worker-tokenizer.js?worker&inline';

export function createTokenizerWorker() {
  return new TokenizerWorker();
}
