// compare-column.js — one column of the compare view: a variant's per-head maps (render/heatmap.js,
// one shared 0..1 scale), its KV cache per token and parameters (the core's), and, for columns after
// the first, how it differs from column 1: cache ratio, parameters, output and per-head maps.
import { coreDetail, el, variantName } from '../kit.js';
import { EN } from '../i18n/index.js';
import { saveControl } from '../render/save-control.js';
import { cacheWhat } from '../render/cache-words.js';
import { cacheFormula, headLabel, headShort, shapeLine } from '../render/geometry.js';
import { createHeatmap, fileName, groupMaps } from '../render/heatmap.js';
import '../i18n/catalogs/en/compare.js';  // the English words it speaks

const num = (v, i18n, digits = 3) => (Number.isFinite(v) ? (Math.abs(v) >= 1000 ? i18n.fmt.int(Math.round(v)) : v.toPrecision(digits)) : '–');
const fact = (term, ...desc) => [el('dt', null, term), el('dd', null, ...desc)];

/**
 * A column's heads' maps, grouped for the keyboard, with a Save control for all of them. The maps are
 * built once per layout (tokens, variant, K/V heads, mask, layer) and redrawn in place when only the
 * weights change (a seed): new maps would mean new canvases, a layout and a paint of the page each time.
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 * @returns {(res: object, readout: HTMLElement, name: object) => HTMLElement}
 */
export function createHeadMaps(i18n = EN) {
  let layout = '', maps = [], block = null;
  return (res, readout, name) => {
    const { tokens, shape, weights, causal } = res.maps;
    const N = tokens.length, v = variantName(shape.variant);
    const key = JSON.stringify([tokens, shape.variant, shape.kvHeadOf, causal, name.layer]);
    if (key !== layout) {
      layout = key;
      maps = shape.kvHeadOf.map((_, h) => {
        const label = headLabel(shape, h, i18n);
        return createHeatmap({ title: headShort(shape, h), colour: 'prob', masked: causal ? 'causal' : null, cell: 'fill', readout,
          className: 'cmp-head', dataset: { cmpHead: String(h) }, i18n,
          describe: ({ i, j }, w) => i18n.t('cmp.cell', { variant: v, head: label, q: tokens[i], i, k: tokens[j], j, value: w.toFixed(3) }) });
      });
      groupMaps(maps);
      const save = saveControl(() => maps.map((m) => m.figure()), () => fileName({ ...name, head: 'all' }), { label: i18n.t('cmp.weight'), i18n });
      block = el('div', null, el('div', 'cmp-heads', ...maps.map((m) => m.element)), save);
    }
    maps.forEach((map, h) => map.update({ data: weights, offset: h * N * N, rows: N, cols: N, range: [0, 1] }));
    return block;
  };
}

/** Per-head mean |Δ weight| between two results of the same (H, N, N), over the unmasked cells. */
function mapDiffs(a, b, H, N, causal) {
  return Array.from({ length: H }, (_, h) => {
    let s = 0, n = 0;
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < (causal ? i + 1 : N); j++, n++) s += Math.abs(a[h * N * N + i * N + j] - b[h * N * N + i * N + j]);
    }
    return n ? s / n : 0;
  });
}

