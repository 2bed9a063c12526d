// worker-methods.js — what the core worker can be asked to do (shared by the module worker of the
// served page and the classic worker of standalone.html). Each method gets the Attention object.
import { serializeError } from './core-errors.js';

const sessions = new Map(); // key -> Session
const trainers = new Map(); // key -> Trainer (the lab)
const trainer = (key) => {
  const t = trainers.get(key);
  if (!t) throw new Error(`no trainer '${key}'`);
  return t;
};

export const methods = {
  info: (attn) => attn.info,
  presets: (attn) => attn.presets(),
  forward: (attn, spec) => attn.forward(spec),
  paramCount: (attn, cfg) => attn.paramCount(cfg),
  /** Many KV-cache sizes in one round trip (the chart asks for hundreds). */
  kvCacheBytesMany: (attn, cfgs) => cfgs.map((c) => attn.kvCacheBytes(c)),
  /** The configurator (views/configurator.js): a recommended attention geometry and the memory targets. */
  recommend: (attn, q) => attn.recommend(q),
  deploymentTargets: (attn) => attn.deploymentTargets(),
  /** The configurator's size table, for the heads table (views/heads-table.js). */
  sizeTable: (attn) => attn.sizeTable(),
  sessionCreate(attn, key, spec) {
    sessions.get(key)?.dispose();
    const s = attn.createSession(spec);
    sessions.set(key, s);
    return { length: s.length, cacheBytes: s.cacheBytes, maxLen: s.maxLen };
  },
  sessionAppend(attn, key, x) {
    const s = sessions.get(key);
    if (!s) throw new Error(`no session '${key}'`);
    const r = s.append(x);
    return { ...r, length: s.length, cacheBytes: s.cacheBytes };
  },
  // The lab: the page drives training in small chunks (trainerStep), so it can plot progress and
  // stop between chunks; a chunk of a default-size model takes well under 200 ms.
  trainerCreate(attn, key, spec) {
    trainers.get(key)?.dispose();
    const t = attn.createTrainer(spec);
    trainers.set(key, t);
    return { steps: t.steps, vocabSize: t.vocabSize };
  },
  trainerLoad(attn, key, bytes) {
    trainers.get(key)?.dispose();
    const t = attn.loadModel(bytes);
    trainers.set(key, t);
    return { steps: t.steps, vocabSize: t.vocabSize };
  },
  trainerStep: (attn, key, n) => trainer(key).step(n),
  trainerEvaluate: (attn, key) => trainer(key).evaluate(),
  trainerHeadScores: (attn, key) => trainer(key).headScores(),
  trainerAttention: (attn, key, tokens) => trainer(key).attention(tokens),
  trainerExport: (attn, key) => ({ bytes: trainer(key).exportModel() }),
  trainerDispose(attn, key) {
    trainers.get(key)?.dispose();
    trainers.delete(key);
    return true;
  },
  sessionDispose(attn, key) {
    sessions.get(key)?.dispose();
    sessions.delete(key);
    return true;
  },
};

/** Methods that need the training module (a second WebAssembly module, loaded on demand). */
const NEEDS_TRAINING = new Set(['trainerCreate', 'trainerLoad']);

const transferables = (result) =>
  result && typeof result === 'object'
    ? Object.values(result).filter((v) => ArrayBuffer.isView(v)).map((v) => v.buffer)
    : [];

/**
 * Installs the message handler: { id, method, args, simd } in, { id, ok, result | error } out.
 * @param {(simd: 'auto' | boolean) => Promise<any>} load returns the Attention object (called once),
 *   without its training module: trainerCreate / trainerLoad load that on first use (loadTraining)
 */
export function serve(load) {
  let core = null;
  self.onmessage = async ({ data }) => {
    const { id, method, args = [], simd = 'auto' } = data;
    try {
      if (!core) core = load(simd);
      const attn = await core;
      if (!Object.hasOwn(methods, method)) throw new Error(`unknown method '${method}'`);
      // The worker loads the attention module only; the lab's training module comes on first use.
      if (NEEDS_TRAINING.has(method) && !attn.trainingLoaded) await attn.loadTraining();
      const result = methods[method](attn, ...args);
      self.postMessage({ id, ok: true, result }, transferables(result));
    } catch (e) {
      self.postMessage({ id, ok: false, error: serializeError(e) });  // keeps error.field
    }
  };
}
