// verdicts.js — the labs' computed sentences: what each lab concludes from its measured numbers, and
// when it may conclude anything (pure: tests/node/web-lab-verdicts.test.mjs).

import { MEASURABLE_SE, SETTLED_NATS, difference, digitsFor, meanSd, plusMinus, signedDiff } from './spread.js';


/**
 * '' when `steps` per model is enough for the lab to state a verdict, else the sentence that says it is
 * not: a lab draws no conclusion from runs shorter than the length its measurements settle at (docs/lab.md).
 */
export function tooFewSteps(steps, enough, what = 'a verdict') {
  return steps >= enough ? ''
    : `Only ${steps} step${steps === 1 ? '' : 's'} per model: too few for ${what} (the losses are still falling; `
      + `train at least ${enough}). The numbers so far: `;
}

// ---- Lab 1: do more heads help? -----------------------------------------------------------------
/** Steps per model below which the sweep states no verdict (losses settle by ~150-200 steps). */
export const HEADS_ENOUGH_STEPS = 200;

/**
 * Verdict between consecutive head counts from their held-out losses over several seeds (lower is
 * better): "help" or "hurt" only when the difference of the means exceeds MEASURABLE_SE standard
 * errors, else "plateau" (no measurable difference). After fewer than HEADS_ENOUGH_STEPS steps, or while
 * held-out loss still falls by more than SETTLED_NATS over the last fifth of the runs (`drop`), only the
 * numbers.
 * @param {number[]} heads  head counts, ascending
 * @param {number[][]} losses  per head count, one held-out loss per seed
 * @param {number} [steps]  steps per model
 * @param {number} [drop]  labs/spread.js lateDrop over every run (NaN: unknown, treated as settled)
 * @returns {{ verdicts: ('help' | 'plateau' | 'hurt')[], sentence: string }}
 */
export function summariseHeads(heads, losses, steps = HEADS_ENOUGH_STEPS, drop = NaN) {
  const seeds = Math.min(...losses.map((l) => l.length));
  const numbers = `held-out loss (mean ± standard deviation over ${seeds} seed${seeds === 1 ? '' : 's'}, nats per token): `
    + heads.map((h, i) => `h = ${h} ${plusMinus(meanSd(losses[i]))}`).join(', ');
  const few = tooFewSteps(steps, HEADS_ENOUGH_STEPS, 'a verdict on whether more heads help');
  if (few) return { verdicts: [], sentence: `${few}${numbers}.` };
  if (drop > SETTLED_NATS) {
    return { verdicts: [], sentence: `Not settled yet: held-out loss still fell by ${drop.toFixed(3)} nats over the last fifth of the ${steps} steps `
      + `(more than ${SETTLED_NATS}), so no head count is named better yet: train longer. So far, ${numbers}.` };
  }
  const diffs = heads.slice(1).map((_, i) => difference(losses[i], losses[i + 1]));
  const verdicts = diffs.map((d) => (!d.measurable ? 'plateau' : d.diff < 0 ? 'help' : 'hurt'));
  const words = { help: 'more heads help', plateau: 'more heads make no measurable difference', hurt: 'more heads hurt' };
  const runs = [];
  verdicts.forEach((v, i) => {
    const last = runs[runs.length - 1];
    if (last && last.v === v) last.to = heads[i + 1];
    else runs.push({ v, from: heads[i], to: heads[i + 1] });
  });
  const parts = runs.map((r) => `${words[r.v]} from ${r.from} to ${r.to} heads`);
  const steps2 = diffs.map((d, i) => `${heads[i]} → ${heads[i + 1]}: ${signedDiff(d)}`).join(', ');
  const sentence = `${parts.join('; ')} (after ${steps} steps, ${seeds} seeds per head count; a difference counts beyond `
    + `${MEASURABLE_SE} standard errors). In numbers: ${numbers}; each step up in heads: ${steps2} nats.`;
  return { verdicts, sentence: sentence.charAt(0).toUpperCase() + sentence.slice(1) };
}

