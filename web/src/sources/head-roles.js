// head-roles.js — the probes that show what each head of an opened checkpoint does (BOS where the model
// uses one, then T distinct ordinary tokens, then the same T again), their mean, and which score names a
// head. The scores themselves are the core's (core/include/attn/head_roles.hpp, model.forward(ids,
// { roles: true }) in the worker), on a probe or the learner's own sentence; each is the mean of one
// attention weight over a set of queries, so it lies in [0, 1] (the trainer's scores are the same sums):
//   previousToken   weight on key i-1                               queries i = 1 … N-1
//   firstToken      weight on key 0 (an attention sink)             queries i = 1 … N-1
//   duplicateToken  weight on the earlier copies of token i         queries whose token came before
//   induction       weight on the tokens that followed those copies queries whose token came before
//   diagonal        weight on key i                                 queries i = 1 … N-1
// On the probe, a query of the second copy has one earlier copy, at i-T, followed at i-T+1. A sequence
// without a repeated token has no duplicate or induction score (null).

import { rng } from '../rng.js';
import { clearRole, uniformScores } from '../labs/role-baseline.js';

/**
 * The probe's length T for a model (learned positions bound the probe's 2T + 1 positions). Short, as
 * the learner's sentences are: on a small real model (stories260K) the same heads score 0.45 (previous
 * token) and 0.74 (sink) at T = 4, 0.42 and 0.35 at T = 8, but 0.13 and 0.15 at T = 32, where their
 * weight spreads over the longer context.
 */
export const probeLength = (info) => Math.max(2, Math.min(8, Math.floor(((info.maxPositions || 17) - 1) / 2), Math.floor(info.vocabSize / 2)));

/** How many probes (different random tokens) a model's scores average over. */
export const PROBES = 4;

/**
 * A probe: { ids: [bos?, …T ids, …the same T], T, offset (1 with BOS, else 0), seed }.
 * `ordinary(id)` says which ids may be drawn (not special, not a byte token); `bos` is the model's BOS
 * id where it uses one, else null. Draws ids uniformly from the vocabulary, keeping ordinary ones.
 */
export function roleProbe(info, { seed = 0, bos = null, ordinary = () => true } = {}) {
  const T = probeLength(info);
  const next = rng(seed + 1);
  const seen = new Set();
  for (let tries = 0; seen.size < T && tries < 200 * T; tries++) {
    const id = Math.floor(next() * info.vocabSize);
    if (id !== bos && ordinary(id)) seen.add(id);
  }
  return probeOf([...seen], { bos, seed });
}

/** The probe of given distinct ids (the model's own words, for a model without a tokenizer). */
export function probeOf(distinct, { bos = null, seed = 0 } = {}) {
  const half = distinct.slice(0, 8);
  const head = bos == null ? [] : [bos];
  return { ids: [...head, ...half, ...half], T: half.length, offset: head.length, seed };
}

/** The mean of several probes' scores, head by head (each the core's roles list of the same model). */
export function meanScores(lists) {
  return lists[0].map((s, k) => {
    const mean = (key) => (s[key] == null ? null : lists.reduce((a, l) => a + l[k][key], 0) / lists.length);
    return { layer: s.layer, head: s.head, previousToken: mean('previousToken'), diagonal: mean('diagonal'), firstToken: mean('firstToken'),
      duplicateToken: mean('duplicateToken'), induction: mean('induction') };
  });
}

/** The uniform baselines of a probe's scores: BOS (offset) and 2T tokens, the second copy from T + offset. */
export const probeBaselines = (probe) => uniformScores(2 * probe.T + (probe.offset || 0), probe.T + (probe.offset || 0));

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
