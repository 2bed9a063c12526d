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
import { tokenLabels } from './token-labels.js';
import '../i18n/catalogs/en/sources.js';  // the English words it speaks
import '../i18n/catalogs/en/hub.js';

/** The most tokens one pass takes here (the maps of 64 tokens are already 64 × 64 per head). */
export const MAX_TOKENS = 64;

/**
 * @param {object} ctx  the view ctx (client, closeModel, i18n: read at each use, so that the words follow the page's language)
 * @param {{ key: string, name: string, info: object, shape: object, dtypeBytes: number, tokenizer: object | null }} opened
 */
export function pretrainedSource(ctx, opened) {
  const { info, tokenizer } = opened;
  const limit = Math.min(MAX_TOKENS, info.maxPositions || MAX_TOKENS);
  const t = (key, params) => (ctx.i18n ?? EN).t(key, params);
  let encoded = null;  // { text, ids, tokens, note, error }
  let passed = null;   // { text, result: Promise<{ attentions (layers, H, N, N), next }> }

  /** A label for an id (the text it stands for, sources/token-labels.js; the id itself without a tokenizer) and back. */
  const { label, idOf } = tokenLabels(tokenizer);
  const bos = modelBos(opened.config, tokenizer, info.vocabSize);

  /**
   * Whether an id is an ordinary token: with a tokenizer, one that is not special (it decodes to text
   * when special tokens are skipped), not a byte token (<0x41>) and not a partial character. Without
   * one, every id but the config's special ids (the probe then takes the model's own words instead).
   */
  const special = new Set(['bos_token_id', 'eos_token_id', 'pad_token_id'].map((k) => opened.config?.[k]).filter(Number.isInteger));
  function ordinary(id) {
    if (special.has(id)) return false;
    if (!tokenizer) return true;
    const piece = tokenizer.idToToken(id);
    if (piece === undefined || /^<0x[0-9A-Fa-f]{2}>$/.test(piece)) return false;
    let text = '';
    try { text = tokenizer.decode([id], { skipSpecialTokens: true }); } catch { return false; }
    return text.trim() !== '' && !text.includes('\uFFFD');
  }

  /** Whether `text` is a list of this model's token ids (the sentence field of a model without a tokenizer). */
  const acceptsText = (text) => {
    const words = String(text).split(/[\s,]+/).filter(Boolean);
    return words.length > 0 && words.every((w) => /^\d+$/.test(w) && Number(w) < info.vocabSize);
  };

  /** The sentence as ids and labels: the tokenizer's pieces, or typed ids (checked against the vocabulary). */
  function encode(text) {
    if (encoded?.text === text) return encoded;
    let ids = [], error = null;
    if (tokenizer) {
      ids = [...tokenizer.encode(text, { addSpecialTokens: true }).ids];
    } else {
      const words = text.split(/[\s,]+/).filter(Boolean);
      const bad = words.find((w) => !/^\d+$/.test(w) || Number(w) >= info.vocabSize);
      if (bad !== undefined) {
        const params = { word: bad, last: info.vocabSize - 1 };  // the message in English, the key for the page's language
        error = Object.assign(new RangeError(EN.t('sources.notAnId', params)), { field: 'text', key: 'sources.notAnId', params });
      }
      ids = error ? [] : words.map(Number);
    }
    const cut = ids.length > limit;
    ids = ids.slice(0, limit);
    encoded = { text, ids, tokens: ids.map(label), error, cut };
    return encoded;
  }

  /** Every layer's maps and the next tokens of the sentence (one forward per sentence). */
  function pass(state) {
    const e = encode(state.text);
    if (e.error) return Promise.reject(e.error);
    if (passed?.text !== state.text) {
      passed = { text: state.text, result: ctx.client.call('pretrainedForward', opened.key, e.ids) };
      passed.result.catch(() => { passed = null; });
    }
    return passed.result;
  }

  return {
    id: 'pretrained',
    title: `${opened.name} (${info.modelType})`,
    opened,
    label,
    acceptsText,
    /**
     * A first sentence for a model without a tokenizer: its BOS (where it has one) and the 7 tokens the
     * model itself writes next, most likely first: its own words, which its heads were trained on.
     */
    async startText() {
      const start = [bos ?? (special.values().next().value ?? 0)];
      const ids = await ctx.client.call('pretrainedWrites', opened.key, { start, count: Math.min(7, limit - 1) });
      return [...start, ...ids].join(' ');
    },
    /** The model's BOS id where it uses one (else null), and whether an id is an ordinary token: for the head-roles probes (parts/model-probe.js). */
    bos,
    ordinary,
    /** What the model writes after `start` ids (the worker's pretrainedWrites: greedy, or sampled at `temperature` with `seed`). */
    writes: (options) => ctx.client.call('pretrainedWrites', opened.key, options),
    key: (state) => `pretrained:${opened.key}:${state.layer ?? 0}:${state.text}`,
    tokens: (state) => encode(state.text).tokens,
    ids: (state) => encode(state.text).ids,
    note: (state) => (encode(state.text).cut ? t('sources.cut', { max: limit }) : ''),
    /** Every head's map of one layer: { tokens, shape, layer, layers, causal, weights (H, N, N) }. */
    async maps(state, { layer = 0 } = {}) {
      const r = await pass(state);
      const l = Math.min(Math.max(0, layer | 0), info.nLayers - 1);
      const size = r.attentions.length / info.nLayers;
      return { tokens: encode(state.text).tokens, shape: opened.shape, layer: l, layers: info.nLayers, causal: true,
        weights: r.attentions.subarray(l * size, (l + 1) * size) };
    },
    /** All layers at once and the next tokens: { tokens, ids, shape, layers, attentions (layers, H, N, N), next: [{ id, token, p }] }. */
    async all(state) {
      const r = await pass(state);
      const e = encode(state.text);
      return { tokens: e.tokens, ids: e.ids, shape: opened.shape, layers: info.nLayers, attentions: r.attentions,
        next: r.next.map((n) => ({ ...n, token: label(n.id) })) };
    },
    /**
     * The walkthrough's tensors for one layer (model.stages in the worker: the core's forward, kept stage
     * by stage): { tokens, shape, layer, layers, causal, x, output, intermediates }.
     */
    async stages(state, { layer = 0 } = {}) {
      const e = encode(state.text);
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
        /** The labels of a typed word: the tokenizer's pieces (or typed ids). */
        tokenize: (text) => { const e = encode(text); if (e.error) throw e.error; return e.tokens; },
        async start() {
          const r = await ctx.client.call('pretrainedSessionCreate', opened.key, key, this.maxLen);
          return { ...r, shape: opened.shape, baseline: null };
        },
        async append(tokens) {
          const r = await ctx.client.call('pretrainedSessionAppend', key, { ids: tokens.map(idOf), layer: this.model.layer });
          return { ...r, next: r.next.map((n) => ({ ...n, token: label(n.id) })) };
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

/**
 * The model's BOS id where it uses one: the config's bos_token_id when its tokenizer puts it first
 * (encode with special tokens), or, without a tokenizer, when the config names one. Else null (GPT-2's
 * and Qwen's tokenizers add none).
 */
function modelBos(config, tokenizer, vocab) {
  const bos = config?.bos_token_id;
  if (!Number.isInteger(bos) || bos < 0 || bos >= vocab) return null;
  if (!tokenizer) return bos;
  try {
    return tokenizer.encode('a', { addSpecialTokens: true }).ids[0] === bos ? bos : null;
  } catch {
    return null;
  }
}

let opened = 0;
/**
 * Opens a checkpoint in the worker and returns its source: `input` is { files: File[] } (a picker, a
 * drop), { url } (a folder served beside the page) or { url: 'hf:<org>/<name>[@<revision>]', hub } (a
 * Hub model, sources/hub.js). `onProgress({ phase: 'download' | 'load', loaded, total })`; `signal`
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
    c = await checkpointFromHub(input.url, { hub: input.hub, signal, onProgress: download,
      check: (config, bytes) => checkBeforeDownload(ctx, repo, config, bytes) });
  } else {
    c = await checkpointFromUrl(input.url, { signal, onProgress: download });
  }
  const key = `model-${++opened}`;
  const total = c.weights.reduce((s, w) => s + w.size, 0);
  const r = await ctx.client.run('pretrainedOpen', [key, { config: c.config, weights: c.weights }],
    { signal, onProgress: (p) => onProgress?.({ phase: 'load', ...p }) });
  return pretrainedSource(ctx, { key, name: c.name, url: input.url ?? '', hub: c.hub ?? null, config: c.config, info: r.info, shape: r.shape,
    dtypeBytes: r.dtypeBytes, tokenizer: c.tokenizer, fileBytes: total, ms: performance.now() - t0 });
}
