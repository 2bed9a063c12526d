// kv-chart.js — KV-cache size of the whole model against the sequence length (both axes log scale),
// drawn with uPlot: MHA / MQA / GQA / MLA at the current shape (solid) and real models (dashed),
// with reference lines for common memory sizes. Every byte count comes from the core
// (kvCacheBytesMany: one round trip for the whole table).
//
// CSS classes used (styles.css): .controls, .field, .field-wide, .field-error, small, .note,
// .error-text, .scroll, table/th/td, .view.busy (the root while the core answers). Own classes
// (optional styling, the layout works without them): .kv-presets (the real-model picker),
// .kv-chart (the uPlot container), .kv-caption (the formula under the chart), .kv-status (errors).
// uPlot's own CSS is injected into the view, since document CSS does not reach the shadow root.
import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css?inline';
import { DTYPES, dtypeLabel } from '../state.js';
import { binaryTickExponents, spreadLabels } from '../render/kv-axis.js';
import { EXTRA_COLOURS } from '../render/line-chart.js';
import { VARIANT_IDS as VARIANTS, createLatest, escapeHtml as esc, field, plural, setViewState } from '../kit.js';
import {
  VARIANT_NAMES, dimsOf, fmtBinary, fmtCount, fmtDecimal, fmtInt, fmtTokens, kvConfigOf, kvFormula,
} from './formula.js';

/** Sequence lengths: every power of two from 128 to 1,048,576 tokens and the 1.5x step between. */
export const LENGTHS = (() => {
  const out = [];
  for (let e = 7; e <= 20; e++) {
    out.push(2 ** e);
    if (e < 20) out.push(3 * 2 ** (e - 1));
  }
  return out;
})();

/** The core's deployment targets as horizontal lines (GB = 1e9 bytes): { bytes, label, short }. */
const memoryLinesOf = (targets) => targets.map((t) => ({ bytes: t.memoryBytes, label: t.name, short: `${t.memoryBytes / 1e9} GB` }));

