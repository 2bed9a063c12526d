// decode-cache.js — the decode view's pictures: the KV cache as a strip of one block per cached token
// (its segments: K and V per K/V head, or MLA's latent c and RoPE key kr, heights ∝ floats per token,
// MHA's height as a dashed line), and the newest token's attention weights over the cache, one strip per
// head (render/heatmap.js), the keys' tokens under them. Sizes come from the core's shape (render/geometry.js says them).
// Both are kept between appends and grow with the cache, so that a step of decoding costs a frame, not a page.
import { el } from '../kit.js';
import { extendsDrawn, moveMark, setText } from './decode-tokens.js';
import { EN } from '../i18n/index.js';
import { cacheSegments, headLabel } from '../render/geometry.js';
import { createHeatmap, groupMaps } from '../render/heatmap.js';
import '../i18n/catalogs/en/decode.js';  // the English words it speaks

/**
 * The cache strip, kept between appends: `update(shape, baseline, cached)` adds a block for each token
 * appended since the last update (the blocks already drawn stay: a step of decoding adds one block, not
 * the whole strip again) and rebuilds it only when the shape or the cached tokens before them changed.
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 * @returns {{ elements: HTMLElement[], update(shape: object, baseline: object | null, cached: string[]): void }}
 */
export function createCacheStrip(i18n = EN) {
  const { t } = i18n;
  const strip = el('div', { className: 'dec-strip', role: 'img' });
  const legendBox = el('div', 'dec-legend');
  // in the strip only while it is empty (the stylesheet lays out a strip holding it as an empty one)
  const empty = el('p', 'dec-strip-empty', t('dec.stripEmpty'));
  let drawnShape = null, drawnBaseline, drawn = [], blocks = [];
  let segments = [], sizes = '', elems = 0;

  function rebuild(shape, baseline) {
    segments = cacheSegments(shape);
    elems = shape.cacheFloatsPerToken;
    const mha = baseline?.cacheFloatsPerToken ?? 0, ref = Math.max(mha, elems) || 1;
    strip.style.setProperty('--h', String(elems / ref));
    strip.style.setProperty('--mha', String(mha / ref));
    strip.replaceChildren();
    if (shape.variant !== 'mha' && mha >= elems) strip.append(el('div', 'dec-mha-line', el('span', null, t('dec.mhaLine', { floats: mha }))));
    sizes = segments.map((g) => `${g.label} ${i18n.fmt.int(g.size)}`).join(' + ');
    const swatch = (kind, text) => el('span', 'dec-legend-item', el('span', `dec-swatch dec-seg-${kind}`), text);
    legendBox.replaceChildren(...(shape.variant === 'mla'
      ? [swatch('c', t('dec.legend.c', { r: shape.latentRank })), ...(shape.ropeDim ? [swatch('kr', t('dec.legend.kr', { dr: shape.ropeDim }))] : [])]
      : [swatch('k', t('dec.legend.k', { count: shape.nKvHeads, dh: shape.dHead })), swatch('v', t('dec.legend.v', { count: shape.nKvHeads, dh: shape.dHead })),
        ...(shape.nKvHeads > 1 ? [el('span', null, t('dec.legend.shades'))] : [])]));
    drawnShape = shape;
    drawnBaseline = baseline;
    drawn = [];
    blocks = [];
  }

  const block = (tok, i) => el('div', {
    className: 'dec-block',
    title: t('dec.block', { token: tok, i, segments: sizes, floats: elems, bytes: elems * 4 }),
  }, ...segments.map((g) => el('div', {
    className: `dec-seg dec-seg-${g.kind}${g.head % 2 ? ' dec-seg-odd' : ''}${segments.length > 32 ? ' dec-seg-thin' : ''}`,
    style: `--size: ${g.size}`,
  })));

  return {
    elements: [strip, legendBox],
    update(shape, baseline, cached) {
      const newest = blocks[blocks.length - 1];
      if (shape !== drawnShape || baseline !== drawnBaseline || !extendsDrawn(drawn, cached)) rebuild(shape, baseline);
      const fresh = cached.slice(drawn.length).map((tok, k) => block(tok, drawn.length + k));
      strip.append(...fresh);
      blocks.push(...fresh);
      drawn = cached.slice();
      moveMark(newest, blocks[blocks.length - 1], 'dec-block-newest');
      if (cached.length) empty.remove();
      else if (empty.parentNode !== strip) strip.append(empty);
      strip.setAttribute('aria-label', t('dec.stripLabel', { count: cached.length, floats: elems }));
    },
  };
}

