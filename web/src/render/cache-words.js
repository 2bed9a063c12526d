// cache-words.js — what one token's KV-cache row holds, in words (the compare and decode views), from
// the core's shape: "K and V of 2 K/V heads", "latent c + RoPE key kr". Kept apart from geometry.js so
// that its words come with those views' chunks, not with the first map.
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/cache.js';  // the English words it speaks

/**
 * @param {{ variant: string, nKvHeads: number, ropeDim?: number }} shape  a resolved shape
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 */
export function cacheWhat(shape, i18n = EN) {
  if (shape.variant === 'mla') return i18n.t(shape.ropeDim ? 'cache.what.latentRope' : 'cache.what.latent');
  return i18n.t('cache.what.kv', { count: shape.nKvHeads });
}
