// tasks.js — what each lab trains on, in one place: the views train with these settings, the bundled
// lab models are trained natively with the same ones (scripts/zoo.mjs), and an imported model is
// checked against them (a model trained on another lab's task is refused).
// Measured settings and timings: docs/lab.md.
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks

// Lab 1. The task where the head count matters: 16 random tokens of an alphabet of 8; at each
// position, name the two tokens before it, in order (one of 8 x 8 pairs). One head must average both
// positions in one softmax; two heads take one each. Measured natively (300 steps, 3 seeds): held-out
// loss 0.30 nats with one head, 0.026 with 2 or 4 heads, 0.027 with 8, 0.029 with 16 (docs/lab.md).
export const PAIRS_TASK = { task: 'pairs', vocabSize: 8, seqLen: 16, batchSize: 16 };
// Lab 1's other task, the lesson's own: the copy task made harder than its default (seqLen 32, vocab
// 16 converges in ~50 steps for every head count): 64 tokens from a vocabulary of 64. Measured in Node
// (wasm SIMD), 300 steps: loss at step 100 0.03 / 0.07 / 0.26 / 1.94 / 3.73 for 1 / 2 / 4 / 8 / 16 heads.
export const HEADS_COPY_TASK = { task: 'copy', seqLen: 64, vocabSize: 64, batchSize: 16 };
/** Lab 1's tasks, the first the default. */
export const HEADS_TASKS = { pairs: PAIRS_TASK, copy: HEADS_COPY_TASK };
export const HEADS_TASK = PAIRS_TASK;
/** Lab 1's model: one attention layer at dModel 64 (nHeads is what the lab sweeps). */
export const HEADS_MODEL = { variant: 'mha', dModel: 64, nLayers: 1, layerNorm: true };
/** Lab 1's head counts, and its steps per model (the bundled sweep's too). */
export const HEADS_SWEEP = [1, 2, 4, 8, 16];
export const HEADS_STEPS = 300;
// Lab 2. Copy task hard enough (64 symbols, 32 tokens) that the K/V budget shows in the loss. Measured
// (wasm, Node, seed 0, the Llama block): held-out loss MHA 0.71 / GQA 3.14 / MQA 3.45 nats after 150
// steps, 0.011 / 0.019 / 0.023 after 300, 0.0061 / 0.0084 / 0.0092 after 400 (docs/lab.md).
export const MQA_TASK = { task: 'copy', vocabSize: 64, seqLen: 32, batchSize: 16, learningRate: 3e-3, seed: 0 };
/** Lab 2's model: one layer of the Llama block (the zoo's), so that every variant opens in the model view as llama. */
export const MQA_MODEL = { block: 'llama', dModel: 64, nHeads: 8, nLayers: 1 };
// Lab 3. Characters of the Tiny Shakespeare slice (the text is added when a run starts).
export const RANK_TASK = { task: 'chars', seqLen: 32, batchSize: 16, learningRate: 3e-3, seed: 0 };
/** Lab 3's models: one layer; MHA of the Llama block, MLA of DeepSeek-V2's (the same block with MLA), with a decoupled RoPE key of RANK_ROPE_DIM. */
export const RANK_MODEL = { dModel: 64, nHeads: 4, dHead: 16, nLayers: 1 };
export const RANK_ROPE_DIM = 4;
// Lab 4. Sequences with a repeated random segment (the default vocabulary of 32), a two-layer model of
// the Llama block (RMSNorm, RoPE, SwiGLU, no biases), the block of the zoo and of the checkpoints the
// model view opens: a trained Lab 4 model opens there as a Hugging Face checkpoint. Measured (wasm SIMD
// in Node, seed 0, cosine decay over the run): 400 steps are not enough for seed 0 (accuracy 0.55,
// previous-token 0.34, induction 0.30); 600 reach 95 % at step 390 and end at 0.998 (previous-token
// 0.84, induction 0.90), ~15 s. Natively, seeds 1-5 reach 0.99 within 400 steps.
export const INDUCTION_TASK = { task: 'induction', seqLen: 32, batchSize: 16 };
export const INDUCTION_MODEL = { variant: 'mha', block: 'llama', dModel: 64, nHeads: 4, nLayers: 2 };
export const INDUCTION_STEPS = 600;

