// line-chart.js — line charts (uPlot) for the labs' curves: loss or accuracy against the optimiser
// step, one series per run, themed from the CSS variables; alignCurves merges runs onto one x axis.
import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css?inline';

/** Extra colours after the theme's six (Tableau 10's others): ten series never repeat a colour. */
export const EXTRA_COLOURS = ['#17becf', '#bcbd22', '#7f7f7f', '#e377c2'];
/** Whole steps only on the x axis (never 5.25). */
export const STEP_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000];

/**
 * A line chart (uPlot) in `root`: x is the step, one series per run.
 * styleOf(label, i) -> { colour: index into the palette, dash?: [on, off] } lets series share a colour
 * (e.g. a model's training and validation curves); yRange fixes the y axis (e.g. [0, 100] for percent).
 * @param {HTMLElement} root
 * @param {{ yLabel: string, xLabel?: string, height?: number, logY?: boolean, yRange?: [number, number],
 *           styleOf?: (label: string, i: number) => { colour: number, dash?: number[] } }} o
 */
export function createLineChart(root, { yLabel, xLabel = 'optimiser step', height = 260, logY = false, yRange = null, styleOf = null }) {
  const style = document.createElement('style');
  style.textContent = `${uplotCss}
    .lab-chart .u-legend { font-size: 0.8rem; color: var(--fg); }
    .lab-chart .u-legend th, .lab-chart .u-legend td { border: 0; background: none; font-weight: normal; text-align: left; }`;
  const box = document.createElement('div');
  box.className = 'lab-chart';
  root.append(style, box);
  let plot = null, labels = [];
  const theme = () => {
    const cs = getComputedStyle(root);
    return { fg: cs.getPropertyValue('--fg').trim() || '#222', grid: cs.getPropertyValue('--grid').trim() || '#ddd',
      series: [...[1, 2, 3, 4, 5, 6].map((i) => cs.getPropertyValue(`--series-${i}`).trim() || '#1f77b4'), ...EXTRA_COLOURS] };
  };
  const build = (seriesLabels) => {
    plot?.destroy();
    const t = theme();
    labels = seriesLabels;
    plot = new uPlot({
      width: Math.max(280, box.clientWidth || root.clientWidth || 600),
      height,
      scales: { x: { time: false }, y: logY ? { distr: 3 } : yRange ? { range: () => yRange } : {} },
      axes: [
        { label: xLabel, stroke: t.fg, grid: { stroke: t.grid }, ticks: { stroke: t.grid }, incrs: STEP_INCRS },
        { label: yLabel, stroke: t.fg, grid: { stroke: t.grid }, ticks: { stroke: t.grid } },
      ],
      series: [{ label: 'step' }, ...seriesLabels.map((label, i) => {
        const st = styleOf ? styleOf(label, i) : { colour: i };
        return {
          label, stroke: t.series[st.colour % t.series.length], width: 2, spanGaps: true, ...(st.dash ? { dash: st.dash } : {}),
          value: (u, v) => (v == null ? '—' : v.toFixed(3)),
        };
      })],
    }, [[]].concat(seriesLabels.map(() => [])), box);
  };
  const resize = new ResizeObserver(() => plot?.setSize({ width: Math.max(280, box.clientWidth), height }));
  resize.observe(box);
  return {
    /** @param {string[]} seriesLabels @param {number[]} xs @param {(number|null)[][]} ys one array per series */
    setData(seriesLabels, xs, ys) {
      if (!plot || seriesLabels.join('\u0001') !== labels.join('\u0001')) build(seriesLabels);
      plot.setData([xs, ...ys]);
    },
    destroy() {
      resize.disconnect();
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
