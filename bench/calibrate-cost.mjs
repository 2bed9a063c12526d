#!/usr/bin/env node
// bench/calibrate-cost.mjs: measures the speed of each kind of work the cost model counts
// (core/include/attn/cost.hpp: gemm, attend, scores, loops, elementwise, bytes, checksum, seeded) on
// one WebAssembly build, and fits the rates that core/src/cost.cpp keeps.
//
//   node bench/calibrate-cost.mjs [--build simd|scalar] [--rounds 5]
//
// Each workload is a real call of the JS API (dist/lib), timed in JS: the median CPU time of
// `rounds` runs after a warm-up (the wall time is printed beside it). Its work by kind comes from the core itself (the
// internal _cost of the attention module, a trainer's _costs). The rates minimise the squared
// relative error of the predicted times, all >= 0 (coordinate descent), and the script prints them
// with each workload's predicted / measured ratio. Run it on an idle machine, one build at a time.
import fs from 'node:fs';
import { parseArgs } from 'node:util';

import { loadRawModules } from './raw-modules.mjs';

const { values: opts } = parseArgs({ options: { build: { type: 'string', default: 'simd' }, rounds: { type: 'string', default: '5' } } });
const build = opts.build;
const rounds = Number(opts.rounds);
const KINDS = ['gemm', 'attend', 'scores', 'loops', 'elementwise', 'bytes', 'checksum', 'seeded'];

const { M, T, attn } = await loadRawModules(build);

/**
 * The median of `rounds` timed runs of fn, in seconds of this process's CPU time (user + system:
 * on a shared machine the wall time counts the other processes too, the CPU time is close to what
 * the call takes alone), after warm-up runs for at least 0.6 s (V8 compiles a hot wasm function with
 * TurboFan in the background; a call running keeps its baseline code, docs/performance.md). Also
 * kept: the spread of the rounds (max / min) and the median wall time.
 */
function median(fn, setup = () => {}) {
  const w0 = performance.now();
  for (let i = 0; i < 30 && (i < 2 || performance.now() - w0 < 600); i++) {
    setup();
    fn();
  }
  const cpu = [];
  const wall = [];
  for (let r = 0; r < rounds; r++) {
    setup();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    wall.push((performance.now() - t0) / 1000);
    cpu.push((c.user + c.system) / 1e6);
  }
  const mid = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  spreads.push(Math.max(...cpu) / Math.max(1e-6, Math.min(...cpu)));
  walls.push(mid(wall));
  return mid(cpu);
}
/** max / min of each workload's rounds (CPU time), and its median wall time, in the order they ran. */
const spreads = [];
const walls = [];

const rand = (n, seed = 1) => {
  const a = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = s / 2 ** 32 - 0.5;
  }
  return a;
};
/** Explicit weights for a spec (so that seeded draws are not timed), from the seeded ones. */
const weightsOf = (spec) => attn.forward({ ...spec, seqLen: 1, x: new Float32Array(spec.dModel), returnIntermediates: true }).parameters;

// The training module's code first, for 2 s: V8 tiers its functions up in the background.
{
  const t = attn.createTrainer({ task: 'copy', seqLen: 16, batchSize: 4, model: { variant: 'mha', dModel: 32, nHeads: 2, mlp: true } });
  const w0 = performance.now();
  while (performance.now() - w0 < 2000) t.step(1);
  t.evaluate();
  t.dispose();
}

/** @type {{ name: string, seconds: number, work: Record<string, number> }[]} */
const rows = [];
const add = (name, seconds, work) => {
  rows.push({ name, seconds, work });
  process.stderr.write(`  ${name}: ${(seconds * 1000).toFixed(1)} ms\n`);
};
const workOf = (kind, spec, cached = 0) => M._cost(kind, spec, cached);

