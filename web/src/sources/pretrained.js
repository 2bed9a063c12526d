// sources/pretrained.js — the third source: a Hugging Face checkpoint the learner opened (views/model.js,
// "Open a model"). Its tokens are the checkpoint's own tokenizer's pieces of the sentence (or, for a
// folder without tokenizer.json, the token ids the learner types); its maps are every layer's, from the
// model's forward in the worker (worker-pretrained.js); its shape is the model's; its decoder is a KV-cache
// session of the model that also says the model's next tokens; its walkthrough stages are one layer's,
// as the model's forward computes them.
// The interface every source implements: web/ARCHITECTURE.md, "Sources".
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';
import { checkpointFromFiles, checkpointFromUrl } from './model-files.js';
import { isHubModel, parseHubModel } from './hub-id.js';
import { checkpointFromHub } from './hub.js';
import { openTokenizer } from './tokenizer-client.js';
import { inputIds, ordinaryToken, specialIds } from './token-kinds.js';
import { rng } from '../rng.js';
import '../i18n/catalogs/en/sources.js';  // the English words it speaks
import '../i18n/catalogs/en/hub.js';

/** The most tokens one pass takes here (the maps of 64 tokens are already 64 × 64 per head). */
export const MAX_TOKENS = 64;

/**
 * @param {object} ctx  the view ctx (client, closeModel, rerender, i18n: read at each use, so that the words follow the page's language)
 * @param {{ key: string, name: string, info: object, shape: object, dtypeBytes: number, tokenizer: object | null }} opened
 */
