// cfg-chart.js — the configurator's KV-cache chart (views/configurator.js): a kv-chart view with a
// state of its own (its settings change only this chart), drawing the variants the core priced at the
// recommended shape beside the three real models closest in size. Sizes are the configurator's own
// estimate for a shape given directly (recommend with dModel and nLayers), asked once per preset.
import { el, variantName } from '../kit.js';
import { createKvChartView } from '../views/kv-chart.js';
import '../i18n/catalogs/en/cfg.js';  // the English words it speaks

/** The cache shape of a preset: presets with the same one draw the same curve (GPT-2, BERT, T5). */
const cacheShape = (p) => [p.variant, p.nLayers, p.nHeads, p.variant === 'gqa' ? p.nKvHeads : 0, p.dHead,
  p.latentRank ?? 0, p.ropeDim ?? 0].join(',');

/** The `count` presets closest in size to `params` (log scale), one per cache shape. sizes: id -> parameters. */
export function closestPresets(presets, sizes, params, count = 3) {
  if (!(params > 0)) return [];
  const ranked = presets.map((p) => ({ p, d: Math.abs(Math.log(sizes.get(p.id) / params)) }))
    .filter((x) => Number.isFinite(x.d)).sort((a, b) => a.d - b.d);
  const seen = new Set(), out = [];
  for (const { p } of ranked) {
    if (seen.has(cacheShape(p))) continue;
    seen.add(cacheShape(p));
    out.push(p.id);
    if (out.length === count) break;
  }
  return out;
}

/** The chart's shape: the recommendation's, with the GQA and MLA rungs the core priced (the chosen one first). */
function chartShape(r) {
  const rung = (v) => (r.variant === v ? r : (r.alternatives ?? []).find((a) => a.variant === v));
  const gqa = rung('gqa'), mla = rung('mla');
  const shown = ['mha', 'mqa', 'gqa', 'mla'].filter((v) => v === r.variant || rung(v));
  return { variant: r.variant, dModel: r.dModel, nHeads: r.nHeads, dHead: r.dHead, nLayers: r.nLayers, nKvHeads: gqa?.nKvHeads ?? 1,
    latentRank: mla?.latentRank ?? 0, ropeDim: mla?.ropeDim ?? 0, kvVariants: shown.join(',') };
}

/** @returns {{ element: HTMLElement, show(rec, state): Promise<void>, destroy(): void }} */
export function createCfgChart(ctx, titleId) {
  const presets = ctx.presets ?? [];
  const note = el('p', { className: 'note', dataset: { role: 'chart-note' } });
  const status = el('p', { className: 'error-text', dataset: { role: 'chart-status' }, role: 'status', hidden: true });
  const box = el('div', { className: 'cfg-chart', dataset: { role: 'chart' }, role: 'group', 'aria-labelledby': titleId });
  const { t } = ctx.i18n;
  const element = el('div', 'cfg-chart-part', el('h3', { id: titleId }, t('cfg.chart.title')), note, status, box);
  let chart = null, chartState = null, sizes = null, shown = 0;
  const showError = (text) => { status.hidden = !text; status.textContent = text; };

  /** Each preset's size by the configurator's estimate (NaN where the core refuses the shape). */
  const sizesOf = () => (sizes ??= Promise.all(presets.map((p) => ctx.client.call('recommend', { dModel: p.dModel, nLayers: p.nLayers, seqLen: 1 })
    .then((x) => x.params, () => NaN))).then((xs) => new Map(presets.map((p, i) => [p.id, xs[i]]))));

  return {
    element,
    async show(r, s) {
      const mine = ++shown;
      const ids = closestPresets(presets, await sizesOf(), r.params);
      if (mine !== shown) return;  // a later recommendation is being shown
      const shape = chartShape(r);
      chartState = { ...s, ...shape, dtype: s.cfgDtype, batch: s.cfgBatch, presets: ids.join(',') };
      const names = ids.map((id) => presets.find((p) => p.id === id)?.name).filter(Boolean);
      const missing = ['gqa', 'mla'].filter((v) => !shape.kvVariants.includes(v)).map(variantName);
      note.textContent = [t('cfg.chart.solid', { variant: variantName(r.variant) }),
        missing.length ? t('cfg.chart.missing', { variants: missing.join(', ') }) : '',
        t('cfg.chart.dashed', { models: names.length ? names.join(', ') : t('cfg.chart.noModel') })].filter(Boolean).join(' ');
      showError('');
      chart ??= createKvChartView(box, {
        client: ctx.client, i18n: ctx.i18n, theme: ctx.theme, info: ctx.info, presets,
        setState: (patch) => { chartState = { ...chartState, ...patch }; chart.update(chartState); },
        reportError: (source, error) => showError(error ? t('cfg.chart.error', { message: error.message }) : ''),
      });
      chart.update(chartState);
    },
    destroy() { shown++; chart?.destroy(); chart = null; },
  };
}
