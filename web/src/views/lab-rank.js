// lab-rank.js — lab experiment 3 (lesson exercise "hard"): character-level models of a Tiny Shakespeare
// slice (first 90 % trains, last 10 % validates), MHA against MLA at several latent ranks r. Live:
// training and validation curves in bits per character. Afterwards: a table (r, KV-cache bytes per
// token per layer, validation bits/char), a chart of bits/char against cache bytes (log x), the ranks
// whose cache is below 1/8 of MHA's and whether they stay within 1 bit/char of MHA, and the answer.
//
// CSS classes used (styles.css): .lab-row (controls row), .field, button.primary, .note, .scroll,
// table/th/td, tr.lab-pass / tr.lab-fail (rows under 1/8 of the cache: within 1 bit or not),
// .lab-summary (the computed answer), .error-text, .lab-chart (render/line-chart.js).
import uPlot from 'uplot';
// The corpus (256 KiB) is a chunk of its own, fetched only when a run starts: course pages that embed
// other views never download it.
const CORPUS_BYTES = 262144;
let corpusText = null;
const loadCorpus = async () => (corpusText ??= (await import('../../data/tinyshakespeare-256k.txt?raw')).default);
import { createLineChart, alignCurves } from '../render/line-chart.js';
import { createLabRunner, parseIntegerField, tooFewSteps, parseIntegerList } from '../labs/runner.js';
import { escapeHtml as esc } from '../kit.js';

const D = 64, H = 4, DH = 16, DR = 4, BPE = 4;
// Measured (wasm, Node, one run of 200 steps at seqLen 32, batch 16, 1 layer with MLP): 6-7 s per model,
// ~32 ms per step (so chunks of 5 steps stay under 200 ms) and ~0.2 s per evaluation.
const TRAIN = { task: 'chars', seqLen: 32, batchSize: 16, learningRate: 3e-3, seed: 0 };
const CHUNK = 5;
const EVAL_EVERY = 50;
const LN2 = Math.log(2);

/** Steps per model below which the lab states no verdict (its default; the runs are short even then). */
const ENOUGH_STEPS = 200;
export const STEPS = { label: 'Steps per model', min: 1, max: 5000 };
export const RANKS = { label: 'MLA latent ranks r', min: 1, max: 256, most: 8 };
/** The state's values, or the defaults where the state (a URL) holds something not allowed. */
const stepsOf = (state) => parseIntegerField(state.labRSteps, STEPS).value ?? 200;
const ranksOf = (state) => parseIntegerList(state.labRRanks, RANKS).value ?? [4, 8, 16, 32];
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
const runName = (r) => (r.variant === 'mha' ? 'MHA' : `MLA r = ${r.rank}`);

