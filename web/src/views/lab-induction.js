// lab-induction.js — experiment 4, "induction heads": a two-layer attention-only model on sequences
// with repeated random segments (A B … A → B). Live: training loss, held-out accuracy on the
// predictable positions, every head's four scores with a role once one is clear, and the heads'
// attention maps on an example sequence. Models can be exported and imported as .bin files.
import { alignCurves, createLineChart } from '../render/line-chart.js';
import { createLabRunner, parseIntegerField } from '../labs/runner.js';
import { createLegend, createMiniCanvas, drawMiniHeatmap } from './mini-heatmap.js';

const MODEL = { variant: 'mha', dModel: 64, nHeads: 4, nLayers: 2, mlp: false, layerNorm: true, rope: true };
const TASK = { task: 'induction', seqLen: 32, batchSize: 16 };
// Measured (wasm SIMD in Node, seed 0, 400 steps with cosine decay over 400): accuracy 0.50 at step
// 250, 0.99 at step 300; 400 steps in ~8 s. So 400 steps leave a margin and take well under a minute.
export const LAB_INDUCTION_DEFAULT_STEPS = 400;
const CHUNK = 10;       // ~512 tokens x 10 steps: ~150 ms in wasm
const EVAL_EVERY = 3;   // chunks between evaluations (accuracy, head scores, maps)
const TARGET = 0.95;
const CLEAR = 0.5;      // a head gets a role when one score exceeds this
const SCORES = [
  ['previousToken', 'previous token', 'previous-token head'],
  ['induction', 'induction', 'induction head'],
  ['firstToken', 'first token', 'sink (first-token) head'],
  ['diagonal', 'diagonal', 'self (diagonal) head'],
];

export const STEPS = { label: 'Steps', min: 1, max: 20000 };

/** A seeded example: n / 2 distinct random tokens, then the same tokens again (every second-half token is A B … A → B). */
export function exampleSequence(vocabSize, n = TASK.seqLen, seed = 7) {
  let s = seed >>> 0 || 1;
  const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const half = Math.floor(n / 2);
  // Distinct tokens in the first half when the vocabulary allows (no accidental earlier repeats).
  const pool = Array.from({ length: vocabSize }, (_, i) => i);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  const first = Array.from({ length: half }, (_, i) => (half <= vocabSize ? pool[i] : Math.floor(rnd() * vocabSize)));
  return [...first, ...first, ...Array.from({ length: n - 2 * half }, () => Math.floor(rnd() * vocabSize))];
}

export function roleOf(h) {
  let best = null;
  for (const [key, , role] of SCORES) if (h[key] > CLEAR && (!best || h[key] > h[best[0]])) best = [key, role];
  return best ? best[1] : '';
}

