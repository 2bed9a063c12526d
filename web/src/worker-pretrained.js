// worker-pretrained.js — the worker's methods for an opened checkpoint (sources/pretrained.js): open
// it (attn.loadPretrained, with progress and Stop), its maps, its next tokens, one layer's stages (the
// walkthrough), its head roles and its KV-cache sessions. Models and sessions are kept under the page's keys. The tokenizer runs on the
// page (sources/model-files.js), so these methods take and give token ids.
import { meanScores } from './sources/head-roles.js';
import { rng } from './rng.js';

const argmax = (row) => {
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
  return best;
};
/** An id drawn from softmax(row / temperature) with `u` uniform in [0, 1). */
function sample(row, temperature, u) {
  const hi = row[argmax(row)];
  let sum = 0;
  for (let j = 0; j < row.length; j++) sum += Math.exp((row[j] - hi) / temperature);
  let acc = 0;
  for (let j = 0; j < row.length; j++) {
    acc += Math.exp((row[j] - hi) / temperature) / sum;
    if (u < acc) return j;
  }
  return row.length - 1;
}

// These run in the page's core worker, where a long call delays only the worker's next answer, never
// the page: a real model's forward over the 64 tokens the page takes (SmolLM2-135M: about 1.3 s of
// work by the core's estimate) is above the cap of a synchronous call, which guards the main thread.
const allowLongWork = true;

const models = new Map();    // key -> { model, shape, dtypeBytes }
const sessions = new Map();  // key -> { session, model }

const modelOf = (key) => {
  const m = models.get(key);
  if (!m) throw new Error(`no model '${key}'`);
  return m;
};

/**
 * The k most likely next tokens of one logits row: [{ id, p }] (softmax over the whole vocabulary),
 * by logit, highest first, ties by the lower id. One pass keeps the k best in order (a vocabulary of
 * 150k tokens is never sorted: a step of decoding would spend tens of milliseconds on it).
 */
export function topNext(logits, offset, vocab, k = 10) {
  let hi = -Infinity;
  for (let j = 0; j < vocab; j++) hi = Math.max(hi, logits[offset + j]);
  let sum = 0;
  for (let j = 0; j < vocab; j++) sum += Math.exp(logits[offset + j] - hi);
  const best = [];  // ids, highest logit first
  const n = Math.min(k, vocab);
  for (let j = 0; j < vocab; j++) {
    const v = logits[offset + j];
    if (best.length === n && !(v > logits[offset + best[n - 1]])) continue;  // ties keep the lower id
    let at = best.length === n ? n - 1 : best.length;
    while (at > 0 && v > logits[offset + best[at - 1]]) { best[at] = best[at - 1]; at--; }
    best[at] = j;
  }
  return best.map((id) => ({ id, p: Math.exp(logits[offset + id] - hi) / sum }));
}


