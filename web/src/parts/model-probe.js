// model-probe.js — the probes an opened checkpoint's head roles are measured on (sources/head-roles.js):
// PROBES lists of BOS where the model uses one, then T distinct ordinary tokens, a gap of other ordinary
// tokens (0, 1, 2, 3 in turn, probeGap), and the same T tokens again. With a tokenizer
// the tokens are drawn from its vocabulary (not special, not byte tokens); without one, from what the
// model writes when it samples (temperature 1, seeded), so that no special or untrained byte token is
// among them, topped up with random ordinary ids where the model writes too few distinct ones.
import { PROBES, drawOrdinary, probeGap, probeLength, probeOf } from '../sources/head-roles.js';

/**
 * @param {object} source  the pretrained source (sources/pretrained.js: opened, bos, ordinary, writes)
 * @returns {Promise<{ probes: number[][], T: number, offset: number, gaps: number[] }>}
 */
export async function modelProbes(source, seed = 0) {
  const { info, tokenizer } = source.opened;
  const { bos, ordinary } = source;
  if (tokenizer) {  // drawn where the tokenizer is (its worker: sources/tokenizer-client.js), with roleProbe
    const probes = await tokenizer.probes(info, Array.from({ length: PROBES }, (_, k) => seed + k), bos);
    return { probes: probes.map((p) => p.ids), T: probes[0].T, offset: probes[0].offset, gaps: probes.map((p) => p.gap ?? 0) };
  }
  const T = probeLength(info);
  const written = await source.writes({ start: [bos ?? 0], count: Math.min(4 * PROBES * T, Math.max(1, (info.maxPositions || 4096) - 1)),
    temperature: 1, seed });
  const distinct = [...new Set(written.filter((id) => ordinary(id) && id !== bos))];
  const probes = Array.from({ length: PROBES }, (_, k) => {
    const need = T + probeGap(info, T, bos, seed + k);
    // its own k-th T tokens and the gap's after them, or its first ones where it wrote fewer
    let words = distinct.slice(k * T, k * T + need);
    if (words.length < need) words = distinct.slice(0, need);
    // A model that writes fewer distinct tokens than a probe needs (one trained on a synthetic task
    // writes one token over and over): the rest drawn at random from its ordinary ids, as roleProbe does.
    if (words.length < need) words = [...words, ...drawOrdinary(info, need - words.length, { seed: seed + k, bos, ordinary: (id) => ordinary(id) && !words.includes(id) })];
    const half = Math.min(T, words.length);  // fewer than T + gap ordinary ids: a shorter gap first
    return probeOf(words.slice(0, half), { bos, seed, gap: words.slice(half, need) });
  });
  return { probes: probes.map((p) => p.ids), T: probes[0].T, offset: probes[0].offset, gaps: probes.map((p) => p.gap) };
}
