#!/usr/bin/env node
// npm run bench: the core's speed on the workloads of bench/workloads.json, natively (Google
// Benchmark, g++ -O3 -march=native) and as WebAssembly in this Node (FMA, SIMD and scalar builds),
// printed as tables: median milliseconds and GFLOP/s per row, plus the ratios that matter; then the
// kernels alone (the packed gemm at the shapes of prefill and training, and each build's
// multiply-add peak).
//
//   node scripts/bench.mjs [--only A,B,T3] [--skip-native] [--skip-wasm] [--skip-kernels] [--skip-pretrained] [--json out.json]
//
// The FMA build needs relaxed SIMD, which Node 20 runs only with --experimental-wasm-relaxed-simd:
// the script runs itself again with that flag when it is missing.
// Last, a pretrained checkpoint's row (scripts/bench-pretrained.mjs): a SmolLM2-135M-shaped model with
// random BF16 weights, prefill and decode through attn.loadPretrained, beside its bandwidth floor.
//
// WASM timings are taken inside wasm (emscripten_get_now around the core's forward / decode step),
// after warm-up calls, because V8 compiles wasm lazily (Liftoff first, TurboFan later).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const RELAXED = '--experimental-wasm-relaxed-simd';
if (!process.execArgv.includes(RELAXED)) {
  const r = spawnSync(process.execPath, [...process.execArgv, RELAXED, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const BUILDS = ['fma', 'simd', 'scalar'];

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },         // A,E8,...: these workloads only
    'skip-native': { type: 'boolean' },
    'skip-wasm': { type: 'boolean' },
    'skip-kernels': { type: 'boolean' },
    json: { type: 'string' },         // also write the results to this file
    'train-one': { type: 'string' },  // internal: fma:T1 times one training workload and prints JSON
    'skip-pretrained': { type: 'boolean' },
  },
});
const only = opts.only?.split(',');
const { workloads: allWorkloads, training: allTraining = [] } = JSON.parse(fs.readFileSync(path.join(REPO, 'bench/workloads.json'), 'utf8'));
const workloads = allWorkloads.filter((w) => !only || only.includes(w.id));
const training = allTraining.filter((w) => !only || only.includes(w.id));

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr);
    throw new Error(`bench: ${cmd} ${argv.join(' ')} failed`);
  }
  return r.stdout;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

// --- native ------------------------------------------------------------------------------------
function benchNative() {
  const dir = path.join(REPO, 'build-bench');
  if (!fs.existsSync(path.join(dir, 'build.ninja'))) {
    run('cmake', ['--preset', 'bench']);  // CMakePresets.json: build-bench, -march=native
  }
  run('cmake', ['--build', dir, '-j', process.env.BUILD_JOBS || '2', '--target', 'attn_bench']);
  if (!workloads.length) return {};
  const filter = `^(${workloads.map((w) => w.id).join('|')})/`;  // Google Benchmark names them A/real_time
  const out = run(path.join(dir, 'attn_bench'), [
    `--benchmark_filter=${filter}`, '--benchmark_format=json', '--benchmark_repetitions=5',
    '--benchmark_min_time=0.3', '--benchmark_report_aggregates_only=true']);
  const result = {};
  for (const b of JSON.parse(out).benchmarks) {
    if (b.aggregate_name !== 'median') continue;
    result[b.run_name.split('/')[0]] = { ms: b.real_time, gflops: b.GFLOPs, tokensPerS: b.tokens_per_s };
  }
  return result;
}

// --- wasm ----------------------------------------------------------------------------------------
// The attention module with the benchmark functions (build-wasm/attention-bench-<build>.mjs, built by
// npm run build; the published module in dist/lib leaves them out).
async function loadRaw(build) {
  const dir = path.join(REPO, 'build-wasm');
  const factory = (await import(pathToFileURL(path.join(dir, `attention-bench-${build}.mjs`)).href)).default;
  return factory({ wasmBinary: fs.readFileSync(path.join(dir, `attention-bench-${build}.wasm`)) });
}

function timeWasm(M, w) {
  const call = (warmup, iters) => (w.decode
    ? M.benchmarkDecode(w.spec, w.decode.cacheLen, warmup, iters)
    : M.benchmarkForward(w.spec, warmup, iters));
  const probe = call(1, 1)[0];                                    // one warm-up, one timed call
  const iters = Math.max(3, Math.min(30, Math.ceil(1500 / Math.max(probe, 1e-3))));
  const warmup = Math.max(1, Math.min(10, Math.ceil(300 / Math.max(probe, 1e-3))));
  const ms = median(call(warmup, iters));
  const flops = M.benchmarkFlops(w.spec, w.decode ? w.decode.cacheLen : 0);
  return { ms, gflops: flops / (ms * 1e6), iters };
}

