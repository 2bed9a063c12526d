// lab-induction.js — Lab 4, "induction heads": a two-layer attention-only model on sequences with
// repeated random segments (A B … A → B). Live: training loss, held-out accuracy on the predictable
// positions (the core evaluates every EVAL_EVERY steps), every head's four scores with a role once one
// is clear, and the heads' attention maps on an example sequence (labs/induction-maps.js). Models can
// be exported and imported as .safetensors files.
import labsCss from '../styles/labs.css?inline';
import { el, useStyles } from '../kit.js';
import { parseIntegerField } from '../labs/fields.js';
import { createInductionMaps } from '../labs/induction-maps.js';
import { createLabRunner } from '../labs/runner.js';
import { createLabTable } from '../labs/table.js';
import { INDUCTION_TASK as TASK, exampleSequence } from '../labs/tasks.js';
import { CLEAR, SCORES, roleOf } from '../labs/verdicts.js';
import { alignCurves, createLineChart, seriesPoints } from '../render/line-chart.js';

const MODEL = { variant: 'mha', dModel: 64, nHeads: 4, nLayers: 2, mlp: false, layerNorm: true, rope: true };
// Measured (wasm SIMD in Node, seed 0, 400 steps with cosine decay over 400): accuracy 0.50 at step
// 250, 0.99 at step 300; 400 steps in ~8 s. So 400 steps leave a margin and take well under a minute.
const EVAL_EVERY = 30;  // steps between evaluations (accuracy, head scores, maps)
const TARGET = 0.95;
export const STEPS = { label: 'Steps', min: 1, max: 20000 };

export function createLabInductionView(root, ctx) {
  useStyles(root, 'labs', labsCss);
  root.classList.add('lab', 'lab-induction');
  const controls = el('div', 'lab-controls');
  const lossBox = el('div', 'lab-chart-loss'), accBox = el('div', 'lab-chart-acc');
  const milestone = el('p', { className: 'lab-milestone', role: 'status', 'aria-live': 'polite' });
  const scores = createLabTable({ label: 'Head scores', caption: 'Head scores (mean attention on the pattern\'s key; 1 = all of it)',
    columns: ['layer', 'head', ...SCORES.map(([, label]) => label), `role (score > ${CLEAR})`] });
  const scoresBox = el('div', { className: 'lab-heads-scores', hidden: true }, scores.element);
  const maps = createInductionMaps();
  root.replaceChildren(el('p', 'lab-what', `Task: sequences of ${TASK.seqLen} tokens with a repeated random segment; on the repeat `
    + `the next token is predictable (A B … A → B). Model: 2 layers × ${MODEL.nHeads} heads, attention only (no MLP), d`,
  el('sub', null, 'model'), ` = ${MODEL.dModel}, RoPE, LayerNorm; batch ${TASK.batchSize}.`),
  controls, el('div', 'lab-charts', lossBox, accBox), milestone, scoresBox, maps.element);
  const lossChart = createLineChart(lossBox, { yLabel: 'training loss (nats)', height: 220 });
  // Percent on a fixed 0–100 axis: a flat line near chance is not zoomed into a "collapse".
  const accChart = createLineChart(accBox, { yLabel: 'accuracy (%, A…A → B)', height: 220, yRange: [0, 100] });
  let vocabSize = 32, drawn = 0;

  /** Head scores and maps of a model now (api.check drops a stale run's, `drawn` an older request's). */
  async function inspect(api, key) {
    const my = ++drawn, tokens = exampleSequence(vocabSize);
    const [s, att] = await Promise.all([ctx.client.call('trainerHeadScores', key), ctx.client.call('trainerAttention', key, tokens)]);
    api.check();
    if (my !== drawn) return;
    scores.setRows(s.map((h) => ({ dataset: { role: roleOf(h) }, cells: [h.layer + 1, h.head + 1,
      ...SCORES.map(([k]) => ({ text: h[k].toFixed(2), className: h[k] > CLEAR ? 'lab-clear' : null })), roleOf(h) || '—'] })));
    scoresBox.hidden = false;
    maps.update(att, tokens, s);
  }

  async function run(api) {
    const steps = api.values.labISteps;
    milestone.textContent = '';
    api.progress('Creating the model…');
    const key = await api.createModel('induction model', { ...TASK, model: MODEL, seed: 0, totalSteps: steps });
    vocabSize = api.vocabOf(key) ?? vocabSize;
    const loss = [], acc = [];
    let reached = null;
    const evaluated = (e, step) => {
      acc.push([step, e.accuracy * 100]);
      const a = alignCurves([{ label: 'accuracy (%)', points: acc }]);
      accChart.setData(a.labels, a.xs, a.ys);
      if (reached == null && e.accuracy >= TARGET) reached = step;
      milestone.textContent = `Held-out accuracy ${(e.accuracy * 100).toFixed(1)} % at step ${step}` + (reached != null
        ? `; first reached ${TARGET * 100} % at step ${reached} (evaluated every ${EVAL_EVERY} steps).` : `; not yet ${TARGET * 100} %.`);
      inspect(api, key).catch(() => {});  // answered between the core's chunks; a stale one is dropped
    };
    api.progress(`Step 0 / ${steps}`, 0);
    const res = await api.train(key, { steps, evalEvery: EVAL_EVERY, onProgress: (p) => {
      api.progress(`Step ${p.step} / ${steps}`, p.step);
      loss.push([p.step, p.loss]);
      const l = alignCurves([{ label: 'training loss', points: loss }]);
      lossChart.setData(l.labels, l.xs, l.ys);
      if (p.evaluation) evaluated(p.evaluation, p.step);
    } });
    if (res.step > 0 && acc.at(-1)?.[0] !== res.step) evaluated(await api.evaluate(key), res.step);
    if (res.step > 0) await inspect(api, key);
    const secs = api.seconds();
    api.progress(`${res.stopped ? 'Stopped' : 'Done'} at step ${res.step} / ${steps} in ${secs.toFixed(1)} s ` +
      `(${Math.round((res.step * TASK.seqLen * TASK.batchSize) / secs)} tokens/s).`);
    return { step: res.step, reached, accuracy: acc.length ? acc.at(-1)[1] / 100 : null,
      curves: [...seriesPoints(lossChart.data()), ...seriesPoints(accChart.data())] };
  }

  const runner = createLabRunner(controls, root, ctx, {
    id: 'lab-induction',
    startLabel: 'Start',
    idleText: (st) => `Not trained yet: press Start (${st.labISteps} steps, about ${Math.max(1, Math.round(st.labISteps * 0.02))} s).`,
    fields: [{ name: 'labISteps', ...STEPS, hint: `${TASK.seqLen} tokens, batch ${TASK.batchSize}`, parse: (t) => parseIntegerField(t, STEPS) }],
    inspectTokens: (vocab) => {
      const tokens = exampleSequence(vocab);
      return { tokens, labels: tokens.map(String), title: `the induction lab's model (${tokens.length / 2} tokens, then the same again)` };
    },
    async onImport(api, { key, loaded, file }) {
      vocabSize = loaded.vocabSize;
      const e = await api.evaluate(key);
      await inspect(api, key);
      milestone.textContent = `Imported ${file.name}: trained ${loaded.steps} steps; held-out accuracy ${(e.accuracy * 100).toFixed(1)} %, loss ${e.loss.toFixed(3)}.`;
      runner.progress(`Loaded ${file.name}.`);
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
