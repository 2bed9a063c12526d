// lab-rank.js — Lab 3 (lesson exercise "hard"): character-level models of a Tiny Shakespeare slice
// (first 90 % trains, last 10 % validates), MHA (the Llama block) against MLA (DeepSeek-V2's block: the
// same block with MLA; both open in the model view as Hugging Face checkpoints) at several latent ranks r, each with SEEDS
// seeds, trained side by side (one per trainer worker; the core's training loop: labs/runner.js; it
// evaluates every EVAL_EVERY steps). Live: training and validation curves in bits per character, the
// mean of each model's seeds. Afterwards: a table (r, KV-cache bytes per token per layer, validation
// bits/char as mean ± sd, the difference from MHA with its standard error) and a chart of bits/char
// against cache bytes (log x), both labs/rank-results.js, and the answer (labs/verdicts.js).
import labsCss from '../styles/labs.css?inline';
import { el, useStyles } from '../kit.js';
import { parseIntegerField, parseIntegerList } from '../labs/fields.js';
import { createLabRunner } from '../labs/runner.js';
import { createRankResults } from '../labs/rank-results.js';
import { SEEDS, meanCurve } from '../labs/spread.js';
import { RANK_MODEL, RANK_ROPE_DIM, RANK_TASK as TRAIN } from '../labs/tasks.js';
import { summariseRank } from '../labs/verdicts.js';
import { alignCurves, createLineChart } from '../render/line-chart.js';
import { visible } from '../sources/token-labels.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks: the labs' shared ones
import '../i18n/catalogs/en/lab-rank.js';  // and Lab 3's

// The corpus (256 KiB) is a chunk of its own, fetched only when a run starts: course pages that embed
// other views never download it.
const CORPUS_BYTES = 262144;
let corpusText = null;
const loadCorpus = async () => (corpusText ??= (await import('../../data/tinyshakespeare-256k.txt?raw')).default);

const { dModel: D, nHeads: H, dHead: DH } = RANK_MODEL, DR = RANK_ROPE_DIM, BPE = 4;
// Measured (wasm, Node, 200 steps at seqLen 32, batch 16, 1 layer): ~7 ms per step, ~1.5 s per model.
const EVAL_EVERY = 50;
const LN2 = Math.log(2);
const STEPS = { min: 1, max: 5000 };
const RANKS = { min: 1, max: 256, most: 8 };
/** The state's values, or the defaults where the state (a URL) holds something not allowed. */
const stepsOf = (state) => parseIntegerField(state.labRSteps, { ...STEPS, label: '' }).value ?? 200;
const ranksOf = (state) => parseIntegerList(state.labRRanks, { ...RANKS, label: '' }).value ?? [4, 8, 16, 32];
const runName = (r) => (r.variant === 'mha' ? 'MHA' : `MLA r = ${r.rank}`);
// What a model's maps are drawn on ("Inspect in the attention view", compare): the corpus's first words
// as characters, numbered as the chars task numbers them (the text's distinct code points, sorted), within
// the models' 32 positions.
const CHARS_EXAMPLE = 'Before we proceed any further';
/** The example's ids and labels for a model of `vocabSize` characters of `text`, or null when the text's alphabet is another. */
let alphabetOf = { text: null, alphabet: [] };  // the corpus's alphabet, worked out once (the list redraws often)
function charsExample(text, vocabSize) {
  if (alphabetOf.text !== text) alphabetOf = { text, alphabet: [...new Set(Array.from(text, (c) => c.codePointAt(0)))].sort((a, b) => a - b) };
  const { alphabet } = alphabetOf;
  if (alphabet.length !== vocabSize) return null;
  const chars = [...CHARS_EXAMPLE].filter((c) => alphabet.includes(c.codePointAt(0)));
  return { tokens: chars.map((c) => alphabet.indexOf(c.codePointAt(0))), labels: chars.map(visible) };
}

