// head-roles.js — what each head of an opened checkpoint does, measured on one probe: T distinct random
// token ids, then the same T again (positions 0 … 2T-1). Each score is the mean of one attention
// weight over a set of queries, so it lies in [0, 1] (the lab's trained-model scores follow the same
// definitions):
//   previousToken   weight on key i-1            queries i = 1 … 2T-1
//   firstToken      weight on key 0              queries i = 1 … 2T-1 (an attention sink)
//   duplicateToken  weight on key i-T            queries i = T … 2T-1 (the earlier copy of the same token)
//   induction       weight on key i-T+1          queries i = T … 2T-1 (the token that followed the earlier copy)

import { rng } from '../tokens.js';

/** The probe's length T for a model (learned positions bound 2T). */
export const probeLength = (info) => Math.max(2, Math.min(32, Math.floor((info.maxPositions || 64) / 2), Math.floor(info.vocabSize / 2)));

/** { ids: 2T ids (T distinct, repeated), T, seed } for a model's info ({ vocabSize, maxPositions }). */
export function roleProbe(info, seed = 0) {
  const T = probeLength(info);
  const next = rng(seed + 1);
  const seen = new Set();
  while (seen.size < T) seen.add(Math.floor(next() * info.vocabSize));
  const half = [...seen];
  return { ids: [...half, ...half], T, seed };
}

/**
 * @param {Float32Array[]} attentions  one (H, N, N) per layer, N = 2T (model.forward on probe.ids)
 * @param {{ T: number }} probe
 * @returns {{ layer, head, previousToken, firstToken, duplicateToken, induction }[]}
 */
export function headRoles(attentions, { T }) {
  const N = 2 * T;
  const out = [];
  attentions.forEach((maps, layer) => {
    const H = maps.length / (N * N);
    for (let head = 0; head < H; head++) {
      const w = (i, j) => maps[(head * N + i) * N + j];
      let prev = 0, first = 0, dup = 0, ind = 0;
      for (let i = 1; i < N; i++) {
        prev += w(i, i - 1);
        first += w(i, 0);
      }
      for (let i = T; i < N; i++) {
        dup += w(i, i - T);
        ind += w(i, i - T + 1);
      }
      out.push({ layer, head, previousToken: prev / (N - 1), firstToken: first / (N - 1), duplicateToken: dup / T, induction: ind / T });
    }
  });
  return out;
}

/**
 * The role a head's scores name: the key of its strongest score above `min` ('previousToken',
 * 'induction', 'firstToken', 'duplicateToken'; the model view words it), or ''.
 */
export function roleKey(s, min = 0.4) {
  const keys = ['previousToken', 'induction', 'firstToken', 'duplicateToken'];
  const best = keys.reduce((a, b) => (s[b] > s[a] ? b : a));
  return s[best] >= min ? best : '';
}
