// line-chart.js — the labs' charts (uPlot): curves against the optimiser step (training loss, held-out
// accuracy, bits per character; one series per run) and, with logX and points, a measured value
// against another (the latent-rank lab's bits/char against cache bytes, with a marked x; the zoo's bits
// per token against cache bytes, each point the mean of its seeds with a bar over the seeds' values).
// Themed from the CSS variables; alignCurves merges runs onto one x axis.
import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css?inline';
import { el } from '../kit.js';

/** Extra colours after the theme's six (Tableau 10's others): ten series never repeat a colour. */
export const EXTRA_COLOURS = ['#17becf', '#bcbd22', '#7f7f7f', '#e377c2'];
/** Whole steps only on the x axis (never 5.25). */
export const STEP_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000];
/** The least distance between the centres of two x tick labels (CSS px) with xTicks. */
const MIN_TICK_GAP = 48;

const valueText = (u, v) => (v == null ? '—' : v.toFixed(3));
/** The x value in the legend: a dash, not uPlot's "--", while the cursor is off the chart. */
const xText = (u, v) => (v == null ? '—' : uPlot.fmtNum(v));

/**
 * A line chart in `root`: x is the step (or, with xLabel and logX, any positive measure), one series
 * per run. styleOf(label, i) -> { colour: index into the palette, dash?: [on, off], points?: 'also' | 'only' }
 * lets series share a colour (a model's training and validation curves) or show as points;
 * yRange fixes the y axis (e.g. [0, 100] for percent); marker() -> { x, text } | null draws a dashed
 * vertical line at x with its text (e.g. "cache < 1/8 of MHA"). For a scatter of measured points:
 * xTicks puts the x axis's ticks at the data's x values (written by xTickText; a label too close to the
 * last one drawn is left out), its domain a little
 * beyond them (a factor 1.3 on a log axis), and labelPoints writes each point's series label beside it
 * (on the first side where it overlaps no label written before it). setData's `runs` draw a bar through
 * each point from the lowest to the highest of its runs (e.g. seeds), a tick at each run.
 * @param {HTMLElement} root
 * @param {{ yLabel: string, xLabel?: string, height?: number, logX?: boolean, logY?: boolean,
 *           yRange?: [number, number], styleOf?: (label: string, i: number) => { colour: number, dash?: number[], points?: 'also' | 'only' },
 *           marker?: () => ({ x: number, text: string } | null), xTicks?: boolean, xTickText?: (x: number) => string,
 *           labelPoints?: boolean }} o
 */
