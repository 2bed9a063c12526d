// compare-column.js — one column of the compare view: a variant's per-head maps (render/heatmap.js,
// one shared 0..1 scale), its KV cache per token and parameters (the core's), and, for columns after
// the first, how it differs from column 1: cache ratio, parameters, output and per-head maps.
import { el, variantName } from '../kit.js';
import { fmtInt, fmtRatio } from '../format.js';
import { saveControl } from '../render/save-control.js';
import { cacheFormula, cacheWhat, headLabel, headShort, shapeLine } from '../render/geometry.js';
import { createHeatmap, fileName, groupMaps } from '../render/heatmap.js';

const num = (v, digits = 3) => (Number.isFinite(v) ? (Math.abs(v) >= 1000 ? fmtInt(Math.round(v)) : v.toPrecision(digits)) : '–');
const fact = (term, ...desc) => [el('dt', null, term), el('dd', null, ...desc)];

/**
 * A column's heads' maps, grouped for the keyboard, with a Save control for all of them. The maps are
 * built once per layout (tokens, variant, K/V heads, mask, layer) and redrawn in place when only the
 * weights change (a seed): new maps would mean new canvases, a layout and a paint of the page each time.
 * @returns {(res: object, readout: HTMLElement, name: object) => HTMLElement}
 */
export function createHeadMaps() {
  let layout = '', maps = [], block = null;
  return (res, readout, name) => {
    const { tokens, shape, weights, causal } = res.maps;
    const N = tokens.length, v = variantName(shape.variant);
    const key = JSON.stringify([tokens, shape.variant, shape.kvHeadOf, causal, name.layer]);
    if (key !== layout) {
      layout = key;
      maps = shape.kvHeadOf.map((_, h) => {
        const label = headLabel(shape, h);
        return createHeatmap({ title: headShort(shape, h), colour: 'prob', masked: causal ? 'causal' : null, cell: 'fill', readout,
          className: 'cmp-head', dataset: { cmpHead: String(h) },
          describe: ({ i, j }, w) => `${v} ${label}: “${tokens[i]}” (#${i}) → “${tokens[j]}” (#${j}) = ${w.toFixed(3)}` });
      });
      groupMaps(maps);
      const save = saveControl(() => maps.map((m) => m.figure()), () => fileName({ ...name, head: 'all' }), { label: 'attention weight' });
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

function against(res, ref) {
  const s = res.maps.shape, s0 = ref.maps.shape, v = variantName(s.variant), v0 = variantName(s0.variant);
  const c = s.cacheFloatsPerToken, c0 = s0.cacheFloatsPerToken;
  const cache = c === c0 ? `${v} stores as much as ${v0} per token` : c < c0 ? `${v} stores ${fmtRatio(c0 / c)} less than ${v0} per token`
    : `${v} stores ${fmtRatio(c / c0)} more than ${v0} per token`;
  const dp = res.params.total - ref.params.total;
  const params = dp === 0 ? 'the same' : `${dp > 0 ? '+' : '−'}${fmtInt(Math.abs(dp))} (${dp > 0 ? '+' : '−'}${(Math.abs(dp) / ref.params.total * 100).toFixed(1)} %)`;
  const a = res.maps.output ?? [], b = ref.maps.output ?? [];
  let d2 = 0, n2 = 0, max = 0;
  for (let k = 0; k < a.length; k++) {
    const d = a[k] - b[k];
    d2 += d * d; n2 += b[k] * b[k]; max = Math.max(max, Math.abs(d));
  }
  const H = s.nHeads, N = res.maps.tokens.length;
  const diffs = mapDiffs(res.maps.weights, ref.maps.weights, H, N, res.maps.causal);
  const same = diffs.map((d, h) => (d < 1e-6 ? `h${h}` : null)).filter(Boolean);
  const facts = [...fact('KV cache', `${cache} (${fmtInt(c)} vs ${fmtInt(c0)} floats).`), ...fact('Parameters', params)];
  // Separately trained models (the zoo's): no shared weights, so neither outputs nor heads compare one to one.
  if (res.maps.independent || ref.maps.independent) {
    return el('div', 'cmp-diff', el('h4', null, `Against column 1 (${v0})`), el('dl', 'cmp-facts', ...facts,
      ...fact('Attention weights', 'Trained separately: head h of one model has no counterpart in the other, so the maps are not differenced.')));
  }
  return el('div', 'cmp-diff', el('h4', null, `Against column 1 (${v0})`), el('dl', 'cmp-facts',
    ...facts,
    ...fact('Output (L2, relative)', el('span', 'cmp-outdiff', `‖out − out₁‖ / ‖out₁‖ = ${num(n2 > 0 ? Math.sqrt(d2 / n2) : NaN)}, max |diff| = ${num(max)}`)),
    ...fact('Attention weights: mean |Δ| per head', el('span', 'cmp-wdiff',
      el('ol', 'cmp-wdiff-list', ...diffs.map((d, h) => el('li', { title: `head ${h}: mean |Δ weight|` },
        `h${h} ${d.toFixed(3)}`, el('span', { className: 'cmp-wdiff-bar', 'aria-hidden': 'true', style: `--w: ${Math.min(3, d * 12).toFixed(2)}` })))),
      el('small', null, `Shapes match (${H} heads × ${N} × ${N}), so heads compare one to one${res.maps.causal ? ', over the unmasked cells' : ''}.` +
        (same.length && same.length < H ? ` ${same.join(', ')}: the same query and key weights in both, so the same map.` : ''))))));
}

/**
 * The body of column `idx`: its result (or error) and, after column 1, the comparison with it.
 * @param {{ status: 'fulfilled' | 'rejected', value?: { maps: object, params: object }, reason?: Error }} res
 * @param {ReturnType<typeof createHeadMaps>} headMaps  the column's maps (createHeadMaps)
 */
export function compareColumn(idx, res, ref, readout, headMaps) {
  if (res.status === 'rejected') return [el('p', { className: 'cmp-error error-text', role: 'alert' }, res.reason?.message ?? String(res.reason))];
  const { maps, params } = res.value;
  const s = maps.shape, f = cacheFormula(s);
  const parts = ['wq', 'wk', 'wv', 'wo', 'wDkv', 'wUk', 'wUv', 'wQr', 'wKr'].filter((k) => params[k]).map((k) => `${k} ${fmtInt(params[k])}`);
  const out = [
    el('p', 'cmp-shape', shapeLine(s)),
    headMaps(res.value, readout, { view: 'compare', variant: s.variant, layer: maps.layer }),
    el('dl', 'cmp-facts',
      ...fact('KV cache per token per layer (float32)', `${cacheWhat(s)}: ${f.symbolic} = ${f.filled} = ${fmtInt(f.value)} floats = ${fmtInt(f.value * 4)} bytes`),
      ...fact('Parameters (one attention block)', `${fmtInt(params.total)} (${parts.join(' · ')})`)),
  ];
  if (idx === 0) out.push(el('p', 'cmp-diff cmp-diff-ref', 'Reference: the other columns are compared against this one.'));
  else if (ref?.status !== 'fulfilled') out.push(el('p', 'cmp-diff cmp-diff-none', 'No comparison: column 1 has no result.'));
  else out.push(against(res.value, ref.value));
  return out;
}