export function createLabRankView(root, ctx) {
  useStyles(root, 'labs', labsCss);
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const steps = { ...STEPS, label: t('labRank.steps') }, ranks = { ...RANKS, label: t('labRank.ranks') };
  // models: { variant, rank, bytes, seeds: [{ seed, train: [[step, bits]], val: [[step, bits]], result }] }
  let models = [], stepsRun = 0;
  const controls = el('div', { dataset: { role: 'controls' } });
  const curvesBox = el('div', { dataset: { role: 'chart' } });
  const results = createRankResults({ runName, ropeDim: DR, seeds: SEEDS.length, i18n,
    save: { name: () => 'lab-rank-results', meta: () => ({ lab: 'lab-rank', steps: stepsRun, seeds: SEEDS, summary: summary.textContent }) } });
  const summary = el('p', { className: 'lab-summary', dataset: { role: 'summary' }, 'aria-live': 'polite' });
  root.replaceChildren(el('p', 'note', t('labRank.what', { D, H, dh: DH, kib: Math.round(CORPUS_BYTES / 1024), dr: DR, mhaBytes: 2 * H * DH * BPE,
    limit: 2 * H * DH / 8, count: SEEDS.length })), controls, curvesBox, results.table, results.chart, summary);
  // One colour per model (MHA first), its validation curve dashed: no two models share a colour.
  const curveStyle = new Map();  // a curve's label -> { colour, dash }
  const curves = createLineChart(curvesBox, { yLabel: t('labRank.chartY'), xLabel: t('labs.chartStep'),
    styleOf: (label) => curveStyle.get(label) ?? { colour: 0 } });

  /** A model's curve `which` ('train' | 'val'): the mean of its seeds (labs/spread.js). */
  const seedsCurve = (m, which) => meanCurve(m.seeds.map((s) => s[which]));

  function drawCurves() {
    const list = models.flatMap((m, colour) => [
      { label: t('labRank.curveTrain', { model: runName(m) }), points: seedsCurve(m, 'train'), style: { colour, dash: null } },
      { label: t('labRank.curveVal', { model: runName(m) }), points: seedsCurve(m, 'val'), style: { colour, dash: [6, 4] } }]);
    for (const c of list) curveStyle.set(c.label, c.style);
    const { xs, ys, labels } = alignCurves(list.filter((c) => c.points.length));
    if (labels.length) curves.setData(labels, xs, ys);
  }

  /** The models every seed of which is evaluated: { variant, rank, bytes, bits: [per seed] }. */
  const evaluated = () => models.filter((m) => m.seeds.every((s) => s.result))
    .map((m) => ({ variant: m.variant, rank: m.rank, bytes: m.bytes, bits: m.seeds.map((s) => s.result.bitsPerToken) }));

  function renderResults(running) {
    const done = evaluated();
    results.update(done);
    summary.textContent = running ? '' : summariseRank(done, stepsRun, { ropeDim: DR, bytesPerElement: BPE }, i18n);
  }

  async function run(api) {
    const steps = api.values.labRSteps, ranksRun = api.values.labRRanks;
    stepsRun = steps;
    curveStyle.clear();
    models = [{ variant: 'mha', rank: 0 }, ...ranksRun.map((rank) => ({ variant: 'mla', rank }))]
      .map((m) => ({ ...m, bytes: 0, seeds: SEEDS.map((seed) => ({ seed, train: [], val: [], result: null })) }));
    renderResults(true);
    const bytes = await ctx.client.call('kvCacheBytesMany', models.map((m) => ({ variant: m.variant, nLayers: 1, nHeads: H, dHead: DH, seqLen: 1,
      bytesPerElement: BPE, ...(m.variant === 'mla' ? { latentRank: m.rank, ropeDim: DR } : {}) })));
    api.check();
    models.forEach((m, i) => { m.bytes = bytes[i]; });
    const text = await loadCorpus();
    api.check();
    const runs = models.flatMap((m) => m.seeds.map((s) => ({ m, s })));
    await api.each(runs, async ({ m, s }, i) => {
      const name = t('labs.seedOf', { name: runName(m), seed: s.seed });
      const model = m.variant === 'mla' ? { ...RANK_MODEL, variant: 'mla', block: 'deepseek', latentRank: m.rank, ropeDim: DR }
        : { ...RANK_MODEL, variant: 'mha', block: 'llama' };
      const key = await api.createModel(name, { ...TRAIN, seed: s.seed, text, totalSteps: steps, warmupSteps: Math.min(20, Math.floor(steps / 10)), model },
        `${m.variant === 'mha' ? 'mha' : `mla-r${m.rank}`}-seed-${s.seed}`);
      const res = await api.train(key, { steps, evalEvery: EVAL_EVERY, onProgress: (p) => {
        s.train.push([p.step, p.loss / LN2]);
        if (p.evaluation) s.val.push([p.step, p.evaluation.bitsPerToken]);
        api.progressOf(i, t('labRank.progress', { name, i: i + 1, n: runs.length, step: p.step, steps,
          bits: fmt.fixed(p.loss / LN2, 2), secs: fmt.fixed(api.seconds(), 1) }), p.step);
        drawCurves();
      } });
      if (res.stopped) return;
      s.result = await api.evaluate(key);
      if (s.val.at(-1)?.[0] !== res.step) s.val.push([res.step, s.result.bitsPerToken]);
      drawCurves();
      renderResults(true);
    });
    renderResults(false);
    const trained = runs.filter(({ s }) => s.result).length;
    api.progress(t(api.isStopped() ? 'labRank.stopped' : 'labRank.done', { done: trained, total: runs.length, models: models.length, seeds: SEEDS.length,
      count: steps, secs: fmt.fixed(api.seconds(), 1) }));
    return { models: models.map((m) => ({ name: runName(m), bytes: m.bytes, bits: m.seeds.map((s) => s.result?.bitsPerToken ?? null) })) };
  }

  const runner = createLabRunner(controls, root, ctx, {
    id: 'lab-rank',
    inspectTokens: (vocab) => {
      const e = corpusText ? charsExample(corpusText, vocab) : null;
      return e && { ...e, title: t('labRank.example', { text: CHARS_EXAMPLE }) };
    },
    startLabel: t('labRank.start'),
    againLabel: t('labRank.again'),
    idleText: (st) => t('labRank.idle', { models: ranksOf(st).length + 1, seeds: SEEDS.length, count: stepsOf(st),
      secs: Math.ceil((ranksOf(st).length + 1) * SEEDS.length * stepsOf(st) * 0.036 / Math.max(1, ctx.client.trainerWorkers ?? 1)) }),
    fields: [
      { name: 'labRSteps', ...steps, hint: t('labRank.stepsHint', { seqLen: TRAIN.seqLen, batch: TRAIN.batchSize }),
        parse: (text) => parseIntegerField(text, steps, i18n) },
      { name: 'labRRanks', ...ranks, kind: 'text', hint: t('labRank.ranksHint', { most: RANKS.most }), parse: (text) => parseIntegerList(text, ranks, i18n),
        format: (v) => ranksOf({ labRRanks: v }).join(', ') },
    ],
    run,
  });

  return {
    update(s) { runner.update(s); },
    destroy() {
      runner.destroy();
      curves.destroy();
      results.destroy();
    },
  };
}
