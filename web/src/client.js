// client.js — the main thread's proxy to the core worker: one worker per page (created lazily,
// shared by every <attention-playground> on it), calls as promises, worker errors as Error objects
// of the same class (RangeError, TypeError, ...).

import { createWorker } from 'attn-worker-factory';

import { rebuildError } from './core-errors.js';

export class CoreClient {
  /** @param {{ simd?: 'auto' | boolean }} options */
  constructor({ simd = 'auto' } = {}) {
    this.simd = simd;
    this.nextId = 1;
    this.pending = new Map();
    this.worker = null;
  }

  #start() {
    this.worker = createWorker();
    this.worker.onmessage = ({ data }) => {
      const p = this.pending.get(data.id);
      if (!p) return;
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
   * Calls a worker method (see worker.js). Typed arrays in `args` are copied, not transferred.
   * @returns {Promise<any>}
   */
  call(method, ...args) {
    if (!this.worker) this.#start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
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