export function pretrainedSource(ctx, opened) {
  const { info, tokenizer } = opened;
  const limit = Math.min(MAX_TOKENS, info.maxPositions || MAX_TOKENS);
  const t = (key, params) => (ctx.i18n ?? EN).t(key, params);
  let encoded = null;  // the sentence last split: { text, ids, tokens, cut, error }
  let encoding = null; // { text, promise } of the split under way (the tokenizer's worker)
  let passed = null;   // { text, result: Promise<{ attentions (layers, H, N, N), next }> }

  /**
   * A label for an id (the text it stands for, as the tokenizer's worker gave it: sources/token-labels.js)
   * and back; without a tokenizer, the id itself.
   */
  const label = tokenizer ? (id) => tokenizer.label(id) : (id) => String(id);
  const idOf = tokenizer ? (l) => tokenizer.idOf(l) : (l) => Number(l);
  /** Labels of ids, asked of the tokenizer's worker first where it has not given them yet. */
  const labelsOf = async (ids) => (tokenizer ? tokenizer.labels(ids) : ids.map(String));
  // The model's BOS id where it uses one (the tokenizer's worker asks its tokenizer: token-kinds.js).
  const bos = tokenizer ? tokenizer.bos : (Number.isInteger(opened.config?.bos_token_id) && opened.config.bos_token_id >= 0 &&
    opened.config.bos_token_id < info.vocabSize ? opened.config.bos_token_id : null);

  /**
   * Whether an id is an ordinary token for a model without a tokenizer: every id the model reads
   * (inputIds: a lab's pairs model reads only its alphabet's) but the config's special ids (its probe
   * takes the model's own words). With a tokenizer the worker draws the probes (probes()).
   */
  const special = specialIds(opened.config);
  const inputs = inputIds(opened.config, info.vocabSize);
  const ordinary = ordinaryToken(null, special, inputs);

  /** Whether `text` is a list of this model's token ids (the sentence field of a model without a tokenizer). */
  const acceptsText = (text) => {
    const words = String(text).split(/[\s,]+/).filter(Boolean);
    return words.length > 0 && words.every((w) => /^\d+$/.test(w) && Number(w) < info.vocabSize);
  };

  /** Typed ids, checked against the vocabulary (a model without a tokenizer): { ids, tokens, cut, error }. */
  function typedIds(text) {
    const words = text.split(/[\s,]+/).filter(Boolean);
    const bad = words.find((w) => !/^\d+$/.test(w) || Number(w) >= info.vocabSize);
    if (bad !== undefined) {
      const params = { word: bad, last: info.vocabSize - 1 };  // the message in English, the key for the page's language
      return { ids: [], tokens: [], cut: false,
        error: Object.assign(new RangeError(EN.t('sources.notAnId', params)), { field: 'text', key: 'sources.notAnId', params }) };
    }
    const ids = words.map(Number).slice(0, limit);
    return { ids, tokens: ids.map(String), cut: words.length > limit, error: null };
  }

  /**
   * The sentence as ids and labels, at once where it is known (the sentence last split, or typed ids),
   * else null: the tokenizer's worker splits it (prepare).
   */
  function encodedNow(text) {
    if (encoded?.text === text) return encoded;
    if (tokenizer) return null;
    encoded = { text, ...typedIds(text) };
    return encoded;
  }

  /** The sentence as ids and labels: the tokenizer's pieces (in its worker, within its time cap), or typed ids. */
  function encode(text) {
    const now = encodedNow(text);
    if (now) return Promise.resolve(now);
    if (encoding?.text !== text) {
      const promise = tokenizer.encode(text, limit).then(
        (r) => ({ text, ids: r.ids, tokens: r.tokens, cut: r.cut, error: null }),
        (error) => ({ text, ids: [], tokens: [], cut: false, error }))
        .then((e) => {
          if (encoding?.promise === promise) { encoded = e; encoding = null; }
          return e;
        });
      encoding = { text, promise };
    }
    return encoding.promise;
  }

  /** The sentence's ids and labels for the sync reads of the views: '…' until it is split (or when it cannot be). */
  const shown = (state) => {
    const e = encodedNow(state.text);
    return e && !(e.error && tokenizer) ? e : { ids: [], tokens: ['…'], cut: false, error: e?.error ?? null };
  };

  /** Every layer's maps and the next tokens of the sentence (one forward per sentence). */
  async function pass(state) {
    const e = await encode(state.text);
    if (e.error) throw e.error;
    if (passed?.text !== state.text) {
      const result = ctx.client.call('pretrainedForward', opened.key, e.ids)
        .then(async (r) => ({ ...r, nextLabels: await labelsOf(r.next.map((n) => n.id)) }));
      passed = { text: state.text, result };
      result.catch(() => { if (passed?.result === result) passed = null; });
    }
    return passed.result;
  }

  return {
    id: 'pretrained',
    title: `${opened.name} (${info.modelType})`,
    opened,
    /** The most tokens of the sentence one pass takes (the form's hint says so). */
    maxTokens: limit,
    label,
    acceptsText,
    /**
     * A first sentence for a model without a tokenizer: its BOS (where it has one) and the 7 tokens the
     * model itself writes next, most likely first: its own words, which its heads were trained on. A
     * model that reads only some ids (inputIds) starts from 16 of those, drawn at random.
     */
    async startText() {
      if (inputs < info.vocabSize) {  // what it writes are targets, not what it reads: its inputs at random (seeded)
        const next = rng(1);
        return Array.from({ length: Math.min(16, limit) }, () => Math.floor(next() * inputs)).join(' ');
      }
      const start = [bos ?? (special.values().next().value ?? 0)];
      const ids = await ctx.client.call('pretrainedWrites', opened.key, { start, count: Math.min(7, limit - 1) });
      return [...start, ...ids].join(' ');
    },
    /** The model's BOS id where it uses one (else null), and whether an id is an ordinary token: for the head-roles probes (parts/model-probe.js). */
    bos,
    ordinary,
    /**
     * Whether the views must wait before they read the sentence's tokens (element.js): true while the
     * tokenizer's worker splits it, after which the element renders again (ctx.rerender).
     */
    waits(state) {
      if (encodedNow(state.text)) return false;
      encode(state.text).then(() => ctx.rerender?.());
      return true;
    },
    /** What the model writes after `start` ids (the worker's pretrainedWrites: greedy, or sampled at `temperature` with `seed`). */
    writes: (options) => ctx.client.call('pretrainedWrites', opened.key, options),
    key: (state) => `pretrained:${opened.key}:${state.layer ?? 0}:${state.text}`,
    tokens: (state) => shown(state).tokens,
    ids: (state) => shown(state).ids,
    note: (state) => (shown(state).cut ? t('sources.cut', { max: limit }) : ''),
    /** Every head's map of one layer: { tokens, shape, layer, layers, causal, weights (H, N, N) }. */
    async maps(state, { layer = 0 } = {}) {
      const r = await pass(state);
      const l = Math.min(Math.max(0, layer | 0), info.nLayers - 1);
      const size = r.attentions.length / info.nLayers;
      return { tokens: (await encode(state.text)).tokens, shape: opened.shape, layer: l, layers: info.nLayers, causal: true,
        weights: r.attentions.subarray(l * size, (l + 1) * size) };
    },
    /**
     * All layers at once, their heads' role scores on the sentence (the core's, per layer and head) and
     * the next tokens: { tokens, ids, shape, layers, attentions (layers, H, N, N), roles, next: [{ id, token, p }] }.
     */
    async all(state) {
      const r = await pass(state);
      const e = await encode(state.text);
      return { tokens: e.tokens, ids: e.ids, shape: opened.shape, layers: info.nLayers, attentions: r.attentions, roles: r.roles,
        next: r.next.map((n, i) => ({ ...n, token: r.nextLabels[i] })) };
    },
    /**
     * The walkthrough's tensors for one layer (model.stages in the worker: the core's forward, kept stage
     * by stage): { tokens, shape, layer, layers, causal, x, output, intermediates }.
     */
    async stages(state, { layer = 0 } = {}) {
      const e = await encode(state.text);
      if (e.error) throw e.error;
      const l = Math.min(Math.max(0, layer | 0), info.nLayers - 1);
      const r = await ctx.client.call('pretrainedStages', opened.key, { ids: e.ids, layer: l });
      return { tokens: e.tokens, shape: r.shape, layer: l, layers: info.nLayers, causal: true, x: r.x, output: r.output,
        intermediates: r.intermediates };
    },
    /** A KV-cache session of the model: append(labels) → { weights (H, k, length) of state.layer, length, cacheBytes, next }. */
    decoder(state, { key, maxLen }) {
      return {
        maxLen: Math.min(maxLen, info.maxPositions || maxLen),
        model: { name: opened.name, layers: info.nLayers, layer: Math.min(state.layer | 0, info.nLayers - 1), dtypeBytes: opened.dtypeBytes,
          kvBytesPerToken: info.kvBytesPerToken },
        /** The labels of a typed word: the tokenizer's pieces (or typed ids); a promise with a tokenizer. */
        tokenize: (text) => {
          if (!tokenizer) { const e = typedIds(text); if (e.error) throw e.error; return e.tokens; }
          return tokenizer.encode(text, limit).then((r) => r.tokens);
        },
        async start() {
          const r = await ctx.client.call('pretrainedSessionCreate', opened.key, key, this.maxLen);
          return { ...r, shape: opened.shape, baseline: null };
        },
        async append(tokens) {
          const e = encodedNow(state.text);
          if (e?.error) throw e.error;  // the sentence could not be split: its error, not an id's
          const r = await ctx.client.call('pretrainedSessionAppend', key, { ids: tokens.map(idOf), layer: this.model.layer });
          const labels = await labelsOf(r.next.map((n) => n.id));
          return { ...r, next: r.next.map((n, i) => ({ ...n, token: labels[i] })) };
        },
        dispose: () => ctx.client.call('pretrainedSessionDispose', key).catch(() => {}),
      };
    },
    /** What the heatmap view adds to its summary: the way back to the lesson's example. */
    extras: () => [' ', el('button', { type: 'button', dataset: { action: 'close-model' }, onclick: () => ctx.closeModel() },
      t('sources.back'))],
  };
}