// ---- forward passes: projections (gemm), the kernel (attend, scores), copies (bytes) ----------------
const forwards = [
  { variant: 'mha', seqLen: 256, dModel: 1024, nHeads: 16 },
  { variant: 'gqa', seqLen: 512, dModel: 512, nHeads: 8, nKvHeads: 2 },
  { variant: 'mha', seqLen: 2048, dModel: 256, nHeads: 4 },
  { variant: 'mha', seqLen: 2048, dModel: 256, nHeads: 4, causal: true },
  { variant: 'mha', seqLen: 8192, dModel: 1, nHeads: 1 },
  { variant: 'mha', seqLen: 4096, dModel: 8, nHeads: 2, causal: true },
  { variant: 'mqa', seqLen: 1024, dModel: 512, nHeads: 8, rope: true },
  { variant: 'mla', seqLen: 512, dModel: 256, nHeads: 8, latentRank: 64, ropeDim: 8 },
  { variant: 'mla', seqLen: 1024, dModel: 64, nHeads: 4, dHead: 8, latentRank: 512 },
  { variant: 'mha', seqLen: 1024, dModel: 16, nHeads: 8, dHead: 2, returnWeights: true },
];
for (const f of forwards) {
  const spec = { ...f, weights: weightsOf(f), allowLongWork: true };
  const x = rand(f.seqLen * f.dModel);
  add(`forward ${JSON.stringify(f)}`, median(() => attn.forward({ ...spec, x })), workOf('forward', spec));
}
// seeded weights: a new seed each run, so that the kept set is not reused
for (const f of [{ variant: 'mha', seqLen: 1, dModel: 1024, nHeads: 16 }, { variant: 'mla', seqLen: 1, dModel: 512, nHeads: 8, latentRank: 256 }]) {
  let seed = 1;
  const x = rand(f.dModel);
  add(`forward seeded ${JSON.stringify(f)}`, median(() => attn.forward({ ...f, seed: seed++, x, allowLongWork: true })),
    workOf('forward', { ...f, allowLongWork: true }));
}
// the walkthrough's stages: plain loops
for (const f of [{ variant: 'gqa', seqLen: 512, dModel: 128, nHeads: 8, nKvHeads: 2 }, { variant: 'mla', seqLen: 256, dModel: 128, nHeads: 8, latentRank: 256, ropeDim: 8 }]) {
  const spec = { ...f, weights: weightsOf(f), allowLongWork: true };
  const x = rand(f.seqLen * f.dModel);
  add(`intermediates ${JSON.stringify(f)}`, median(() => attn.forward({ ...spec, x, returnIntermediates: true })),
    workOf('intermediates', spec));
}
// a layer's forward
for (const f of [{ variant: 'gqa', dModel: 512, nHeads: 8, nKvHeads: 4 }, { variant: 'mla', dModel: 256, nHeads: 8, latentRank: 128 }]) {
  const layer = attn.createLayer({ ...f, allowLongWork: true });
  const x = rand(1024 * f.dModel);
  add(`layer.forward 1024 rows ${JSON.stringify(f)}`, median(() => layer.forward(x)), workOf('layer', { ...f, seqLen: 1024 }));
  layer.dispose();
}
// creating layers and sessions: weights drawn or copied, packed; a session's cache zeroed
for (const f of [{ variant: 'mha', dModel: 1024, nHeads: 8 }, { variant: 'gqa', dModel: 2048, nHeads: 16, nKvHeads: 4 }]) {
  let seed = 1;
  add(`createLayer seeded ${JSON.stringify(f)}`, median(() => attn.createLayer({ ...f, seed: seed++ }).dispose()), workOf('createLayer', f));
  const spec = { ...f, weights: weightsOf(f) };
  add(`createLayer weights ${JSON.stringify(f)}`, median(() => attn.createLayer(spec).dispose()), workOf('createLayer', spec));
  const s = { ...spec, maxLen: 16384 };
  add(`createSession ${JSON.stringify({ ...f, maxLen: 16384 })}`, median(() => attn.createSession(s).dispose()), workOf('createSession', s));
}
// appends: decoding one token at a long cache (weights and cache streamed), chunks, MLA's absorbed form
for (const [f, cached, k] of [
  [{ variant: 'mha', dModel: 2048, nHeads: 16 }, 4000, 1],
  [{ variant: 'gqa', dModel: 1024, nHeads: 16, nKvHeads: 4 }, 8000, 1],
  [{ variant: 'gqa', dModel: 1024, nHeads: 16, nKvHeads: 4 }, 2000, 64],
  [{ variant: 'mla', dModel: 512, nHeads: 16, dHead: 32, latentRank: 512, ropeDim: 32 }, 4000, 1],
  [{ variant: 'mla', dModel: 256, nHeads: 8, dHead: 32, latentRank: 1024 }, 1024, 256],
]) {
  const spec = { ...f, maxLen: cached + k, allowLongWork: true };
  const s = attn.createSession(spec);
  for (let at = 0; at < cached; at += 1000) s.append(rand(Math.min(1000, cached - at) * f.dModel, at));  // fill the cache
  const x = rand(k * f.dModel, 9);
  add(`append ${k} after ${cached} ${JSON.stringify(f)}`, median(() => s.append(x), () => s.truncate(cached)),
    workOf('append', { ...spec, seqLen: k }, cached));
  s.dispose();
}

