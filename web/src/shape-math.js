// shape-math.js — the few shape numbers the core's API does not return one by one, in ONE place:
// K/V heads per variant, head width, KV-cache elements per token per layer, and a block's attention
// weights term by term. tests/node/web-shape-math.test.mjs checks every function against the core's
// paramCount and kvCacheBytes for every variant; views use these (never their own arithmetic) and
// take totals from the core where it gives them.
//
// Symbols: D = dModel, H = nHeads, G = K/V heads, dh = head width, r = latentRank, dr = ropeDim.

/** G: K/V heads of a variant (MLA caches none: 0; its latent replaces them). */
export function kvHeads(variant, { nHeads, nKvHeads }) {
  if (variant === 'mha') return nHeads;
  if (variant === 'mqa') return 1;
  if (variant === 'gqa') return nKvHeads;
  return 0;
}

/** dh: dHead when given (non-zero), else D / H (may be fractional for a shape the core refuses). */
export function headWidth({ dModel, nHeads, dHead }) {
  return dHead || dModel / nHeads;
}

/** KV-cache elements per token per layer (DeepSeek-V2 Table 1): 2·G·dh, or r + dr for MLA. */
export function cacheElementsPerToken(variant, shape) {
  if (variant === 'mla') return shape.latentRank + (shape.ropeDim || 0);
  return 2 * kvHeads(variant, shape) * headWidth(shape);
}

/**
 * One attention block's weights without biases, as the core's paramCount counts them:
 * { wq, wk, wv, wo, wDkv, wUk, wUv, wQr, wKr, total }.
 */
export function attentionParams(variant, shape) {
  const D = shape.dModel, H = shape.nHeads, dh = headWidth(shape);
  const p = { wq: D * H * dh, wk: 0, wv: 0, wo: H * dh * D, wDkv: 0, wUk: 0, wUv: 0, wQr: 0, wKr: 0 };
  if (variant === 'mla') {
    const r = shape.latentRank, dr = shape.ropeDim || 0;
    Object.assign(p, { wDkv: D * r, wUk: r * H * dh, wUv: r * H * dh, wQr: D * H * dr, wKr: D * dr });
  } else {
    const G = kvHeads(variant, shape);
    p.wk = D * G * dh;
    p.wv = D * G * dh;
  }
  p.total = Object.values(p).reduce((a, b) => a + b, 0);
  return p;
}
