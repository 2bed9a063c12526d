// lab-heads.js — experiment 1, "heads sweep": one-layer models at dModel 64 with 1, 2, 4, 8 and 16
// heads, trained on the copy task interleaved chunk by chunk (all curves grow together), then
// evaluated; the summary sentence is computed from the measured final losses.
import { alignCurves, createLineChart } from '../render/line-chart.js';
import { createLabRunner, parseIntegerField, tooFewSteps } from '../labs/runner.js';

const HEADS = [1, 2, 4, 8, 16];
const D_MODEL = 64;
// Copy task made harder than its default (seqLen 32, vocab 16 converges in ~50 steps for every head
// count): 64 tokens from a vocabulary of 64. Measured in Node (wasm SIMD), 300 steps: loss at step 100
// 0.03 / 0.07 / 0.26 / 1.94 / 3.73 for 1 / 2 / 4 / 8 / 16 heads.
const TASK = { seqLen: 64, vocabSize: 64, batchSize: 16 };
export const LAB_HEADS_DEFAULT_STEPS = 200;
const CHUNK = 5; // 5 steps x 1024 tokens: ~200 ms (h = 1) to ~300 ms (h = 16) in wasm SIMD
// Two final losses count as the same ("plateau") when they differ by at most this much.
const REL = 0.1, ABS = 0.02;
const FAST = 0.1; // "steps to reach loss < 0.1"

const fmt = (v, d = 3) => (v == null || !Number.isFinite(v) ? '—' : v.toFixed(d));
export const STEPS = { label: 'Steps per model', min: 1, max: 20000 };

/** Steps per model below which the sweep states no verdict (losses settle by ~150-200 steps, see above). */
export const ENOUGH_STEPS = 200;

/**
 * Verdict between consecutive head counts from their final losses (lower is better); after fewer
 * than ENOUGH_STEPS steps, only the numbers.
 */
export function summarise(heads, losses, steps = ENOUGH_STEPS) {
  const few = tooFewSteps(steps, ENOUGH_STEPS, 'a verdict on whether more heads help');
  if (few) {
    return { verdicts: [], sentence: `${few}final training losses ${losses.map((l) => fmt(l)).join(', ')} (h = ${heads.join(', ')}).` };
  }
  const verdicts = [];
  for (let i = 0; i + 1 < heads.length; i++) {
    const a = losses[i], b = losses[i + 1];
    const same = Math.abs(a - b) <= Math.max(ABS, REL * Math.max(a, b));
    verdicts.push(same ? 'plateau' : b < a ? 'help' : 'hurt');
  }
  const words = { help: 'more heads help', plateau: 'more heads make no difference', hurt: 'more heads hurt' };
  const runs = [];
  verdicts.forEach((v, i) => {
    const last = runs[runs.length - 1];
    if (last && last.v === v) last.to = heads[i + 1];
    else runs.push({ v, from: heads[i], to: heads[i + 1] });
  });
  const parts = runs.map((r) => `${words[r.v]} from ${r.from} to ${r.to} heads`);
  const best = heads[losses.indexOf(Math.min(...losses))];
  const sentence = `${parts.join('; ')}. Final training losses ${losses.map((l) => fmt(l)).join(', ')} ` +
    `(h = ${heads.join(', ')}); lowest at ${best} head${best > 1 ? 's' : ''}. ` +
    `(Same = within ${ABS} nats or ${REL * 100} %.)`;
  return { verdicts, sentence: sentence.charAt(0).toUpperCase() + sentence.slice(1) };
}