/**
 * Refuses, before any weight is downloaded, a Hub model the page cannot open: the core's reading of its
 * config (an architecture, mixture-of-experts layers, a setting it does not compute), a dtype it does
 * not read, or weights larger than the pretrained module can hold or than half the device's memory
 * (navigator.deviceMemory, where the browser reports it). Each error names `model` and keeps its
 * catalog key for the page's language.
 */
async function checkBeforeDownload(ctx, repo, config, bytes) {
  const refuse = (key, params, Kind = RangeError) => Object.assign(new Kind(EN.t(key, { repo, ...params })), { field: 'model', key, params: { repo, ...params } });
  const dtype = config.torch_dtype ?? config.dtype;
  if (typeof dtype === 'string' && !['float32', 'float16', 'bfloat16'].includes(dtype)) throw refuse('hub.dtype', { dtype: dtype.slice(0, 40) });
  let limits;
  try {
    limits = await ctx.client.call('pretrainedCheck', config);
  } catch (e) {
    throw Object.assign(refuse('hub.unsupported', { reason: e.message.slice(0, 300) }), { detailField: e.field });
  }
  const size = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (bytes > limits.maxCheckpointBytes) throw refuse('hub.tooBig', { size: size(bytes), max: size(limits.maxCheckpointBytes) });
  const memory = globalThis.navigator?.deviceMemory;
  if (memory > 0 && bytes > memory * 2 ** 30 / 2) throw refuse('hub.tooBigDevice', { size: size(bytes), memory: `${memory} GiB` });
}

