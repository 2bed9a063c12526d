// lab-heads.js — Lab 1, "heads sweep": one-layer models at dModel 64 with 1, 2, 4, 8 and 16 heads, each
// with SEEDS seeds, trained side by side (one model per trainer worker: labs/runner.js api.each) on the
// copy task (the core's training loop: labs/runner.js), held-out loss evaluated every fifth of the run;
// then each head count's held-out loss as mean ± standard deviation, its difference from the previous
// head count with its standard error, and a summary that names a difference only beyond its spread
// and only once the runs have settled (labs/verdicts.js, labs/spread.js).
import labsCss from '../styles/labs.css?inline';
import { el, useStyles } from '../kit.js';
import { parseIntegerField } from '../labs/fields.js';
import { createLabRunner } from '../labs/runner.js';
import { SEEDS, difference, lateDrop, meanCurve, meanSd, plusMinus, signedDiff } from '../labs/spread.js';
import { createLabTable, twoLines } from '../labs/table.js';
import { HEADS_TASK as TASK } from '../labs/tasks.js';
import { summariseHeads } from '../labs/verdicts.js';
import { alignCurves, createLineChart, seriesPoints } from '../render/line-chart.js';

const HEADS = [1, 2, 4, 8, 16];
const D_MODEL = 64;
const FAST = 0.1; // "steps to reach loss < 0.1"
export const STEPS = { label: 'Steps per model', min: 1, max: 20000 };

const fmt = (v, d = 3) => (v == null || !Number.isFinite(v) ? '—' : v.toFixed(d));
const sub = (text) => el('sub', null, text);
/** The first chunk end at which a run's training loss is below FAST, or null. */
const below = (r) => r.points.find((p) => p[1] < FAST)?.[0] ?? null;

/** Each head count's mean training loss over its seeds, at the chunk ends every seed has reached. */
function meanCurves(runs) {
  return HEADS.map((h) => ({ label: `h=${h}`, points: meanCurve(runs.filter((r) => r.h === h).map((r) => r.points)) }));
}