export function createLabRankView(root, ctx) {
  let state = null;
  let running = false;
  let runs = [];       // { variant, rank, bytes, train: [[step, bits]], val: [[step, bits]], result }
  let stepsRun = 0;

  root.innerHTML = `
    <p class="note">A one-layer transformer (D = ${D}, H = ${H}, dh = ${DH}, MLP, fp32 cache) learns to predict the next
      character of ${Math.round(CORPUS_BYTES / 1024)} KiB of Shakespeare. MLA caches a rank-r latent plus a decoupled RoPE key of
      width dr = ${DR}: (r + dr) · 4 bytes per token per layer, against MHA's 2 · H · dh · 4 = ${2 * H * DH * BPE} bytes.
      Its cache is below 1/8 of MHA's when r + dr &lt; ${2 * H * DH / 8}.</p>
    <div data-role="controls"></div>
    <div data-role="chart"></div>
    <div class="scroll" tabindex="0" role="region" aria-label="Results"><table data-role="results" hidden>
      <thead><tr><th scope="col" style="text-align:left">Model</th><th scope="col">KV cache<br><small>bytes / token / layer</small></th>
        <th scope="col">vs MHA</th><th scope="col">Validation<br><small>bits / char</small></th><th scope="col">vs MHA<br><small>bits / char</small></th>
        <th scope="col">cache &lt; 1/8 of MHA?</th><th scope="col">within 1 bit?</th></tr></thead>
      <tbody data-role="rows"></tbody>
    </table></div>
    <div data-role="scatter" class="lab-chart" aria-label="Validation bits per character against KV-cache bytes per token" role="img"></div>
    <p class="lab-summary" data-role="summary" aria-live="polite"></p>`;
  const $ = (r) => root.querySelector(`[data-role="${r}"]`);
  // One colour per model (MHA first), its validation curve dashed: no two models share a colour.
  const modelOf = (label) => label.replace(/ (train|val)$/, '');
  const chart = createLineChart($('chart'), {
    yLabel: 'bits / char',
    styleOf: (label) => ({ colour: Math.max(0, runs.findIndex((r) => runName(r) === modelOf(label))), dash: / val$/.test(label) ? [6, 4] : null }),
  });
  let scatter = null;
  const scatterResize = new ResizeObserver(() => scatter?.setSize({ width: Math.max(280, $('scatter').clientWidth), height: 260 }));
  scatterResize.observe($('scatter'));

  function idleText(st) {
    const steps = stepsOf(st), n = ranksOf(st).length + 1;
    return `Not trained yet: ${n} models × ${steps} steps (about ${Math.ceil(n * steps * 0.036)} s in a laptop browser).`;
  }

  function drawCurves() {
    const curves = [];
    runs.forEach((r) => {
      if (r.train.length) curves.push({ label: `${runName(r)} train`, points: r.train });
      if (r.val.length) curves.push({ label: `${runName(r)} val`, points: r.val });
    });
    if (!curves.length) return;
    const { xs, ys, labels } = alignCurves(curves);
    chart.setData(labels, xs, ys);
  }

  function theme() {
    const cs = getComputedStyle(root);
    const v = (n, d) => cs.getPropertyValue(n).trim() || d;
    return { fg: v('--fg', '#222'), grid: v('--grid', '#ddd'), muted: v('--muted', '#888'),
      s1: v('--series-1', '#1f77b4'), s2: v('--series-2', '#d62728'), s3: v('--series-3', '#2ca02c') };
  }

  function drawScatter(done) {
    scatter?.destroy();
    scatter = null;
    if (!done.length) return;
    const mha = done.find((r) => r.variant === 'mha');
    const mla = done.filter((r) => r.variant === 'mla');
    const xs = [...new Set(done.map((r) => r.bytes))].sort((a, b) => a - b);
    const at = (list) => xs.map((x) => list.find((r) => r.bytes === x)?.result.bitsPerToken ?? null);
    const t = theme();
    const series = [{ label: 'cache bytes / token / layer' },
      { label: 'MLA', stroke: t.s1, width: 2, spanGaps: true, points: { show: true, size: 8 }, value: (u, v) => (v == null ? '—' : v.toFixed(3)) },
      { label: 'MHA', stroke: t.s2, width: 0, points: { show: true, size: 10, fill: t.s2 }, value: (u, v) => (v == null ? '—' : v.toFixed(3)) }];
    const data = [xs, at(mla), at(mha ? [mha] : [])];
    if (mha) {
      series.push({ label: 'MHA + 1 bit', stroke: t.s3, width: 1, dash: [6, 4], points: { show: false }, value: (u, v) => (v == null ? '—' : v.toFixed(3)) });
      data.push(xs.map(() => mha.result.bitsPerToken + 1));
    }
    const eighth = mha ? mha.bytes / 8 : null;
    scatter = new uPlot({
      width: Math.max(280, $('scatter').clientWidth || 600), height: 260,
      scales: { x: { time: false, distr: 3 } },
      axes: [
        { label: 'KV cache, bytes / token / layer (log)', stroke: t.fg, grid: { stroke: t.grid }, ticks: { stroke: t.grid } },
        { label: 'validation bits / char', stroke: t.fg, grid: { stroke: t.grid }, ticks: { stroke: t.grid } },
      ],
      series,
      hooks: { draw: [(u) => {
        if (eighth == null) return;
        const x = u.valToPos(eighth, 'x', true);
        if (!Number.isFinite(x)) return;
        const c = u.ctx;
        c.save();
        c.strokeStyle = t.muted; c.fillStyle = t.muted; c.setLineDash([4, 4]); c.lineWidth = 1;
        c.beginPath(); c.moveTo(x, u.bbox.top); c.lineTo(x, u.bbox.top + u.bbox.height); c.stroke();
        c.setLineDash([]); c.font = `${12 * devicePixelRatio}px sans-serif`; c.textAlign = 'right';
        c.fillText('← cache < 1/8 of MHA', x - 4, u.bbox.top + u.bbox.height - 6 * devicePixelRatio);
        c.restore();
      }] },
    }, data, $('scatter'));
  }

  function renderResults() {
    const done = runs.filter((r) => r.result);
    $('results').hidden = !done.length;
    drawScatter(done);
    const mha = done.find((r) => r.variant === 'mha');
    $('rows').innerHTML = done.map((r) => {
      const bits = r.result.bitsPerToken;
      const small = mha ? r.bytes * 8 < mha.bytes : null;
      const within = mha ? bits - mha.result.bitsPerToken <= 1 : null;
      const cls = r.variant === 'mla' && small ? (within ? ' class="lab-pass"' : ' class="lab-fail"') : '';
      return `<tr${cls} data-rank="${r.variant === 'mha' ? 'mha' : r.rank}"><th scope="row" style="text-align:left">${esc(runName(r))}${r.variant === 'mla' ? `<small> · r + dr = ${r.rank + DR}</small>` : ''}</th>
        <td>${r.bytes.toLocaleString('en-US')}</td>
        <td>${mha ? `${(r.bytes / mha.bytes * 100).toFixed(1)} %` : '…'}</td>
        <td data-role="bits">${bits.toFixed(3)}</td>
        <td>${mha ? (r === mha ? '—' : `${bits - mha.result.bitsPerToken >= 0 ? '+' : '−'}${Math.abs(bits - mha.result.bitsPerToken).toFixed(3)}`) : '…'}</td>
        <td>${r.variant === 'mha' || small == null ? '—' : small ? 'yes' : 'no'}</td>
        <td>${r.variant === 'mha' || within == null ? '—' : within ? 'yes' : 'no'}</td></tr>`;
    }).join('');
    summarise(done, mha);
  }

  function summarise(done, mha) {
    const mla = done.filter((r) => r.variant === 'mla');
    if (running || !mha || !mla.length) { $('summary').textContent = ''; return; }
    const mb = mha.result.bitsPerToken;
    const small = mla.filter((r) => r.bytes * 8 < mha.bytes);
    const ok = small.filter((r) => r.result.bitsPerToken - mb <= 1);
    const f = (r) => `r = ${r.rank} (${r.result.bitsPerToken.toFixed(2)} vs ${mb.toFixed(2)} bits/char, cache ${r.bytes} vs ${mha.bytes} bytes)`;
    const few = tooFewSteps(stepsRun, ENOUGH_STEPS, 'a verdict on how small the latent can be');
    let text;
    if (few) {
      text = `${few}${mla.map((r) => `r = ${r.rank}: ${r.result.bitsPerToken.toFixed(2)}`).join(', ')} bits/char against MHA's ${mb.toFixed(2)}.`;
    } else if (!small.length) {
      text = `None of the ranks tried has a cache below 1/8 of MHA's (needs r + dr < ${mha.bytes / 8 / BPE}, i.e. r ≤ ${mha.bytes / 8 / BPE - DR - 1}): try smaller ranks.`;
    } else if (!ok.length) {
      text = `The cache is below 1/8 of MHA's at ${small.map((r) => `r = ${r.rank}`).join(', ')}, but none of them stays within 1 bit/char of MHA: the smallest, ${f(small[0])}.`;
    } else {
      const smallest = ok[0];
      const fail = small.filter((r) => !ok.includes(r));
      text = `The smallest r with cache < 1/8 of MHA and within 1 bit/char: ${f(smallest)}; `
        + `${ok.length === small.length ? `every rank below 1/8 of the cache stays within 1 bit (worst: ${signed(Math.max(...small.map((r) => r.result.bitsPerToken - mb)))} bits/char).`
          : `${fail.map((r) => `r = ${r.rank}`).join(', ')} ${fail.length > 1 ? 'do' : 'does'} not (${signed(Math.min(...fail.map((r) => r.result.bitsPerToken - mb)))} bits/char or more).`}`;
    }
    const best = [...mla].sort((a, b) => a.result.bitsPerToken - b.result.bitsPerToken)[0];
    text += ` After ${stepsRun} steps per model; the best MLA is r = ${best.rank} at ${best.result.bitsPerToken.toFixed(2)} bits/char`
      + ` (${signed(best.result.bitsPerToken - mb)} against MHA) with ${(mha.bytes / best.bytes).toFixed(1)}× less cache.`
      + ' Short runs: all models are still far from converged, so these gaps measure early learning speed as much as capacity.';
    $('summary').textContent = text;
  }

  const runner = createLabRunner($('controls'), root, ctx, {
    id: 'lab-rank',
    startLabel: 'Train MHA and MLA',
    againLabel: 'Train again',
    idleText,
    fields: [
      { name: 'labRSteps', ...STEPS, hint: `seqLen ${TRAIN.seqLen}, batch ${TRAIN.batchSize}`,
        parse: (t) => parseIntegerField(t, STEPS) },
      { name: 'labRRanks', ...RANKS, kind: 'text', hint: 'comma-separated, up to 8',
        parse: (t) => parseIntegerList(t, RANKS), format: (v) => (parseIntegerList(v, RANKS).value ?? [4, 8, 16, 32]).join(', ') },
    ],
    async run(api) {
      const steps = api.values.labRSteps, ranks = api.values.labRRanks;
      running = true;
      stepsRun = steps;
      $('summary').textContent = '';
      runs = [{ variant: 'mha', rank: 0 }, ...ranks.map((rank) => ({ variant: 'mla', rank }))]
        .map((r) => ({ ...r, bytes: 0, train: [], val: [], result: null }));
      renderResults();
      const bytes = await ctx.client.call('kvCacheBytesMany', runs.map((r) => ({
        variant: r.variant, nLayers: 1, nHeads: H, dHead: DH, seqLen: 1, bytesPerElement: BPE,
        ...(r.variant === 'mla' ? { latentRank: r.rank, ropeDim: DR } : {}) })));
      api.check();
      runs.forEach((r, i) => { r.bytes = bytes[i]; });
      const text = await loadCorpus();
      api.check();
      let lastDraw = 0;
      try {
        for (const [i, r] of runs.entries()) {
          const model = { variant: r.variant, dModel: D, nHeads: H, dHead: DH, mlp: true };
          if (r.variant === 'mla') Object.assign(model, { latentRank: r.rank, ropeDim: DR });
          const res = await api.train({
            label: runName(r),
            spec: { ...TRAIN, text, totalSteps: steps, warmupSteps: Math.min(20, Math.floor(steps / 10)), model },
            steps, chunk: CHUNK, evalEvery: EVAL_EVERY / CHUNK,
            onChunk: ({ step, loss }) => {
              r.train.push([step, loss / LN2]);
              api.progress(`Training ${runName(r)} (${i + 1} of ${runs.length}): step ${step} / ${steps}, `
                + `training ${(loss / LN2).toFixed(2)} bits/char · ${api.seconds().toFixed(1)} s`, step);
              const now = performance.now();
              if (now - lastDraw > 150) { lastDraw = now; drawCurves(); }
            },
            onEval: (ev, step) => { r.val.push([step, ev.bitsPerToken]); },
          });
          if (res.stopped) break;
          const ev = await ctx.client.call('trainerEvaluate', res.key);
          api.check();
          r.result = ev;
          r.val.push([steps, ev.bitsPerToken]);
          drawCurves();
          renderResults();
        }
      } finally {
        running = false;
      }
      renderResults();
      const trained = runs.filter((r) => r.result).length;
      api.progress(`${api.isStopped() ? 'Stopped' : 'Done'}: ${trained} of ${runs.length} models × ${steps} steps in ${api.seconds().toFixed(1)} s.`);
      return { models: runs.map((r) => ({ name: runName(r), bytes: r.bytes, bits: r.result?.bitsPerToken ?? null })) };
    },
  });

  return {
    update(s) {
      state = s;
      runner.update(s);
    },
    destroy() {
      runner.destroy();
      chart.destroy();
      scatterResize.disconnect();
      scatter?.destroy();
    },
  };
}