// ---- Lab 2: what does MQA cost? --------------------------------------------------------------------
/** Steps per variant below which the lab states no verdict (the default: measured settled, docs/lab.md). */
export const MQA_ENOUGH_STEPS = 150;

/**
 * The sentence after a run of every variant over several seeds: what MQA and GQA cost in held-out loss
 * against MHA (differences in nats with their standard errors, never ratios of losses), and what they
 * save. A verdict only when the runs are long enough and settled (held-out loss no longer falling), and a
 * difference counts only beyond twice its standard error.
 * @param {{ mha, gqa, mqa }} r  each { losses: number[], accuracies: number[] } (one per seed)
 * @param {{ mha, mqa }} b  each { params, atN } (attention weights, KV bytes at N)
 * @param {number} stepsRun
 * @param {{ N: number, bytes: (n: number) => string, drop: number }} o  drop: labs/spread.js lateDrop
 */
export function summariseMqa(r, { mha: bm, mqa: bq }, stepsRun, { N, bytes, drop }) {
  const seeds = r.mha.losses.length;
  const stat = (v) => plusMinus(meanSd(r[v].losses));
  const dg = difference(r.mha.losses, r.gqa.losses), dq = difference(r.mha.losses, r.mqa.losses);
  const numbers = `held-out loss (mean ± standard deviation over ${seeds} seed${seeds === 1 ? '' : 's'}, nats per token): `
    + `MHA ${stat('mha')}, GQA ${stat('gqa')}, MQA ${stat('mqa')}; against MHA, GQA ${signedDiff(dg)} and MQA ${signedDiff(dq)} `
    + '(the difference of the means ± its standard error)';
  const few = tooFewSteps(stepsRun, MQA_ENOUGH_STEPS, 'a verdict on what MQA costs');
  if (few) return `${few}${numbers}.`;
  if (drop > SETTLED_NATS) {
    return `Not settled yet: held-out loss still fell by ${drop.toFixed(3)} nats over the last fifth of the ${stepsRun} steps `
      + `(more than ${SETTLED_NATS}), so no variant is named better yet: train longer. So far, ${numbers}.`;
  }
  const word = (name, d) => (!d.measurable
    ? `${name} shows no measurable difference from MHA (${signedDiff(d)} nats, within ${MEASURABLE_SE} standard errors)`
    : d.diff > 0 ? `${name} costs ${d.diff.toFixed(digitsFor(d.se))} nats of held-out loss (${signedDiff(d)}, beyond ${MEASURABLE_SE} standard errors)`
      : `${name}'s held-out loss is ${(-d.diff).toFixed(digitsFor(d.se))} nats below MHA's (${signedDiff(d)}, beyond ${MEASURABLE_SE} standard errors)`);
  return `After ${stepsRun} steps, ${seeds} seeds per variant: ${word('MQA', dq)}, `
    + `for ${((bm.params - bq.params) / bm.params * 100).toFixed(2)} % fewer attention weights and a cache ${Number((bm.atN / bq.atN).toFixed(2))}× smaller `
    + `(${bytes(bq.atN)} instead of ${bytes(bm.atN)} at N = ${N}); ${word('GQA', dg)}. In numbers: ${numbers}.`;
}

// ---- Lab 3: how small can the MLA latent be? -------------------------------------------------------
/** Steps per model below which the lab states no verdict (its default; the runs are short even then). */
export const RANK_ENOUGH_STEPS = 200;

/**
 * Whether a difference `d` (labs/spread.js difference: other − MHA) stays within `limit`: 'yes' when even
 * its upper bound (diff + MEASURABLE_SE standard errors) does, 'no' when even its lower bound exceeds
 * it, 'unsure' in between or with fewer than two seeds on a side (no spread to judge by).
 */
export function withinOf(d, limit) {
  if (!(d.se > 0)) return 'unsure';  // one seed a side: no spread
  if (d.diff + MEASURABLE_SE * d.se <= limit) return 'yes';
  if (d.diff - MEASURABLE_SE * d.se > limit) return 'no';
  return 'unsure';
}

