// sources/tokenizer-client.js — the page's side of a checkpoint's tokenizer, which runs in a worker of its
// own (worker-tokenizer.js): the page's main thread never reads tokenizer.json nor splits a sentence,
// so neither a vocabulary of 262k tokens nor a regular expression that backtracks can freeze it.
// Every call but the load has a time cap (TOKENIZE_CAP_MS, the core's cap for a synchronous call): a
// call past it stops the worker (terminate: the one Stop that lands inside a running regex) and is
// refused with an error naming `text` (or `tokenizer`); the next call starts the worker again. The
// load has no cap (it is part of opening the model, whose Stop ends it).
//
// The labels the worker gave are kept here, so that the views read a token's label, and a label's id,
// without waiting (label(id), idOf(label)).
import { createTokenizerWorker } from 'attn-tokenizer-worker-factory';
import { rebuildError } from '../core-errors.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/sources.js';

/** The most a call other than the load may take, in milliseconds (the core refuses work above 1 s). */
export const TOKENIZE_CAP_MS = 1000;

const abortError = () => Object.assign(new Error('stopped'), { name: 'AbortError' });

/**
 * Starts a tokenizer worker and reads tokenizer.json in it.
 * @param {{ json: string, configText?: string }} files  tokenizer.json's and tokenizer_config.json's text
 * @param {{ config: object, signal?: AbortSignal }} options  the model's config.json (its special ids); Stop
 * @returns {Promise<RemoteTokenizer>}
 */
export async function openTokenizer(files, { config, signal } = {}) {
  const t = new RemoteTokenizer({ json: files.json, configText: files.configText, config });
  const { vocabSize, bos } = await t.load(signal);
  t.vocabSize = vocabSize;
  t.bos = bos;
  return t;
}

export class RemoteTokenizer {
  constructor(loadArgs) {
    this.loadArgs = loadArgs;
    this.worker = null;
    this.loaded = null;        // the load's promise, for the worker that runs now
    this.pending = new Map();  // id -> { resolve, reject }
    this.nextId = 1;
    this.byId = new Map();     // id -> label, as the worker gave them
    this.byLabel = new Map();  // label -> id
    this.vocabSize = 0;
    this.bos = null;
  }

  #start() {
    this.worker = createTokenizerWorker();
    this.worker.onmessage = ({ data }) => {
      const p = this.pending.get(data.id);
      if (!p) return;
      this.pending.delete(data.id);
      if (data.ok) p.resolve(data.result);
      else p.reject(rebuildError(data.error));
    };
    this.worker.onerror = (e) => this.#stop(new Error(`the tokenizer's worker failed: ${e.message || 'could not load'}`));
  }

  /** Ends the worker and every call in flight with `error`. */
  #stop(error) {
    this.worker?.terminate();
    this.worker = null;
    this.loaded = null;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  /** One call: `cap` ms at most (none for the load), else the worker is stopped and `timeout()` thrown. */
  #send(method, args, { cap = 0, timeout, signal } = {}) {
    if (!this.worker) this.#start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) { reject(abortError()); return; }
      let timer = 0;
      const onAbort = () => this.#stop(abortError());
      const done = (f) => (v) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        f(v);
      };
      this.pending.set(id, { resolve: done(resolve), reject: done(reject) });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (cap) timer = setTimeout(() => this.#stop(timeout()), cap);
      this.worker.postMessage({ id, method, args });
    });
  }

  /** Reads tokenizer.json in the worker (again after a stop): { vocabSize, bos }. */
  load(signal) {
    this.loaded ??= this.#send('load', this.loadArgs, { signal });
    return this.loaded;
  }

  /** A call after the load, within the cap. */
  async #call(method, args, field) {
    await this.load();
    const timeout = () => {
      const params = { field, cap: (TOKENIZE_CAP_MS / 1000).toString() };
      return Object.assign(new RangeError(EN.t('sources.tokenizerSlow', params)), { field, key: 'sources.tokenizerSlow', params });
    };
    return this.#send(method, args, { cap: TOKENIZE_CAP_MS, timeout });
  }

  #keep(ids, tokens) {
    ids.forEach((id, i) => { this.byId.set(id, tokens[i]); this.byLabel.set(tokens[i], id); });
  }

  /** The first `maxTokens` tokens of `text` (special tokens added): { ids, tokens (labels), cut }. */
  async encode(text, maxTokens) {
    const r = await this.#call('encode', { text, maxTokens, maxChars: 32 * maxTokens }, 'text');
    this.#keep(r.ids, r.tokens);
    return r;
  }

  /** The labels of `ids` (kept for label()). */
  async labels(ids) {
    const missing = [...new Set(ids)].filter((id) => !this.byId.has(id));
    if (missing.length) this.#keep(missing, await this.#call('labels', { ids: missing }, 'tokenizer'));
    return ids.map((id) => this.byId.get(id));
  }

  /** A label the worker gave (labels, encode), or the id itself. */
  label(id) { return this.byId.get(id) ?? `#${id}`; }

  /** The id of a label the worker gave, else NaN. */
  idOf(label) { return this.byLabel.get(label) ?? Number.NaN; }

  /** The head-roles probes of `seeds` (sources/head-roles.js roleProbe, ordinary tokens only). */
  probes(info, seeds, bos) {
    return this.#call('probes', { info: { vocabSize: info.vocabSize, maxPositions: info.maxPositions }, seeds, bos }, 'tokenizer');
  }

  /** Stops the worker for good. */
  close() { this.#stop(abortError()); }
}