/** The options of loadAttention that load one build. */
const buildOptions = (build) => ({ simd: build !== 'scalar', fma: build === 'fma' });

/** A training workload's spec, with its text read from `textFile` (relative to the repository). */
// allowLongWork: some workloads' calls are above the cap of a synchronous call (a benchmark, not a page)
function trainerSpec(w) {
  const spec = { ...w.spec, allowLongWork: true };
  return w.textFile ? { ...spec, text: fs.readFileSync(path.join(REPO, w.textFile), 'utf8') } : spec;
}

// Training: optimiser steps through the JS API (createTrainer), n steps per call timed in JS.
async function timeTraining(build, w) {
  const { loadAttention } = await import(pathToFileURL(path.join(REPO, 'dist/lib/attention.mjs')).href);
  const attn = await loadAttention(buildOptions(build));
  if (attn.info.build !== build) throw new Error(`bench: asked for the ${build} build, loaded ${attn.info.build}`);
  const t = attn.createTrainer(trainerSpec(w));
  // Warm-up: V8 compiles a hot wasm function with TurboFan in the background, and a call already
  // running keeps its baseline (Liftoff) code (wasm has no on-stack replacement). So: short calls,
  // for 1.5 s (the training functions' optimised code took 0.5-1.5 s to arrive here), and the timed
  // rounds in calls of ~20 ms as the lab makes them (its chunks). With one step(10) call as the
  // warm-up, runs of the same build differed by 30-40 %.
  const w0 = performance.now();
  while (performance.now() - w0 < 1500) t.step(1);
  const probe = performance.now();
  t.step(5);
  const per = (performance.now() - probe) / 5;
  const chunk = Math.max(1, Math.min(t.maxStepsPerCall, Math.round(20 / Math.max(per, 1e-3))));
  const n = Math.max(5, Math.ceil(300 / per));
  const rates = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let left = n; left > 0; left -= chunk) t.step(Math.min(left, chunk));
    rates.push((n * w.tokensPerStep) / ((performance.now() - t0) / 1000));
  }
  t.dispose();
  return { tokensPerS: median(rates) };
}

// --- table ---------------------------------------------------------------------------------------
const fmtMs = (x) => (x === undefined ? '-' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const fmtG = (x) => (x === undefined ? '-' : x.toFixed(1));
const fmtR = (x) => (x === undefined || !isFinite(x) ? '-' : `${x.toFixed(2)}x`);

function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, node ${process.version}`;
}

// One training workload of one build, in a process of its own (see timeTrainingIsolated).
if (opts['train-one']) {
  const [build, id] = opts['train-one'].split(':');
  console.log(JSON.stringify(await timeTraining(build, allTraining.find((w) => w.id === id))));
  process.exit(0);
}

/** Native training tokens/s of one workload (attn_bench, one process). */
function nativeTraining(w) {
  const out = run(path.join(REPO, 'build-bench', 'attn_bench'), [`--benchmark_filter=^${w.id}/`, '--benchmark_format=json']);
  return JSON.parse(out).benchmarks[0].tokens_per_s;
}
/** One build's training tokens/s of one workload, in a fresh Node process (--train-one). */
function wasmTraining(build, w) {
  const r = spawnSync(process.execPath, [RELAXED, fileURLToPath(import.meta.url), '--train-one', `${build}:${w.id}`],
    { cwd: REPO, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`training ${build}:${w.id} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)).tokensPerS;
}
/**
 * Training, native and wasm alternated: three rounds of (native, FMA, SIMD, scalar), one process each,
 * medians. Timed one after the other (all native first, then wasm in one process), the same wasm
 * build came out at ~145K or ~205K tokens/s on T1 from run to run, while alternated fresh processes
 * gave ~200K every time: on this shared machine only alternated rounds give a fair native / SIMD
 * ratio.
 */
function benchTraining() {
  const out = { native: {}, fma: {}, simd: {}, scalar: {} };
  for (const w of training) {
    const runs = { native: [], fma: [], simd: [], scalar: [] };
    for (let round = 0; round < 3; round++) {
      if (!opts['skip-native']) runs.native.push(nativeTraining(w));
      if (!opts['skip-wasm']) for (const build of BUILDS) runs[build].push(wasmTraining(build, w));
    }
    for (const k of Object.keys(runs)) {
      if (runs[k].length) out[k][w.id] = { tokensPerS: median(runs[k]), runs: runs[k] };
    }
    process.stderr.write(`  training ${w.id}: ${Object.entries(runs).map(([k, v]) => `${k} ${v.map((x) => (x / 1000).toFixed(0)).join('/')}K`).join(', ')}\n`);
  }
  return out;
}

