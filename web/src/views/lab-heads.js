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
import { SEEDS, difference, lateDrop, meanCurve, meanSd, spreadFormat } from '../labs/spread.js';
import { createLabTable, twoLines } from '../labs/table.js';
import { HEADS_MODEL, HEADS_SWEEP as HEADS, HEADS_TASKS } from '../labs/tasks.js';
import { PAIRS_EXAMPLE, createHeadsZoo } from '../labs/heads-zoo.js';
import { summariseHeads } from '../labs/verdicts.js';
import { alignCurves, createLineChart, seriesPoints } from '../render/line-chart.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks: the labs' shared ones
import '../i18n/catalogs/en/lab-heads.js';  // and Lab 1's

const D_MODEL = HEADS_MODEL.dModel;
const FAST = 0.1; // "steps to reach loss < 0.1"
const STEPS = { min: 1, max: 20000 };
/** The first chunk end at which a run's training loss is below FAST, or null. */
const below = (r) => r.points.find((p) => p[1] < FAST)?.[0] ?? null;

/** Each head count's mean training loss over its seeds, at the chunk ends every seed has reached. */
function meanCurves(runs) {
  return HEADS.map((h) => ({ label: `h=${h}`, points: meanCurve(runs.filter((r) => r.h === h).map((r) => r.points)) }));
}

