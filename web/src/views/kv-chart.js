// kv-chart.js — KV-cache size of the whole model against the sequence length (both axes log scale):
// MHA / MQA / GQA / MLA at the current shape (solid) and real models (dashed), with reference lines
// for the core's deployment targets. Every byte count comes from the core (kvCacheBytesMany: one round
// trip for the whole chart), every shape from its resolveShapes. Parts: parts/kv-controls.js (the
// settings), parts/kv-series.js (the data, caption and table), parts/kv-plot.js (the uPlot plot).
import configuratorCss from '../styles/configurator.css?inline';
import { coreDetail, createLatest, el, setViewState, useStyles, variantName } from '../kit.js';
import { createKvControls } from '../parts/kv-controls.js';
import { createKvPlot } from '../parts/kv-plot.js';
import { captionText, measureSeries, valuesTable } from '../parts/kv-series.js';
import { scrollRegion } from '../render/scroll-region.js';
import { messageText } from '../parts/cfg-messages.js';
import '../i18n/catalogs/en/kv.js';  // the English words it speaks

const DATA_FIELDS = ['dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'nLayers', 'dtype', 'batch', 'presets', 'kvVariants'];
/** The core's deployment targets as horizontal lines (GB = 1e9 bytes): { bytes, label (in the page's words), short }. */
const memoryLinesOf = (targets, i18n) => targets.map((t) => ({ bytes: t.memoryBytes, label: messageText(t.message, i18n),
  short: i18n.fmt.decimal(t.memoryBytes) }));

let uid = 0;

export function createKvChartView(root, ctx) {
  useStyles(root, 'configurator', configuratorCss);
  const { i18n } = ctx;
  const { t } = i18n;
  const latest = createLatest(root);
  let dataKey = '', current = '', data = null, raf = 0;
  let memoryLines = [];   // from the core's deploymentTargets(), once
  const controls = createKvControls(`kvchart${++uid}`, ctx.presets ?? [], ctx.setState, i18n);
  const status = el('p', { className: 'kv-status error-text', dataset: { role: 'status' }, role: 'status', hidden: true });
  const chart = el('div', { className: 'kv-chart', dataset: { role: 'chart' }, role: 'img',
    'aria-label': t('kv.chartBusy') });
  const caption = el('p', { className: 'note kv-caption', dataset: { role: 'caption' } });
  const table = el('table');
  root.replaceChildren(controls.element, status, chart, caption,
    el('details', 'kv-table', el('summary', null, t('kv.tableOfValues')), scrollRegion(t('kv.tableOfValues'), table, '', i18n)));
  const plot = createKvPlot(chart, ctx.theme, i18n);

  /** Errors: batch and layers next to their fields (the core's error.field), the others in the status line. */
  function showErrors() {
    const byField = { batch: new Map(), nLayers: new Map() }, other = [];
    for (const d of data.defs.filter((x) => x.error)) {
      const f = String(d.error.field ?? '');
      const { text, detail } = i18n.coreError(d.error);
      if (f === 'batch' || (f === 'nLayers' && !d.preset)) byField[f].set(detail, text);
      else other.push([t('kv.notDrawn', { label: d.label, reason: text }), ' ', coreDetail(detail, i18n)]);
    }
    for (const f of ['batch', 'nLayers']) controls.setError(f, [...new Set(byField[f].values())].join(' '), [...byField[f].keys()].join(' '));
    status.hidden = other.length === 0;
    status.replaceChildren(...other.flatMap((o, i) => (i ? [' · ', ...o] : o)));
    ctx.reportError('kv-chart', data.defs.find((d) => d.id === current)?.error ?? null);  // next to the form, like the other views
  }

  /** Draws `data` with the current variant highlighted; returns root.result. */
  function refresh() {
    for (const d of data.defs) if (!d.preset) d.label = t(d.variant === current ? 'kv.thisShapeCurrent' : 'kv.thisShape', { variant: variantName(d.variant) });
    plot.draw(data, current, memoryLines);
    const series = data.defs.filter((d) => d.bytes).map((d) => ({ id: d.id, label: d.label, bytes: d.bytes.slice() }));
    chart.setAttribute('aria-label', t('kv.chartLabel', { series: series.map((x) => x.label).join(', ') }));
    caption.textContent = captionText(data, current, memoryLines, i18n);
    table.replaceChildren(...valuesTable(data, i18n));
    showErrors();
    return { lengths: data.lengths.slice(), series };
  }

  const ro = new ResizeObserver(() => {
    cancelAnimationFrame(raf);
    raf = requestAnimationFrame(() => plot.resize());
  });
  ro.observe(root);
  const media = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
  const onScheme = () => plot.restyle();
  media?.addEventListener?.('change', onScheme);

  return {
    update(s) {
      controls.sync(s);
      const opened = ctx.model?.()?.opened ?? null;
      const key = JSON.stringify([...DATA_FIELDS.map((f) => s[f]), opened?.key]);
      const restyle = s.variant !== current;
      current = s.variant;
      if (key !== dataKey) {
        dataKey = key;
        latest.run(async () => {
          if (!memoryLines.length) memoryLines = memoryLinesOf(await ctx.client.call('deploymentTargets'), i18n);
          return measureSeries(ctx.client, s, ctx.presets ?? [], opened, i18n);
        }, (d) => { data = d; return refresh(); });
      } else if (restyle && data) {
        setViewState(root, 'ready', refresh());  // only the highlighted variant changed: no new numbers
      }
    },
    destroy() {
      latest.cancel();
      cancelAnimationFrame(raf);
      ro.disconnect();
      media?.removeEventListener?.('change', onScheme);
      plot.destroy();
      ctx.reportError('kv-chart', null);
      root.replaceChildren();
    },
  };
}