/** Lengths shown in the table of values under the chart. */
const TABLE_LENGTHS = [4096, 32768, 131072, 1048576];
const DATA_FIELDS = ['dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'nLayers', 'dtype', 'batch', 'presets', 'kvVariants'];
const DASHES = [[7, 4], [2, 3], [10, 3, 2, 3]];
const FALLBACK_SERIES = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#8c564b', '#e377c2'];

/** uPlot's legend is a table: undo the page's table borders inside it, keep its text readable. */
const LOCAL_CSS = `
.kv-chart .u-legend { font-size: 0.8rem; color: var(--fg); }
.kv-chart .u-legend th, .kv-chart .u-legend td { border: 0; background: none; font-weight: normal; text-align: left; }
.kv-chart .u-legend .u-value { font-variant-numeric: tabular-nums; }
.kv-chart .u-legend .u-series > * { padding: 1px 4px; }
.kv-chart .u-legend.u-inline tr { margin-right: 12px; }
.kv-chart .u-cursor-x, .kv-chart .u-cursor-y { border-color: var(--muted) !important; }
.kv-chart .u-cursor-x.u-off, .kv-chart .u-cursor-y.u-off { display: none; }
`;

let uid = 0;

/** The series to draw for a state: the four variants at the current shape, then the chosen presets. */
function seriesDefs(state, presets) {
  const bytesPerElement = DTYPES[state.dtype] ?? 2;
  const common = { batch: state.batch, bytesPerElement };
  const shown = String(state.kvVariants ?? 'mha,mqa,gqa,mla').split(',').map((x) => x.trim());
  const defs = VARIANTS.filter((v) => shown.includes(v)).map((v) => ({
    id: v,
    variant: v,
    preset: false,
    config: kvConfigOf(state, v, { nLayers: state.nLayers, ...common }),
  }));
  const byId = new Map(presets.map((p) => [p.id, p]));
  const ids = String(state.presets || '').split(',').map((s) => s.trim()).filter((id) => byId.has(id));
  for (const id of [...new Set(ids)]) {
    const p = byId.get(id);
    const config = { variant: p.variant, nLayers: p.nLayers, nHeads: p.nHeads, dHead: p.dHead, ...common };
    if (p.variant === 'gqa') config.nKvHeads = p.nKvHeads;
    if (p.variant === 'mla') {
      config.latentRank = p.latentRank;
      config.ropeDim = p.ropeDim ?? 0;
    }
    const tag = p.variant === 'gqa' ? `GQA-${p.nKvHeads}` : VARIANT_NAMES[p.variant];
    defs.push({ id, variant: p.variant, preset: p, label: `${p.name} (${tag})`, config });
  }
  return defs;
}

/** A y-axis filter for a log-2 scale: the powers of two kv-axis.js picks (the top one always). */
function binaryFilter(u, splits, axisIdx) {
  const key = u.axes[axisIdx].scale;
  const perPower = Math.abs(u.valToPos(1, key) - u.valToPos(2, key));
  const { min, max } = u.scales[key];
  const keep = new Set(binaryTickExponents(Math.ceil(Math.log2(min)), Math.floor(Math.log2(max) + 1e-9), perPower));
  return splits.map((v) => (v > 0 && Number.isInteger(Math.log2(v)) && keep.has(Math.log2(v)) ? v : null));
}

/** "10 GiB (10.74 GB) · 5.369 billion elements" */
function describeBytes(bytes, bpe) {
  return `${fmtBinary(bytes)} (${fmtDecimal(bytes)}) · ${fmtCount(bytes / bpe)} elements`;
}

export function createKvChartView(root, ctx) {
  const id = `kvchart${++uid}`;
  let state = null;
  const latest = createLatest(root);
  let dataKey = '';
  let styleKey = '';
  let data = null;       // { defs, lengths, bpe, state }
  let plot = null;
  let plotSig = '';
  let raf = 0;
  let memoryLines = [];   // from the core's deploymentTargets(), once

  root.innerHTML = `<style>${uplotCss}${LOCAL_CSS}</style>
    <div class="controls" role="group" aria-label="KV-cache chart settings">
      ${field({ id: `${id}-dtype`, name: 'dtype', label: 'Cache data type', kind: 'select', hint: 'bytes per stored element',
    options: Object.entries(DTYPES).map(([k, bytes]) => [k, `${dtypeLabel(k)} (${bytes} B / element)`]) }).box.outerHTML}
      ${field({ id: `${id}-batch`, name: 'batch', label: 'Batch', kind: 'number', hint: 'sequences cached at once',
    attrs: { min: '1', step: '1', inputmode: 'numeric' } }).box.outerHTML}
      ${field({ id: `${id}-nLayers`, name: 'nLayers', label: 'Layers (l)', kind: 'number', hint: 'of the current shape',
    attrs: { min: '1', step: '1', inputmode: 'numeric' } }).box.outerHTML}
      <details class="field field-wide kv-presets">
        <summary>Real models (dashed): <span data-role="preset-summary"></span></summary>
        <fieldset style="border:0;margin:0;padding:4px 0;min-width:0">
          <legend class="note" style="padding:0">Draw the KV cache of these published configurations</legend>
          <div data-role="preset-list" style="display:grid;grid-template-columns:repeat(auto-fill,minmax(14em,1fr));gap:2px 12px"></div>
        </fieldset>
      </details>
    </div>
    <p class="kv-status error-text" data-role="status" role="status" hidden></p>
    <div class="kv-chart" data-role="chart" role="img" style="min-width:0;width:100%"></div>
    <p class="note kv-caption" data-role="caption"></p>
    <details class="kv-table"><summary>Table of values</summary><div class="scroll" data-role="table" tabindex="0" role="region" aria-label="Table of values"></div></details>`;
  const $ = (r) => root.querySelector(`[data-role="${r}"]`);
  const chartBox = $('chart');
  const input = (name) => root.querySelector(`[name="${name}"]`);
  const isFocused = (el) => el === root.getRootNode().activeElement;

  // ---- controls ------------------------------------------------------------------------------
  const presets = () => ctx.presets ?? [];
  $('preset-list').innerHTML = presets().map((p) => {
    const title = [p.source, p.notes].filter(Boolean).join('; ');
    const shape = p.variant === 'mla'
      ? `${p.nLayers} layers, r + dr = ${p.latentRank} + ${p.ropeDim ?? 0}`
      : `${p.nLayers} layers, ${p.nHeads} heads, ${plural(p.variant === 'mha' ? p.nHeads : p.nKvHeads, 'KV head')} of ${p.dHead}`;
    return `<label title="${esc(title)}" style="display:flex;gap:6px;align-items:flex-start">
      <input type="checkbox" name="preset" value="${esc(p.id)}" style="flex:none;width:auto;min-height:0;margin:0.3em 0 0;padding:0">
      <span style="flex:1;min-width:0">${esc(p.name)} <small style="display:inline">${VARIANT_NAMES[p.variant] ?? esc(p.variant)} · ${esc(shape)}</small></span></label>`;
  }).join('');

  const onChange = (e) => {
    const el = e.target;
    if (el.name === 'dtype') ctx.setState({ dtype: el.value });
    else if (el.name === 'batch' || el.name === 'nLayers') {
      if (el.value === '') return; // mid-edit
      ctx.setState({ [el.name]: Number(el.value) });
    } else if (el.name === 'preset') {
      const ids = [...root.querySelectorAll('input[name="preset"]:checked')].map((c) => c.value);
      ctx.setState({ presets: ids.join(',') });
    }
  };
  // Numbers apply as they are typed (like the main form); the select and checkboxes on change.
  root.addEventListener('input', (e) => { if (e.target.type === 'number') onChange(e); });
  root.addEventListener('change', (e) => { if (e.target.type !== 'number') onChange(e); });

  function syncControls(s) {
    const dt = input('dtype');
    if (!isFocused(dt)) dt.value = s.dtype;
    for (const f of ['batch', 'nLayers']) {
      const el = input(f);
      if (!isFocused(el)) el.value = String(s[f]);
    }
    const chosen = new Set(String(s.presets || '').split(',').map((x) => x.trim()));
    for (const c of root.querySelectorAll('input[name="preset"]')) c.checked = chosen.has(c.value);
    const names = presets().filter((p) => chosen.has(p.id)).map((p) => p.name);
    $('preset-summary').textContent = names.length ? names.join(', ') : 'none';
  }

  // ---- drawing -------------------------------------------------------------------------------
  function size() {
    const width = Math.max(240, Math.floor(chartBox.clientWidth || root.clientWidth || 640));
    return { width, height: width < 520 ? 240 : 320 };
  }

  /** Reference lines across the plot; their labels in the gutter right of it (never on the data). */
  function drawMemoryLines(u) {
    const theme = ctx.theme();
    const g = u.ctx;
    const { left, top, width, height } = u.bbox;
    const px = uPlot.pxRatio;
    const { min, max } = u.scales.y;
    const lines = memoryLines.filter((m) => m.bytes >= min && m.bytes <= max);
    const narrow = width / px < 420;
    const ys = lines.map((m) => Math.round(u.valToPos(m.bytes, 'y', true)) + 0.5);
    const h = 13 * px;
    const at = spreadLabels(ys, h, top, top + height);
    g.save();
    g.font = `${Math.round(11 * px)}px system-ui, sans-serif`;
    g.textBaseline = 'middle';
    g.textAlign = 'left';
    lines.forEach((line, i) => {
      g.strokeStyle = theme.muted || '#888';
      g.lineWidth = px;
      g.setLineDash([4 * px, 4 * px]);
      g.beginPath();
      g.moveTo(left, ys[i]);
      g.lineTo(left + width + 3 * px, ys[i]);
      g.stroke();
      g.setLineDash([]);
      g.fillStyle = theme.fg || '#000';
      g.fillText(narrow ? line.short : line.label, left + width + 6 * px, at[i]);
    });
    g.restore();
  }

  function draw() {
    if (!data) return;
    const theme = ctx.theme();
    const palette = [...(theme.series?.filter(Boolean).length ? theme.series.filter(Boolean) : FALLBACK_SERIES), ...EXTRA_COLOURS];
    const drawn = data.defs.filter((d) => d.bytes);
    for (const d of data.defs) if (!d.preset) d.label = `${VARIANT_NAMES[d.variant]} · this shape${d.variant === state.variant ? ' (current)' : ''}`;
    let presetIndex = 0;
    const series = drawn.map((d) => {
      if (d.preset) {
        const i = presetIndex++;
        return { d, stroke: palette[(4 + i) % palette.length], dash: DASHES[Math.floor(i / palette.length) % DASHES.length], width: 1.75 };
      }
      const current = d.variant === state.variant;
      return { d, stroke: palette[VARIANTS.indexOf(d.variant) % palette.length], dash: null, width: current ? 3.5 : 2 };
    });
    const bpe = data.bpe;
    const aligned = [data.lengths, ...drawn.map((d) => d.bytes)];
    const { width, height } = size();
    const sig = JSON.stringify([series.map((s) => [s.d.label, s.stroke, s.dash, s.width]), theme, height, bpe]);
    if (plot && sig === plotSig) {
      plot.setData(aligned);
      if (plot.width !== width) plot.setSize({ width, height });
      return;
    }
    plot?.destroy();
    plotSig = sig;
    const axisFont = '12px system-ui, sans-serif';
    const labelFont = '12px system-ui, sans-serif';
    const axisCommon = {
      stroke: theme.fg || '#000',
      font: axisFont,
      labelFont,
      grid: { stroke: theme.grid || '#ddd', width: 1 },
      ticks: { stroke: theme.grid || '#ddd', width: 1, size: 4 },
      border: { show: true, stroke: theme.border || theme.grid || '#ccc', width: 1 },
    };
    const narrow = width < 520;
    plot = new uPlot({
      width,
      height,
      pxAlign: 0,
      padding: [12, narrow ? 52 : 172, 0, 0],  // right: the memory lines' labels
      scales: {
        x: { time: false, distr: 3, log: 2, range: () => [data.lengths[0], data.lengths.at(-1)] },
        y: {
          distr: 3,
          log: 2,
          range: (u, min, max) => {
            if (min == null || max == null || !(min > 0)) return [1024, 2 ** 40];
            const hi = Math.max(max, (memoryLines.at(-1)?.bytes ?? 0) * 1.1);
            return uPlot.rangeLog(min, hi, 2, true);
          },
        },
      },
      axes: [
        {
          ...axisCommon,
          label: 'sequence length (tokens; K = 1,024)',
          values: (u, splits) => splits.map((v) => (v == null ? null : fmtTokens(v))),
          space: 44,
          size: 34,
          labelSize: 22,
        },
        {
          ...axisCommon,
          label: narrow ? 'KV cache, whole model' : 'KV cache, whole model (KiB = 1,024 B)',  // fits a phone's 240 px
          size: 72,
          filter: binaryFilter,
          grid: { ...axisCommon.grid, filter: binaryFilter },
          ticks: { ...axisCommon.ticks, filter: binaryFilter },
          values: (u, splits) => splits.map((v) => (v == null ? null : fmtBinary(v))),
        },
      ],
      series: [
        { label: 'length', value: (u, v) => (v == null ? '—' : `${fmtInt(v)} tokens (${fmtTokens(v)})`) },
        ...series.map((s) => ({
          label: s.d.label,
          stroke: s.stroke,
          width: s.width,
          ...(s.dash ? { dash: s.dash } : {}),
          points: { show: false },
          value: (u, v) => (v == null ? '—' : describeBytes(v, bpe)),
        })),
      ],
      cursor: { drag: { x: false, y: false, setScale: false }, focus: { prox: 24 } },
      focus: { alpha: 0.35 },
      legend: {
        live: true,
        markers: { dash: (u, i) => (u.series[i].dash ? 'dashed' : 'solid') },
      },
      hooks: {
        draw: [(u) => {
          drawMemoryLines(u);
        }],
      },
    }, aligned, chartBox);
  }

  function renderCaption() {
    const s = data.state;
    const d = dimsOf(s);
    const bpe = data.bpe;
    const perToken = VARIANTS.map((v) => {
      const f = kvFormula(v, d, { layers: true });
      const def = data.defs.find((x) => x.id === v);
      const value = def?.bytes ? `${fmtInt(def.bytes[0] / data.lengths[0] / s.batch / bpe)} elements` : 'invalid shape';
      return `${VARIANT_NAMES[v]} ${esc(f.filled)} = ${value}`;
    });
    const n = 32768;
    const cur = data.defs.find((x) => x.id === state.variant);
    const at = cur?.bytes
      ? ` At ${fmtInt(n)} tokens the current ${VARIANT_NAMES[state.variant]} cache holds ${esc(describeBytes(cur.bytes[data.lengths.indexOf(n)], bpe))}.`
      : '';
    $('caption').innerHTML = `Bytes = elements per token × sequence length × batch × bytes per element, with elements per
      token (DeepSeek-V2 report, Table 1) MHA 2·H·dh·l, GQA 2·G·dh·l, MQA 2·dh·l, MLA (r + dr)·l.
      MHA baseline: the paper's 2·H·dh per layer (every one of the H query heads caches its own key and value).
      This shape (l = ${esc(d.l)}, H = ${esc(d.H)}, dh = ${esc(d.dh)}, G = ${esc(d.G)}, r = ${esc(d.r)}, dr = ${esc(d.dr)}),
      per token: ${perToken.join('; ')}; × ${esc(s.batch)} sequence${s.batch === 1 ? '' : 's'} × ${bpe} B (${esc(dtypeLabel(s.dtype))}).${at}
      Reference lines (the core's deployment targets): ${memoryLines.map((m) => esc(m.label)).join(', ')}, with GB = 10<sup>9</sup> B; the axis
      ticks are binary units (1 GiB = 2<sup>30</sup> B ≈ 1.074 GB).`;
  }

  function renderTable() {
    const drawn = data.defs.filter((d) => d.bytes);
    const idx = TABLE_LENGTHS.map((n) => data.lengths.indexOf(n));
    $('table').innerHTML = `<table><thead><tr><th scope="col" style="text-align:left">Series</th>${TABLE_LENGTHS.map((n) => `<th scope="col">${fmtTokens(n)} tokens</th>`).join('')}</tr></thead>
      <tbody>${drawn.map((d) => `<tr><th scope="row" style="text-align:left">${esc(d.label)}</th>${idx.map((i) => `<td title="${fmtInt(d.bytes[i])} B">${fmtBinary(d.bytes[i])}<br><small>${fmtDecimal(d.bytes[i])}</small></td>`).join('')}</tr>`).join('')}</tbody></table>`;
  }

  function renderErrors() {
    const failed = data.defs.filter((d) => d.error);
    const fieldErr = { batch: [], nLayers: [] };
    const other = [];
    for (const d of failed) {
      const m = d.error.message;
      const named = String(d.error.field ?? '');  // the core's error.field, never the message text
      const f = named === 'batch' ? 'batch' : (!d.preset && named === 'nLayers') ? 'nLayers' : null;
      if (f) { if (!fieldErr[f].includes(m)) fieldErr[f].push(m); } else other.push(`${d.label} not drawn: ${m}`);
    }
    for (const f of ['batch', 'nLayers']) {
      const box = root.querySelector(`#${id}-${f}-err`);
      box.hidden = fieldErr[f].length === 0;
      box.textContent = fieldErr[f].join(' ');
      input(f).toggleAttribute('aria-invalid', fieldErr[f].length > 0);
    }
    const status = $('status');
    status.hidden = other.length === 0;
    status.textContent = other.join(' · ');
    // Like the other views: the current variant's error goes next to the form's controls.
    const mine = data.defs.find((d) => d.id === state.variant);
    ctx.reportError('kv-chart', mine?.error ?? null);
  }

  function compute(s) {
    const defs = seriesDefs(s, presets());
    const configs = (def) => LENGTHS.map((n) => ({ ...def.config, seqLen: n }));
    latest.run(
      async (isCurrent) => {
        if (!memoryLines.length) memoryLines = memoryLinesOf(await ctx.client.call('deploymentTargets'));
        try {
          const flat = await ctx.client.call('kvCacheBytesMany', defs.flatMap(configs));
          defs.forEach((d, i) => { d.bytes = flat.slice(i * LENGTHS.length, (i + 1) * LENGTHS.length); });
        } catch {
          if (!isCurrent()) return;
          // Some series are invalid (e.g. GQA with nHeads not divisible by nKvHeads): find which, one call each.
          const settled = await Promise.allSettled(defs.map((d) => ctx.client.call('kvCacheBytesMany', configs(d))));
          defs.forEach((d, i) => {
            if (settled[i].status === 'fulfilled') d.bytes = settled[i].value;
            else d.error = settled[i].reason instanceof Error ? settled[i].reason : new Error(String(settled[i].reason));
          });
        }
      },
      () => {
        data = { defs, lengths: LENGTHS.slice(), bpe: DTYPES[s.dtype] ?? 2, state: s };
        return refresh();
      });
  }

  /** Draws the chart and its caption, table and errors from `data`, highlighting the latest state's variant. */
  function refresh() {
    draw();
    const result = {
      lengths: data.lengths.slice(),
      series: data.defs.filter((d) => d.bytes).map((d) => ({ id: d.id, label: d.label, bytes: d.bytes.slice() })),
    };
    chartBox.setAttribute('aria-label', `KV-cache bytes against sequence length (log scales) for ${result.series.map((x) => x.label).join(', ')}; the table of values below lists them.`);
    renderCaption();
    renderTable();
    renderErrors();
    return result;
  }

  // ---- resizing and theme ---------------------------------------------------------------------
  const ro = new ResizeObserver(() => {
    cancelAnimationFrame(raf);
    raf = requestAnimationFrame(() => {
      if (!plot) return;
      const { width, height } = size();
      if (width !== plot.width || height !== plot.height) {
        if (height !== plot.height) { plotSig = ''; draw(); } else plot.setSize({ width, height });
      }
    });
  });
  ro.observe(root);
  const media = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
  const onScheme = () => { plotSig = ''; draw(); };
  media?.addEventListener?.('change', onScheme);

  return {
    update(s) {
      state = s;
      syncControls(s);
      const key = JSON.stringify(DATA_FIELDS.map((f) => s[f]));
      if (key !== dataKey) {
        dataKey = key;
        styleKey = s.variant;
        compute(s);
      } else if (s.variant !== styleKey) {
        // Only the highlighted variant changed: restyle, no new numbers needed.
        styleKey = s.variant;
        if (data) setViewState(root, 'ready', refresh());
      }
    },
    destroy() {
      latest.cancel();
      cancelAnimationFrame(raf);
      ro.disconnect();
      media?.removeEventListener?.('change', onScheme);
      plot?.destroy();
      plot = null;
      ctx.reportError('kv-chart', null);
      root.replaceChildren();
    },
  };
}