export function createLabHeadsView(root, ctx) {
  useStyles(root, 'labs', labsCss);
  root.classList.add('lab', 'lab-heads');
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const { plusMinus, signedDiff } = spreadFormat(fmt);
  const steps = { ...STEPS, label: t('labHeads.steps') };
  const controls = el('div', 'lab-controls');
  const chartBox = el('div', 'lab-chart-slot');
  const table = createLabTable({ label: t('labHeads.measured'), caption: t('labHeads.caption', { count: SEEDS.length }), i18n,
    columns: [t('labHeads.col.heads'), 'd_head', t('labHeads.col.steps'), twoLines(t('labHeads.col.train'), t('labHeads.col.trainNote')),
      twoLines(t('labHeads.col.fast', { fast: FAST }), t('labHeads.col.fastNote')),
      twoLines(t('labHeads.col.loss'), t('labHeads.col.lossNote', { count: SEEDS.length })),
      twoLines(t('labHeads.col.diff'), t('labHeads.col.diffNote')), t('labHeads.col.accuracy')],
    save: { name: () => `lab-heads-${taskId}-results`, meta: () => ({ lab: 'lab-heads', task: taskId, seeds: SEEDS, summary: summary.textContent }) } });
  const summary = el('p', 'lab-summary');
  const result = el('div', { className: 'lab-result', hidden: true }, table.element, summary);
  const what = el('p', 'lab-what');
  const taskPick = el('select', { name: 'labHTask', id: `lab-heads-task-${Math.random().toString(36).slice(2, 8)}`,
    onchange: () => ctx.setState({ labHTask: taskPick.value }) },
  ...Object.keys(HEADS_TASKS).map((id) => el('option', { value: id }, t(`labHeads.task.${id}`))));
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
      zooError.replaceChildren(t('labHeads.zoo.failed'), ' ', el('span', { lang: 'en', dataset: { text: 'core' } }, e.message));
      zooError.hidden = false;
    } finally {
      zooBtn.disabled = false;
    }
  } }, t('labHeads.zoo.show'));
  const zooBox = el('div', 'lab-zoo-box', el('p', 'note', t('labHeads.zoo.note')), zooBtn, zooError, zoo.element);
  root.replaceChildren(el('div', 'lab-row', el('label', { for: taskPick.id }, t('labHeads.task'), ' '), taskPick), what, zooBox, controls, chartBox, result);
  let taskId = '';
  function describe(id) {
    const task = HEADS_TASKS[id];
    const words = id === 'pairs' ? t('labHeads.what.pairs', { n: task.seqLen, a: task.vocabSize, pairs: task.vocabSize ** 2 })
      : t('labHeads.what.copy', { n: task.seqLen / 2, v: task.vocabSize });
    what.textContent = `${words} ${t('labHeads.model', { dModel: D_MODEL, count: SEEDS.length, batch: task.batchSize })}`;
    zooBox.hidden = id !== 'pairs';
  }
  const chart = createLineChart(chartBox, { yLabel: t('labHeads.chartY'), xLabel: t('labs.chartStep'), logY: true });  // each head count's mean over its seeds

  async function run(api) {
    const stepsRun = api.values.labHSteps;
    const task = HEADS_TASKS[taskId];
    const evalEvery = Math.max(1, Math.round(stepsRun / 5));
    result.hidden = true;
    const runs = HEADS.flatMap((h) => SEEDS.map((seed) => ({ h, seed, key: null, points: [], val: [], last: null, done: 0, result: null })));
    const redraw = () => {
      const { xs, ys, labels } = alignCurves(meanCurves(runs));
      chart.setData(labels, xs, ys);
    };
    await api.each(runs, async (r, i) => {
      const name = t('labHeads.runName', { h: r.h, seed: r.seed });
      api.progressOf(i, t('labHeads.creating', { name }));
      r.key = await api.createModel(t('labHeads.modelName', { count: r.h, seed: r.seed }), {
        ...task, seed: r.seed, totalSteps: stepsRun, model: { ...HEADS_MODEL, nHeads: r.h },
      }, `${r.h}-heads-seed-${r.seed}`);
      api.progressOf(i, t('labs.stepOf', { name, step: 0, steps: stepsRun }), 0);
      await api.train(r.key, { steps: stepsRun, evalEvery, onProgress: (p) => {
        Object.assign(r, { last: p, done: p.step });
        r.points.push([p.step, p.loss]);
        if (p.evaluation) r.val.push([p.step, p.evaluation.loss]);
        api.progressOf(i, t('labs.stepOf', { name, step: p.step, steps: stepsRun }), p.step);
        redraw();
      } });
    });
    const stopped = api.isStopped();
    const secs = api.seconds();
    const done = t(stopped ? 'labHeads.stopped' : 'labHeads.done', { done: runs.filter((r) => r.done === stepsRun).length, total: runs.length,
      heads: HEADS.length, seeds: SEEDS.length, count: stepsRun, secs: fmt.fixed(secs, 1) });
    api.progress(t('labHeads.evaluating', { progress: done }));
    for (const r of runs) {
      if (r.done === 0) continue;
      r.result = await api.evaluate(r.key);
      if (r.val.at(-1)?.[0] !== r.done) r.val.push([r.done, r.result.loss]);
    }
    const byHeads = HEADS.map((h) => runs.filter((r) => r.h === h && r.result));
    const trained = HEADS.map((h, k) => ({ h, seeds: byHeads[k] })).filter((g) => g.seeds.length);
    const curves = meanCurves(runs);
    const last = (k) => curves[k].points.at(-1)?.[1];
    table.setRows(trained.map((g) => {
      const k = HEADS.indexOf(g.h), prev = k > 0 ? byHeads[k - 1] : [];
      const losses = g.seeds.map((r) => r.result.loss);
      return [{ header: true, text: g.h }, D_MODEL / g.h, Math.min(...g.seeds.map((r) => r.done)), Number.isFinite(last(k)) ? fmt.fixed(last(k), 3) : '—',
        g.seeds.map((r) => (below(r) != null ? fmt.int(below(r)) : `> ${fmt.int(r.done)}`)).join(' / '), plusMinus(meanSd(losses)),
        prev.length ? signedDiff(difference(prev.map((r) => r.result.loss), losses)) : '—',
        `${fmt.fixed(meanSd(g.seeds.map((r) => r.result.accuracy)).mean * 100, 1)} %`];
    }));
    const verdict = trained.length >= 2
      ? summariseHeads(trained.map((g) => g.h), trained.map((g) => g.seeds.map((r) => r.result.loss)),
        Math.min(...runs.filter((r) => r.result).map((r) => r.done)), lateDrop(runs.filter((r) => r.result).map((r) => r.val)), i18n)
      : { sentence: t('labHeads.twoCounts'), verdicts: [] };
    const withPoints = runs.filter((r) => r.points.length);
    const every = withPoints.length ? Math.round(withPoints.reduce((n, r) => n + r.done / r.points.length, 0) / withPoints.length) : 0;
    summary.textContent = [verdict.sentence, every ? t('labHeads.every', { fast: FAST, every }) : '', stopped ? t('labHeads.stoppedEarly') : '']
      .filter(Boolean).join(' ');
    result.hidden = false;
    api.progress(done);
    return { task: task.task, curves: seriesPoints(chart.data()), steps: runs.map((r) => r.done), trainingSeconds: secs,
      runs: runs.map((r) => ({ heads: r.h, seed: r.seed, steps: r.done, trainLoss: r.last?.loss ?? null, heldOut: r.result?.loss ?? null })) };
  }

  const runner = createLabRunner(controls, root, ctx, {
    id: 'lab-heads',
    startLabel: t('labHeads.start'),
    idleText: (st) => t('labHeads.idle', { start: t('labHeads.start'), heads: HEADS.length, seeds: SEEDS.length,
      count: parseIntegerField(st.labHSteps, steps, i18n).value ?? 300 }),
    fields: [{ name: 'labHSteps', ...steps, hint: t('labHeads.stepsHint'), parse: (text) => parseIntegerField(text, steps, i18n) }],
    // a pairs model reads only the first A of its A² tokens: its maps' example (the default's ids would be untrained inputs)
    inspectTokens: (vocab, spec) => (spec?.task === 'pairs'
      ? { tokens: PAIRS_EXAMPLE, labels: PAIRS_EXAMPLE.map(String), title: t('labHeads.pairsExample', { count: PAIRS_EXAMPLE.length }) } : null),
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
