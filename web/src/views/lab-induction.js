// lab-induction.js — Lab 4, "induction heads": a two-layer attention-only model on sequences with
// repeated random segments (A B … A → B). Live: training loss, held-out accuracy on the predictable
// positions (the core evaluates every EVAL_EVERY steps), every head's four scores with a role once one
// is clear, and the heads' attention maps on an example sequence (labs/induction-maps.js). Models can
// be exported and imported as .safetensors files. The bundled model (web/zoo/, trained natively with
// these settings) is drawn the same way on a click.
import labsCss from '../styles/labs.css?inline';
import { el, setViewState, useStyles } from '../kit.js';
import { parseIntegerField } from '../labs/fields.js';
import { createInductionMaps } from '../labs/induction-maps.js';
import { trainerKey } from '../labs/keys.js';
import { createLabRunner } from '../labs/runner.js';
import { createLabTable } from '../labs/table.js';
import { INDUCTION_MODEL as MODEL, INDUCTION_TASK as TASK, exampleSequence } from '../labs/tasks.js';
import { CLEAR, SCORES, roleKey, roleOf } from '../labs/verdicts.js';
import { uniformWeight } from '../labs/role-baseline.js';
import { alignCurves, createLineChart, seriesPoints } from '../render/line-chart.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks: the labs' shared ones
import '../i18n/catalogs/en/lab-induction.js';  // and Lab 4's

// Measured (wasm SIMD in Node, seed 0, 600 steps with cosine decay over 600, evaluating every 30):
// accuracy 0.95 reached at step 390, 0.998 at 600; 600 steps in ~15 s (labs/tasks.js).
const SECONDS_PER_STEP = 0.025;
const EVAL_EVERY = 30;  // steps between evaluations (accuracy, head scores, maps)
const TARGET = 0.95;
const STEPS = { min: 1, max: 20000 };

