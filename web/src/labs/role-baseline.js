// role-baseline.js — when a head's score may name a role (pure: tests/node/web-role-baseline.test.mjs).
// Every head score is the mean weight a head puts on one specific key per query (the key before, its own
// position, position 0, the token after an earlier copy). A head that spreads its weight evenly over
// the keys a causal map lets query i see puts 1/(i+1) on any one of them: its score is the mean of
// 1/(i+1) over the queries the score uses (the uniform baseline b). A score names a role only when it
// clearly beats that baseline: when the head moves at least ROLE_SHARE of the weight a uniform head
// leaves on the other keys onto this one, s >= b + ROLE_SHARE · (1 - b). Otherwise no role stands out.
// On 64 positions (the bundled Shakespeare models) b = 0.059 for the previous token and the bar is
// 0.29; on 6 positions b = 0.29 and the bar is 0.47: a short sentence needs a stronger head.

/** The share of the weight a uniform head leaves elsewhere that a role's score must add on its key. */
export const ROLE_SHARE = 0.25;

/** The mean of 1/(i+1) over queries i = from … to-1: a uniform causal head's weight on one fixed key per query. */
export function uniformWeight(from, to) {
  let s = 0;
  for (let i = from; i < to; i++) s += 1 / (i + 1);
  return to > from ? s / (to - from) : NaN;
}

/**
 * The uniform baseline of each score for causal maps of `n` positions: previous token, self (diagonal)
 * and first token use queries i = 1 … n-1; induction and duplicate token the second copy's queries,
 * i = second … n-1 (a probe of T tokens repeated: second = T; the trainer's induction sequences repeat
 * a segment at varying offsets, taken as the second half).
 * @returns {{ previousToken: number, diagonal: number, firstToken: number, induction: number, duplicateToken: number }}
 */
export function uniformScores(n, second = Math.floor(n / 2)) {
  const all = uniformWeight(1, n), copy = uniformWeight(second, n);
  return { previousToken: all, diagonal: all, firstToken: all, induction: copy, duplicateToken: copy };
}

/** The score a role needs over a baseline `b`. */
export const roleBar = (b) => b + ROLE_SHARE * (1 - b);

/** Whether `score` clearly beats the uniform baseline `b`. */
export const standsOut = (score, b) => Number.isFinite(score) && Number.isFinite(b) && score >= roleBar(b);

/**
 * The key of a head's strongest score among `keys` that clearly beats its baseline, '' when none does.
 * @param {Record<string, number>} scores  a head's scores
 * @param {string[]} keys  the score fields to consider, in the order ties go
 * @param {Record<string, number>} baselines  uniformScores(n) (or its part for `keys`)
 */
export function clearRole(scores, keys, baselines) {
  let best = '';
  for (const k of keys) if (standsOut(scores[k], baselines[k]) && (!best || scores[k] > scores[best])) best = k;
  return best;
}