/**
 * The newest token's weights over the cache, one strip per head, the keys' tokens under them,
 * kept between appends: the heads' maps are made once per shape and redrawn with each append's
 * weights (render/heatmap.js's update), never made again for every token.
 * @param {object} readout  the view's read-out (render/heatmap.js createReadout)
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 * @returns {{ element: HTMLElement, update(shape: object, newest: { weights: Float32Array, k: number, length: number }, cached: string[]): void }}
 */
export function createNewestWeights(readout, i18n = EN) {
  const element = el('div', 'dec-weights');
  const keys = createKeyLabels();
  let drawnShape = null, maps = [], now = null;  // now: what the read-out describes { cached, best[h] }
  return {
    element,
    update(shape, newest, cached) {
      if (shape !== drawnShape) {
        maps = groupMaps(shape.kvHeadOf.map((_, h) => {
          const label = headLabel(shape, h, i18n);
          // growBy: a step adds a column; the canvases' bitmaps grow 32 columns at a time, not on every step (heatmap.js)
          return createHeatmap({ title: label, colour: 'prob', cell: 'fill', readout, className: 'hm-strip dec-wmap', i18n, growBy: 32,
            describe: ({ j }, v) => i18n.t('dec.cell', { head: label, last: now.cached[now.cached.length - 1], token: now.cached[j], j,
              value: v.toFixed(3), best: now.cached[now.best[h]] }) });
        }));
        element.replaceChildren(...maps.map((m) => m.element), keys.element);
        drawnShape = shape;
      }
      const L = newest.length, k = newest.k;
      now = { cached, best: [] };
      // the sizes that follow the cache's length, set on the two boxes themselves: an inherited custom
      // property changed here restyled every element below them on every step (the heads' maps, the keys)
      element.style.maxWidth = `calc(5rem + ${L} * 2.6rem)`;
      keys.element.style.gridTemplateColumns = `repeat(${L}, minmax(0, 1fr))`;
      maps.forEach((map, h) => {
        const offset = h * k * L + (k - 1) * L;  // the last query row of head h
        let best = 0;
        for (let j = 1; j < L; j++) if (newest.weights[offset + j] > newest.weights[offset + best]) best = j;
        now.best[h] = best;
        map.update({ data: newest.weights, offset, rows: 1, cols: L, range: [0, 1] });
      });
      keys.update(cached);
    },
  };
}

/**
 * The keys under the strips, one per cached token, aligned with the strips' cells: every one up to 32
 * tokens, then every second (fourth, ...) one and always the newest, so that none overlaps another.
 * Kept between appends: a step adds a key and rewrites only the labels that changed.
 * @returns {{ element: HTMLElement, update(cached: string[]): void }}
 */
export function createKeyLabels() {
  const element = el('div', { className: 'dec-keys', 'aria-hidden': 'true', dataset: { text: 'input', role: 'keys' } });
  let drawn = [], spans = [];
  return {
    element,
    update(cached) {
      if (!extendsDrawn(drawn, cached)) {  // a new session: start the keys again
        element.replaceChildren();
        spans = [];
        drawn = [];
      }
      const fresh = cached.slice(drawn.length).map(() => el('span'));
      element.append(...fresh);
      spans.push(...fresh);
      drawn = cached.slice();
      const L = cached.length, every = Math.ceil(L / 32);
      spans.forEach((span, j) => setText(span, j % every === 0 || j === L - 1 ? cached[j] : ''));
    },
  };
}
