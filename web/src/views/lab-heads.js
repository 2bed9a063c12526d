// lab-heads.js — Lab 1, "heads sweep": one-layer models at dModel 64 with 1, 2, 4, 8 and 16 heads, each
// with SEEDS seeds, trained side by side (one model per trainer worker: labs/runner.js api.each) on the
// chosen task (labs/tasks.js: the two-tokens-back task, where the head count matters, or the lesson's
// copy task), held-out loss evaluated every fifth of the run; then each head count's held-out loss as
// mean ± standard deviation, its difference from the previous head count with its standard error, and a
// summary that names a difference only beyond its spread and only once the runs have settled
// (labs/verdicts.js, labs/spread.js). The bundled sweep of the two-tokens-back task (five seeds) and its
// one- and two-head models' maps are a click away (labs/heads-zoo.js).
import labsCss from '../styles/labs.css?inline';
import { el, setViewState, useStyles } from '../kit.js';
import { parseIntegerField } from '../labs/fields.js';
import { createLabRunner } from '../labs/runner.js';
import { SEEDS, difference, lateDrop, meanCurve, meanSd, plusMinus, signedDiff } from '../labs/spread.js';
import { createLabTable, twoLines } from '../labs/table.js';
import { HEADS_MODEL, HEADS_SWEEP as HEADS, HEADS_TASKS } from '../labs/tasks.js';
import { createHeadsZoo } from '../labs/heads-zoo.js';
import { summariseHeads } from '../labs/verdicts.js';
import { alignCurves, createLineChart, seriesPoints } from '../render/line-chart.js';

const D_MODEL = HEADS_MODEL.dModel;
/** What each task is, in a sentence (before the model's). */
const TASK_WORDS = {
  pairs: (t) => `Task: ${t.seqLen} random tokens of an alphabet of ${t.vocabSize}; at each position, name the two tokens before it, `
    + `in order (one of ${t.vocabSize * t.vocabSize} pairs). A head has one softmax, so one head must mix the two positions; two heads can take one each. `,
  copy: (t) => `Task: copy a random sequence of ${t.seqLen / 2} tokens (vocabulary ${t.vocabSize}), the lesson's exercise. `,
};const FAST = 0.1; // "steps to reach loss < 0.1"
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
  const what = el('p', 'lab-what');
  const taskPick = el('select', { name: 'labHTask', id: `lab-heads-task-${Math.random().toString(36).slice(2, 8)}`,
    onchange: () => ctx.setState({ labHTask: taskPick.value }) },
  el('option', { value: 'pairs' }, 'two tokens back (the head count matters)'), el('option', { value: 'copy' }, 'copy (the lesson\'s exercise)'));
  const zoo = createHeadsZoo(ctx);
  const zooError = el('p', { className: 'error-text', role: 'alert', hidden: true });
  const zooBtn = el('button', { type: 'button', dataset: { act: 'zoo' }, onclick: async () => {
    zooBtn.disabled = true;
    zooError.hidden = true;
    try {
      const shown = await zoo.show();
      if (!root.isConnected || root.dataset.state === 'busy') return;  // a run in flight reports itself
      setViewState(root, 'ready', { ...root.result, zoo: shown });  // what was drawn, for tests and embedders
    } catch (e) {
      zooError.textContent = `The bundled models could not be shown: ${e.message}`;
      zooError.hidden = false;
    } finally {
      zooBtn.disabled = false;
    }
  } }, 'Show the bundled results (5 seeds) and the trained heads');
  const zooBox = el('div', 'lab-zoo-box', el('p', 'note', 'Trained natively with these settings when the page was built: '
    + 'the table for five seeds per head count, and the one-head and two-head models\' maps.'), zooBtn, zooError, zoo.element);
  root.replaceChildren(el('div', 'lab-row', el('label', { for: taskPick.id }, 'Task '), taskPick), what, zooBox, controls, chartBox, result);
  let taskId = '';
  function describe(id) {
    const task = HEADS_TASKS[id] ?? HEADS_TASKS.pairs;
    what.replaceChildren(TASK_WORDS[id]?.(task) ?? '', 'One attention layer, d', sub('model'), ` = ${D_MODEL}, so d`, sub('head'),
      ` = ${D_MODEL} / h. Batch ${task.batchSize}, AdamW with cosine decay over the run; each head count trains with ${SEEDS.length} seeds `
      + '(initialisation and data order), side by side, as many at once as this device has cores (up to 4). Each curve is the mean of a head count\'s seeds.');
    zooBox.hidden = id !== 'pairs';
  }
  const chart = createLineChart(chartBox, { yLabel: 'training loss (nats/token)', logY: true });  // each head count's mean over its seeds

  async function run(api) {
    const steps = api.values.labHSteps;
    const task = HEADS_TASKS[taskId] ?? HEADS_TASKS.pairs;
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
        ...task, seed: r.seed, totalSteps: steps, model: { ...HEADS_MODEL, nHeads: r.h },
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
    return { task: task.task, curves: seriesPoints(chart.data()), steps: runs.map((r) => r.done), trainingSeconds: secs,
      runs: runs.map((r) => ({ heads: r.h, seed: r.seed, steps: r.done, trainLoss: r.last?.loss ?? null, heldOut: r.result?.loss ?? null })) };
  }

  const runner = createLabRunner(controls, root, ctx, {
    id: 'lab-heads',
    startLabel: 'Start',
    fields: [{ name: 'labHSteps', ...STEPS, hint: 'per model', parse: (t) => parseIntegerField(t, STEPS) }],
    run,
  });

  return {
    update(s) {
      const id = HEADS_TASKS[s.labHTask] ? s.labHTask : 'pairs';
      if (id !== taskId) {
        taskId = id;
        taskPick.value = id;
        describe(id);
      }
      runner.update(s);
    },
    destroy() {
      runner.destroy();
      chart.destroy();
    },
  };
}
