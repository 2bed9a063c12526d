// lab-mqa.js — Lab 2 (lesson exercise "medium"): MHA, GQA (2 K/V heads) and MQA at the same dModel
// (64) and 8 heads. Immediately: attention weights and KV cache per token and at N = 2048, from the
// core (labs/mqa-budget.js). On "Train all three": the same copy task for each, one after another (the
// core's training loop: labs/runner.js), the loss curves live, then held-out loss and accuracy side by
// side and a summary computed from the numbers (labs/verdicts.js).
import labsCss from '../styles/labs.css?inline';
import { el, useStyles } from '../kit.js';
import { fmtBinary, fmtInt } from '../format.js';
import { parseIntegerField } from '../labs/fields.js';
import { createMqaBudget } from '../labs/mqa-budget.js';
import { createLabRunner } from '../labs/runner.js';
import { createLabTable, twoLines } from '../labs/table.js';
import { MQA_TASK as TASK } from '../labs/tasks.js';
import { summariseMqa } from '../labs/verdicts.js';
import { alignCurves, createLineChart, seriesPoints } from '../render/line-chart.js';

const D = 64, H = 8, N = 2048, BPE = 4;
const VARIANTS = [
  { id: 'mha', name: 'MHA', nKvHeads: 8, detail: '8 K/V heads' },
  { id: 'gqa', name: 'GQA', nKvHeads: 2, detail: '2 K/V heads' },
  { id: 'mqa', name: 'MQA', nKvHeads: 1, detail: '1 K/V head' },
];
// ~12 ms per step (wasm, Node), so the default 150 steps take ~2 s per variant (Chromium: 3 x 300 steps in 14 s).
export const STEPS = { label: 'Steps per variant', min: 1, max: 5000 };
const stepsOf = (state) => parseIntegerField(state.labMSteps, STEPS).value ?? 150;

export function createLabMqaView(root, ctx) {
  useStyles(root, 'labs', labsCss);
  const budget = createMqaBudget(ctx, { D, H, N, BPE, variants: VARIANTS });
  const controls = el('div', { dataset: { role: 'controls' } });
  const chartBox = el('div', { dataset: { role: 'chart' } });
  const table = createLabTable({ label: 'Results', dataset: { role: 'results' }, bodyDataset: { role: 'result-rows' }, hidden: true,
    columns: ['Variant', 'Attention weights', 'KV bytes / token', `KV at N = ${N}`, twoLines('Held-out loss', 'nats / token'),
      twoLines('Accuracy', 'predictable positions')] });
  const summary = el('p', { className: 'lab-summary', dataset: { role: 'summary' }, 'aria-live': 'polite' });
  root.replaceChildren(budget.element, controls, chartBox, table.element, summary);
  const chart = createLineChart(chartBox, { yLabel: 'training loss (nats / token)', logY: true });
  let curves = [], results = new Map(), stepsRun = 0;  // results: variant -> trainer.evaluate()

  function drawChart() {
    const { xs, ys, labels } = alignCurves(curves);
    chart.setData(labels, xs, ys);
  }

  function renderResults() {
    table.show(results.size > 0);
    const b = budget.budget;
    table.setRows(VARIANTS.filter((v) => results.has(v.id)).map((v) => {
      const r = results.get(v.id), bv = b.get(v.id);
      return { dataset: { variant: v.id }, cells: [{ header: true, text: v.name }, bv ? fmtInt(bv.params) : '…',
        bv ? `${fmtInt(bv.perToken)} B` : '…', bv ? fmtBinary(bv.atN) : '…',
        { text: r.loss.toFixed(4), dataset: { role: `loss-${v.id}` } }, `${(r.accuracy * 100).toFixed(1)} %`] };
    }));
    const complete = results.size === VARIANTS.length && b.size === VARIANTS.length;
    const order = [...VARIANTS].sort((x, y) => results.get(x.id)?.loss - results.get(y.id)?.loss).map((v) => v.name);
    summary.textContent = complete ? summariseMqa(Object.fromEntries(results), Object.fromEntries(b), order, stepsRun,
      { N, bytes: fmtBinary }) : '';
  }

  async function run(api) {
    const steps = api.values.labMSteps;
    stepsRun = steps;
    curves = VARIANTS.map((v) => ({ label: v.name, points: [] }));
    results = new Map();
    renderResults();
    for (const [i, v] of VARIANTS.entries()) {
      const key = await api.createModel(v.name, { ...TASK, totalSteps: steps, warmupSteps: Math.min(30, Math.floor(steps / 10)),
        model: { variant: v.id, dModel: D, nHeads: H, nKvHeads: v.nKvHeads } });
      const res = await api.train(key, { steps, onProgress: ({ step, loss }) => {
        curves[i].points.push([step, loss]);
        api.progress(`Training ${v.name} (${i + 1} of ${VARIANTS.length}): step ${step} / ${steps}, loss ${loss.toFixed(3)} · `
          + `${api.seconds().toFixed(1)} s`, step);
        drawChart();
      } });
      if (res.stopped) break;
      results.set(v.id, await api.evaluate(key));
      renderResults();
    }
    drawChart();
    api.progress(`${api.isStopped() ? 'Stopped' : 'Done'}: ${results.size} of ${VARIANTS.length} × ${steps} steps in ${api.seconds().toFixed(1)} s.`);
    return { results: Object.fromEntries(results), curves: seriesPoints(chart.data()) };
  }

  const runner = createLabRunner(controls, root, ctx, {
    id: 'lab-mqa',
    startLabel: 'Train all three',
    againLabel: 'Train all three again',
    idleText: (st) => `Not trained yet: press “Train all three” (3 × ${stepsOf(st)} steps, about ${Math.max(1, Math.round(stepsOf(st) * 3 * 0.016))} s).`,
    fields: [{ name: 'labMSteps', ...STEPS, hint: `copy task, ${TASK.vocabSize} symbols, ${TASK.seqLen} tokens`,
      parse: (t) => parseIntegerField(t, STEPS) }],
    run,
  });
  let destroyed = false;
  budget.load().then(() => { if (!destroyed) renderResults(); });

  return {
    update(s) { runner.update(s); },
    destroy() {
      destroyed = true;
      runner.destroy();
      chart.destroy();
    },
  };
}
