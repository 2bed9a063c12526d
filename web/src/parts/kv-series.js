// kv-series.js — the KV chart's data (views/kv-chart.js): which series a state draws (the four
// variants at the current shape, then the chosen real models), their bytes at every length from the
// core (kvCacheBytesMany), the caption that explains them and the table of values. The shapes are
// the core's (resolveShapes); the formulas their words (render/geometry.js).
import { DTYPES, dtypeLabel, shapeSpec } from '../state.js';
import { VARIANT_IDS, el, variantName } from '../kit.js';
import { rebuildError } from '../core-errors.js';
import { cacheFormula } from '../render/geometry.js';
import '../i18n/catalogs/en/kv.js';  // the English words it speaks

/** Sequence lengths: every power of two from 128 to 1,048,576 tokens and the 1.5x step between. */
export const LENGTHS = [];
for (let e = 7; e <= 20; e++) LENGTHS.push(2 ** e, ...(e < 20 ? [3 * 2 ** (e - 1)] : []));
/** Lengths shown in the table of values under the chart. */
export const TABLE_LENGTHS = [4096, 32768, 131072, 1048576];

const list = (s) => String(s ?? '').split(',').map((x) => x.trim()).filter(Boolean);

/** The core's kvCacheBytes request of a shape or preset (only the fields its variant takes). */
function cacheRequest(s, nLayers, common) {
  const q = { variant: s.variant, nLayers, nHeads: s.nHeads, dHead: s.dHead, ...common };
  if (s.variant === 'gqa') q.nKvHeads = s.nKvHeads;
  if (s.variant === 'mla') Object.assign(q, { latentRank: s.latentRank, ropeDim: s.ropeDim ?? 0 });
  return q;
}

/** "10 GiB (10.74 GB) · 5.369 billion elements" (in the page's language). */
export const describeBytes = (bytes, bpe, i18n) => i18n.t('kv.describeBytes', { binary: i18n.fmt.binary(bytes), decimal: i18n.fmt.decimal(bytes), elements: i18n.fmt.count(bytes / bpe) });

/**
 * The series of a state with their bytes: { defs, shapes, lengths, bpe, state }. defs: { id, variant,
 * preset, label, bytes | error }; shapes: the four variants' resolved shapes at this state (null: refused).
 */
export async function measureSeries(client, state, presets, opened, i18n) {
  const bpe = DTYPES[state.dtype] ?? 2;
  const common = { batch: state.batch, bytesPerElement: bpe };
  const resolved = await client.call('resolveShapes', VARIANT_IDS.map((v) => shapeSpec(state, v)));
  const shapes = Object.fromEntries(VARIANT_IDS.map((v, i) => [v, resolved[i].error ? null : resolved[i]]));
  const shown = list(state.kvVariants ?? VARIANT_IDS.join(','));
  const defs = VARIANT_IDS.map((v, i) => ({
    id: v, variant: v, preset: null, request: shapes[v] && cacheRequest(shapes[v], state.nLayers, common),
    error: shapes[v] ? null : rebuildError(resolved[i].error),
  })).filter((d) => shown.includes(d.id));
  const byId = new Map(presets.map((p) => [p.id, p]));
  const chosen = [...new Set(list(state.presets).filter((x) => byId.has(x)))].map((id) => byId.get(id));
  if (opened) {  // the checkpoint open in the page (sources/pretrained.js), drawn as a real model
    const i = opened.info;
    chosen.unshift({ id: 'opened-model', name: i18n.t('kv.openedModel', { name: opened.name }), variant: i.variant, nHeads: i.nHeads, nKvHeads: i.nKvHeads,
      dHead: i.dHead, nLayers: i.nLayers, latentRank: i.latentRank, ropeDim: i.ropeDim });
  }
  for (const p of chosen) {
    const id = p.id;
    const tag = p.variant === 'gqa' ? `GQA-${p.nKvHeads}` : variantName(p.variant);
    defs.push({ id, variant: p.variant, preset: p, label: `${p.name} (${tag})`, request: cacheRequest(p, p.nLayers, common) });
  }
  const asked = defs.filter((d) => d.request);
  const lengthsOf = (d) => LENGTHS.map((seqLen) => ({ ...d.request, seqLen }));
  try {
    const flat = await client.call('kvCacheBytesMany', asked.flatMap(lengthsOf));
    asked.forEach((d, i) => { d.bytes = flat.slice(i * LENGTHS.length, (i + 1) * LENGTHS.length); });
  } catch {
    // Some series are refused (e.g. a batch of 0): find which, one call each.
    const settled = await Promise.allSettled(asked.map((d) => client.call('kvCacheBytesMany', lengthsOf(d))));
    asked.forEach((d, i) => {
      if (settled[i].status === 'fulfilled') d.bytes = settled[i].value;
      else d.error = settled[i].reason instanceof Error ? settled[i].reason : new Error(String(settled[i].reason));
    });
  }
  return { defs, shapes, lengths: LENGTHS.slice(), bpe, state };
}