export function createLabHeadsView(root, ctx) {
  root.classList.add('lab', 'lab-heads');
  root.innerHTML = `
    <p class="lab-what">Task: copy a random sequence of ${TASK.seqLen} tokens (vocabulary ${TASK.vocabSize});
      one attention layer, d<sub>model</sub> = ${D_MODEL}, so d<sub>head</sub> = 64 / h.
      Batch ${TASK.batchSize}, AdamW with cosine decay over the run.</p>
    <div class="lab-controls"></div>
    <div class="lab-chart-slot"></div>
    <div class="lab-result" hidden>
      <div class="lab-table-wrap scroll" tabindex="0" role="region" aria-label="Measured after training"><table class="lab-table">
        <caption style="text-align:left;font-weight:600">Measured after training</caption>
        <thead><tr><th scope="col">heads</th><th scope="col">d<sub>head</sub></th><th scope="col">steps</th>
          <th scope="col">final train loss</th><th scope="col">steps to loss &lt; ${FAST}</th>
          <th scope="col">held-out loss</th><th scope="col">accuracy</th></tr></thead>
        <tbody></tbody></table></div>
      <p class="lab-summary"></p>
    </div>`;
  const $ = (s) => root.querySelector(s);
  const chart = createLineChart($('.lab-chart-slot'), { yLabel: 'training loss (nats/token)', logY: true });

  const runner = createLabRunner($('.lab-controls'), root, ctx, {
    id: 'lab-heads',
    startLabel: 'Start',
    fields: [{ name: 'labHSteps', ...STEPS, hint: `copy task, ${TASK.seqLen} tokens`, parse: (t) => parseIntegerField(t, STEPS) }],
    async run(api) {
      const steps = api.values.labHSteps;
      $('.lab-result').hidden = true;
      const runs = HEADS.map((h) => ({ h, key: null, points: [], last: null, done: 0 }));
      const redraw = () => {
        const { xs, ys, labels } = alignCurves(runs.map((r) => ({ label: `h=${r.h}`, points: r.points })));
        chart.setData(labels, xs, ys);
        return xs.length;
      };
      api.progress('Creating models…');
      for (const r of runs) {
        r.key = await api.createModel(`${r.h} head${r.h > 1 ? 's' : ''}`, {
          task: 'copy', ...TASK, seed: 0, totalSteps: steps,
          model: { variant: 'mha', dModel: D_MODEL, nHeads: r.h, nLayers: 1, layerNorm: true },
        });
      }
      const t0 = performance.now();
      let points = 0;
      // Interleaved: one chunk of each model in turn, so all curves grow together.
      while (runs.some((r) => r.done < steps) && !api.isStopped()) {
        for (const r of runs) {
          if (r.done >= steps || api.isStopped()) continue;
          api.progress(`h=${r.h}: step ${r.done} / ${steps}`, r.done);
          r.last = await api.step(r.key, Math.min(CHUNK, steps - r.done));
          r.done = r.last.step;
          r.points.push([r.done, r.last.loss]);
        }
        points = redraw();
      }
      const stopped = api.isStopped();
      const secs = (performance.now() - t0) / 1000;
      api.progress(`${stopped ? 'Stopped' : 'Done'}: ${runs.map((r) => r.done).join(' / ')} steps in ${secs.toFixed(1)} s; evaluating…`);
      const evals = [];
      for (const r of runs) evals.push(r.done > 0 ? await api.evaluate(r.key) : null);
      const tbody = $('.lab-table tbody');
      tbody.replaceChildren(...runs.map((r, i) => {
        const tr = document.createElement('tr');
        const fast = r.points.find((p) => p[1] < FAST);
        const e = evals[i];
        for (const v of [r.h, D_MODEL / r.h, r.done, fmt(r.last?.loss), fast ? fast[0] : `> ${r.done}`,
          fmt(e?.loss), e ? `${(e.accuracy * 100).toFixed(1)} %` : '—']) {
          const td = document.createElement('td');
          td.textContent = String(v);
          tr.append(td);
        }
        return tr;
      }));
      const trained = runs.filter((r) => r.last);
      const summary = trained.length >= 2
        ? summarise(trained.map((r) => r.h), trained.map((r) => r.last.loss), Math.min(...trained.map((r) => r.done)))
        : { sentence: 'Train at least two models to compare.', verdicts: [] };
      const speed = trained.filter((r) => r.points.some((p) => p[1] < FAST))
        .map((r) => `h=${r.h} at step ${r.points.find((p) => p[1] < FAST)[0]}`);
      $('.lab-summary').textContent = summary.sentence +
        (speed.length ? ` Loss first below ${FAST}: ${speed.join(', ')} (chunks of ${CHUNK} steps).` : '') +
        (stopped ? ' (Stopped early: the runs are not finished.)' : '');
      $('.lab-result').hidden = false;
      api.progress(`${stopped ? 'Stopped' : 'Done'}: ${runs.map((r) => r.done).join(' / ')} steps in ${secs.toFixed(1)} s.`);
      return { points, steps: runs.map((r) => r.done), trainingSeconds: secs };
    },
  });

  return {
    update(s) { runner.update(s); },
    destroy() {
      runner.destroy();
      chart.destroy();
    },
  };
}
