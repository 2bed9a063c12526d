// client.js — the main thread's proxy to the core workers: calls as promises, worker errors as Error
// objects of the same class (RangeError, TypeError, ...) with their error.field. Long calls (training)
// can report progress and be aborted with an AbortSignal: client.run(method, args, { onProgress, signal }).
//
// One client per page (sharedClient), shared by every <attention-playground> on it. Its first worker
// serves every call. Trainers (the labs' models: methods named trainer*, whose first argument is the
// trainer's key) are spread over up to `trainerWorkers` workers, one per core the device reports (at
// most 4), each with its own module and no shared memory; a trainer's calls all go to the worker that
// holds it. So a lab that trains several models at once (runner.js, api.each) uses several cores, and
// each model trains exactly as it would alone (seeded: the same losses in any worker).

import { createWorker } from 'attn-worker-factory';

import { rebuildError } from './core-errors.js';

/** Workers for trainers on this device: one per reported core, at least 1, at most 4. */
export function defaultTrainerWorkers() {
  const cores = Number(globalThis.navigator?.hardwareConcurrency) || 1;
  return Math.max(1, Math.min(4, Math.floor(cores)));
}

/** One worker and its calls in flight. */
class WorkerSlot {
  constructor(simd, onLost) {
    this.simd = simd;
    this.onLost = onLost;
    this.pending = new Map();  // id -> { resolve, reject, onProgress }
    this.trainers = new Set(); // the keys of the trainers this worker holds
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
      this.worker = null; // the next call starts a fresh worker; its trainers are gone
      this.onLost(this);
    };
  }

  run(id, method, args, { onProgress, signal, transfer = [] } = {}) {
    if (!this.worker) this.#start();
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
      this.worker.postMessage({ id, method, args, simd: this.simd }, transfer);
    });
  }
}

export class CoreClient {
  /** @param {{ simd?: 'auto' | boolean, trainerWorkers?: number }} options */
  constructor({ simd = 'auto', trainerWorkers = defaultTrainerWorkers() } = {}) {
    this.simd = simd;
    this.trainerWorkers = Math.max(1, Math.floor(trainerWorkers) || 1);
    this.nextId = 1;
    this.slots = [];          // slots[0] serves every call but other trainers' ones
    this.owner = new Map();   // trainer key -> its WorkerSlot
    this.#addSlot();
  }

  #addSlot() {
    const slot = new WorkerSlot(this.simd, (lost) => {
      for (const key of lost.trainers) this.owner.delete(key);
      lost.trainers.clear();
    });
    this.slots.push(slot);
    return slot;
  }

  /** The worker a call goes to: a trainer's own, a new trainer's least loaded one, else the first. */
  #slotFor(method, key) {
    if (!method.startsWith('trainer') || typeof key !== 'string') return this.slots[0];
    const held = this.owner.get(key);
    if (held) return held;
    if (method !== 'trainerCreate' && method !== 'trainerLoad') return this.slots[0];  // no such trainer: the first says so
    let slot = this.slots.reduce((a, b) => (b.trainers.size < a.trainers.size ? b : a));
    if (slot.trainers.size > 0 && this.slots.length < this.trainerWorkers) slot = this.#addSlot();
    slot.trainers.add(key);
    this.owner.set(key, slot);
    return slot;
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
   * job (between its chunks); the promise then rejects with an AbortError. `transfer`: objects of
   * `args` moved to the worker, not copied (a download's ReadableStream).
   * @param {string} method
   * @param {any[]} args
   * @param {{ onProgress?: (p: any) => void, signal?: AbortSignal, transfer?: Transferable[] }} [options]
   */
  run(method, args, options = {}) {
    const slot = this.#slotFor(method, args[0]);
    const result = slot.run(this.nextId++, method, args, options);
    if (method === 'trainerDispose') {
      slot.trainers.delete(args[0]);
      this.owner.delete(args[0]);
    } else if (method === 'trainerCreate' || method === 'trainerLoad') {
      // a refused trainer is not held anywhere
      result.catch(() => { if (this.owner.get(args[0]) === slot) { slot.trainers.delete(args[0]); this.owner.delete(args[0]); } });
    }
    return result;
  }

  /** How many workers run now (the first, and those that hold trainers). */
  get workers() {
    return this.slots.filter((s) => s.worker).length;
  }
}

const clients = new Map();
/** The shared client for a SIMD option. */
export function sharedClient(simd = 'auto') {
  if (!clients.has(simd)) clients.set(simd, new CoreClient({ simd }));
  return clients.get(simd);
}