const native = opts['skip-native'] ? {} : benchNative();
// Per workload, three rounds over the builds in a rotated order (the machine is shared: a ratio of
// builds timed side by side is what can be compared); each build's median over the rounds.
const wasm = { fma: {}, simd: {}, scalar: {} };
const raw = {};
if (!opts['skip-wasm'] || !opts['skip-kernels']) for (const build of BUILDS) raw[build] = await loadRaw(build);
if (!opts['skip-wasm']) {
  for (const w of workloads) {
    const runs = Object.fromEntries(BUILDS.map((b) => [b, []]));
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < BUILDS.length; i++) {
        const build = BUILDS[(i + round) % BUILDS.length];
        runs[build].push(timeWasm(raw[build], w));
      }
    }
    for (const build of BUILDS) {
      const r = runs[build];
      wasm[build][w.id] = { ms: median(r.map((x) => x.ms)), gflops: median(r.map((x) => x.gflops)), rounds: r.map((x) => x.ms) };
    }
    process.stderr.write(`  wasm ${w.id}: ${BUILDS.map((b) => `${b} ${runs[b].map((x) => fmtMs(x.ms)).join('/')} ms`).join(', ')}\n`);
  }
}

// --- kernels alone (bench/kernel_bench.cpp) -------------------------------------------------------
// The packed gemm C (m, n) = A (m, k) @ B (k, n), B packed once, at the shapes that dominate the
// prefill workloads and the baby-GPT training step (T3: 12 x 64 = 768 rows, D 128, MLP 512), and
// one decoding gemv; against each build's multiply-add peak (registers only).
const KERNELS = JSON.parse(fs.readFileSync(path.join(REPO, 'bench/workloads.json'), 'utf8')).kernels;
const kernels = { peak: {}, gemm: {} };
if (!opts['skip-kernels']) {
  const gflops = (ms, flops) => flops / (median(ms) * 1e6);
  const warm = (M) => { const t0 = performance.now(); while (performance.now() - t0 < 1000) { M.benchmarkPeak(7, 1e5, 0, 1); M.benchmarkPeak(8, 1e5, 0, 1); for (const g of KERNELS) M.benchmarkGemm(g.m, g.n, g.k, 0, 1); } };
  for (const build of BUILDS) warm(raw[build]);
  const runs = Object.fromEntries(BUILDS.map((b) => [b, { peak: [], gemm: KERNELS.map(() => []) }]));
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < BUILDS.length; i++) {
      const build = BUILDS[(i + round) % BUILDS.length];
      const M = raw[build];
      const p7 = M.benchmarkPeak(7, 1e6, 1, 5), p8 = M.benchmarkPeak(8, 1e6, 1, 5);
      runs[build].peak.push(Math.max(gflops(p7, p7.flops), gflops(p8, p8.flops)));
      KERNELS.forEach((g, j) => {
        const flops = 2 * g.m * g.n * g.k;
        const iters = Math.max(3, Math.min(50, Math.round(2e9 / flops)));
        runs[build].gemm[j].push(gflops(M.benchmarkGemm(g.m, g.n, g.k, 2, iters), flops));
      });
    }
  }
  for (const build of BUILDS) {
    kernels.peak[build] = { gflops: median(runs[build].peak), rounds: runs[build].peak };
    kernels.gemm[build] = runs[build].gemm.map((r) => ({ gflops: median(r), rounds: r }));
  }
}
if (training.length) {
  if (!opts['skip-native']) run('cmake', ['--build', path.join(REPO, 'build-bench'), '-j', process.env.BUILD_JOBS || '2', '--target', 'attn_bench']);
  const t = benchTraining();
  Object.assign(native, t.native);
  for (const build of BUILDS) Object.assign(wasm[build], t[build]);
}

/** A markdown table: the first two columns left-aligned, the others right-aligned. */
function printTable(head, body) {
  const w = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const row = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ')} |`;
  console.log(row(head));
  console.log(`|${w.map((n, i) => (i < 2 ? '-'.repeat(n + 2) : `${'-'.repeat(n + 1)}:`)).join('|')}|`);
  for (const r of body) console.log(row(r));
}

const header = ['workload', '', 'native ms', 'GFLOP/s', 'wasm FMA ms', 'GFLOP/s', 'wasm SIMD ms', 'GFLOP/s', 'wasm scalar ms', 'GFLOP/s',
  'FMA / SIMD', 'SIMD / scalar', 'FMA vs native'];
