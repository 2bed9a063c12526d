// model-probe.js — the probes an opened checkpoint's head roles are measured on (sources/head-roles.js):
// PROBES lists of BOS where the model uses one, then T distinct ordinary tokens, twice. With a tokenizer
// the tokens are drawn from its vocabulary (not special, not byte tokens); without one, from what the
// model writes when it samples (temperature 1, seeded), so that no special or untrained byte token is
// among them, topped up with random ordinary ids where the model writes too few distinct ones.
import { PROBES, probeLength, probeOf, roleProbe } from '../sources/head-roles.js';

/**
 * @param {object} source  the pretrained source (sources/pretrained.js: opened, bos, ordinary, writes)
 * @returns {Promise<{ probes: number[][], T: number, offset: number }>}
 */
export async function modelProbes(source, seed = 0) {
  const { info, tokenizer } = source.opened;
  const { bos, ordinary } = source;
  if (tokenizer) {  // drawn where the tokenizer is (its worker: sources/tokenizer-client.js), with roleProbe
    const probes = await tokenizer.probes(info, Array.from({ length: PROBES }, (_, k) => seed + k), bos);
    return { probes: probes.map((p) => p.ids), T: probes[0].T, offset: probes[0].offset };
  }
  const T = probeLength(info);
  const written = await source.writes({ start: [bos ?? 0], count: Math.min(4 * PROBES * T, Math.max(1, (info.maxPositions || 4096) - 1)),
    temperature: 1, seed });
  const distinct = [...new Set(written.filter((id) => ordinary(id) && id !== bos))];
  const probes = Array.from({ length: PROBES }, (_, k) => {
    if (distinct.length >= T) {  // its own k-th T tokens, or its first T where it wrote fewer than (k + 1) T
      const part = distinct.slice(k * T, (k + 1) * T);
      return probeOf(part.length === T ? part : distinct.slice(0, T), { bos, seed });
    }
    // A model that writes fewer distinct tokens than a probe needs (one trained on a synthetic task
    // writes one token over and over): the rest drawn at random from its ordinary ids, as roleProbe does.
    const drawn = roleProbe(info, { seed: seed + k, bos, ordinary: (id) => ordinary(id) && !distinct.includes(id) });
    return probeOf([...distinct, ...drawn.ids.slice(drawn.offset, drawn.offset + drawn.T)].slice(0, T), { bos, seed });
  });
  return { probes: probes.map((p) => p.ids), T: probes[0].T, offset: probes[0].offset };
}
