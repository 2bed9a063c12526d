// head-roles.js — the probes that show what each head of an opened checkpoint does (BOS where the model
// uses one, then T distinct ordinary tokens, then a gap of other tokens, then the same T again), their
// mean, and which score names a head. The scores themselves are the core's (core/include/attn/head_roles.hpp,
// model.forward(ids, { roles: true }) in the worker), on a probe or the learner's own sentence; each is
// the mean of one attention weight over a set of queries, so it lies in [0, 1] (the trainer's scores
// are the same sums):
//   previousToken   weight on key i-1                               queries i = 1 … N-1
//   firstToken      weight on key 0 (an attention sink)             queries i = 1 … N-1
//   duplicateToken  weight on the earlier copies of token i         queries whose token came before
//   induction       weight on the tokens that followed those copies queries whose token came before
//   diagonal        weight on key i                                 queries i = 1 … N-1
// On a probe, a query of the second copy has one earlier copy, at i-T-gap, followed at i-T-gap+1. The
// probes' gaps differ (0, 1, 2, 3 in turn): with one gap, a head that attends a fixed distance back
// (a positional head, even in the first layer, where no head can do induction) would score as an
// induction head on every probe; with four, it matches one probe in four. A sequence without a
// repeated token has no duplicate or induction score (null).

import { rng } from '../rng.js';
import { clearRole, uniformScores } from '../labs/role-baseline.js';

/**
 * The probe's length T for a model (learned positions bound the probe's 2T + 1 positions). Short, as
 * the learner's sentences are: on a small real model (stories260K) the same heads score 0.45 (previous
 * token) and 0.74 (sink) at T = 4, 0.42 and 0.35 at T = 8, but 0.13 and 0.15 at T = 32, where their
 * weight spreads over the longer context.
 */
export const probeLength = (info) => Math.max(2, Math.min(8, Math.floor(((info.maxPositions || 17) - 1) / 2), Math.floor(info.vocabSize / 2)));

/** How many probes (different random tokens, different gaps) a model's scores average over. */
export const PROBES = 4;

/**
 * The gap of the probe of `seed`: 0, 1, 2, 3 in turn, as far as the model's positions and the T
 * distinct tokens allow (learned positions bound BOS + 2T + gap; a vocabulary of 2T, T + gap).
 */
export function probeGap(info, T, bos, seed) {
  const turn = ((seed % PROBES) + PROBES) % PROBES;
  const room = info.maxPositions ? info.maxPositions - (2 * T + (bos == null ? 0 : 1)) : PROBES - 1;
  return Math.max(0, Math.min(turn, room, T));
}

/** Up to `count` distinct ids drawn uniformly from the vocabulary, ordinary ones only, never BOS. */
export function drawOrdinary(info, count, { seed = 0, bos = null, ordinary = () => true } = {}) {
  const next = rng(seed + 1);
  const seen = new Set();
  for (let tries = 0; seen.size < count && tries < 200 * count; tries++) {
    const id = Math.floor(next() * info.vocabSize);
    if (id !== bos && ordinary(id)) seen.add(id);
  }
  return [...seen];
}

/**
 * A probe: { ids: [bos?, …T ids, …gap other ids, …the same T], T, offset (1 with BOS, else 0), gap, seed }.
 * `ordinary(id)` says which ids may be drawn (not special, not a byte token); `bos` is the model's BOS
 * id where it uses one, else null. Draws ids uniformly from the vocabulary, keeping ordinary ones.
 */
export function roleProbe(info, { seed = 0, bos = null, ordinary = () => true } = {}) {
  const T = probeLength(info);
  const ids = drawOrdinary(info, T + probeGap(info, T, bos, seed), { seed, bos, ordinary });
  return probeOf(ids.slice(0, T), { bos, seed, gap: ids.slice(T) });
}

/** The probe of given distinct ids (the model's own words, for a model without a tokenizer), `gap` the ids between the copies. */
export function probeOf(distinct, { bos = null, seed = 0, gap = [] } = {}) {
  const half = distinct.slice(0, 8);
  const head = bos == null ? [] : [bos];
  return { ids: [...head, ...half, ...gap, ...half], T: half.length, offset: head.length, gap: gap.length, seed };
}

/** The mean of several probes' scores, head by head (each the core's roles list of the same model). */
export function meanScores(lists) {
  return lists[0].map((s, k) => {
    const mean = (key) => (s[key] == null ? null : lists.reduce((a, l) => a + l[k][key], 0) / lists.length);
    return { layer: s.layer, head: s.head, previousToken: mean('previousToken'), diagonal: mean('diagonal'), firstToken: mean('firstToken'),
      duplicateToken: mean('duplicateToken'), induction: mean('induction') };
  });
}

/**
 * The uniform baselines of the probes' scores (BOS (offset), T tokens, a gap, T again; the second
 * copy from T + gap + offset), the mean over their gaps (`probe.gaps`, else `probe.gap`, else none).
 */
export function probeBaselines(probe) {
  const offset = probe.offset || 0, gaps = probe.gaps ?? [probe.gap || 0];
  const each = gaps.map((g) => uniformScores(2 * probe.T + g + offset, probe.T + g + offset));
  return Object.fromEntries(Object.keys(each[0]).map((k) => [k, each.reduce((a, b) => a + b[k], 0) / each.length]));
}

/**
 * The role a head's scores name: the key of its strongest score ('previousToken', 'induction',
 * 'firstToken', 'duplicateToken'; the model view words it), or ''. With the probe the scores were
 * measured on, a score names a role only where it clearly beats a uniform head's on that probe
 * (labs/role-baseline.js); without one, where it is at least `min`.
 */
export function roleKey(s, probe = null, min = 0.4) {
  const keys = ['previousToken', 'induction', 'firstToken', 'duplicateToken'].filter((k) => s[k] != null);
  if (probe) return clearRole(s, keys, probeBaselines(probe));
  if (!keys.length) return '';
  const best = keys.reduce((a, b) => (s[b] > s[a] ? b : a));
  return s[best] >= min ? best : '';
}
