// zoo-stats.js — the zoo's seeds as the compare view states them (pure; tests/node/web-zoo-stats.test.mjs):
// per model its seeds' held-out bits/char (mean ± sd) and its difference from MHA with that
// difference's standard error (labs/spread.js, the labs' own rule: within two standard errors is no
// measurable difference).
import { difference, meanSd } from '../labs/spread.js';

/**
 * One row per manifest model: { id, label, variant, kvHeads, latentRank, params, kvBytesPerToken,
 * bits: { mean, sd, n }, vsMha: null (MHA itself) | { diff, se, measurable } }.
 * @param {{ models: { id, label, variant, nKvHeads?, latentRank?, params, kvBytesPerToken, seeds: { bitsPerChar: number }[] }[],
 *           geometry: { nHeads: number } }} manifest
 */
export function zooRows(manifest) {
  const bitsOf = (m) => m.seeds.map((s) => s.bitsPerChar);
  const base = manifest.models.find((m) => m.variant === 'mha');
  return manifest.models.map((m) => ({
    id: m.id, label: m.label, variant: m.variant,
    kvHeads: m.variant === 'mha' ? manifest.geometry.nHeads : m.variant === 'mqa' ? 1 : m.nKvHeads ?? null,
    latentRank: m.latentRank ?? null, params: m.params, kvBytesPerToken: m.kvBytesPerToken,
    bits: meanSd(bitsOf(m)),
    vsMha: base && m !== base ? difference(bitsOf(base), bitsOf(m)) : null,
  }));
}
