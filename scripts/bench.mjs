#!/usr/bin/env node
// npm run bench: the core's speed on the workloads of bench/workloads.json, natively (Google
// Benchmark, g++ -O3 -march=native) and as WebAssembly in this Node (SIMD and scalar builds),
// printed as one table: median milliseconds and GFLOP/s per row, plus the ratios that matter.
//
//   node scripts/bench.mjs [--only A,B] [--skip-native] [--skip-wasm] [--json out.json]
//
// WASM timings are taken inside wasm (emscripten_get_now around the core's forward / decode step),
// after warm-up calls, because V8 compiles wasm lazily (Liftoff first, TurboFan later).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },         // A,E8,...: these workloads only
    'skip-native': { type: 'boolean' },
    'skip-wasm': { type: 'boolean' },
    json: { type: 'string' },         // also write the results to this file
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
  const filter = `^(${[...workloads, ...training].map((w) => w.id).join('|')})/`;  // Google Benchmark names them A/real_time
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
async function loadRaw(build) {
  const lib = path.join(REPO, 'dist/lib');
  const factory = (await import(pathToFileURL(path.join(lib, `attention-${build}.mjs`)).href)).default;
  return factory({ wasmBinary: fs.readFileSync(path.join(lib, `attention-${build}.wasm`)) });
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

// Training: optimiser steps through the JS API (createTrainer), n steps per call timed in JS.
async function timeTraining(build, w) {
  const { loadAttention } = await import(pathToFileURL(path.join(REPO, 'dist/lib/attention.mjs')).href);
  const attn = await loadAttention({ simd: build === 'simd' });
  const t = attn.createTrainer(w.spec);
  // Warm-up: V8 compiles a wasm function with TurboFan in the background once it is hot, and a call
  // already running keeps its baseline (Liftoff) code: many short calls, so the functions that run a
  // whole step(k) call are optimised before the timed calls (with step(10) alone, runs of the same
  // build differed by 30 %).
  for (let i = 0; i < 40; i++) t.step(1);
  const probe = performance.now();
  t.step(5);
  const per = (performance.now() - probe) / 5;
  const n = Math.max(5, Math.ceil(300 / per));
  const rates = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    // one step(k) call may run at most maxStepsPerCall steps (about a second of work)
    for (let left = n; left > 0; left -= t.maxStepsPerCall) t.step(Math.min(left, t.maxStepsPerCall));
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

const native = opts['skip-native'] ? {} : benchNative();
const wasm = { simd: {}, scalar: {} };
if (!opts['skip-wasm']) {
  for (const build of ['simd', 'scalar']) {
    const M = await loadRaw(build);
    for (const w of workloads) {
      wasm[build][w.id] = timeWasm(M, w);
      process.stderr.write(`  wasm ${build} ${w.id}: ${fmtMs(wasm[build][w.id].ms)} ms\n`);
    }
    for (const w of training) {
      wasm[build][w.id] = await timeTraining(build, w);
      process.stderr.write(`  wasm ${build} ${w.id}: ${wasm[build][w.id].tokensPerS.toFixed(0)} tokens/s\n`);
    }
  }
}

const header = ['workload', '', 'native ms', 'GFLOP/s', 'wasm SIMD ms', 'GFLOP/s', 'wasm scalar ms', 'GFLOP/s',
  'SIMD / scalar', 'SIMD vs native'];
const rows = workloads.map((w) => {
  const n = native[w.id], s = wasm.simd[w.id], c = wasm.scalar[w.id];
  return [w.id, w.label, fmtMs(n?.ms), fmtG(n?.gflops), fmtMs(s?.ms), fmtG(s?.gflops), fmtMs(c?.ms), fmtG(c?.gflops),
    fmtR(c && s ? c.ms / s.ms : undefined), fmtR(n && s ? s.ms / n.ms : undefined)];
});
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
console.log(`\nAttention core benchmark, ${new Date().toISOString().slice(0, 10)}: ${machine()}`);
console.log('median of repeated runs; "SIMD / scalar" = scalar ms / SIMD ms (speed-up); "SIMD vs native" = SIMD ms / native ms (slow-down)\n');
console.log(line(header));
console.log(`|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const r of rows) console.log(line(r));
if (training.length) {
  const th = ['training', '', 'native tokens/s', 'wasm SIMD tokens/s', 'wasm scalar tokens/s', 'SIMD / scalar', 'native / SIMD'];
  const k = (x) => (x === undefined ? '-' : `${(x / 1000).toFixed(1)}K`);
  const trows = training.map((w) => {
    const n = native[w.id]?.tokensPerS, si = wasm.simd[w.id]?.tokensPerS, sc = wasm.scalar[w.id]?.tokensPerS;
    return [w.id, w.label, k(n), k(si), k(sc), fmtR(si && sc ? si / sc : undefined), fmtR(n && si ? n / si : undefined)];
  });
  const tw = th.map((h, i) => Math.max(h.length, ...trows.map((r) => r[i].length)));
  const tline = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(tw[i]) : c.padStart(tw[i]))).join(' | ')} |`;
  console.log('\nTraining (forward + backward + AdamW, batch x seqLen tokens per step; median of 5 timed runs):\n');
  console.log(tline(th));
  console.log(`|${tw.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const r of trows) console.log(tline(r));
}
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ machine: machine(), native, wasm }, null, 2));
