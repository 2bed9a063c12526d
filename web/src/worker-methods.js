// worker-methods.js — what the core worker can be asked to do (shared by the module worker of the
// served page and the classic worker of standalone.html). Each method gets the Attention object, then
// its arguments; a method may also take `job` ({ signal, progress(data) }) as its last argument, for
// long work the page can follow and abort (trainerTrain). Protocol: serve() below.
import { serializeError } from './core-errors.js';
import { embed } from './tokens.js';

const sessions = new Map(); // key -> Session
const trainers = new Map(); // key -> { trainer, spec }
export const trainer = (key) => {
  const t = trainers.get(key);
  if (!t) throw new Error(`no trainer '${key}'`);
  return t.trainer;
};

/** Whether x carries positions as added sinusoids (else RoPE puts them inside attention). */
const addedPositions = (spec) => !(spec.variant !== 'mla' && spec.rope);

/** x (N, dModel) of a seeded pass: the core resolves the shape first, so a bad dModel never allocates. */
function seededInput(attn, spec, tokens, extra = {}) {
  const shape = attn.resolveShape({ ...spec, ...extra });
  return embed(tokens, shape.dModel, { seed: spec.seed ?? 0, positions: addedPositions(spec) });
}

export const methods = {
  info: (attn) => attn.info,
  presets: (attn) => attn.presets(),
  forward: (attn, spec) => attn.forward(spec),
  resolveShape: (attn, spec) => attn.resolveShape(spec),
  /** Many shapes in one round trip: each the resolved shape or { error } (the params and KV views). */
  resolveShapes: (attn, specs) => specs.map((s) => {
    try {
      return attn.resolveShape(s);
    } catch (e) {
      return { error: serializeError(e) };
    }
  }),
  paramCount: (attn, cfg) => attn.paramCount(cfg),
  /** Many KV-cache sizes in one round trip (the chart asks for hundreds). */
  kvCacheBytesMany: (attn, cfgs) => cfgs.map((c) => attn.kvCacheBytes(c)),
  /** The configurator (views/configurator.js): a recommended attention geometry and the memory targets. */
  recommend: (attn, q) => attn.recommend(q),
  deploymentTargets: (attn) => attn.deploymentTargets(),
  /** The configurator's size table, for the heads table (views/heads-table.js). */
  sizeTable: (attn) => attn.sizeTable(),

  /**
   * The seeded source's pass (sources/seeded.js): tokens embedded here, after the core accepted the
   * shape, then forward. Returns forward's result plus x (the walkthrough draws it).
   */
  seededForward(attn, { spec, tokens, causal, returnWeights = false, returnIntermediates = false }) {
    const x = seededInput(attn, spec, tokens, { seqLen: tokens.length, causal });
    const r = attn.forward({ ...spec, seqLen: tokens.length, causal, x, returnWeights, returnIntermediates });
    return { ...r, x };
  },
  seededSessionCreate(attn, key, spec) {
    return methods.sessionCreate(attn, key, spec);
  },
  /** Appends the last `fresh` of `tokens` (all the session's tokens, so positions continue). */
  seededSessionAppend(attn, key, { spec, tokens, fresh }) {
    const s = sessions.get(key);
    if (!s) throw new Error(`no session '${key}'`);
    const x = seededInput(attn, spec, tokens);
    return methods.sessionAppend(attn, key, x.subarray(x.length - fresh * (x.length / tokens.length)));
  },

  sessionCreate(attn, key, spec) {
    sessions.get(key)?.dispose();
    sessions.delete(key);
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
  sessionDispose(attn, key) {
    sessions.get(key)?.dispose();
    sessions.delete(key);
    return true;
  },

  // The labs. A trainer is kept under its key with the spec it was made from (or its file's).
  trainerCreate(attn, key, spec) {
    methods.trainerDispose(attn, key);
    const t = attn.createTrainer(spec);
    trainers.set(key, { trainer: t, spec: t.spec ?? spec });
    return { steps: t.steps, vocabSize: t.vocabSize, spec: t.spec ?? spec, checkpointType: t.checkpointType };
  },
  // options: loadModel's ({ text } for a file that names its corpus by reference).
  async trainerLoad(attn, key, bytes, options = {}) {
    methods.trainerDispose(attn, key);
    const t = attn.loadModel(bytes, options);  // a refused file leaves nothing under key
    // the file's own record while the core's Trainer has no spec (imported here: the first map's
    // worker does not carry it)
    const spec = t.spec ?? (await import('./labs/model-file.js')).specFromModelFile(bytes);
    trainers.set(key, { trainer: t, spec });
    return { steps: t.steps, vocabSize: t.vocabSize, spec, checkpointType: t.checkpointType };
  },
  trainerStep: (attn, key, n) => trainer(key).step(n),
  /**
   * The one training loop (trainer.train): `steps` optimiser steps in chunks sized by the core,
   * evaluating every `evalEvery` steps; progress reaches the page as it goes, and the page's
   * AbortSignal stops it between chunks (the trainer keeps the steps taken).
   */
  async trainerTrain(attn, key, { steps, evalEvery = 0 }, job) {
    const t = trainer(key);
    const options = { steps, signal: job.signal, onProgress: (p) => job.progress(p) };
    if (evalEvery) options.evalEvery = evalEvery;
    const last = await t.train(options);
    return { ...last, steps: t.steps };
  },
  trainerEvaluate: (attn, key) => trainer(key).evaluate(),
  trainerHeadScores: (attn, key) => trainer(key).headScores(),
  trainerAttention: (attn, key, tokens) => trainer(key).attention(tokens),
  trainerInfo: (attn, key) => ({ steps: trainer(key).steps, vocabSize: trainer(key).vocabSize, spec: trainers.get(key).spec }),
  trainerExport: (attn, key) => ({ bytes: trainer(key).exportModel() }),
  // a block 'llama' or 'deepseek' model as a Hugging Face checkpoint (the model view opens it)
  trainerCheckpoint: (attn, key) => trainer(key).exportCheckpoint(),
  trainerDispose(attn, key) {
    trainers.get(key)?.trainer.dispose();
    trainers.delete(key);
    return true;
  },

  /**
   * The decode view's bandwidth measurement (parts/decode-bandwidth.js): for each variant, one layer
   * of `shape` with a cache of max(contexts) tokens (attn.createDecodeProbe); `rounds` rounds over
   * every context (each a cached step timed for budgetMs, so drift falls on every point alike), then
   * the step without a cache at uncachedContext (recomputed in calls of about budgetMs). The copy
   * bandwidth is measured before and after. Yields between calls, so Stop (the job's signal) acts.
   */
  async decodeBandwidth(attn, { shape, variants, contexts, rounds = 3, budgetMs = 60, uncachedContext = 1024 }, job) {
    const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
    const checkAbort = () => { if (job.signal.aborted) throw new DOMException('stopped', 'AbortError'); };
    const bandwidth = [attn.copyBandwidth(200)];
    const rows = [], uncached = [];
    const total = variants.length * (rounds * contexts.length + 1);
    let done = 0;
    for (const v of variants) {
      // A layer of a real model's width takes seconds to fill with seeded weights: long work, in a worker.
      const probe = attn.createDecodeProbe({ ...shape, ...v, maxLen: Math.max(...contexts, uncachedContext) + 1, allowLongWork: true });
      try {
        const mine = contexts.map((context) => ({ variant: v.variant, context, weightBytes: 0, cacheBytes: 0, ms: [] }));
        for (let r = 0; r < rounds; r++) {
          for (const row of mine) {
            await pause();
            checkAbort();
            job.progress({ variant: v.variant, context: row.context, done: ++done, total });
            const t = probe.cachedStep(row.context, budgetMs);
            row.ms.push(t.msPerToken);
            row.weightBytes = t.weightBytes;
            row.cacheBytes = t.cacheBytes;
          }
        }
        rows.push(...mine);
        job.progress({ variant: v.variant, context: uncachedContext, done: ++done, total });
        let u;
        do {
          await pause();
          checkAbort();
          u = probe.uncachedStep(uncachedContext, budgetMs * 2);
        } while (!u.done);
        uncached.push({ variant: v.variant, context: uncachedContext, ms: u.ms, flops: u.flops });
      } finally {
        probe.dispose();
      }
    }
    bandwidth.push(attn.copyBandwidth(200));
    return { bandwidth, rows, uncached, rounds, build: attn.info.build };
  },
};

/** Methods that take a `job` (progress and abort) after their arguments. */
const JOB_METHODS = new Set(['trainerTrain', 'decodeBandwidth', 'pretrainedOpen']);
/** An opened checkpoint's methods (worker-pretrained.js) join `methods` with the first call of one. */
let pretrained = null;
/** Methods that need the training module (a second WebAssembly module, loaded on demand), which
 *  also carries the decode probe. */
const NEEDS_TRAINING = new Set(['trainerCreate', 'trainerLoad', 'decodeBandwidth']);
/** Methods that need the configurator's small module (loaded on demand, and by loadTraining too). */
const NEEDS_CONFIGURATOR = new Set(['recommend', 'deploymentTargets']);

const transferables = (result) =>
  result && typeof result === 'object'
    ? Object.values(result).filter((v) => ArrayBuffer.isView(v)).map((v) => v.buffer)
    : [];

/**
 * Installs the message handler. In: { id, method, args, simd } (a call) or { abort: id } (stops the
 * call's job). Out: { id, progress } any number of times, then { id, ok, result | error }.
 * @param {(simd: 'auto' | boolean) => Promise<any>} load returns the Attention object (called once),
 *   without its training module: trainerCreate / trainerLoad load that on first use (loadTraining),
 *   recommend / deploymentTargets the configurator module (loadConfigurator)
 */
export function serve(load) {
  let core = null;
  const jobs = new Map(); // id -> AbortController of a running call
  self.onmessage = async ({ data }) => {
    if (data.abort != null) {
      jobs.get(data.abort)?.abort();
      return;
    }
    const { id, method, args = [], simd = 'auto' } = data;
    const controller = new AbortController();
    jobs.set(id, controller);
    const job = { signal: controller.signal, progress: (p) => self.postMessage({ id, progress: p }) };
    try {
      if (!core) core = load(simd);
      const attn = await core;
      if (method.startsWith('pretrained')) pretrained ??= Object.assign(methods, (await import('./worker-pretrained.js')).pretrainedMethods);
      if (!Object.hasOwn(methods, method)) throw new Error(`unknown method '${method}'`);
      // The worker loads the attention module only; the lab's training module comes on first use.
      if (NEEDS_TRAINING.has(method) && !attn.trainingLoaded) await attn.loadTraining();
      if (NEEDS_CONFIGURATOR.has(method) && !attn.configuratorLoaded) await attn.loadConfigurator();
      const result = await methods[method](attn, ...args, ...(JOB_METHODS.has(method) ? [job] : []));
      self.postMessage({ id, ok: true, result }, transferables(result));
    } catch (e) {
      self.postMessage({ id, ok: false, error: serializeError(e) });  // keeps error.field
    } finally {
      jobs.delete(id);
    }
  };
}
