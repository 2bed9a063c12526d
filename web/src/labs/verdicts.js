// verdicts.js — the labs' computed sentences: what each lab concludes from its measured numbers, and
// when it may conclude anything (pure: tests/node/web-lab-verdicts.test.mjs).

import { MEASURABLE_SE, NEGLIGIBLE_NATS, SETTLED_NATS, difference, digitsFor, meanCurve, meanSd, sizeOf, spreadFormat } from './spread.js';
import { EN } from '../i18n/index.js';
import { standsOut, uniformScores } from './role-baseline.js';
import { INDUCTION_TASK } from './tasks.js';
import '../i18n/catalogs/en/lab-heads.js';  // the English words of Lab 1's verdict
import '../i18n/catalogs/en/lab-mqa.js';  // of Lab 2's
import '../i18n/catalogs/en/lab-rank.js';  // of Lab 3's
import '../i18n/catalogs/en/lab-induction.js';  // Lab 4's scores and roles


// ---- Lab 1: do more heads help? -----------------------------------------------------------------
/** Steps per model below which the sweep states no verdict (losses settle by ~150-200 steps). */
export const HEADS_ENOUGH_STEPS = 200;

/**
 * Verdict between consecutive head counts from their held-out losses over several seeds (lower is
 * better): "help" or "hurt" only when the difference of the means exceeds MEASURABLE_SE standard
 * errors and NEGLIGIBLE_NATS, "negligible" when it exceeds the standard errors but not NEGLIGIBLE_NATS,
 * else "plateau" (no measurable difference). After fewer than HEADS_ENOUGH_STEPS steps, or while
 * held-out loss still falls by more than SETTLED_NATS over the last fifth of the runs (`drop`), only the
 * numbers. In the language of `i18n` (its catalog's sentences, its numbers).
 * @param {number[]} heads  head counts, ascending
 * @param {number[][]} losses  per head count, one held-out loss per seed
 * @param {number} [steps]  steps per model
 * @param {number} [drop]  labs/spread.js lateDrop over every run (NaN: unknown, treated as settled)
 * @param {object} [i18n]  the element's words (ctx.i18n)
 * @returns {{ verdicts: ('help' | 'plateau' | 'negligible' | 'hurt')[], sentence: string }}
 */
export function summariseHeads(heads, losses, steps = HEADS_ENOUGH_STEPS, drop = NaN, i18n = EN) {
  const { t, fmt } = i18n;
  const { plusMinus: pm, signedDiff: sd } = spreadFormat(fmt);
  const seeds = Math.min(...losses.map((l) => l.length));
  const numbers = t('labHeads.numbers', { count: seeds, list: heads.map((h, i) => `h = ${h} ${pm(meanSd(losses[i]))}`).join(', ') });
  if (steps < HEADS_ENOUGH_STEPS) return { verdicts: [], sentence: t('labHeads.fewSteps', { count: steps, enough: HEADS_ENOUGH_STEPS, numbers }) };
  if (drop > SETTLED_NATS) {
    return { verdicts: [], sentence: t('labHeads.notSettled', { drop: fmt.fixed(drop, 3), steps, limit: SETTLED_NATS, numbers }) };
  }
  const diffs = heads.slice(1).map((_, i) => difference(losses[i], losses[i + 1]));
  const verdicts = diffs.map((d) => ({ none: 'plateau', negligible: 'negligible', real: d.diff < 0 ? 'help' : 'hurt' })[sizeOf(d)]);
  const runs = [];
  verdicts.forEach((v, i) => {
    const last = runs[runs.length - 1];
    if (last && last.v === v) last.to = heads[i + 1];
    else runs.push({ v, from: heads[i], to: heads[i + 1] });
  });
  const parts = runs.map((r) => t(`labHeads.${r.v}`, { from: r.from, to: r.to })).join('; ');
  const steps2 = diffs.map((d, i) => `${heads[i]} → ${heads[i + 1]}: ${sd(d)}`).join(', ');
  return { verdicts, sentence: t('labHeads.verdict', { parts, steps, count: seeds, k: MEASURABLE_SE, limit: NEGLIGIBLE_NATS, numbers, diffs: steps2 }) };
}

// ---- Lab 2: what does MQA cost? --------------------------------------------------------------------
/** Steps per variant below which the lab states no verdict (the default: measured settled, docs/lab.md). */
export const MQA_ENOUGH_STEPS = 150;