/** The caption under the chart: the formulas with this shape's values, the current cache at 32K, the lines. */
export function captionText(data, currentVariant, memoryLines, i18n) {
  const { t, fmt: { int: fmtInt } } = i18n;
  const { shapes, state: s, bpe } = data;
  const any = shapes[currentVariant] ?? Object.values(shapes).find(Boolean);
  const dims = `l = ${fmtInt(s.nLayers)}, H = ${fmtInt(any?.nHeads ?? s.nHeads)}${any ? `, dh = ${fmtInt(any.dHead)}` : ''}, `
    + `G = ${fmtInt(shapes.gqa?.nKvHeads ?? s.nKvHeads)}, r = ${fmtInt(shapes.mla?.latentRank ?? s.latentRank)}, `
    + `dr = ${fmtInt(shapes.mla?.ropeDim ?? s.ropeDim)}`;
  const perToken = VARIANT_IDS.map((v) => {
    if (!shapes[v]) return t('kv.invalidShape', { variant: variantName(v) });
    const f = cacheFormula(shapes[v], s.nLayers, i18n);
    return t('kv.perTokenOf', { variant: variantName(v), filled: f.filled, count: f.value });
  });
  const n = 32768;
  const cur = data.defs.find((d) => d.id === currentVariant);
  const at = cur?.bytes ? t('kv.captionAt', { n, variant: variantName(currentVariant), bytes: describeBytes(cur.bytes[data.lengths.indexOf(n)], bpe, i18n) }) : '';
  return [t('kv.captionFormula'),
    t('kv.captionShape', { dims, perToken: perToken.join('; '), count: s.batch, bpe, dtype: dtypeLabel(s.dtype) }), at,
    t('kv.captionLines', { lines: memoryLines.map((m) => m.label).join(', ') })].filter(Boolean).join(' ');
}

/** The table of values: one row per drawn series, the bytes at TABLE_LENGTHS. */
export function valuesTable(data, i18n) {
  const { t, fmt: { int: fmtInt, tokens: fmtTokens, binary: fmtBinary, decimal: fmtDecimal } } = i18n;
  const idx = TABLE_LENGTHS.map((n) => data.lengths.indexOf(n));
  return [
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, t('kv.series')), ...TABLE_LENGTHS.map((n) => el('th', { scope: 'col' }, t('kv.tokensCol', { n: fmtTokens(n) }))))),
    el('tbody', null, ...data.defs.filter((d) => d.bytes).map((d) => el('tr', null, el('th', { scope: 'row' }, d.label),
      ...idx.map((i) => el('td', { title: `${fmtInt(d.bytes[i])} B` }, fmtBinary(d.bytes[i]), el('small', null, fmtDecimal(d.bytes[i]))))))),
  ];
}