function against(res, ref, i18n) {
  const { t, fmt } = i18n;
  const s = res.maps.shape, s0 = ref.maps.shape, v = variantName(s.variant), v0 = variantName(s0.variant);
  const c = s.cacheFloatsPerToken, c0 = s0.cacheFloatsPerToken;
  const cache = c === c0 ? t('cmp.cacheSame', { variant: v, other: v0 })
    : t(c < c0 ? 'cmp.cacheLess' : 'cmp.cacheMore', { variant: v, other: v0, ratio: fmt.ratio(c < c0 ? c0 / c : c / c0) });
  const dp = res.params.total - ref.params.total;
  const params = dp === 0 ? t('cmp.paramsSame') : `${dp > 0 ? '+' : '−'}${fmt.int(Math.abs(dp))} (${dp > 0 ? '+' : '−'}${(Math.abs(dp) / ref.params.total * 100).toFixed(1)} %)`;
  const a = res.maps.output ?? [], b = ref.maps.output ?? [];
  let d2 = 0, n2 = 0, max = 0;
  for (let k = 0; k < a.length; k++) {
    const d = a[k] - b[k];
    d2 += d * d; n2 += b[k] * b[k]; max = Math.max(max, Math.abs(d));
  }
  const H = s.nHeads, N = res.maps.tokens.length;
  const diffs = mapDiffs(res.maps.weights, ref.maps.weights, H, N, res.maps.causal);
  const same = diffs.map((d, h) => (d < 1e-6 ? `h${h}` : null)).filter(Boolean);
  const facts = [...fact(t('cmp.fact.cache'), t('cmp.cacheFloats', { cache, mine: c, theirs: c0 })), ...fact(t('cmp.fact.params'), params)];
  const heading = el('h3', null, t('cmp.against', { variant: v0 }));
  // Separately trained models (the zoo's): no shared weights, so neither outputs nor heads compare one to one.
  if (res.maps.independent || ref.maps.independent) {
    return el('div', 'cmp-diff', heading, el('dl', 'cmp-facts', ...facts, ...fact(t('cmp.fact.weights'), t('cmp.notDifferenced'))));
  }
  return el('div', 'cmp-diff', heading, el('dl', 'cmp-facts',
    ...facts,
    ...fact(t('cmp.fact.output'), el('span', 'cmp-outdiff', t('cmp.outDiff', { rel: num(n2 > 0 ? Math.sqrt(d2 / n2) : NaN, i18n), max: num(max, i18n) }))),
    ...fact(t('cmp.fact.weightDiffs'), el('span', 'cmp-wdiff',
      el('ol', 'cmp-wdiff-list', ...diffs.map((d, h) => el('li', { title: t('cmp.diffTitle', { h }) },
        `h${h} ${d.toFixed(3)}`, el('span', { className: 'cmp-wdiff-bar', 'aria-hidden': 'true', style: `--w: ${Math.min(3, d * 12).toFixed(2)}` })))),
      el('small', null, [t(res.maps.causal ? 'cmp.shapesMatchCausal' : 'cmp.shapesMatch', { count: H, N }),
        same.length && same.length < H ? t('cmp.sameMaps', { heads: same.join(', ') }) : ''].filter(Boolean).join(' '))))));
}

/**
 * The body of column `idx`: its result (or error) and, after column 1, the comparison with it.
 * @param {{ status: 'fulfilled' | 'rejected', value?: { maps: object, params: object }, reason?: Error }} res
 * @param {ReturnType<typeof createHeadMaps>} headMaps  the column's maps (createHeadMaps)
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 */
export function compareColumn(idx, res, ref, readout, headMaps, i18n = EN) {
  const { t, fmt } = i18n;
  if (res.status === 'rejected') {
    const { text, detail } = i18n.coreError(res.reason);
    return [el('p', { className: 'cmp-error error-text', role: 'alert' }, text, ' ', coreDetail(detail, i18n))];
  }
  const { maps, params } = res.value;
  const s = maps.shape, f = cacheFormula(s, 0, i18n);
  const parts = ['wq', 'wk', 'wv', 'wo', 'wDkv', 'wUk', 'wUv', 'wQr', 'wKr'].filter((k) => params[k]).map((k) => `${k} ${fmt.int(params[k])}`);
  const out = [
    el('p', 'cmp-shape', shapeLine(s, i18n)),
    headMaps(res.value, readout, { view: 'compare', variant: s.variant, layer: maps.layer }),
    el('dl', 'cmp-facts',
      ...fact(t('cmp.fact.cachePerToken'), t('cmp.cacheLine', { what: cacheWhat(s, i18n), symbolic: f.symbolic, filled: f.filled, floats: f.value, bytes: f.value * 4 })),
      ...fact(t('cmp.fact.paramsBlock'), `${fmt.int(params.total)} (${parts.join(' · ')})`)),
  ];
  if (idx === 0) out.push(el('p', 'cmp-diff cmp-diff-ref', t('cmp.reference')));
  else if (ref?.status !== 'fulfilled') out.push(el('p', 'cmp-diff cmp-diff-none', t('cmp.noReference')));
  else out.push(against(res.value, ref.value, i18n));
  return out;
}