/**
 * The sentence after a run of every variant over several seeds: what MQA and GQA cost in held-out loss
 * against MHA (differences in nats with their standard errors, never ratios of losses), and what they
 * save. A verdict only when the runs are long enough and settled (held-out loss no longer falling), and a
 * difference counts only beyond twice its standard error; one below NEGLIGIBLE_NATS is called
 * negligible. Where a variant's gap to MHA was larger at the last evaluation before the run's last
 * fifth than at its end (`curves`), the sentence says so: the gap still narrows with training. In the
 * language of `i18n` (its catalog's sentences, its numbers).
 * @param {{ mha, gqa, mqa }} r  each { losses: number[], accuracies: number[] } (one per seed)
 * @param {{ mha, mqa }} b  each { params, atN } (attention weights, KV bytes at N)
 * @param {number} stepsRun
 * @param {{ N: number, bytes: (n: number) => string, drop: number, curves?: { mha, gqa, mqa } }} o  drop: labs/spread.js
 *   lateDrop; curves: per variant, each seed's held-out evaluations [[step, loss], ...]
 * @param {object} [i18n]  the element's words (ctx.i18n)
 */
export function summariseMqa(r, { mha: bm, mqa: bq }, stepsRun, { N, bytes, drop, curves }, i18n = EN) {
  const { t, fmt } = i18n;
  const { plusMinus: pm, signedDiff: sd } = spreadFormat(fmt);
  const seeds = r.mha.losses.length;
  const stat = (v) => pm(meanSd(r[v].losses));
  const dg = difference(r.mha.losses, r.gqa.losses), dq = difference(r.mha.losses, r.mqa.losses);
  const numbers = t('labMqa.numbers', { count: seeds, mha: stat('mha'), gqa: stat('gqa'), mqa: stat('mqa'), dg: sd(dg), dq: sd(dq) });
  if (stepsRun < MQA_ENOUGH_STEPS) return t('labMqa.fewSteps', { count: stepsRun, enough: MQA_ENOUGH_STEPS, numbers });
  if (drop > SETTLED_NATS) {
    return t('labMqa.notSettled', { drop: fmt.fixed(drop, 3), steps: stepsRun, limit: SETTLED_NATS, numbers });
  }
  const word = (name, d) => {
    const size = sizeOf(d);
    if (size === 'none') return t('labMqa.same', { name, diff: sd(d), k: MEASURABLE_SE });
    if (size === 'negligible') return t('labMqa.negligible', { name, diff: sd(d), k: MEASURABLE_SE, limit: NEGLIGIBLE_NATS });
    return d.diff > 0 ? t('labMqa.costs', { name, cost: fmt.fixed(d.diff, digitsFor(d.se)), diff: sd(d), k: MEASURABLE_SE })
      : t('labMqa.below', { name, gain: fmt.fixed(-d.diff, digitsFor(d.se)), diff: sd(d), k: MEASURABLE_SE });
  };
  const verdict = t('labMqa.verdict', { steps: stepsRun, count: seeds, mqa: word('MQA', dq), fewer: fmt.fixed((bm.params - bq.params) / bm.params * 100, 2),
    ratio: Number((bm.atN / bq.atN).toFixed(2)), small: bytes(bq.atN), large: bytes(bm.atN), N: String(N), gqa: word('GQA', dg), numbers });
  const trends = curves ? [['MQA', 'mqa', dq], ['GQA', 'gqa', dg]].map(([name, id, d]) => {
    const before = gapBefore(curves.mha, curves[id], stepsRun);
    return before && sizeOf(d) === 'real' && d.diff > 0 && before.gap > d.diff
      ? t('labMqa.narrows', { name, before: fmt.fixed(before.gap, digitsFor(d.se)), step: before.step, now: fmt.fixed(d.diff, digitsFor(d.se)), steps: stepsRun })
      : '';
  }).filter(Boolean) : [];
  return [verdict, ...trends].join(' ');
}

/**
 * The gap of the seeds' mean held-out loss (other − base) at the last evaluation every seed reached at or
 * before 80 % of the run (the start of its last fifth, as lateDrop), or null when there is none before the end.
 * @param {[number, number][][]} base  each seed's evaluations
 * @param {[number, number][][]} other
 * @param {number} steps  the run's length
 * @returns {{ step: number, gap: number } | null}
 */
