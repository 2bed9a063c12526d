// decode-cache.js — the decode view's pictures: the KV cache as a strip of one block per cached token
// (its segments: K and V per K/V head, or MLA's latent c and RoPE key kr, heights ∝ floats per token,
// MHA's height as a dashed line), and the newest token's attention weights over the cache, one strip per
// head (render/heatmap.js), the keys' tokens under them. Sizes come from the core's shape (render/geometry.js says them).
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';
import { cacheSegments, headLabel } from '../render/geometry.js';
import { createHeatmap, groupMaps } from '../render/heatmap.js';
import '../i18n/catalogs/en/decode.js';  // the English words it speaks

/**
 * @param {object} shape  the session's resolved shape
 * @param {object | null} baseline  MHA's shape at the same sizes (its cache per token), or null
 * @param {string[]} cached  the tokens in the cache
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 */
export function cacheStrip(shape, baseline, cached, i18n = EN) {
  const { t } = i18n;
  const segments = cacheSegments(shape);
  const elems = shape.cacheFloatsPerToken, mha = baseline?.cacheFloatsPerToken ?? 0;
  const ref = Math.max(mha, elems) || 1;
  const strip = el('div', { className: 'dec-strip', role: 'img', style: `--h: ${elems / ref}; --mha: ${mha / ref}`,
    'aria-label': t('dec.stripLabel', { count: cached.length, floats: elems }) });
  if (shape.variant !== 'mha' && mha >= elems) {
    strip.append(el('div', 'dec-mha-line', el('span', null, t('dec.mhaLine', { floats: mha }))));
  }
  if (cached.length === 0) strip.append(el('p', 'dec-strip-empty', t('dec.stripEmpty')));
  const sizes = segments.map((g) => `${g.label} ${i18n.fmt.int(g.size)}`).join(' + ');
  cached.forEach((tok, i) => strip.append(el('div', {
    className: `dec-block${i === cached.length - 1 ? ' dec-block-newest' : ''}`,
    title: t('dec.block', { token: tok, i, segments: sizes, floats: elems, bytes: elems * 4 }),
  }, ...segments.map((g) => el('div', {
    className: `dec-seg dec-seg-${g.kind}${g.head % 2 ? ' dec-seg-odd' : ''}${segments.length > 32 ? ' dec-seg-thin' : ''}`,
    style: `--size: ${g.size}`,
  })))));
  const swatch = (kind, text) => el('span', 'dec-legend-item', el('span', `dec-swatch dec-seg-${kind}`), text);
  const legend = shape.variant === 'mla'
    ? [swatch('c', t('dec.legend.c', { r: shape.latentRank })), ...(shape.ropeDim ? [swatch('kr', t('dec.legend.kr', { dr: shape.ropeDim }))] : [])]
    : [swatch('k', t('dec.legend.k', { count: shape.nKvHeads, dh: shape.dHead })), swatch('v', t('dec.legend.v', { count: shape.nKvHeads, dh: shape.dHead })),
      ...(shape.nKvHeads > 1 ? [el('span', null, t('dec.legend.shades'))] : [])];
  return [strip, el('div', 'dec-legend', ...legend)];
}

/**
 * The newest token's weights over the cache: one strip per head, the keys' tokens under them.
 * @param {{ weights: Float32Array, k: number, length: number }} newest  the last append's (H, k, length)
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 */
export function newestWeights(shape, newest, cached, readout, i18n = EN) {
  const L = newest.length, k = newest.k, last = cached[cached.length - 1];
  const strips = shape.kvHeadOf.map((_, h) => {
    const label = headLabel(shape, h, i18n);
    const offset = h * k * L + (k - 1) * L;  // the last query row of head h
    let best = 0;
    for (let j = 1; j < L; j++) if (newest.weights[offset + j] > newest.weights[offset + best]) best = j;
    const map = createHeatmap({ title: label, colour: 'prob', cell: 'fill', readout, className: 'hm-strip dec-wmap', i18n,
      describe: ({ j }, v) => i18n.t('dec.cell', { head: label, last, token: cached[j], j, value: v.toFixed(3), best: cached[best] }) });
    map.update({ data: newest.weights, offset, rows: 1, cols: L, range: [0, 1] });
    return map;
  });
  groupMaps(strips);
  return el('div', { className: 'dec-weights', style: `--tokens: ${L}` }, ...strips.map((m) => m.element), keyLabels(cached));
}

/**
 * The keys under the strips, one per cached token, aligned with the strips' cells: every one up to 32
 * tokens, then every second (fourth, ...) one and always the newest, so that none overlaps another.
 */
export function keyLabels(cached) {
  const L = cached.length, every = Math.ceil(L / 32);
  return el('div', { className: 'dec-keys', 'aria-hidden': 'true', dataset: { text: 'input', role: 'keys' } },
    ...cached.map((tok, j) => el('span', null, j % every === 0 || j === L - 1 ? tok : '')));
}
