// lab-heads.js — Lab 1, "heads sweep": one-layer models at dModel 64 with 1, 2, 4, 8 and 16 heads,
// trained side by side (one per trainer worker: labs/runner.js api.each) on the copy task (the core's training loop: labs/runner.js), then
// evaluated; the summary sentence is computed from the measured final losses (labs/verdicts.js).
import labsCss from '../styles/labs.css?inline';
import { el, useStyles } from '../kit.js';
import { parseIntegerField } from '../labs/fields.js';
import { createLabRunner } from '../labs/runner.js';
import { createLabTable } from '../labs/table.js';
import { HEADS_TASK as TASK } from '../labs/tasks.js';
import { summariseHeads } from '../labs/verdicts.js';
import { alignCurves, createLineChart, seriesPoints } from '../render/line-chart.js';

const HEADS = [1, 2, 4, 8, 16];
const D_MODEL = 64;
const FAST = 0.1; // "steps to reach loss < 0.1"
export const STEPS = { label: 'Steps per model', min: 1, max: 20000 };

const fmt = (v, d = 3) => (v == null || !Number.isFinite(v) ? '—' : v.toFixed(d));
const sub = (text) => el('sub', null, text);
const below = (r) => r.points.find((p) => p[1] < FAST);

export function createLabHeadsView(root, ctx) {
  useStyles(root, 'labs', labsCss);
  root.classList.add('lab', 'lab-heads');
  const controls = el('div', 'lab-controls');
  const chartBox = el('div', 'lab-chart-slot');
  const table = createLabTable({ label: 'Measured after training', caption: 'Measured after training',
    columns: ['heads', ['d', sub('head')], 'steps', 'final train loss', `steps to loss < ${FAST}`, 'held-out loss', 'accuracy'] });
  const summary = el('p', 'lab-summary');
  const result = el('div', { className: 'lab-result', hidden: true }, table.element, summary);
  root.replaceChildren(el('p', 'lab-what', `Task: copy a random sequence of ${TASK.seqLen} tokens (vocabulary ${TASK.vocabSize}); `
    + 'one attention layer, d', sub('model'), ` = ${D_MODEL}, so d`, sub('head'), ` = ${D_MODEL} / h. Batch ${TASK.batchSize}, `
    + 'AdamW with cosine decay over the run; the five models train side by side, as many at once as this device has cores (up to 4).'), controls, chartBox, result);
  const chart = createLineChart(chartBox, { yLabel: 'training loss (nats/token)', logY: true });

  async function run(api) {
    const steps = api.values.labHSteps;
    result.hidden = true;
    const runs = HEADS.map((h) => ({ h, key: null, points: [], last: null, done: 0 }));
    const redraw = () => {
      const { xs, ys, labels } = alignCurves(runs.map((r) => ({ label: `h=${r.h}`, points: r.points })));
      chart.setData(labels, xs, ys);
    };
    await api.each(runs, async (r, i) => {
      api.progressOf(i, `h=${r.h}: creating the model…`);
      r.key = await api.createModel(`${r.h} head${r.h > 1 ? 's' : ''}`, {
        ...TASK, seed: 0, totalSteps: steps, model: { variant: 'mha', dModel: D_MODEL, nHeads: r.h, nLayers: 1, layerNorm: true },
      });
      api.progressOf(i, `h=${r.h}: step 0 / ${steps}`, 0);
      await api.train(r.key, { steps, onProgress: (p) => {
        Object.assign(r, { last: p, done: p.step });
        r.points.push([p.step, p.loss]);
        api.progressOf(i, `h=${r.h}: step ${p.step} / ${steps}`, p.step);
        redraw();
      } });
    });
    const stopped = api.isStopped();
    const secs = api.seconds();
    const done = `${runs.map((r) => r.done).join(' / ')} steps in ${secs.toFixed(1)} s`;
    api.progress(`${stopped ? 'Stopped' : 'Done'}: ${done}; evaluating…`);
    const evals = [];
    for (const r of runs) evals.push(r.done > 0 ? await api.evaluate(r.key) : null);
    table.setRows(runs.map((r, i) => [{ header: true, text: r.h }, D_MODEL / r.h, r.done, fmt(r.last?.loss),
      below(r) ? below(r)[0] : `> ${r.done}`, fmt(evals[i]?.loss), evals[i] ? `${(evals[i].accuracy * 100).toFixed(1)} %` : '—']));
    const trained = runs.filter((r) => r.last);
    const verdict = trained.length >= 2
      ? summariseHeads(trained.map((r) => r.h), trained.map((r) => r.last.loss), Math.min(...trained.map((r) => r.done)))
      : { sentence: 'Train at least two models to compare.', verdicts: [] };
    const fast = trained.filter(below).map((r) => `h=${r.h} at step ${below(r)[0]}`);
    const every = trained.length ? Math.round(trained.reduce((n, r) => n + r.done / r.points.length, 0) / trained.length) : 0;
    summary.textContent = verdict.sentence +
      (fast.length ? ` Loss first below ${FAST}: ${fast.join(', ')} (the loss is read after each chunk of training, about every ${every} steps).` : '') +
      (stopped ? ' (Stopped early: the runs are not finished.)' : '');
    result.hidden = false;
    api.progress(`${stopped ? 'Stopped' : 'Done'}: ${done}.`);
    return { curves: seriesPoints(chart.data()), steps: runs.map((r) => r.done), trainingSeconds: secs };
  }

  const runner = createLabRunner(controls, root, ctx, {
    id: 'lab-heads',
    startLabel: 'Start',
    fields: [{ name: 'labHSteps', ...STEPS, hint: `copy task, ${TASK.seqLen} tokens`, parse: (t) => parseIntegerField(t, STEPS) }],
    run,
  });

  return {
    update(s) { runner.update(s); },
    destroy() {
      runner.destroy();
      chart.destroy();
    },
  };
}
