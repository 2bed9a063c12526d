// lab-mqa.js — lab experiment 2 (lesson exercise "medium"): MHA, GQA (2 K/V heads) and MQA at the same
// dModel (64) and 8 heads. Immediately: attention weights (core: paramCount) and KV cache per token and
// at N = 2048 (core: kvCacheBytes, fp32). On "Train all three": the same copy task for each, the loss
// curves live, then held-out loss and accuracy side by side and a summary computed from the numbers.
//
// CSS classes used (styles.css): .lab-row (controls row), .field, button.primary, .note, .scroll,
// table/th/td, .lab-summary (the computed sentence), .error-text, .lab-chart (render/line-chart.js).
import { createLineChart, alignCurves } from '../render/line-chart.js';
import { createLabRunner, parseIntegerField, tooFewSteps } from '../labs/runner.js';

const D = 64, H = 8, N = 2048, BPE = 4;
const VARIANTS = [
  { id: 'mha', name: 'MHA', nKvHeads: 8, detail: '8 K/V heads' },
  { id: 'gqa', name: 'GQA', nKvHeads: 2, detail: '2 K/V heads' },
  { id: 'mqa', name: 'MQA', nKvHeads: 1, detail: '1 K/V head' },
];
// Copy task hard enough (64 symbols, 32 tokens) that the K/V budget shows in the loss. Measured (wasm, Node,
// seed 0): held-out loss MHA 0.14 / GQA 0.53 / MQA 1.10 nats after 120 steps, 0.03 / 0.07 / 0.19 after 180,
// 0.009 / 0.016 / 0.034 after 300 (all at ~100 % accuracy from 120 steps on); ~12 ms per step, so the
// default 150 steps take ~2 s per variant (Chromium: 3 x 300 steps in 14 s).
const TASK = { task: 'copy', vocabSize: 64, seqLen: 32, batchSize: 16, learningRate: 3e-3, seed: 0 };
const CHUNK = 10;