export function createLineChart(root, { yLabel, xLabel = 'optimiser step', height = 260, logX = false, logY = false, yRange = null,
  styleOf = null, marker = null, xTicks = false, xTickText = String, labelPoints = false }) {
  const box = el('div', 'lab-chart');
  root.append(el('style', null, uplotCss), box);
  let plot = null, labels = [], data = { labels: [], xs: [], ys: [] };
  const theme = () => {
    const cs = getComputedStyle(root);
    const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
    return { fg: v('--fg', '#222'), grid: v('--grid', '#ddd'), muted: v('--muted', '#888'),
      series: [...[1, 2, 3, 4, 5, 6].map((i) => v(`--series-${i}`, '#1f77b4')), ...EXTRA_COLOURS] };
  };
  const series = (t) => (label, i) => {
    const st = styleOf ? styleOf(label, i) : { colour: i };
    const stroke = t.series[st.colour % t.series.length];
    return { label, stroke, width: st.points === 'only' ? 0 : 2, spanGaps: true, value: valueText, ...(st.dash ? { dash: st.dash } : {}),
      ...(st.points ? { points: { show: true, size: st.points === 'only' ? 10 : 8, fill: stroke } } : {}) };
  };
  const drawMarker = (t) => (u) => {
    const m = marker?.();
    const x = m ? u.valToPos(m.x, 'x', true) : NaN;
    if (!Number.isFinite(x)) return;
    const c = u.ctx;
    c.save();
    c.strokeStyle = t.muted; c.fillStyle = t.muted; c.setLineDash([4, 4]); c.lineWidth = 1;
    c.beginPath(); c.moveTo(x, u.bbox.top); c.lineTo(x, u.bbox.top + u.bbox.height); c.stroke();
    c.setLineDash([]); c.font = `${12 * devicePixelRatio}px sans-serif`; c.textAlign = 'right';
    c.fillText(m.text, x - 4, u.bbox.top + u.bbox.height - 6 * devicePixelRatio);
    c.restore();
  };
  /**
   * What the scatter drew (tests): its x domain, its tick labels, the labels written beside the points
   * and their boxes (CSS px), and the runs' bars ({ label, lo, hi, runs }).
   */
  const drawn = { x: [NaN, NaN], ticks: [], pointLabels: [], labelBoxes: [], bars: [] };
  const drawBars = (t) => (u) => {
    const c = u.ctx, dpr = devicePixelRatio;
    drawn.bars = [];
    c.save();
    c.lineWidth = 1.5 * dpr;
    u.series.forEach((s, i) => {
      if (i === 0 || !s.show) return;
      (data.runs?.[i - 1] ?? []).forEach((runs, k) => {
        if (!runs?.length || data.ys[i - 1][k] == null) return;
        const x = u.valToPos(u.data[0][k], 'x', true);
        const lo = Math.min(...runs), hi = Math.max(...runs);
        c.strokeStyle = t.series[(styleOf ? styleOf(s.label, i - 1).colour : i - 1) % t.series.length];
        c.beginPath();
        c.moveTo(x, u.valToPos(lo, 'y', true)); c.lineTo(x, u.valToPos(hi, 'y', true));
        for (const r of runs) { const y = u.valToPos(r, 'y', true); c.moveTo(x - 5 * dpr, y); c.lineTo(x + 5 * dpr, y); }
        c.stroke();
        drawn.bars.push({ label: s.label, lo, hi, runs: runs.length });
      });
    });
    c.restore();
  };
  const drawPointLabels = (t) => (u) => {
    const c = u.ctx, dpr = devicePixelRatio;
    drawn.pointLabels = [];
    drawn.labelBoxes = [];
    const boxes = [];  // canvas px: [left, top, right, bottom]
    const clear = (a) => boxes.every((o) => a[2] <= o[0] || a[0] >= o[2] || a[3] <= o[1] || a[1] >= o[3]);
    const inside = (a) => a[0] >= u.bbox.left && a[2] <= u.bbox.left + u.bbox.width && a[1] >= u.bbox.top && a[3] <= u.bbox.top + u.bbox.height;
    c.save();
    c.fillStyle = t.fg;
    c.font = `${12 * dpr}px sans-serif`;
    c.textBaseline = 'middle';
    c.textAlign = 'left';
    u.series.forEach((s, i) => {
      if (i === 0 || !s.show) return;
      u.data[i].forEach((y, k) => {
        if (y == null) return;
        const x = u.valToPos(u.data[0][k], 'x', true), yPos = u.valToPos(y, 'y', true);
        const w = c.measureText(s.label).width, h = 14 * dpr, gap = 9 * dpr;
        // beside the point (the side with room first), then above or below it on either side
        const right = x < u.bbox.left + u.bbox.width * 0.7;
        const sides = right ? [x + gap, x - gap - w] : [x - gap - w, x + gap];
        const at = [0, -h, h, -2 * h, 2 * h].flatMap((dy) => sides.map((left) => [left, yPos + dy - h / 2, left + w, yPos + dy + h / 2]));
        const box = at.find((a) => inside(a) && clear(a)) ?? at.find(clear) ?? at[0];
        boxes.push(box);
        c.fillText(s.label, box[0], (box[1] + box[3]) / 2);
        drawn.pointLabels.push(s.label);
        drawn.labelBoxes.push({ label: s.label, left: box[0] / dpr, top: box[1] / dpr, right: box[2] / dpr, bottom: box[3] / dpr });
      });
    });
    c.restore();
  };
  const xAxisMore = () => (xTicks ? {
    splits: () => data.xs.slice(),
    filter: (u, splits) => splits,  // every split labelled (a log axis otherwise keeps only the powers of ten)
    // a label too close to the last one drawn is left out (a narrow screen: 160 B beside 192 B)
    values: (u, splits) => {
      let last = -Infinity;
      return (drawn.ticks = splits.map((x) => {
        const px = u.valToPos(x, 'x');
        if (px - last < MIN_TICK_GAP) return '';
        last = px;
        return xTickText(x);
      }));
    },
  } : logX ? {} : { incrs: STEP_INCRS });
  /** With runs, the y axis spans every run, not only the points, with a little room. */
  const yScale = () => (logY ? { distr: 3 } : yRange ? { range: () => yRange } : data.runs ? { range: (u, min, max) => {
    const all = [min, max, ...data.runs.flat().filter(Boolean).flat()].filter(Number.isFinite);
    const lo = Math.min(...all), hi = Math.max(...all), pad = (hi - lo) * 0.08 || 0.05;
    return [lo - pad, hi + pad];
  } } : {});
  const xScale = () => ({ time: false, ...(logX ? { distr: 3 } : {}),
    ...(xTicks ? { range: (u, min, max) => {
      if (!data.xs.length) return [min, max];
      const lo = Math.min(...data.xs), hi = Math.max(...data.xs);
      return (drawn.x = logX ? [lo / 1.3, hi * 1.3] : [lo - (hi - lo) * 0.08, hi + (hi - lo) * 0.08]);
    } } : {}) });
  const build = (seriesLabels) => {
    plot?.destroy();
    const t = theme();
    labels = seriesLabels;
    const axis = (label, more = {}) => ({ label, stroke: t.fg, grid: { stroke: t.grid }, ticks: { stroke: t.grid }, ...more });
    plot = new uPlot({
      width: Math.max(280, box.clientWidth || root.clientWidth || 600),
      height,
      scales: { x: xScale(), y: yScale() },
      axes: [axis(xLabel, xAxisMore()), axis(yLabel)],
      series: [{ label: xLabel, value: xText }, ...seriesLabels.map(series(t))],
      legend: { show: !labelPoints },  // each point already says whose it is
      hooks: { draw: [...(marker ? [drawMarker(t)] : []), drawBars(t), ...(labelPoints ? [drawPointLabels(t)] : [])] },
    }, [[]].concat(seriesLabels.map(() => [])), box);
  };
  const resize = new ResizeObserver(() => plot?.setSize({ width: Math.max(280, box.clientWidth), height }));
  resize.observe(box);
  // The colours come from the theme: a switch between light and dark draws the chart again.
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  const retheme = () => { if (plot) { build(labels); plot.setData([data.xs, ...data.ys]); } };
  scheme.addEventListener('change', retheme);
  box.drawn = () => ({ ...drawn });  // for tests: what the axis and the points say
  return {
    /**
     * @param {string[]} seriesLabels @param {number[]} xs @param {(number|null)[][]} ys one array per series
     * @param {(number[]|null)[][]} [runs] per series and x, the runs a point is the mean of (a bar over them)
     */
    setData(seriesLabels, xs, ys, runs = null) {
      data = { labels: seriesLabels, xs, ys, ...(runs ? { runs } : {}) };
      if (!plot || seriesLabels.join('\u0001') !== labels.join('\u0001')) build(seriesLabels);
      plot.setData([xs, ...ys]);
    },
    /** What the chart shows now (tests and the views' results). */
    data: () => data,
    /** What it drew: the x domain, the x tick labels, the point labels (with xTicks / labelPoints). */
    drawn: () => ({ ...drawn }),
    destroy() {
      resize.disconnect();
      scheme.removeEventListener('change', retheme);
      plot?.destroy();
      plot = null;
    },
  };
}

/** Merges curves [{ label, points: [[step, value]...] }] onto one x axis for uPlot (gaps as null). */
export function alignCurves(curves) {
  const xs = [...new Set(curves.flatMap((c) => c.points.map((p) => p[0])))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = curves.map((c) => {
    const y = new Array(xs.length).fill(null);
    for (const [x, v] of c.points) y[index.get(x)] = v;
    return y;
  });
  return { xs, ys, labels: curves.map((c) => c.label) };
}

/** Each series of a chart's data as its points: [{ label, points: [[x, y]...] }] (nulls left out). */
export function seriesPoints({ labels, xs, ys }) {
  return labels.map((label, i) => ({ label, points: xs.map((x, k) => [x, ys[i][k]]).filter((p) => p[1] != null) }));
}
