// lab-mqa.js — Lab 2 (lesson exercise "medium"): MHA, GQA (2 K/V heads) and MQA at the same dModel
// (64) and 8 heads, one layer of the Llama block (the zoo's: each model opens in the model view as a
// Hugging Face llama checkpoint, its query heads grouped by K/V head). Immediately: attention weights and KV cache per token and at N = 2048, from the
// core (labs/mqa-budget.js). On "Train all three": the same copy task for each variant with SEEDS seeds,
// side by side (one model per trainer worker; the core's training loop: labs/runner.js), held-out loss
// evaluated every fifth of the run and drawn live (mean over the seeds), then each variant's held-out loss
// as mean ± standard deviation, its difference from MHA with its standard error, and a summary computed
// from those numbers that names a difference only beyond its spread and only once the runs have settled
// (labs/verdicts.js, labs/spread.js).
import labsCss from '../styles/labs.css?inline';
import { el, useStyles } from '../kit.js';
import { parseIntegerField } from '../labs/fields.js';
import { createMqaBudget } from '../labs/mqa-budget.js';
import { createLabRunner } from '../labs/runner.js';
import { createLabTable, twoLines } from '../labs/table.js';
import { MQA_MODEL, MQA_TASK as TASK } from '../labs/tasks.js';
import { summariseMqa } from '../labs/verdicts.js';
import { SEEDS, difference, lateDrop, meanCurve, meanSd, spreadFormat } from '../labs/spread.js';
import { alignCurves, createLineChart, seriesPoints } from '../render/line-chart.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks: the labs' shared ones
import '../i18n/catalogs/en/lab-mqa.js';  // and Lab 2's

const { dModel: D, nHeads: H } = MQA_MODEL, N = 2048, BPE = 4;
const VARIANTS = [
  { id: 'mha', name: 'MHA', nKvHeads: 8 },
  { id: 'gqa', name: 'GQA', nKvHeads: 2 },
  { id: 'mqa', name: 'MQA', nKvHeads: 1 },
];
// ~7 ms per step (wasm, Node), so the default 400 steps take ~3 s per model (9 models: 3 variants × 3 seeds;
// at 400 steps held-out loss has settled: no longer falling by 0.01 nats over the last fifth; at 300 it
// has not quite, docs/lab.md).
const STEPS = { min: 1, max: 5000 };
const stepsOf = (state) => parseIntegerField(state.labMSteps, { ...STEPS, label: '' }).value ?? 400;