const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtBytes = (b) => (b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(2)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${fmtInt(b)} B`);
/** Steps per variant below which the lab states no verdict (the default: measured settled, docs/lab.md). */
const ENOUGH_STEPS = 150;
export const STEPS = { label: 'Steps per variant', min: 1, max: 5000 };
const stepsOf = (state) => parseIntegerField(state.labMSteps, STEPS).value ?? 150;

export function createLabMqaView(root, ctx) {
  let state = null;
  const budget = new Map(); // variant -> { params, perToken, atN }
  let curves = VARIANTS.map((v) => ({ label: v.name, points: [] }));
  let results = new Map();  // variant -> evaluate()
  let destroyed = false;
  let stepsRun = 0;

  root.innerHTML = `
    <div class="scroll" tabindex="0" role="region" aria-label="Weights and KV cache"><table data-role="budget">
      <caption class="note" style="text-align:left">Attention weights of one block (no biases) and KV cache at fp32 (4 bytes per element), D = ${D}, H = ${H}, dh = ${D / H}.</caption>
      <thead><tr><th scope="col" style="text-align:left">Variant</th><th scope="col">Attention weights</th><th scope="col">vs MHA</th>
        <th scope="col">KV cache / token / layer</th><th scope="col">KV cache at N = ${N}</th><th scope="col">cache vs MHA</th></tr></thead>
      <tbody data-role="budget-rows">${VARIANTS.map((v) => `<tr data-variant="${v.id}"><th scope="row" style="text-align:left">${v.name}</th><td colspan="5" class="note">…</td></tr>`).join('')}</tbody>
    </table></div>
    <p class="lab-summary" data-role="budget-summary" aria-live="polite"></p>
    <div data-role="controls"></div>
    <div data-role="chart"></div>
    <div class="scroll" tabindex="0" role="region" aria-label="Results"><table data-role="results" hidden>
      <thead><tr><th scope="col" style="text-align:left">Variant</th><th scope="col">Attention weights</th><th scope="col">KV bytes / token</th>
        <th scope="col">KV at N = ${N}</th><th scope="col">Held-out loss<br><small>nats / token</small></th><th scope="col">Accuracy<br><small>predictable positions</small></th></tr></thead>
      <tbody data-role="result-rows"></tbody>
    </table></div>
    <p class="lab-summary" data-role="summary" aria-live="polite"></p>`;
  const $ = (r) => root.querySelector(`[data-role="${r}"]`);
  const chart = createLineChart($('chart'), { yLabel: 'training loss (nats / token)', logY: true });

  async function loadBudget() {
    try {
      const cfgs = VARIANTS.flatMap((v) => [
        { variant: v.id, nLayers: 1, nHeads: H, nKvHeads: v.nKvHeads, dHead: D / H, seqLen: 1, bytesPerElement: BPE },
        { variant: v.id, nLayers: 1, nHeads: H, nKvHeads: v.nKvHeads, dHead: D / H, seqLen: N, bytesPerElement: BPE },
      ]);
      const [params, bytes] = await Promise.all([
        Promise.all(VARIANTS.map((v) => ctx.client.call('paramCount', { variant: v.id, dModel: D, nHeads: H, nKvHeads: v.nKvHeads }))),
        ctx.client.call('kvCacheBytesMany', cfgs),
      ]);
      if (destroyed) return;
      VARIANTS.forEach((v, i) => budget.set(v.id, { params: params[i].total, perToken: bytes[2 * i], atN: bytes[2 * i + 1] }));
      renderBudget();
      renderResults();
    } catch (e) {
      if (!destroyed) $('budget-summary').textContent = `Core error: ${e.message}`;
    }
  }

  function renderBudget() {
    const base = budget.get('mha');
    $('budget-rows').innerHTML = VARIANTS.map((v) => {
      const b = budget.get(v.id);
      const change = (b.params - base.params) / base.params * 100;
      const ratio = base.atN / b.atN;
      return `<tr data-variant="${v.id}"><th scope="row" style="text-align:left">${v.name}<small> · ${v.detail}</small></th>
        <td data-role="params-${v.id}">${fmtInt(b.params)}</td>
        <td data-role="change-${v.id}">${v.id === 'mha' ? '—' : `${change.toFixed(2).replace('-', '−')} %`}</td>
        <td>${fmtInt(b.perToken)} B</td><td>${fmtBytes(b.atN)}</td>
        <td>${v.id === 'mha' ? '1×' : `${Number(ratio.toFixed(2))}× smaller`}</td></tr>`;
    }).join('');
    const mqa = budget.get('mqa');
    const saved = base.params - mqa.params;
    $('budget-summary').textContent = `MQA keeps one K/V head for all ${H} query heads: it removes ${fmtInt(saved)} weights `
      + `(2 · D · (D − dh) = 2 · ${D} · ${D - D / H}), ${fmtInt(base.params)} → ${fmtInt(mqa.params)} `
      + `(${((mqa.params - base.params) / base.params * 100).toFixed(2).replace('-', '−')} %), and its cache is `
      + `${Number((base.atN / mqa.atN).toFixed(2))}× smaller at every N: ${fmtBytes(base.atN)} → ${fmtBytes(mqa.atN)} at N = ${N} per layer.`;
  }

  function drawChart() {
    const { xs, ys, labels } = alignCurves(curves);
    chart.setData(labels, xs, ys);
  }

  function renderResults() {
    if (!results.size) { $('results').hidden = true; $('summary').textContent = ''; return; }
    $('results').hidden = false;
    $('result-rows').innerHTML = VARIANTS.filter((v) => results.has(v.id)).map((v) => {
      const r = results.get(v.id), b = budget.get(v.id);
      return `<tr data-variant="${v.id}"><th scope="row" style="text-align:left">${v.name}</th>
        <td>${b ? fmtInt(b.params) : '…'}</td><td>${b ? `${fmtInt(b.perToken)} B` : '…'}</td><td>${b ? fmtBytes(b.atN) : '…'}</td>
        <td data-role="loss-${v.id}">${r.loss.toFixed(4)}</td><td>${(r.accuracy * 100).toFixed(1)} %</td></tr>`;
    }).join('');
    if (results.size < VARIANTS.length || budget.size < VARIANTS.length) { $('summary').textContent = ''; return; }
    const mha = results.get('mha'), gqa = results.get('gqa'), mqa = results.get('mqa');
    const bm = budget.get('mha'), bq = budget.get('mqa');
    const rel = (x) => (mha.loss > 0 ? x.loss / mha.loss : Infinity);
    const accGap = (mha.accuracy - mqa.accuracy) * 100;
    const order = [...VARIANTS].sort((a, b) => results.get(a.id).loss - results.get(b.id).loss).map((v) => v.name);
    const few = tooFewSteps(stepsRun, ENOUGH_STEPS, 'a verdict on what MQA costs');
    let verdict;
    if (few) verdict = `${few}MQA ${(mqa.loss - mha.loss).toFixed(3)} nats from MHA's held-out loss, ${(mqa.accuracy * 100).toFixed(1)} % vs ${(mha.accuracy * 100).toFixed(1)} % accuracy`;
    else if (Math.abs(accGap) < 0.5 && mqa.loss - mha.loss < 0.05) verdict = `MQA costs almost nothing here: the same accuracy (${(mqa.accuracy * 100).toFixed(1)} %) and only ${(mqa.loss - mha.loss).toFixed(3)} nats more held-out loss`;
    else if (accGap > 0) verdict = `MQA pays ${accGap.toFixed(1)} accuracy points (${(mqa.accuracy * 100).toFixed(1)} % vs ${(mha.accuracy * 100).toFixed(1)} %) and ${(mqa.loss - mha.loss).toFixed(3)} nats of held-out loss`;
    else verdict = `MQA's held-out loss is ${(mqa.loss - mha.loss).toFixed(3)} nats ${mqa.loss >= mha.loss ? 'above' : 'below'} MHA's at ${(mqa.accuracy * 100).toFixed(1)} % accuracy`;
    $('summary').textContent = `After ${stepsRun} steps each, ${few ? 'held-out loss so far' : 'ranked by held-out loss'}: ${order.join(' < ')}. ${verdict}, `
      + `for ${((bm.params - bq.params) / bm.params * 100).toFixed(2)} % fewer attention weights and a ${Number((bm.atN / bq.atN).toFixed(2))}× smaller cache `
      + `(${fmtBytes(bq.atN)} instead of ${fmtBytes(bm.atN)} at N = ${N}). Held-out loss against MHA's: GQA ${rel(gqa).toFixed(2)}×, MQA ${rel(mqa).toFixed(2)}×${gqa.loss >= Math.min(mha.loss, mqa.loss) && gqa.loss <= Math.max(mha.loss, mqa.loss) ? ' (GQA between the two, as its cache is)' : ''}.`;
  }

  const runner = createLabRunner($('controls'), root, ctx, {
    id: 'lab-mqa',
    startLabel: 'Train all three',
    againLabel: 'Train all three again',
    idleText: (st) => `Not trained yet: press “Train all three” (3 × ${stepsOf(st)} steps, about ${Math.max(1, Math.round(stepsOf(st) * 3 * 0.016))} s).`,
    fields: [{ name: 'labMSteps', ...STEPS, hint: `copy task, ${TASK.vocabSize} symbols, ${TASK.seqLen} tokens`,
      parse: (t) => parseIntegerField(t, STEPS) }],
    async run(api) {
      const steps = api.values.labMSteps;
      stepsRun = steps;
      curves = VARIANTS.map((v) => ({ label: v.name, points: [] }));
      results = new Map();
      renderResults();
      let lastDraw = 0;
      for (const [i, v] of VARIANTS.entries()) {
        const res = await api.train({
          label: v.name,
          spec: { ...TASK, totalSteps: steps, warmupSteps: Math.min(30, Math.floor(steps / 10)),
            model: { variant: v.id, dModel: D, nHeads: H, nKvHeads: v.nKvHeads } },
          steps, chunk: CHUNK,
          onChunk: ({ step, loss }) => {
            curves[i].points.push([step, loss]);
            api.progress(`Training ${v.name} (${i + 1} of ${VARIANTS.length}): step ${step} / ${steps}, loss ${loss.toFixed(3)} · ${api.seconds().toFixed(1)} s`, step);
            const now = performance.now();
            if (now - lastDraw > 100 || step === steps) { lastDraw = now; drawChart(); }
          },
        });
        if (res.stopped) break;
        const ev = await ctx.client.call('trainerEvaluate', res.key);
        api.check();
        results.set(v.id, ev);
        renderResults();
      }
      drawChart();
      api.progress(`${api.isStopped() ? 'Stopped' : 'Done'}: ${results.size} of ${VARIANTS.length} × ${steps} steps in ${api.seconds().toFixed(1)} s.`);
      return { results: Object.fromEntries(results) };
    },
  });

  loadBudget();

  return {
    update(s) {
      state = s;
      runner.update(s);
    },
    destroy() {
      destroyed = true;
      runner.destroy();
      chart.destroy();
    },
  };
}