// ---- training: a step, evaluate, headScores, attention, export, load -----------------------------
const trainers = [
  { task: 'copy', seqLen: 32, batchSize: 16, seed: 1, model: { variant: 'mha', dModel: 64, nHeads: 4 } },
  { task: 'induction', seqLen: 32, batchSize: 16, seed: 1, model: { variant: 'mha', dModel: 64, nHeads: 4, nLayers: 2, rope: true } },
  { task: 'copy', seqLen: 16, batchSize: 8, seed: 1, model: { variant: 'gqa', dModel: 256, nHeads: 8, nKvHeads: 2, nLayers: 2, mlp: true } },
  { task: 'copy', seqLen: 64, batchSize: 4, seed: 1, model: { variant: 'mla', dModel: 128, nHeads: 4, latentRank: 32, ropeDim: 8, nLayers: 2 } },
  { task: 'copy', seqLen: 8, batchSize: 4, seed: 1, allowLongWork: true, model: { variant: 'mha', dModel: 512, nHeads: 8, nLayers: 2, mlp: true } },
  { task: 'chars', text: fs.readFileSync('/work/shared/data/tinyshakespeare.txt', 'utf8').slice(0, 200000), seqLen: 64, batchSize: 8,
    seed: 1, model: { variant: 'gqa', dModel: 128, nHeads: 4, nKvHeads: 2, mlp: true } },
];
for (const s of trainers) {
  const spec = { ...s, allowLongWork: true };  // timed whatever the cap says
  const label = `${spec.model.variant} D${spec.model.dModel} L${spec.model.nLayers ?? 1}${spec.model.mlp ? ' mlp' : ''} ${spec.task} N${spec.seqLen} B${spec.batchSize}`;
  const t = attn.createTrainer(spec);
  const twin = T.createTrainer(spec);  // the raw module's trainer, for its estimates (internal _costs)
  if (twin.$attnError) throw new Error(twin.message);
  const costs = twin._costs();
  twin.delete();
  add(`createTrainer ${label}`, median(() => attn.createTrainer(spec).dispose()), costs.create);
  add(`step ${label}`, median(() => t.step(1)), costs.step);
  add(`evaluate ${label}`, median(() => t.evaluate()), costs.evaluate);
  add(`headScores ${label}`, median(() => t.headScores()), costs.headScores);
  const file = t.exportModel();
  add(`exportModel ${label}`, median(() => t.exportModel()), costs.exportModel);
  add(`loadModel ${label}`, median(() => attn.loadModel(file, { allowLongWork: true }).dispose()), costs.loadModel);
  t.dispose();
}

// ---- the fit ------------------------------------------------------------------------------------
// minimise sum_i (sum_k a_ik r_k - 1)^2 with a_ik = work_ik / seconds_i, r >= 0
const A = rows.map((r) => KINDS.map((k) => r.work[k] / r.seconds));
const rate = KINDS.map(() => 0);
for (let iter = 0; iter < 20000; iter++) {
  for (let k = 0; k < KINDS.length; k++) {
    let num = 0, den = 0;
    for (let i = 0; i < A.length; i++) {
      let pred = 0;
      for (let j = 0; j < KINDS.length; j++) if (j !== k) pred += A[i][j] * rate[j];
      num += A[i][k] * (1 - pred);
      den += A[i][k] * A[i][k];
    }
    rate[k] = den > 0 ? Math.max(0, num / den) : 0;
  }
}
console.log(`\nCost model rates, ${build} build (seconds per unit; cost.cpp):`);
for (let k = 0; k < KINDS.length; k++) console.log(`  ${KINDS[k].padEnd(12)} ${rate[k].toExponential(3)}   (${rate[k] > 0 ? (1 / rate[k]).toExponential(3) : '-'} per second)`);
console.log('\n| workload | CPU ms (median) | spread (max / min) | wall ms (median) | predicted ms | predicted / CPU |\n|---|---:|---:|---:|---:|---:|');
const ratios = [];
for (const [i, r] of rows.entries()) {
  const pred = KINDS.reduce((s, k, j) => s + r.work[k] * rate[j], 0);
  ratios.push(pred / r.seconds);
  console.log(`| ${r.name} | ${(r.seconds * 1000).toFixed(1)} | ${spreads[i].toFixed(2)} | ${(walls[i] * 1000).toFixed(1)} | ${(pred * 1000).toFixed(1)} | ${(pred / r.seconds).toFixed(2)} |`);
}
ratios.sort((a, b) => a - b);
console.log(`\npredicted / measured: min ${ratios[0].toFixed(2)}, median ${ratios[ratios.length >> 1].toFixed(2)}, max ${ratios.at(-1).toFixed(2)}`);
console.log(`{ ${KINDS.map((k, j) => `${rate[j].toExponential(3)}`).join(', ')} }  // ${KINDS.join(', ')}`);