const rows = workloads.map((w) => {
  const n = native[w.id], f = wasm.fma[w.id], s = wasm.simd[w.id], c = wasm.scalar[w.id];
  return [w.id, w.label, fmtMs(n?.ms), fmtG(n?.gflops), fmtMs(f?.ms), fmtG(f?.gflops), fmtMs(s?.ms), fmtG(s?.gflops),
    fmtMs(c?.ms), fmtG(c?.gflops), fmtR(f && s ? s.ms / f.ms : undefined), fmtR(c && s ? c.ms / s.ms : undefined),
    fmtR(n && f ? f.ms / n.ms : undefined)];
});
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
console.log(`\nAttention core benchmark, ${new Date().toISOString().slice(0, 10)}: ${machine()}`);
console.log('median of repeated runs; "FMA / SIMD" = SIMD ms / FMA ms and "SIMD / scalar" = scalar ms / SIMD ms (speed-ups); "FMA vs native" = FMA ms / native ms (slow-down)\n');
if (rows.length) {
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}
if (training.length) {
  const th = ['training', '', 'native tokens/s', 'wasm FMA tokens/s', 'wasm SIMD tokens/s', 'wasm scalar tokens/s',
    'FMA steps/s', 'FMA / SIMD', 'SIMD / scalar', 'native / FMA'];
  const k = (x) => (x === undefined ? '-' : `${(x / 1000).toFixed(1)}K`);
  const trows = training.map((w) => {
    const n = native[w.id]?.tokensPerS, fm = wasm.fma[w.id]?.tokensPerS, si = wasm.simd[w.id]?.tokensPerS, sc = wasm.scalar[w.id]?.tokensPerS;
    return [w.id, w.label, k(n), k(fm), k(si), k(sc), fm ? (fm / w.tokensPerStep).toFixed(1) : '-',
      fmtR(fm && si ? fm / si : undefined), fmtR(si && sc ? si / sc : undefined), fmtR(n && fm ? n / fm : undefined)];
  });
  console.log('\nTraining (forward + backward + AdamW, batch x seqLen tokens per step; median of 3 alternated rounds, each a median of 5 timed runs):\n');
  printTable(th, trows);
}
if (!opts['skip-kernels']) {
  const kh = ['kernel', 'm x n x k', ...BUILDS.map((b) => `${b} GFLOP/s`), 'FMA / SIMD', 'FMA % of its peak', 'SIMD % of its peak'];
  const spread = (r) => `${fmtG(Math.min(...r))}-${fmtG(Math.max(...r))}`;
  const krows = [['multiply-add peak (registers)', '-', ...BUILDS.map((b) => `${fmtG(kernels.peak[b].gflops)} (${spread(kernels.peak[b].rounds)})`),
    fmtR(kernels.peak.fma.gflops / kernels.peak.simd.gflops), '100 %', '100 %']];
  KERNELS.forEach((g, j) => {
    const at = (b) => kernels.gemm[b][j].gflops;
    krows.push([g.label, `${g.m} x ${g.n} x ${g.k}`, ...BUILDS.map((b) => `${fmtG(at(b))} (${spread(kernels.gemm[b][j].rounds)})`),
      fmtR(at('fma') / at('simd')), `${Math.round((100 * at('fma')) / kernels.peak.fma.gflops)} %`,
      `${Math.round((100 * at('simd')) / kernels.peak.simd.gflops)} %`]);
  });
  const kw = kh.map((h, i) => Math.max(h.length, ...krows.map((r) => r[i].length)));
  const kline = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(kw[i]) : c.padStart(kw[i]))).join(' | ')} |`;
  console.log('\nKernels alone in wasm (bench/kernel_bench.cpp): median GFLOP/s of 5 interleaved rounds (min-max); peak = the faster of two register-only multiply-add loops:\n');
  console.log(kline(kh));
  console.log(`|${kw.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const r of krows) console.log(kline(r));
}

// --- pretrained checkpoint (scripts/bench-pretrained.mjs): a SmolLM2-135M-shaped model, random BF16 ---
let pretrained = [];
if (!opts['skip-wasm'] && !opts['skip-pretrained'] && !only) {
  const { benchPretrained, pretrainedRows } = await import('./bench-pretrained.mjs');
  for (const build of BUILDS) pretrained.push(await benchPretrained(build));
  const { header: ph, rows: prows } = pretrainedRows(pretrained);
  console.log('\nPretrained checkpoint through attn.loadPretrained (median (min-max); the floor: bytes one decode step streams at the copy bandwidth of a wasm memory.copy):\n');
  printTable(ph, prows);
}
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ machine: machine(), native, wasm, kernels, pretrained }, null, 2));