export function createLabInductionView(root, ctx) {
  useStyles(root, 'labs', labsCss);
  root.classList.add('lab', 'lab-induction');
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const steps = { ...STEPS, label: t('labInd.steps') };
  const controls = el('div', 'lab-controls');
  const lossBox = el('div', 'lab-chart-loss'), accBox = el('div', 'lab-chart-acc');
  const milestone = el('p', { className: 'lab-milestone', role: 'status', 'aria-live': 'polite' });
  const scores = createLabTable({ label: t('labInd.scores'), i18n,
    caption: t('labInd.scoresCaption', { uniform: fmt.fixed(uniformWeight(1, TASK.seqLen), 2), n: TASK.seqLen, clear: fmt.fixed(CLEAR, 1) }),
    columns: [t('labInd.col.layer'), t('labInd.col.head'), ...SCORES.map(([, label]) => t(label)), t('labInd.col.role', { clear: CLEAR })],
    save: { name: () => 'lab-induction-head-scores', meta: () => ({ lab: 'lab-induction', summary: milestone.textContent }) } });
  const scoresBox = el('div', { className: 'lab-heads-scores', hidden: true }, scores.element);
  const maps = createInductionMaps(i18n);
  const zooError = el('p', { className: 'error-text', role: 'alert', hidden: true });
  const zooBtn = el('button', { type: 'button', dataset: { act: 'zoo' }, onclick: () => showBundled() }, t('labInd.zoo.show'));
  root.replaceChildren(el('p', 'lab-what', t('labInd.what', { seqLen: TASK.seqLen, layers: MODEL.nLayers, heads: MODEL.nHeads,
    dModel: MODEL.dModel, batch: TASK.batchSize }), ctx.canOpenModel?.() ? ` ${t('labInd.openNote')}` : ''),
  el('div', 'lab-zoo-box', el('p', 'note', t('labInd.zoo.note')), zooBtn, zooError), controls, el('div', 'lab-charts', lossBox, accBox), milestone, scoresBox, maps.element);
  const lossChart = createLineChart(lossBox, { yLabel: t('labInd.lossAxis'), xLabel: t('labs.chartStep'), height: 220 });
  // Percent on a fixed 0–100 axis: a flat line near chance is not zoomed into a "collapse".
  const accChart = createLineChart(accBox, { yLabel: t('labInd.accuracyAxis'), xLabel: t('labs.chartStep'), height: 220, yRange: [0, 100] });
  let vocabSize = 32, drawn = 0;

  /** Head scores and maps of a model now (api.check drops a stale run's, `drawn` an older request's). */
  async function inspect(api, key) {
    const my = ++drawn, tokens = exampleSequence(vocabSize);
    const [s, att] = await Promise.all([ctx.client.call('trainerHeadScores', key), ctx.client.call('trainerAttention', key, tokens)]);
    api.check();
    if (my !== drawn) return;
    scores.setRows(s.map((h) => ({ dataset: { role: roleKey(h) }, cells: [h.layer, h.head,
      ...SCORES.map(([k]) => ({ text: fmt.fixed(h[k], 2), className: h[k] > CLEAR ? 'lab-clear' : null })), roleOf(h, i18n) || '—'] })));
    scoresBox.hidden = false;
    maps.update(att, tokens, s);
  }

  async function run(api) {
    const steps = api.values.labISteps;
    milestone.textContent = '';
    api.progress(t('labInd.creating'));
    const key = await api.createModel(t('labInd.model'), { ...TASK, model: MODEL, seed: 0, totalSteps: steps }, 'induction-model');
    vocabSize = api.vocabOf(key) ?? vocabSize;
    const loss = [], acc = [];
    let reached = null;
    const evaluated = (e, step) => {
      acc.push([step, e.accuracy * 100]);
      const a = alignCurves([{ label: t('labInd.accuracySeries'), points: acc }]);
      accChart.setData(a.labels, a.xs, a.ys);
      if (reached == null && e.accuracy >= TARGET) reached = step;
      const words = { accuracy: fmt.fixed(e.accuracy * 100, 1), step, target: TARGET * 100, reached, every: EVAL_EVERY };
      milestone.textContent = t(reached != null ? 'labInd.reached' : 'labInd.notYet', words);
      inspect(api, key).catch(() => {});  // answered between the core's chunks; a stale one is dropped
    };
    api.progress(t('labInd.step', { step: 0, steps }), 0);
    const res = await api.train(key, { steps, evalEvery: EVAL_EVERY, onProgress: (p) => {
      api.progress(t('labInd.step', { step: p.step, steps }), p.step);
      loss.push([p.step, p.loss]);
      const l = alignCurves([{ label: t('labInd.lossSeries'), points: loss }]);
      lossChart.setData(l.labels, l.xs, l.ys);
      if (p.evaluation) evaluated(p.evaluation, p.step);
    } });
    if (res.step > 0 && acc.at(-1)?.[0] !== res.step) evaluated(await api.evaluate(key), res.step);
    if (res.step > 0) await inspect(api, key);
    const secs = api.seconds();
    api.progress(t(res.stopped ? 'labInd.stopped' : 'labInd.done', { step: res.step, steps, secs: fmt.fixed(secs, 1),
      rate: Math.round((res.step * TASK.seqLen * TASK.batchSize) / secs) }));
    return { step: res.step, reached, accuracy: acc.length ? acc.at(-1)[1] / 100 : null,
      curves: [...seriesPoints(lossChart.data()), ...seriesPoints(accChart.data())] };
  }

  /** The bundled model: its held-out figures from the manifest, its scores and maps from the core. */
  async function showBundled() {
    zooBtn.disabled = true;
    zooError.hidden = true;
    try {
      const files = await import('attn-zoo-files');
      const lab = (await files.zooManifest()).labs?.['lab-induction'];
      const model = lab?.models[0];
      if (!model) throw new Error('the bundled models carry no Lab 4 model');
      const key = trainerKey('zoo-induction');
      const loaded = await ctx.client.call('trainerLoad', key, await files.zooBytes(model.file));
      vocabSize = loaded.vocabSize;
      // listed with the trained models: Export, Inspect and Open in the model view take it too
      runner.list(t('labInd.zoo.listed', { seed: model.shippedSeed }), key, loaded.vocabSize, 'bundled', loaded.checkpointType);
      await inspect({ check() {} }, key);
      const acc = lab.runs.map((r) => r.accuracy * 100);
      milestone.textContent = t('labInd.zoo.shown', { seed: model.shippedSeed, steps: lab.steps, accuracy: fmt.fixed(model.accuracy * 100, 1),
        loss: fmt.fixed(model.loss, 3), count: acc.length, lo: fmt.fixed(Math.min(...acc), 1), hi: fmt.fixed(Math.max(...acc), 1) });
      if (root.isConnected && root.dataset.state !== 'busy') {
        setViewState(root, 'ready', { ...root.result, zoo: { accuracy: model.accuracy, roles: scores.tbody.querySelectorAll('tr[data-role="induction"]').length } });
      }
    } catch (e) {
      zooError.replaceChildren(t('labInd.zoo.failed'), ' ', el('span', { lang: 'en', dataset: { text: 'core' } }, e.message));
      zooError.hidden = false;
    } finally {
      zooBtn.disabled = false;
    }
  }

  const runner = createLabRunner(controls, root, ctx, {
    id: 'lab-induction',
    startLabel: t('labInd.start'),
    idleText: (st) => t('labInd.idle', { start: t('labInd.start'), count: st.labISteps, secs: Math.max(1, Math.round(st.labISteps * SECONDS_PER_STEP)) }),
    fields: [{ name: 'labISteps', ...steps, hint: t('labInd.stepsHint', { seqLen: TASK.seqLen, batch: TASK.batchSize }),
      parse: (text) => parseIntegerField(text, steps, i18n) }],
    inspectTokens: (vocab) => {
      const tokens = exampleSequence(vocab);
      return { tokens, labels: tokens.map(String), title: t('labInd.example', { half: tokens.length / 2 }) };
    },
    async onImport(api, { key, loaded, file }) {
      vocabSize = loaded.vocabSize;
      const e = await api.evaluate(key);
      await inspect(api, key);
      milestone.textContent = t('labInd.imported', { file: file.name, count: loaded.steps, accuracy: fmt.fixed(e.accuracy * 100, 1),
        loss: fmt.fixed(e.loss, 3) });
      runner.progress(t('labInd.loaded', { file: file.name }));
      return { accuracy: e.accuracy };
    },
    run,
  });

  return {
    update(s) { runner.update(s); },
    destroy() {
      runner.destroy();
      lossChart.destroy();
      accChart.destroy();
    },
  };
}