/**
 * The answer after a run, '' until MHA and an MLA rank are done.
 * @param {{ variant: 'mha' | 'mla', rank: number, bytes: number, bits: number[] }[]} done  bits: one per seed
 * @param {number} stepsRun
 * @param {{ ropeDim: number, bytesPerElement: number }} geometry
 */
export function summariseRank(done, stepsRun, { ropeDim, bytesPerElement }) {
  const mha = done.find((r) => r.variant === 'mha');
  const mla = done.filter((r) => r.variant === 'mla');
  if (!mha || !mla.length) return '';
  const seeds = Math.min(...done.map((r) => r.bits.length));
  const mean = (r) => meanSd(r.bits).mean;
  const mb = plusMinus(meanSd(mha.bits));
  const diffOf = (r) => difference(mha.bits, r.bits);
  const small = mla.filter((r) => r.bytes * 8 < mha.bytes).sort((a, b) => a.rank - b.rank);
  const judged = small.map((r) => { const d = diffOf(r); return { r, d, w: withinOf(d, 1) }; });
  const f = ({ r, d }) => `r = ${r.rank} (${signedDiff(d)} bits/char against MHA, cache ${r.bytes} vs ${mha.bytes} bytes)`;
  const numbers = `validation bits/char (mean ± standard deviation over ${seeds} seed${seeds === 1 ? '' : 's'}): MHA ${mb}, `
    + mla.map((r) => `r = ${r.rank} ${plusMinus(meanSd(r.bits))}`).join(', ');
  const few = tooFewSteps(stepsRun, RANK_ENOUGH_STEPS, 'a verdict on how small the latent can be');
  if (few) return `${few}${numbers}.`;
  let text;
  if (!small.length) {
    text = `None of the ranks tried has a cache below 1/8 of MHA's (needs r + dr < ${mha.bytes / 8 / bytesPerElement}, i.e. r ≤ ${mha.bytes / 8 / bytesPerElement - ropeDim - 1}): try smaller ranks.`;
  } else {
    const ok = judged.filter((j) => j.w === 'yes'), no = judged.filter((j) => j.w === 'no'), unsure = judged.filter((j) => j.w === 'unsure');
    const list = (js) => js.map((j) => `r = ${j.r.rank}`).join(', ');
    text = ok.length ? `The smallest r with cache < 1/8 of MHA that stays within 1 bit/char beyond its spread: ${f(ok[0])}.`
      : `No rank with cache < 1/8 of MHA stays within 1 bit/char beyond its spread.`;
    if (no.length) text += ` More than 1 bit/char worse beyond the spread: ${list(no)}.`;
    if (unsure.length) text += ` Not settled by ${seeds} seeds (within ${MEASURABLE_SE} standard errors of the 1-bit line): ${list(unsure)}.`;
  }
  const best = [...mla].sort((a, b) => mean(a) - mean(b))[0];
  return `${text} After ${stepsRun} steps per model, ${seeds} seeds each; the best MLA on average is r = ${best.rank} (${signedDiff(diffOf(best))} `
    + `bits/char against MHA) with a cache ${(mha.bytes / best.bytes).toFixed(1)}× smaller. In numbers: ${numbers}.`
    + ' Short runs: all models are still far from converged, so these gaps measure early learning speed as much as capacity.';
}

// ---- Lab 4: induction heads -------------------------------------------------------------------------
/** A head gets a role when one of its scores exceeds this. */
export const CLEAR = 0.5;
/** trainer.headScores()'s scores: [field, column heading, role]. */
export const SCORES = [
  ['previousToken', 'previous token', 'previous-token head'],
  ['induction', 'induction', 'induction head'],
  ['firstToken', 'first token', 'sink (first-token) head'],
  ['diagonal', 'diagonal', 'self (diagonal) head'],
];

/** The role of a head from its scores ('' when no score is clear). */
export function roleOf(h) {
  let best = null;
  for (const [key, , role] of SCORES) if (h[key] > CLEAR && (!best || h[key] > h[best[0]])) best = [key, role];
  return best ? best[1] : '';
}
