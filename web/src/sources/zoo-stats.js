// zoo-stats.js — the zoo's seeds as the compare view states them (pure; tests/node/web-zoo-stats.test.mjs):
// per model its seeds' held-out bits per token (mean ± sd) and its difference from MHA with that
// difference's standard error (labs/spread.js, the labs' own rule: within two standard errors is no
// measurable difference). A difference is named only from SETTLED_SEEDS seeds a model on (the labs'
// three): with one there is no spread to give, with two a spread too rough to judge by (`settled` false).
import { variantName } from '../kit.js';
import { EN } from '../i18n/index.js';
import { difference, meanSd } from '../labs/spread.js';
import '../i18n/catalogs/en/compare.js';  // the English words it speaks (zooLabel)

/** The scores a clear previous-token head and a clear induction head reach on the manifest's probes. */
export const FLOORS = { previousToken: 0.7, induction: 0.5 };

/** Seeds a model needs before the table names a difference: the labs' three (labs/spread.js SEEDS). */
export const SETTLED_SEEDS = 3;

/**
 * One row per manifest model: { id, label, variant, kvHeads, latentRank, params, kvBytesPerToken,
 * bits: { mean, sd, n }, settled (SETTLED_SEEDS or more), vsMha: null (MHA itself) | { diff, se, measurable, settled,
 * seeds (the fewer of the two models') } }.
 * @param {{ models: { id, label, variant, nKvHeads?, latentRank?, params, kvBytesPerToken, seeds: { bitsPerToken: number }[] }[],
 *           geometry: { nHeads: number } }} manifest
 */
export function zooRows(manifest) {
  const bitsOf = (m) => m.seeds.map((s) => s.bitsPerToken);
  const base = manifest.models.find((m) => m.variant === 'mha');
  return manifest.models.map((m) => {
    const bits = meanSd(bitsOf(m));
    const vsMha = base && m !== base ? difference(bitsOf(base), bitsOf(m)) : null;
    return {
      id: m.id, label: m.label, variant: m.variant,
      kvHeads: m.variant === 'mha' ? manifest.geometry.nHeads : m.variant === 'mqa' ? 1 : m.nKvHeads ?? null,
      latentRank: m.latentRank ?? null, params: m.params, kvBytesPerToken: m.kvBytesPerToken,
      bits, seedBits: bitsOf(m), settled: bits.n >= SETTLED_SEEDS,
      // the steps of its synthetic start (learning to copy before the text), where the manifest records them
      copySteps: Math.max(0, ...m.seeds.map((s) => s.syntheticSteps ?? 0)) || null,
      seedInduction: m.seeds.map((s) => s.bestInduction ?? null),  // each seed's best induction score
      vsMha: vsMha && { ...vsMha, seeds: Math.min(bits.n, meanSd(bitsOf(base)).n),
        settled: Math.min(bits.n, meanSd(bitsOf(base)).n) >= SETTLED_SEEDS },
    };
  });
}

/** A zoo model's name in the page's language: "GQA, 2 KV heads", "MLA, latent 16", "MQA" (a zooRows row). */
export function zooLabel(r, i18n = EN) {
  if (r.variant === 'gqa') return i18n.t('cmp.zoo.gqa', { count: r.kvHeads });
  if (r.variant === 'mla') return i18n.t('cmp.zoo.mla', { r: r.latentRank });
  return variantName(r.variant);
}