export function createLabHeadsView(root, ctx) {
  useStyles(root, 'labs', labsCss);
  root.classList.add('lab', 'lab-heads');
  const controls = el('div', 'lab-controls');
  const chartBox = el('div', 'lab-chart-slot');
  const table = createLabTable({ label: 'Measured after training', caption: `Measured after training, ${SEEDS.length} seeds per head count`,
    columns: ['heads', ['d', sub('head')], 'steps', twoLines('final train loss', 'mean of the seeds'), twoLines(`steps to loss < ${FAST}`, 'each seed'),
      twoLines('held-out loss', `nats, mean ± sd of ${SEEDS.length} seeds`), twoLines('against h / 2', 'nats, ± standard error'), 'accuracy'] });
  const summary = el('p', 'lab-summary');
  const result = el('div', { className: 'lab-result', hidden: true }, table.element, summary);
  root.replaceChildren(el('p', 'lab-what', `Task: copy a random sequence of ${TASK.seqLen} tokens (vocabulary ${TASK.vocabSize}); `
    + 'one attention layer, d', sub('model'), ` = ${D_MODEL}, so d`, sub('head'), ` = ${D_MODEL} / h. Batch ${TASK.batchSize}, `
    + `AdamW with cosine decay over the run; each head count trains with ${SEEDS.length} seeds (initialisation and data order), `
    + 'side by side, as many at once as this device has cores (up to 4). Each curve is the mean of a head count\'s seeds.'), controls, chartBox, result);
  const chart = createLineChart(chartBox, { yLabel: 'training loss (nats/token)', logY: true });  // each head count's mean over its seeds

  async function run(api) {
    const steps = api.values.labHSteps;
    const evalEvery = Math.max(1, Math.round(steps / 5));
    result.hidden = true;
    const runs = HEADS.flatMap((h) => SEEDS.map((seed) => ({ h, seed, key: null, points: [], val: [], last: null, done: 0, result: null })));
    const redraw = () => {
      const { xs, ys, labels } = alignCurves(meanCurves(runs));
      chart.setData(labels, xs, ys);
    };
    await api.each(runs, async (r, i) => {
      const name = `h=${r.h} seed ${r.seed}`;
      api.progressOf(i, `${name}: creating the model…`);
      r.key = await api.createModel(`${r.h} head${r.h > 1 ? 's' : ''}, seed ${r.seed}`, {
        ...TASK, seed: r.seed, totalSteps: steps, model: { variant: 'mha', dModel: D_MODEL, nHeads: r.h, nLayers: 1, layerNorm: true },
      });
      api.progressOf(i, `${name}: step 0 / ${steps}`, 0);
      await api.train(r.key, { steps, evalEvery, onProgress: (p) => {
        Object.assign(r, { last: p, done: p.step });
        r.points.push([p.step, p.loss]);
        if (p.evaluation) r.val.push([p.step, p.evaluation.loss]);
        api.progressOf(i, `${name}: step ${p.step} / ${steps}`, p.step);
        redraw();
      } });
    });
    const stopped = api.isStopped();
    const secs = api.seconds();
    const done = `${runs.filter((r) => r.done === steps).length} of ${runs.length} models (${HEADS.length} head counts × ${SEEDS.length} seeds) × ${steps} steps in ${secs.toFixed(1)} s`;
    api.progress(`${stopped ? 'Stopped' : 'Done'}: ${done}; evaluating…`);
    for (const r of runs) {
      if (r.done === 0) continue;
      r.result = await api.evaluate(r.key);
      if (r.val.at(-1)?.[0] !== r.done) r.val.push([r.done, r.result.loss]);
    }
    const byHeads = HEADS.map((h) => runs.filter((r) => r.h === h && r.result));
    const trained = HEADS.map((h, k) => ({ h, seeds: byHeads[k] })).filter((g) => g.seeds.length);
    const curves = meanCurves(runs);
    table.setRows(trained.map((g) => {
      const k = HEADS.indexOf(g.h), prev = k > 0 ? byHeads[k - 1] : [];
      const losses = g.seeds.map((r) => r.result.loss);
      return [{ header: true, text: g.h }, D_MODEL / g.h, Math.min(...g.seeds.map((r) => r.done)), fmt(curves[k].points.at(-1)?.[1]),
        g.seeds.map((r) => below(r) ?? `> ${r.done}`).join(' / '), plusMinus(meanSd(losses)),
        prev.length ? signedDiff(difference(prev.map((r) => r.result.loss), losses)) : '—',
        `${(meanSd(g.seeds.map((r) => r.result.accuracy)).mean * 100).toFixed(1)} %`];
    }));
    const verdict = trained.length >= 2
      ? summariseHeads(trained.map((g) => g.h), trained.map((g) => g.seeds.map((r) => r.result.loss)),
        Math.min(...runs.filter((r) => r.result).map((r) => r.done)), lateDrop(runs.filter((r) => r.result).map((r) => r.val)))
      : { sentence: 'Train at least two head counts to compare.', verdicts: [] };
    const every = runs.some((r) => r.points.length)
      ? Math.round(runs.filter((r) => r.points.length).reduce((n, r) => n + r.done / r.points.length, 0) / runs.filter((r) => r.points.length).length) : 0;
    summary.textContent = verdict.sentence +
      (every ? ` The "steps to loss < ${FAST}" column is read after each chunk of training, about every ${every} steps.` : '') +
      (stopped ? ' (Stopped early: the runs are not finished.)' : '');
    result.hidden = false;
    api.progress(`${stopped ? 'Stopped' : 'Done'}: ${done}.`);
    return { curves: seriesPoints(chart.data()), steps: runs.map((r) => r.done), trainingSeconds: secs,
      runs: runs.map((r) => ({ heads: r.h, seed: r.seed, steps: r.done, trainLoss: r.last?.loss ?? null, heldOut: r.result?.loss ?? null })) };
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