let opened = 0;
/**
 * Opens a checkpoint in the worker and returns its source: `input` is { files: File[] } (a picker, a
 * drop, or a bundled model of the zoo: sources/zoo-model.js), { url } (a folder served beside the page)
 * or { url: 'hf:<org>/<name>[@<revision>]', hub } (a Hub model, sources/hub.js); `input.name`, where
 * given, is what the page calls the model (else the folder's name); `input.openTokenizer`, where given,
 * opens (or shares) its tokenizer instead of a worker of its own (the zoo's models share one file). `onProgress({ phase: 'download' | 'load', loaded, total })`; `signal`
 * stops it (the promise then rejects with an AbortError).
 */
export async function openCheckpoint(ctx, input, { onProgress, signal } = {}) {
  const t0 = performance.now();
  const download = (p) => onProgress?.({ phase: 'download', ...p });
  let c;
  if (input.files) {
    c = await checkpointFromFiles(input.files);
  } else if (isHubModel(input.url)) {
    const { repo } = parseHubModel(input.url);
    c = await checkpointFromHub(input.url, { hub: input.hub, signal, onProgress: download, stream: true,
      check: (config, bytes) => checkBeforeDownload(ctx, repo, config, bytes) });
  } else {
    c = await checkpointFromUrl(input.url, { signal, onProgress: download, stream: true });
  }
  if (input.name) c.name = input.name;
  const key = `model-${++opened}`;
  // a single weights file downloaded as the worker reads it (sources/streamed-weights.js): a Hub model's, a folder's
  const { streamed } = c;
  let tokenizer = null, r;
  try {
    // tokenizer.json is read in its own worker, before the weights: a refused tokenizer stops the open
    // early (a folder's download, begun already, is stopped below)
    if (c.tokenizer) tokenizer = await (input.openTokenizer ?? openTokenizer)(c.tokenizer, { config: c.config, signal });
    if (streamed) {
      const got = await streamed.start();  // { stream, size }, or { blob } where the answer did not say its length
      c.weights = [got.stream ? { stream: got.stream, size: got.size } : got.blob];
      // the download's progress is the load's: the worker copies each chunk into the heap as it arrives
      r = await ctx.client.run('pretrainedOpen', [key, { config: c.config, weights: c.weights }], { signal, transfer: got.stream ? [got.stream] : [] });
      if (c.hub) {
        // the store's branch may still be writing (a disk slower than the heap): the model opens now,
        // and whether it was kept is known when `storing` settles (parts/open-model.js says so then)
        c.hub.stored = null;
        c.hub.storing = streamed.done.then((kept) => { c.hub.stored = kept; }, () => { c.hub.stored = false; });
      }
    } else {
      r = await ctx.client.run('pretrainedOpen', [key, { config: c.config, weights: c.weights }],
        { signal, onProgress: (p) => onProgress?.({ phase: 'load', ...p }) });
    }
  } catch (e) {
    if (!input.openTokenizer) tokenizer?.close();
    if (streamed?.done) {
      // the download's own error (a lost connection, a short file) says more than the worker's reading of it
      streamed.stop();
      const lost = await streamed.done.then(() => null, (d) => d);
      if (lost && lost.name !== 'AbortError') throw lost;
    }
    throw e;
  }
  const total = c.weights.reduce((s, w) => s + w.size, 0);
  return pretrainedSource(ctx, { key, name: c.name, url: input.url ?? '', hub: c.hub ?? null, config: c.config, info: r.info, shape: r.shape,
    dtypeBytes: r.dtypeBytes, tokenizer, fileBytes: total, ms: performance.now() - t0 });
}