/** A seeded example: n / 2 distinct random tokens, then the same tokens again (every second-half token is A B … A → B). */
export function exampleSequence(vocabSize, n = INDUCTION_TASK.seqLen, seed = 7) {
  let s = seed >>> 0 || 1;
  const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const half = Math.floor(n / 2);
  const pool = Array.from({ length: vocabSize }, (_, i) => i);  // distinct tokens when the vocabulary allows
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  const first = Array.from({ length: half }, (_, i) => (half <= vocabSize ? pool[i] : Math.floor(rnd() * vocabSize)));
  return [...first, ...first, ...Array.from({ length: n - 2 * half }, () => Math.floor(rnd() * vocabSize))];
}

/** The labs by id: their number on the page (Lab 2) and their task. */
export const LAB_TASKS = {
  'lab-heads': { number: 1, task: HEADS_TASK, tasks: Object.values(HEADS_TASKS) },
  'lab-mqa': { number: 2, task: MQA_TASK },
  'lab-rank': { number: 3, task: RANK_TASK },
  'lab-induction': { number: 4, task: INDUCTION_TASK },
};

// What makes two tasks the same data: the kind, the sequence length and (where the lab sets it) the vocabulary.
const SIGNATURE = ['task', 'seqLen', 'vocabSize'];
const WORDS = { copy: 'labs.task.copy', induction: 'labs.task.induction', chars: 'labs.task.chars', pairs: 'labs.task.pairs' };

/** 'the copy task (32 tokens, vocabulary 64)', in the language of `i18n` (the element's; English by default). */
export function describeTask(t, i18n = EN) {
  const details = [t.seqLen != null ? i18n.t('labs.task.tokens', { count: t.seqLen }) : null,
    t.vocabSize != null ? i18n.t('labs.task.vocabulary', { size: t.vocabSize }) : null].filter(Boolean);
  const task = WORDS[t.task] ? i18n.t(WORDS[t.task]) : i18n.t('labs.task.other', { name: String(t.task).slice(0, 40) });
  return details.length ? i18n.t('labs.task.details', { task, details: details.join(', ') }) : task;
}

/** Whether `spec` (a trainer's) trains on `task` (a lab's): the fields the lab sets agree. */
const sameTask = (task, spec) => SIGNATURE.every((k) => task[k] === undefined || spec[k] === task[k]);
/** Whether `spec` trains on one of a lab's tasks. */
const labTakes = (lab, spec) => (lab.tasks ?? [lab.task]).some((t) => sameTask(t, spec));

/**
 * Whether lab `labId` takes a model whose trainer spec is `spec` (null: the file does not say):
 * { ok: true, note } (note: what the model list should say about it, '' when nothing) or
 * { ok: false, message } (why it is refused, and which lab it belongs to when one does), in the
 * language of `i18n`.
 */
export function checkImport(labId, spec, i18n = EN) {
  const lab = LAB_TASKS[labId];
  if (!lab) return { ok: true, note: '' };
  if (!spec || spec.task == null) return { ok: true, note: i18n.t('labs.task.unrecorded') };
  if (labTakes(lab, spec)) return { ok: true, note: '' };
  const owner = Object.values(LAB_TASKS).find((l) => labTakes(l, spec));
  const words = { task: describeTask(spec, i18n), own: describeTask(lab.task, i18n) };
  return {
    ok: false,
    message: owner ? i18n.t('labs.task.othersLab', { ...words, lab: i18n.t('labs.task.lab', { n: owner.number }) })
      : i18n.t('labs.task.unknown', words),
  };
}
