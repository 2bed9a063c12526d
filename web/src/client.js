// client.js — the main thread's proxy to the core worker: one worker per page (created lazily,
// shared by every <attention-playground> on it), calls as promises, worker errors as Error objects
// of the same class (RangeError, TypeError, ...) with their error.field. Long calls (training) can
// report progress and be aborted with an AbortSignal: client.run(method, args, { onProgress, signal }).

import { createWorker } from 'attn-worker-factory';

import { rebuildError } from './core-errors.js';

export class CoreClient {
  /** @param {{ simd?: 'auto' | boolean }} options */
  constructor({ simd = 'auto' } = {}) {
    this.simd = simd;
    this.nextId = 1;
    this.pending = new Map();  // id -> { resolve, reject, onProgress }
    this.worker = null;
  }

  #start() {
    this.worker = createWorker();
    this.worker.onmessage = ({ data }) => {
      const p = this.pending.get(data.id);
      if (!p) return;
      if ('progress' in data) {
        p.onProgress?.(data.progress);
        return;
      }
      this.pending.delete(data.id);
      if (data.ok) p.resolve(data.result);
      else p.reject(rebuildError(data.error));
    };
    this.worker.onerror = (e) => {
      const err = new Error(`the core worker failed: ${e.message || 'could not load'}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.worker = null; // the next call starts a fresh worker
    };
  }

  /**
   * Calls a worker method (worker-methods.js). Typed arrays in `args` are copied, not transferred.
   * @returns {Promise<any>}
   */
  call(method, ...args) {
    return this.run(method, args);
  }

  /**
   * A call that may report progress and be aborted: `signal` aborting asks the worker to stop the
   * job (between its chunks); the promise then rejects with an AbortError.
   * @param {string} method
   * @param {any[]} args
   * @param {{ onProgress?: (p: any) => void, signal?: AbortSignal }} [options]
   */
  run(method, args, { onProgress, signal } = {}) {
    if (!this.worker) this.#start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const abort = () => this.worker?.postMessage({ abort: id });
      signal?.addEventListener('abort', abort, { once: true });
      const done = (f) => (v) => {
        signal?.removeEventListener('abort', abort);
        f(v);
      };
      this.pending.set(id, { resolve: done(resolve), reject: done(reject), onProgress });
      this.worker.postMessage({ id, method, args, simd: this.simd });
    });
  }
}

const clients = new Map();
/** The shared client for a SIMD option. */
export function sharedClient(simd = 'auto') {
  if (!clients.has(simd)) clients.set(simd, new CoreClient({ simd }));
  return clients.get(simd);
}