export function createLabMqaView(root, ctx) {
  useStyles(root, 'labs', labsCss);
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const { plusMinus, signedDiff } = spreadFormat(fmt);
  const steps = { ...STEPS, label: t('labMqa.steps') };
  const variants = VARIANTS.map((v) => ({ ...v, detail: t('labMqa.kvHeads', { count: v.nKvHeads }) }));
  const budget = createMqaBudget(ctx, { D, H, N, BPE, variants });
  const controls = el('div', { dataset: { role: 'controls' } });
  const chartBox = el('div', { dataset: { role: 'chart' } });
  const table = createLabTable({ label: t('labMqa.results'), dataset: { role: 'results' }, bodyDataset: { role: 'result-rows' }, hidden: true, i18n,
    columns: [t('labMqa.col.variant'), t('labMqa.col.weights'), t('labMqa.col.bytesPerToken'), t('labMqa.col.bytesAtN', { N: String(N) }),
      twoLines(t('labMqa.col.loss'), t('labMqa.col.lossNote', { count: SEEDS.length })), twoLines(t('labMqa.col.vsMha'), t('labMqa.col.vsMhaNote')),
      twoLines(t('labMqa.col.accuracy'), t('labMqa.col.accuracyNote'))],
    save: { name: () => 'lab-mqa-results', meta: () => ({ lab: 'lab-mqa', steps: stepsRun, seeds: SEEDS, summary: summary.textContent }) } });
  const summary = el('p', { className: 'lab-summary', dataset: { role: 'summary' }, 'aria-live': 'polite' });
  root.replaceChildren(budget.element, controls, chartBox, table.element, summary);
  // each variant's mean over its seeds
  const chart = createLineChart(chartBox, { yLabel: t('labMqa.chartY'), xLabel: t('labs.chartStep'), logY: true });
  // runs: one per variant and seed: { v, seed, val: [[step, held-out loss], ...], result: trainer.evaluate() | null }
  let runs = [], stepsRun = 0;
  const runsOf = (id) => runs.filter((r) => r.v.id === id);
  /** A variant's measured seeds: { losses, accuracies } (complete only when every seed is done). */
  const measured = (id) => {
    const done = runsOf(id).filter((r) => r.result);
    return { losses: done.map((r) => r.result.loss), accuracies: done.map((r) => r.result.accuracy), complete: done.length === SEEDS.length };
  };
  const results = () => Object.fromEntries(VARIANTS.map((v) => [v.id, measured(v.id)]));

  /** Each variant's held-out loss at the steps every seed has reached, averaged over its seeds. */
  function drawChart() {
    const curves = VARIANTS.map((v) => ({ label: v.name, points: meanCurve(runsOf(v.id).map((r) => r.val)) }));
    const { xs, ys, labels } = alignCurves(curves);
    chart.setData(labels, xs, ys);
  }

  function renderResults() {
    const m = results();
    const shown = VARIANTS.filter((v) => m[v.id].complete);
    table.show(shown.length > 0);
    const b = budget.budget;
    table.setRows(shown.map((v) => {
      const r = m[v.id], bv = b.get(v.id), loss = meanSd(r.losses);
      const against = v.id === 'mha' ? '—' : m.mha.complete ? signedDiff(difference(m.mha.losses, r.losses)) : '…';
      return { dataset: { variant: v.id }, cells: [{ header: true, text: v.name }, bv ? fmt.int(bv.params) : '…',
        bv ? `${fmt.int(bv.perToken)} B` : '…', bv ? fmt.binary(bv.atN) : '…',
        { text: plusMinus(loss), dataset: { role: `loss-${v.id}`, mean: String(loss.mean) } },
        { text: against, dataset: { role: `diff-${v.id}` } }, `${fmt.fixed(meanSd(r.accuracies).mean * 100, 1)} %`] };
    }));
    const complete = VARIANTS.every((v) => m[v.id].complete) && b.size === VARIANTS.length;
    summary.textContent = complete ? summariseMqa(m, Object.fromEntries(b), stepsRun,
      { N, bytes: fmt.binary, drop: lateDrop(runs.map((r) => r.val)), curves: Object.fromEntries(VARIANTS.map((v) => [v.id, runsOf(v.id).map((r) => r.val)])) },
      i18n) : '';
  }

  async function run(api) {
    const steps = api.values.labMSteps;
    const evalEvery = Math.max(1, Math.round(steps / 5));
    stepsRun = steps;
    runs = VARIANTS.flatMap((v) => SEEDS.map((seed) => ({ v, seed, val: [], result: null })));
    renderResults();
    drawChart();
    await api.each(runs, async (r, i) => {
      const name = t('labs.seedOf', { name: r.v.name, seed: r.seed });
      const key = await api.createModel(name, { ...TASK, seed: r.seed, totalSteps: steps, warmupSteps: Math.min(30, Math.floor(steps / 10)),
        model: { ...MQA_MODEL, variant: r.v.id, nKvHeads: r.v.nKvHeads } }, `${r.v.id}-seed-${r.seed}`);
      const res = await api.train(key, { steps, evalEvery, onProgress: (p) => {
        if (p.evaluation) r.val.push([p.step, p.evaluation.loss]);
        api.progressOf(i, t('labs.stepOf', { name, step: p.step, steps }), p.step);
        drawChart();
      } });
      if (res.stopped) return;
      r.result = await api.evaluate(key);
      if (r.val.at(-1)?.[0] !== res.step) r.val.push([res.step, r.result.loss]);
      drawChart();
      renderResults();
    });
    drawChart();
    const done = runs.filter((r) => r.result).length;
    api.progress(t(api.isStopped() ? 'labMqa.stopped' : 'labMqa.done', { done, total: runs.length, variants: VARIANTS.length, seeds: SEEDS.length,
      count: steps, secs: fmt.fixed(api.seconds(), 1) }));
    return { results: results(), curves: seriesPoints(chart.data()) };
  }

  const runner = createLabRunner(controls, root, ctx, {
    id: 'lab-mqa',
    startLabel: t('labMqa.start'),
    againLabel: t('labMqa.again'),
    idleText: (st) => t('labMqa.idle', { start: t('labMqa.start'), variants: VARIANTS.length, seeds: SEEDS.length, count: stepsOf(st),
      secs: Math.max(1, Math.round(stepsOf(st) * VARIANTS.length * SEEDS.length * 0.025 / Math.max(1, ctx.client.trainerWorkers ?? 1))) }),
    fields: [{ name: 'labMSteps', ...steps, hint: t('labMqa.stepsHint', { vocab: TASK.vocabSize, tokens: TASK.seqLen }),
      parse: (text) => parseIntegerField(text, steps, i18n) }],
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