export const pretrainedMethods = {
  /**
   * What the core reads of a config.json alone, before any weight is fetched (sources/hub.js): the
   * pretrained module's limits, or the core's refusal naming the config key.
   */
  async pretrainedCheck(attn, config) {
    const info = await attn.checkPretrainedConfig(config);
    return { info, ...(await attn.pretrainedLimits()) };
  },
  /** Opens a checkpoint: { config, weights: Blob[] } → { info, shape, dtypeBytes }. Progress in bytes. */
  async pretrainedOpen(attn, key, { config, weights }, job) {
    models.get(key)?.model.dispose();
    models.delete(key);
    const model = await attn.loadPretrained({ config, weights, signal: job.signal, onProgress: (p) => job.progress(p) });
    const info = model.info;
    // The views' geometry (render/geometry.js) is the core's: the lesson's shape of the model's attention
    // (its K/V head of each query head, the floats a token adds to a layer's cache).
    const floats = info.shape.cacheFloatsPerToken * info.nLayers;
    const dtypeBytes = info.kvBytesPerToken / floats;  // the checkpoint's bytes per cached element (2: F16, BF16)
    const entry = { model, shape: info.shape, dtypeBytes };
    models.set(key, entry);
    return { info, shape: entry.shape, dtypeBytes };
  },

  /**
   * Every layer's maps, their head-role scores on these ids and the next tokens: { attentions: (layers,
   * H, N, N), roles, next: [{ id, p }] }.
   */
  pretrainedForward(attn, key, ids) {
    const { model } = modelOf(key);
    const { logits, attentions, roles } = model.forward(ids, { attentions: true, roles: true, allowLongWork });
    const size = attentions[0].length;
    const all = new Float32Array(attentions.length * size);
    attentions.forEach((m, l) => all.set(m, l * size));
    const vocab = model.info.vocabSize;
    return { attentions: all, roles, next: topNext(logits, (ids.length - 1) * vocab, vocab) };
  },

  /** One layer's attention stage by stage (model.stages): { x, output, intermediates, shape }. */
  pretrainedStages(attn, key, { ids, layer }) {
    const { model } = modelOf(key);
    return model.stages(ids, { layer, allowLongWork });
  },

  /**
   * Per layer and head: previous token, induction, first token and duplicate token scores, the mean over
   * probes (`probes`: token id lists from sources/head-roles.js roleProbe / probeOf, drawn on the page,
   * where the tokenizer is).
   */
  pretrainedHeadRoles(attn, key, { probes }) {
    const { model } = modelOf(key);
    return { scores: meanScores(probes.map((ids) => model.forward(ids, { roles: true, allowLongWork }).roles)) };
  },

  /**
   * What the model writes after `start` (token ids): `count` more ids, each the most likely next token
   * (temperature 0) or drawn from the softmax at `temperature` with a seeded generator. The page's
   * first sentence for a model without a tokenizer, and the ordinary tokens of its probe.
   */
  pretrainedWrites(attn, key, { start, count, temperature = 0, seed = 0 }) {
    const { model } = modelOf(key);
    const vocab = model.info.vocabSize;
    const session = model.createSession({ maxLen: start.length + count });
    const next = rng(seed + 1);
    const out = [];
    try {
      let logits = session.append(start, { allowLongWork }).logits.subarray((start.length - 1) * vocab);
      for (let k = 0; k < count; k++) {
        const id = temperature > 0 ? sample(logits, temperature, next()) : argmax(logits);
        out.push(id);
        if (k + 1 < count) logits = session.append([id], { allowLongWork }).logits;
      }
    } finally {
      session.dispose();
    }
    return out;
  },

  pretrainedSessionCreate(attn, key, sessionKey, maxLen) {
    pretrainedMethods.pretrainedSessionDispose(attn, sessionKey);
    const { model } = modelOf(key);
    const session = model.createSession({ maxLen });
    sessions.set(sessionKey, { session, model });
    return { length: session.length, cacheBytes: session.cacheBytes, maxLen: session.maxLen };
  },
  /**
   * Appends ids: { weights (H, k, length) of `layer`, length, cacheBytes, next, ms }. `ms`: the worker's
   * time for the append and the next tokens (what the page's step adds around it is the rest).
   */
  pretrainedSessionAppend(attn, sessionKey, { ids, layer = 0 }) {
    const s = sessions.get(sessionKey);
    if (!s) throw new Error(`no session '${sessionKey}'`);
    const t0 = performance.now();
    const r = s.session.append(ids, { attentions: true, allowLongWork });
    const vocab = s.model.info.vocabSize;
    const l = Math.min(Math.max(0, layer | 0), r.attentions.length - 1);
    const next = topNext(r.logits, (ids.length - 1) * vocab, vocab, 5);
    return { weights: r.attentions[l], length: s.session.length, cacheBytes: s.session.cacheBytes, next, ms: performance.now() - t0 };
  },
  pretrainedSessionDispose(attn, sessionKey) {
    sessions.get(sessionKey)?.session.dispose();
    sessions.delete(sessionKey);
    return true;
  },
  pretrainedDispose(attn, key) {
    for (const [k, s] of sessions) if (s.model === models.get(key)?.model) pretrainedMethods.pretrainedSessionDispose(attn, k);
    models.get(key)?.model.dispose();
    models.delete(key);
    return true;
  },
};