export function createLabInductionView(root, ctx) {
  root.classList.add('lab', 'lab-induction');
  const uid = Math.random().toString(36).slice(2, 8);
  root.innerHTML = `
    <p class="lab-what">Task: sequences of ${TASK.seqLen} tokens with a repeated random segment; on the repeat the
      next token is predictable (A B … A → B). Model: 2 layers × ${MODEL.nHeads} heads, attention only (no MLP),
      d<sub>model</sub> = ${MODEL.dModel}, RoPE, LayerNorm; batch ${TASK.batchSize}.</p>
    <div class="lab-controls"></div>
    <div class="lab-charts">
      <div class="lab-chart-loss" style="min-width:0"></div>
      <div class="lab-chart-acc" style="min-width:0"></div>
    </div>
    <p class="lab-milestone" role="status" aria-live="polite"></p>
    <div class="lab-heads-scores" hidden>
      <div class="lab-table-wrap scroll" tabindex="0" role="region" aria-label="Head scores"><table class="lab-table">
        <caption style="text-align:left;font-weight:600">Head scores (mean attention on the pattern's key; 1 = all of it)</caption>
        <thead><tr><th scope="col">layer</th><th scope="col">head</th>
          ${SCORES.map(([, label]) => `<th scope="col">${label}</th>`).join('')}<th scope="col">role (score &gt; ${CLEAR})</th></tr></thead>
        <tbody></tbody></table></div>
    </div>
    <div class="lab-maps" hidden>
      <p class="lab-maps-caption"></p>
      <div class="lab-map-grid"></div>
    </div>`;
  const $ = (s) => root.querySelector(s);
  const milestone = $('.lab-milestone');
  const lossChart = createLineChart($('.lab-chart-loss'), { yLabel: 'training loss (nats)', height: 220 });
  // Percent on a fixed 0–100 axis: a flat line near chance is not zoomed into a "collapse".
  const accChart = createLineChart($('.lab-chart-acc'), { yLabel: 'accuracy (%, A…A → B)', height: 220, yRange: [0, 100] });
  $('.lab-maps').prepend(createLegend('lab-legend'));
  $('.lab-charts').style.cssText = 'display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,22em),1fr));gap:.5em 1em';
  let vocabSize = 32;

  function drawScores(scores) {
    const tbody = $('.lab-heads-scores tbody');
    tbody.replaceChildren(...scores.map((h) => {
      const tr = document.createElement('tr');
      const role = roleOf(h);
      tr.dataset.role = role;
      const cells = [h.layer + 1, h.head + 1, ...SCORES.map(([k]) => h[k].toFixed(2)), role || '—'];
      cells.forEach((v, i) => {
        const td = document.createElement('td');
        td.textContent = String(v);
        if (i >= 2 && i < 2 + SCORES.length && h[SCORES[i - 2][0]] > CLEAR) td.className = 'lab-clear';
        tr.append(td);
      });
      return tr;
    }));
    $('.lab-heads-scores').hidden = false;
  }

  function drawMaps(att, tokens, scores) {
    const grid = $('.lab-map-grid');
    grid.style.cssText = `display:grid;grid-template-columns:repeat(${att.heads},minmax(0,1fr));gap:.5em;max-width:44em`;
    const cells = [];
    for (let l = 0; l < att.layers; l++) {
      for (let h = 0; h < att.heads; h++) {
        const fig = document.createElement('figure');
        fig.style.margin = '0';
        const canvas = createMiniCanvas('lab-map');
        canvas.dataset.layer = String(l);
        canvas.dataset.head = String(h);
        const role = roleOf(scores.find((s) => s.layer === l && s.head === h) || {});
        canvas.setAttribute('role', 'img');
        canvas.setAttribute('aria-label', `layer ${l + 1} head ${h + 1} attention${role ? `: ${role}` : ''}`);
        drawMiniHeatmap(canvas, att.weights, att.n, att.n, { offset: (l * att.heads + h) * att.n * att.n, masked: (i, j) => j > i });
        const cap = document.createElement('figcaption');
        cap.style.cssText = 'font-size:.8em;color:var(--muted)';
        cap.textContent = `L${l + 1} H${h + 1}${role ? ` · ${role}` : ''}`;
        fig.append(canvas, cap);
        cells.push(fig);
      }
    }
    grid.replaceChildren(...cells);
    $('.lab-maps-caption').textContent = `Attention of the trained heads (rows: queries, columns: keys; upper triangle masked) ` +
      `on an example: ${tokens.length / 2} random tokens, then the same ${tokens.length / 2} again: ` +
      `[${tokens.join(' ')}]. An induction head lights up the diagonal stripe one step right of the repeat's offset.`;
    $('.lab-maps').hidden = false;
  }

  /** Evaluation, head scores and maps of a model (api.check drops stale results). */
  async function inspect(api, key) {
    const e = await ctx.client.call('trainerEvaluate', key);
    const scores = await ctx.client.call('trainerHeadScores', key);
    const tokens = exampleSequence(vocabSize);
    const att = await ctx.client.call('trainerAttention', key, tokens);
    api.check();
    drawScores(scores);
    drawMaps(att, tokens, scores);
    return e;
  }

  const runner = createLabRunner($('.lab-controls'), root, ctx, {
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
      const e = await inspect(api, key);
      milestone.textContent = `Imported ${file.name}: trained ${loaded.steps} steps; held-out accuracy ${(e.accuracy * 100).toFixed(1)} %, loss ${e.loss.toFixed(3)}.`;
      runner.progress(`Loaded ${file.name}.`);
      return { accuracy: e.accuracy };
    },
    async run(api) {
      const steps = api.values.labISteps;
      milestone.textContent = '';
      api.progress('Creating the model…');
      const key = await api.createModel('induction model', { ...TASK, model: MODEL, seed: 0, totalSteps: steps });
      vocabSize = api.vocabOf(key) ?? vocabSize;
      const loss = [], acc = [];
      let reached = null, chunks = 0, done = 0;
      const t0 = performance.now();
      const evaluate = async () => {
        const e = await inspect(api, key);
        acc.push([done, e.accuracy * 100]);
        const a = alignCurves([{ label: 'accuracy (%)', points: acc }]);
        accChart.setData(a.labels, a.xs, a.ys);
        if (reached == null && e.accuracy >= TARGET) reached = done;
        milestone.textContent = `Held-out accuracy ${(e.accuracy * 100).toFixed(1)} % at step ${done}` +
          (reached != null ? `; first reached ${TARGET * 100} % at step ${reached} (evaluated every ${CHUNK * EVAL_EVERY} steps).`
            : `; not yet ${TARGET * 100} %.`);
      };
      while (done < steps && !api.isStopped()) {
        api.progress(`Step ${done} / ${steps}`, done);
        const r = await api.step(key, Math.min(CHUNK, steps - done));
        done = r.step;
        loss.push([done, r.loss]);
        const l = alignCurves([{ label: 'training loss', points: loss }]);
        lossChart.setData(l.labels, l.xs, l.ys);
        if (++chunks % EVAL_EVERY === 0 && done < steps) await evaluate();
      }
      if (done > 0 && !(acc.length && acc[acc.length - 1][0] === done)) await evaluate();
      const secs = (performance.now() - t0) / 1000;
      api.progress(`${api.isStopped() ? 'Stopped' : 'Done'} at step ${done} / ${steps} in ${secs.toFixed(1)} s ` +
        `(${Math.round((done * TASK.seqLen * TASK.batchSize) / secs)} tokens/s).`);
      return { step: done, points: loss.length, reached, accuracy: acc.length ? acc[acc.length - 1][1] / 100 : null };
    },
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
