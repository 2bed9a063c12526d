// kv-plot.js — the KV chart's plot (views/kv-chart.js): bytes against the sequence length, both axes
// log 2, drawn with uPlot; solid lines for the current shape's variants (the current one thick),
// dashed for real models, and the core's deployment targets as reference lines labelled in the gutter.
// uPlot's own CSS goes into the view (document CSS does not reach the shadow root); the page's
// overrides of it are in styles/configurator.css (".kv-chart").
import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css?inline';
import { VARIANT_IDS, el } from '../kit.js';
import { binaryTickExponents, spreadLabels } from '../render/kv-axis.js';
import { EXTRA_COLOURS } from '../render/line-chart.js';
import { describeBytes } from './kv-series.js';
import '../i18n/catalogs/en/kv.js';  // the English words it speaks

const DASHES = [[7, 4], [2, 3], [10, 3, 2, 3]];
const FALLBACK_SERIES = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#8c564b', '#e377c2'];
const FONT = '12px system-ui, sans-serif';

/** A y-axis filter for a log-2 scale: the powers of two kv-axis.js picks (the top one always). */
function binaryFilter(u, splits, axisIdx) {
  const key = u.axes[axisIdx].scale;
  const perPower = Math.abs(u.valToPos(1, key) - u.valToPos(2, key));
  const { min, max } = u.scales[key];
  const keep = new Set(binaryTickExponents(Math.ceil(Math.log2(min)), Math.floor(Math.log2(max) + 1e-9), perPower));
  return splits.map((v) => (v > 0 && Number.isInteger(Math.log2(v)) && keep.has(Math.log2(v)) ? v : null));
}

/** Reference lines across the plot; their labels in the gutter right of it (never on the data). */
function drawMemoryLines(u, lines, theme) {
  const g = u.ctx, px = uPlot.pxRatio;
  const { left, top, width, height } = u.bbox;
  const shown = lines.filter((m) => m.bytes >= u.scales.y.min && m.bytes <= u.scales.y.max);
  const ys = shown.map((m) => Math.round(u.valToPos(m.bytes, 'y', true)) + 0.5);
  const at = spreadLabels(ys, 13 * px, top, top + height);
  g.save();
  g.font = `${Math.round(11 * px)}px system-ui, sans-serif`;
  g.textBaseline = 'middle';
  shown.forEach((line, i) => {
    g.strokeStyle = theme.muted || '#888';
    g.lineWidth = px;
    g.setLineDash([4 * px, 4 * px]);
    g.beginPath();
    g.moveTo(left, ys[i]);
    g.lineTo(left + width + 3 * px, ys[i]);
    g.stroke();
    g.setLineDash([]);
    g.fillStyle = theme.fg || '#000';
    g.fillText(width / px < 420 ? line.short : line.label, left + width + 6 * px, at[i]);
  });
  g.restore();
}

/** Colours, dashes and widths: a variant keeps its colour; presets take the next ones, then dashes. */
function styles(defs, current, theme) {
  const palette = [...(theme.series?.filter(Boolean).length ? theme.series.filter(Boolean) : FALLBACK_SERIES), ...EXTRA_COLOURS];
  let k = 0;
  return defs.map((d) => {
    if (!d.preset) return { stroke: palette[VARIANT_IDS.indexOf(d.variant) % palette.length], width: d.variant === current ? 3.5 : 2 };
    const i = k++;
    return { stroke: palette[(4 + i) % palette.length], dash: DASHES[Math.floor(i / palette.length) % DASHES.length], width: 1.75 };
  });
}

function options(data, drawn, looks, theme, memoryLines, width, height, i18n) {
  const { t, fmt: { int: fmtInt, tokens: fmtTokens, binary: fmtBinary } } = i18n;
  const axis = {
    stroke: theme.fg || '#000', font: FONT, labelFont: FONT,
    grid: { stroke: theme.grid || '#ddd', width: 1 },
    ticks: { stroke: theme.grid || '#ddd', width: 1, size: 4 },
    border: { show: true, stroke: theme.border || theme.grid || '#ccc', width: 1 },
  };
  const narrow = width < 520;
  return {
    width, height, pxAlign: 0,
    padding: [12, narrow ? 52 : 172, 0, 0],  // right: the memory lines' labels
    scales: {
      x: { time: false, distr: 3, log: 2, range: () => [data.lengths[0], data.lengths.at(-1)] },
      y: {
        distr: 3, log: 2,
        range: (u, min, max) => (min == null || max == null || !(min > 0) ? [1024, 2 ** 40]
          : uPlot.rangeLog(min, Math.max(max, (memoryLines.at(-1)?.bytes ?? 0) * 1.1), 2, true)),
      },
    },
    axes: [
      { ...axis, label: t('kv.axisX'), space: 44, size: 34, labelSize: 22,
        values: (u, splits) => splits.map((v) => (v == null ? null : fmtTokens(v))) },
      { ...axis, label: t(narrow ? 'kv.axisYShort' : 'kv.axisY'), size: 72,  // fits a phone's 240 px
        filter: binaryFilter, grid: { ...axis.grid, filter: binaryFilter }, ticks: { ...axis.ticks, filter: binaryFilter },
        values: (u, splits) => splits.map((v) => (v == null ? null : fmtBinary(v))) },
    ],
    series: [
      { label: t('kv.legendLength'), value: (u, v) => (v == null ? '—' : t('kv.tokensAt', { count: v, n: fmtInt(v), short: fmtTokens(v) })) },
      ...drawn.map((d, i) => ({ label: d.label, ...looks[i], points: { show: false },
        value: (u, v) => (v == null ? '—' : describeBytes(v, data.bpe, i18n)) })),
    ],
    cursor: { drag: { x: false, y: false, setScale: false }, focus: { prox: 24 } },
    focus: { alpha: 0.35 },
    legend: { live: true, markers: { dash: (u, i) => (u.series[i].dash ? 'dashed' : 'solid') } },
    hooks: { draw: [(u) => drawMemoryLines(u, memoryLines, theme)] },
  };
}

/**
 * The plot in `box` (a .kv-chart element): draw(data, current, memoryLines) draws or updates it,
 * restyle() redraws it with the theme's colours, resize() follows the box's width.
 */
export function createKvPlot(box, theme, i18n) {
  let plot = null, sig = '', last = null;
  box.before(el('style', null, uplotCss));
  const size = () => {
    const width = Math.max(240, Math.floor(box.clientWidth || box.parentElement?.clientWidth || 640));
    return { width, height: width < 520 ? 240 : 320 };
  };
  function draw(data, current, memoryLines) {
    last = [data, current, memoryLines];
    const drawn = data.defs.filter((d) => d.bytes);
    const t = theme();
    const looks = styles(drawn, current, t);
    const aligned = [data.lengths, ...drawn.map((d) => d.bytes)];
    const { width, height } = size();
    const now = JSON.stringify([drawn.map((d, i) => [d.label, looks[i]]), t, height, data.bpe]);
    if (plot && now === sig) {
      plot.setData(aligned);
      if (plot.width !== width) plot.setSize({ width, height });
      return;
    }
    plot?.destroy();
    sig = now;
    plot = new uPlot(options(data, drawn, looks, t, memoryLines, width, height, i18n), aligned, box);
  }
  return {
    draw,
    restyle() { sig = ''; if (last) draw(...last); },
    resize() {
      if (!plot) return;
      const { width, height } = size();
      if (height !== plot.height) { sig = ''; draw(...last); } else if (width !== plot.width) plot.setSize({ width, height });
    },
    destroy() { plot?.destroy(); plot = null; },
  };
}