export function gapBefore(base, other, steps) {
  const a = meanCurve(base ?? []), b = meanCurve(other ?? []);
  const at = a.filter(([s]) => s <= 0.8 * steps && s < steps && b.some(([x]) => x === s)).at(-1);
  if (!at) return null;
  return { step: at[0], gap: b.find(([x]) => x === at[0])[1] - at[1] };
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
 * The answer after a run, '' until MHA and an MLA rank are done, in the language of `i18n`.
 * @param {{ variant: 'mha' | 'mla', rank: number, bytes: number, bits: number[] }[]} done  bits: one per seed
 * @param {number} stepsRun
 * @param {{ ropeDim: number, bytesPerElement: number }} geometry
 * @param {object} [i18n]  the element's words (ctx.i18n)
 */
export function summariseRank(done, stepsRun, { ropeDim, bytesPerElement }, i18n = EN) {
  const { t, fmt } = i18n;
  const { plusMinus: pm, signedDiff: sd } = spreadFormat(fmt);
  const mha = done.find((r) => r.variant === 'mha');
  const mla = done.filter((r) => r.variant === 'mla');
  if (!mha || !mla.length) return '';
  const seeds = Math.min(...done.map((r) => r.bits.length));
  const mean = (r) => meanSd(r.bits).mean;
  const diffOf = (r) => difference(mha.bits, r.bits);
  const small = mla.filter((r) => r.bytes * 8 < mha.bytes).sort((a, b) => a.rank - b.rank);
  const judged = small.map((r) => { const d = diffOf(r); return { r, d, w: withinOf(d, 1) }; });
  const found = ({ r, d }) => t('labRank.found', { rank: r.rank, diff: sd(d), bytes: r.bytes, mhaBytes: mha.bytes });
  const numbers = t('labRank.numbers', { count: seeds, mha: pm(meanSd(mha.bits)),
    ranks: mla.map((r) => `r = ${r.rank} ${pm(meanSd(r.bits))}`).join(', ') });
  if (stepsRun < RANK_ENOUGH_STEPS) return t('labRank.fewSteps', { count: stepsRun, enough: RANK_ENOUGH_STEPS, numbers });
  const sentences = [];
  if (!small.length) {
    const limit = mha.bytes / 8 / bytesPerElement;
    sentences.push(t('labRank.noneSmall', { limit, max: limit - ropeDim - 1 }));
  } else {
    const ok = judged.filter((j) => j.w === 'yes'), no = judged.filter((j) => j.w === 'no'), unsure = judged.filter((j) => j.w === 'unsure');
    const list = (js) => js.map((j) => `r = ${j.r.rank}`).join(', ');
    sentences.push(ok.length ? t('labRank.smallest', { found: found(ok[0]) }) : t('labRank.noneWithin'));
    if (no.length) sentences.push(t('labRank.worse', { list: list(no) }));
    if (unsure.length) sentences.push(t('labRank.unsure', { count: seeds, k: MEASURABLE_SE, list: list(unsure) }));
  }
  const best = [...mla].sort((a, b) => mean(a) - mean(b))[0];
  return t('labRank.verdict', { text: sentences.join(' '), steps: stepsRun, count: seeds, rank: best.rank, diff: sd(diffOf(best)),
    ratio: fmt.fixed(mha.bytes / best.bytes, 1), numbers });
}

// ---- Lab 4: induction heads -------------------------------------------------------------------------
/**
 * A head gets a role when one of its scores exceeds this, and clearly beats a uniform head's score on
 * the same sequences (labs/role-baseline.js: on Lab 4's 32 positions the bar is 0.32 for the previous
 * token and 0.28 for induction, so this one decides there).
 */
export const CLEAR = 0.5;
/** trainer.headScores()'s scores: [field, its column heading's key, its role's key]. */
export const SCORES = [
  ['previousToken', 'labInd.score.previousToken', 'labInd.role.previousToken'],
  ['induction', 'labInd.score.induction', 'labInd.role.induction'],
  ['firstToken', 'labInd.score.firstToken', 'labInd.role.firstToken'],
  ['diagonal', 'labInd.score.diagonal', 'labInd.role.diagonal'],
];

/**
 * The field of a head's clearest score above CLEAR that also clearly beats the uniform baseline on `n`
 * positions ('previousToken', ...), '' when no score is clear.
 */
export function roleKey(h, n = INDUCTION_TASK.seqLen) {
  const uniform = uniformScores(n);
  let best = '';
  for (const [key] of SCORES) if (h[key] > CLEAR && standsOut(h[key], uniform[key]) && (!best || h[key] > h[best])) best = key;
  return best;
}

/** The role of a head from its scores on `n` positions, in the language of `i18n` ('' when no score is clear). */
export function roleOf(h, i18n = EN, n = INDUCTION_TASK.seqLen) {
  const key = roleKey(h, n);
  return key ? i18n.t(SCORES.find(([k]) => k === key)[2]) : '';
}
