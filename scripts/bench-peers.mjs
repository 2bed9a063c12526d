#!/usr/bin/env node
// npm run bench:peers: our core against its peers on workloads A-E and the baby-GPT training step (T3)
// of bench/workloads.json, in one run.
//
//   node scripts/bench-peers.mjs [--only A,E8,T3] [--rounds 3] [--skip ort,numpy,native,scalar,torch] [--json out.json]
//                                [--skip-pair D:scalar,...] [--before DIR]   DIR: a copy of an earlier dist/lib, timed as 'before' (SIMD)
//
// Peers, each one process at a time, one thread each, in interleaved rounds (round r runs every peer on
// a workload once, in an order rotated by r, then the next workload):
//   ours WASM FMA, SIMD, scalar dist/lib (npm run build), through attention.forward / session calls; the FMA
//                              build (relaxed SIMD) in Node with --experimental-wasm-relaxed-simd
//   ours FMA through a layer   prefill: createLayer once, layer.forward(x) per call (weights packed once,
//                              as ORT Web packs its graph's initializers once per session)
//   ours native                build-bench/attn_bench (Google Benchmark, g++ -O3 -march=native)
//   ONNX Runtime Web           onnxruntime-web (npm devDependency), wasm backend, 1 thread, in this Node,
//                              on a plain MatMul/Softmax graph exported by torch.onnx.export, and (MHA
//                              workloads) on one with its fused com.microsoft.MultiHeadAttention op
//   NumPy                      Debian's python3-numpy on OpenBLAS, OPENBLAS_NUM_THREADS=1
//   copy                       a wasm memory.copy of 64 MiB: the bandwidth behind the decode floor
// Data: scripts/bench_peers.py writes each workload's seeded weights, x and (decode) KV cache, and the
// ONNX graph, into .bench-cache/ (gitignored), made on demand. Before anything is timed, every peer's
// output is compared with ours (WASM SIMD): max |diff| / max |ours| must stay below 1e-3.
// Training (workloads with "peers" in bench/workloads.json): ours FMA and SIMD through createTrainer,
// ours native (attn_bench), PyTorch on the CPU (Debian's python3-torch) with one thread and with all
// cores, the same model, data and AdamW (scripts/bench_peers.py), each timing `steps` optimiser steps
// after a warm-up. Before timing, PyTorch in float64 computes the loss and every gradient of our
// first step on our step-0 weights; ours (both builds) must agree (see TRAIN_TOL).
// PyTorch (only to export the ONNX graphs) is large: without it the ONNX column is skipped and the
// script says how to install it (`apt-get install python3-torch`; `bash scripts/setup.sh --peers`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(REPO, '.bench-cache');
const PY = '/usr/bin/python3';  // Debian's, with python3-numpy (a pyenv python3 may come first on PATH)
const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },         // A,E8,...: these workloads only
    skip: { type: 'string' },         // ort,numpy,native,scalar: leave these peers out
    rounds: { type: 'string', default: '3' },
    'skip-pair': { type: 'string' },  // D:scalar,...: one peer on one workload (a minute per call)
    before: { type: 'string' },       // a copy of an earlier dist/lib, timed as 'before' (SIMD)
    json: { type: 'string' },         // also write the results to this file
    clock: { type: 'string', default: 'cpu' },  // cpu (default) | wall: see CLOCK
  },
});
// Which time counts. 'cpu': each single-threaded peer's own CPU time (user + system of its process):
// on a shared machine its wall time includes the time its core ran other work, which swung 2-30x
// here; CPU time does not (it still pays for caches and memory bandwidth shared with others).
// 'wall': wall time, as a learner waits on an idle machine. Peers with several threads
// (PyTorch on all cores) are always timed in wall time.
if (!['cpu', 'wall'].includes(opts.clock)) throw new Error(`bench:peers: --clock (${opts.clock}) must be cpu or wall`);
const CPU = opts.clock === 'cpu';
const only = opts.only?.split(',');
const skip = new Set(opts.skip?.split(',') ?? []);
const rounds = Number(opts.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`bench:peers: --rounds (${opts.rounds}) must be an integer >= 1`);
const skipPairs = new Set(opts['skip-pair']?.split(',') ?? []);
const { workloads: all, training: allTraining = [] } = JSON.parse(fs.readFileSync(path.join(REPO, 'bench/workloads.json'), 'utf8'));
const workloads = all.filter((w) => !only || only.includes(w.id));
const trainings = allTraining.filter((w) => w.peers && (!only || only.includes(w.id)));
// Node 20 runs the FMA build only with this flag; the worker processes get it ('before' does not: an
// older dist/lib has no FMA build to choose).
const RELAXED = '--experimental-wasm-relaxed-simd';
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const log = (s) => process.stderr.write(`${s}\n`);

// NumPy: one OpenBLAS thread; the machine's OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE overrides are dropped
// for this command alone, and glibc keeps freed memory (page faults cost ~13 us per page in these VMs).
const numpyEnv = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1',
  MALLOC_MMAP_THRESHOLD_: '4000000000', MALLOC_TRIM_THRESHOLD_: '100000000000' };
delete numpyEnv.OPENBLAS_CORETYPE;
delete numpyEnv.OPENBLAS_L2_SIZE;

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.status !== 0) {
    process.stderr.write((r.stdout ?? '') + (r.stderr ?? ''));
    throw new Error(`bench:peers: ${cmd} ${argv.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`);
  }
  return r.stdout;
}
const lastJson = (out) => JSON.parse(out.trim().split('\n').pop());

// ---- setup ------------------------------------------------------------------------------------------
if (!fs.existsSync(path.join(REPO, 'dist/lib/attention.mjs'))) run('node', ['scripts/build.mjs'], { stdio: 'inherit' });
if (spawnSync(PY, ['-c', 'import numpy'], { encoding: 'utf8' }).status !== 0) {
  log(`bench:peers: ${PY} cannot import numpy, which makes every workload's data: install python3-numpy`);
  log('  (`bash scripts/setup.sh --peers` installs it with OpenBLAS and PyTorch).');
  process.exit(1);
}
// The peers must run on OpenBLAS: Debian's numpy and torch link libblas.so.3, which without
// libopenblas0-pthread is the reference BLAS (netlib), 10-15x slower (a PyTorch T3 step: 1.1 s
// instead of 75 ms), a peer no one would use. Refuse to time against it.
const blas = spawnSync(PY, ['-c', "import numpy; print(' '.join(sorted({l.split()[-1] for l in open('/proc/self/maps') if 'blas' in l})))"],
  { encoding: 'utf8' }).stdout.trim();
if (!/openblas/i.test(blas)) {
  log(`bench:peers: NumPy runs on ${blas || 'no BLAS library found'}, not OpenBLAS: the peers would be the reference BLAS.`);
  log('  Install OpenBLAS with `bash scripts/setup.sh --peers` (apt-get install libopenblas0-pthread).');
  process.exit(1);
}
const hasTorch = spawnSync(PY, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;
if (!hasTorch && !skip.has('ort')) {
  log('bench:peers: PyTorch is missing, so the ONNX graphs cannot be exported and ONNX Runtime Web is skipped.');
  log('  Install it with `apt-get install python3-torch libopenblas0-pthread` (or `bash scripts/setup.sh --peers`).');
  skip.add('ort');
}
const nativeBin = path.join(REPO, 'build-bench/attn_bench');
if (!skip.has('native')) {
  if (!fs.existsSync(path.join(REPO, 'build-bench/build.ninja'))) {
    run('cmake', ['--preset', 'bench']);  // CMakePresets.json: build-bench, -march=native
  }
  run('cmake', ['--build', 'build-bench', '-j', process.env.BUILD_JOBS || '2', '--target', 'attn_bench']);
}

function prepare(w) {
  const dir = path.join(CACHE, w.id);
  const stamp = JSON.stringify({ w, torch: hasTorch, v: 3 });
  const stampFile = path.join(dir, 'stamp.json');
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return dir;
  log(`  preparing ${w.id} (seeded data${hasTorch ? ', ONNX export' : ''}) in ${path.relative(REPO, dir)}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const wfile = path.join(dir, 'workload.json');
  fs.writeFileSync(wfile, JSON.stringify(w));
  run(PY, ['scripts/bench_peers.py', 'prepare', wfile, dir], { env: numpyEnv });
  fs.writeFileSync(stampFile, stamp);
  return dir;
}

// ---- one timed process per peer -------------------------------------------------------------------
const before = opts.before;
const PEERS = ['fma', 'simd', 'layer', ...(before ? ['before'] : []), 'scalar', 'native', 'ort', 'ortf', 'numpy'].filter((p) => !skip.has(p) && !(p === 'ortf' && skip.has('ort')));
const REF = PEERS.includes('fma') ? 'fma' : 'simd';  // the ratios' reference: our best build
function timePeer(peer, w, dir) {
  if (peer === 'layer' && w.decode) return undefined;  // a layer is for prefill; decoding runs through a session
  if (peer === 'numpy') {
    const r = lastJson(run(PY, ['scripts/bench_peers.py', 'numpy', dir, '1', w.decode ? '20' : '5'], { env: numpyEnv }));
    return CPU ? r.cpuMs[0] : r.ms[0];
  }
  if (peer === 'native') {
    const out = run(nativeBin, [`--benchmark_filter=^${w.id}/`, '--benchmark_format=json', '--benchmark_min_time=1']);
    const b = JSON.parse(out).benchmarks[0];
    return CPU ? b.cpu_time : b.real_time;  // ms (Unit(kMillisecond))
  }
  const flags = peer === 'before' ? [] : [RELAXED];
  const r = lastJson(run('node', [...flags, 'scripts/bench-peers-worker.mjs', peer, dir, '1500'], { env: { ...process.env, ATTN_BEFORE_LIB: before && path.resolve(before) } }));
  return r.skipped ? undefined : CPU ? r.cpuMs : r.ms;
}

// Output check before timing: every peer's output (written by its first run) against ours.
function check(w, dir) {
  const rd = (p) => { const f = path.join(dir, `out-${p}.bin`); if (!fs.existsSync(f)) return null; const b = fs.readFileSync(f); return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4); };
  const ours = rd('simd');
  const res = {};
  const big = ours.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  for (const p of ['fma', 'layer', 'before', 'scalar', 'ort', 'ortf', 'numpy']) {
    const o = rd(p);
    if (!o) continue;
    if (o.length !== ours.length) throw new Error(`bench:peers: ${w.id}: ${p} output has ${o.length} values, ours ${ours.length}`);
    let d = 0;
    for (let i = 0; i < o.length; i++) d = Math.max(d, Math.abs(o[i] - ours[i]));
    if (!(d <= 1e-3 * big)) throw new Error(`bench:peers: ${w.id}: ${p} output differs from ours: max |diff| ${d} (max |ours| ${big})`);
    res[p] = d / big;
  }
  return res;
}

const results = {};
const copyGbs = [];
const t0 = Date.now();
for (const w of workloads) {
  const dir = prepare(w);
  for (const p of ['fma', 'simd', 'layer', 'before', 'scalar', 'ort', 'ortf', 'numpy']) fs.rmSync(path.join(dir, `out-${p}.bin`), { force: true });
  results[w.id] = { ms: Object.fromEntries(PEERS.map((p) => [p, []])), check: null };
  for (let r = 0; r < rounds; r++) {
    const order = PEERS.map((_, i) => PEERS[(i + r) % PEERS.length]);
    if (r === 0) order.sort((a, b) => (a === 'simd' ? -1 : b === 'simd' ? 1 : 0));  // ours first: the reference
    for (const p of order) {
      if (skipPairs.has(`${w.id}:${p}`)) continue;
      const ms = timePeer(p, w, dir);
      if (ms !== undefined) results[w.id].ms[p].push(ms);
      log(`  ${w.id} round ${r + 1}: ${p} ${ms === undefined ? 'skipped' : `${ms.toFixed(2)} ms`}`);
    }
    if (r === 0) results[w.id].check = check(w, dir);
    if (w.decode) {
      const c = lastJson(run('node', ['scripts/bench-peers-worker.mjs', 'copy', dir, '800']));
      copyGbs.push(CPU ? c.gbsCpu : c.gbs);
      log(`  copy bandwidth: ${copyGbs.at(-1).toFixed(1)} GB/s`);
    }
  }
}

// ---- table ---------------------------------------------------------------------------------------------
const fmt = (x) => (x === undefined ? '-' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const spread = (xs) => (xs.length ? `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}` : '-');
const copy = copyGbs.length ? median(copyGbs) : undefined;
const label = { fma: 'ours WASM FMA', simd: 'ours WASM SIMD', layer: 'ours FMA, createLayer', before: 'ours SIMD before', scalar: 'ours WASM scalar', native: 'ours native', ort: 'ORT Web plain graph', ortf: 'ORT Web fused MHA op', numpy: 'NumPy+OpenBLAS (1T)' };
function streamedBytes(w) {  // decode: every weight once + the K/V cache once, float32
  const s = w.spec, d = s.dModel, h = s.nHeads, g = s.variant === 'mha' ? h : s.variant === 'mqa' ? 1 : s.nKvHeads;
  const dh = s.dHead ?? d / h;
  return 4 * (d * h * dh * 2 + d * g * dh * 2 + 2 * g * dh * w.decode.cacheLen);
}
const lines = [];
const say = (s) => { lines.push(s); console.log(s); };
say(`\nbench:peers ${new Date().toISOString().slice(0, 16)}Z: ${os.cpus()[0]?.model}, ${os.cpus().length} cores, node ${process.version}, ${rounds} rounds, ${((Date.now() - t0) / 1000).toFixed(0)} s, ${CPU ? 'CPU time of each peer\'s process' : 'wall time'}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min)`);
say(`median over rounds of each round's median ms (min-max over rounds); ratio = peer ms / ours ${REF.toUpperCase()} ms (> 1: ours faster)\n`);
const head = ['workload', ...PEERS.map((p) => label[p]), ...PEERS.filter((p) => p !== REF).map((p) => `${p} / ${REF.toUpperCase()}`), 'check (max rel diff)'];
if (copy) head.push(`${REF.toUpperCase()} / floor (copy = bytes read / read+written)`);
if (workloads.length) {
  say(`| ${head.join(' | ')} |`);
  say(`|${head.map((_, i) => (i === 0 ? '---' : '--:')).join('|')}|`);
}
for (const w of workloads) {
  const r = results[w.id];
  const med = Object.fromEntries(PEERS.map((p) => [p, r.ms[p].length ? median(r.ms[p]) : undefined]));
  const cells = [`${w.id} ${w.label}`, ...PEERS.map((p) => `${fmt(med[p])} (${spread(r.ms[p])})`)];
  for (const p of PEERS.filter((q) => q !== REF)) {
    const ratios = r.ms[p].map((ms, i) => ms / r.ms[REF][i]).filter(Number.isFinite);
    cells.push(med[p] && med[REF] ? `${(med[p] / med[REF]).toFixed(2)}x (${ratios.length ? `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}` : '-'})` : '-');
  }
  cells.push(Object.entries(r.check ?? {}).map(([p, d]) => `${p} ${d.toExponential(0)}`).join(', ') || '-');
  if (copy) {
    if (w.decode) {
      const floorMs = streamedBytes(w) / (copy * 1e6);
      // Two conventions: a copy of n bytes in t counted as n / t (bytes read) or 2n / t (read + written).
      cells.push(`${(med[REF] / floorMs).toFixed(2)}x / ${(med[REF] / (floorMs / 2)).toFixed(2)}x (floor ${fmt(floorMs)} / ${fmt(floorMs / 2)} ms = ${(streamedBytes(w) / 1e6).toFixed(0)} MB at ${copy.toFixed(1)} / ${(2 * copy).toFixed(1)} GB/s)`);
    } else cells.push('');
  }
  say(`| ${cells.join(' | ')} |`);
}
if (copy) say(`\ncopy bandwidth (wasm memory.copy, 64 MiB, bytes read per s): median ${copy.toFixed(1)} GB/s, ${Math.min(...copyGbs).toFixed(1)}-${Math.max(...copyGbs).toFixed(1)} over ${copyGbs.length} runs`);

// ---- training: the baby-GPT step against PyTorch on the CPU ----------------------------------------
// Tolerances of the check, |ours - PyTorch float64| / |PyTorch float64| for the loss, max over the
// elements / max |PyTorch float64| for the worst gradient tensor. Measured: loss 1e-9, gradients
// 1.4e-6 for both builds, as PyTorch's own float32 run (printed beside ours).
const TRAIN_TOL = { loss: 1e-6, grad: 1e-4 };
const cores = os.cpus().length;
const TRAIN_PEERS = ['train:fma', 'train:simd', 'native', 'torch1', 'torchall']
  .filter((p) => !(skip.has('native') && p === 'native') && !(skip.has('torch') && p.startsWith('torch')));
const trainLabel = { 'train:fma': 'ours WASM FMA', 'train:simd': 'ours WASM SIMD', native: 'ours native',
  torch1: 'PyTorch CPU, 1 thread', torchall: `PyTorch CPU, ${cores} threads` };
const torchDefault = hasTorch ? Number(run(PY, ['-c', 'import torch; print(torch.get_num_threads())']).trim()) : undefined;
const trainResults = {};
function timeTrainPeer(peer, w, dir) {
  const steps = String(w.peers.steps);
  if (peer.startsWith('train:')) {
    const r = lastJson(run('node', [RELAXED, 'scripts/bench-peers-worker.mjs', peer, dir, steps]));
    return CPU ? r.cpuMsPerStep : r.msPerStep;
  }
  if (peer === 'native') {
    const out = run(nativeBin, [`--benchmark_filter=^${w.id}/`, '--benchmark_format=json', '--benchmark_min_time=5']);
    const b = JSON.parse(out).benchmarks[0];
    return CPU ? b.cpu_time : b.real_time;  // ms per optimiser step
  }
  const threads = peer === 'torch1' ? '1' : String(cores);
  const r = lastJson(run(PY, ['scripts/bench_peers.py', 'train', dir, threads, steps], { env: numpyEnv }));
  return CPU && peer === 'torch1' ? r.cpuMsPerStep : r.msPerStep;  // several threads: wall time
}
for (const w of trainings) {
  if (!hasTorch) { log(`bench:peers: ${w.id}: PyTorch is missing, skipped (apt-get install python3-torch)`); continue; }
  const dir = path.join(CACHE, w.id);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'workload.json'), JSON.stringify(w));
  // The check: our first step (weights at step 0, the first batch) against PyTorch in float64.
  for (const build of ['fma', 'simd']) run('node', [RELAXED, 'scripts/bench-peers-worker.mjs', `export:${build}`, dir]);
  const check = lastJson(run(PY, ['scripts/bench_peers.py', 'train-check', dir], { env: numpyEnv }));
  for (const build of ['fma', 'simd']) {
    const c = check[build];
    if (!(c.lossRel <= TRAIN_TOL.loss) || !(c.gradRel <= TRAIN_TOL.grad)) {
      throw new Error(`bench:peers: ${w.id}: ${build} differs from PyTorch (float64): loss ${c.loss} vs ${check.torch64.loss} (rel ${c.lossRel}), worst gradient ${c.gradWorst} rel ${c.gradRel}`);
    }
  }
  log(`  ${w.id} check: loss ${check.torch64.loss.toFixed(6)} (PyTorch float64); rel diff loss / worst gradient: ${['fma', 'simd', 'torch32'].map((b) => `${b} ${check[b].lossRel.toExponential(1)} / ${check[b].gradRel.toExponential(1)}`).join(', ')}`);
  const ms = Object.fromEntries(TRAIN_PEERS.map((p) => [p, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < TRAIN_PEERS.length; i++) {
      const p = TRAIN_PEERS[(i + r) % TRAIN_PEERS.length];
      ms[p].push(timeTrainPeer(p, w, dir));
      log(`  ${w.id} round ${r + 1}: ${p} ${ms[p].at(-1).toFixed(1)} ms per step`);
    }
  }
  trainResults[w.id] = { ms, check };
}
if (Object.keys(trainResults).length) {
  say(`\nTraining: optimiser steps per second (forward + backward + AdamW; ${trainings.map((w) => `${w.id}: ${w.peers.steps} steps after a warm-up`).join('; ')}); median over ${rounds} rounds (min-max); ratio = ours FMA steps/s / peer steps/s. PyTorch's default here: ${torchDefault} thread(s).\n`);
  const th = ['workload', ...TRAIN_PEERS.map((p) => trainLabel[p]), ...TRAIN_PEERS.filter((p) => p !== 'train:fma').map((p) => `FMA / ${p.replace('train:', '')}`), 'check vs PyTorch float64 (loss / worst gradient)'];
  say(`| ${th.join(' | ')} |`);
  say(`|${th.map((_, i) => (i === 0 ? '---' : '--:')).join('|')}|`);
  for (const w of trainings) {
    const t = trainResults[w.id];
    if (!t) continue;
    const sps = (x) => 1000 / x;
    const cells = [`${w.id} ${w.label}`, ...TRAIN_PEERS.map((p) => `${fmt(sps(median(t.ms[p])))} (${fmt(sps(Math.max(...t.ms[p])))}-${fmt(sps(Math.min(...t.ms[p])))})`)];
    for (const p of TRAIN_PEERS.filter((q) => q !== 'train:fma')) {
      const ratios = t.ms[p].map((m, i) => m / t.ms['train:fma'][i]);
      cells.push(`${(median(t.ms[p]) / median(t.ms['train:fma'])).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`);
    }
    cells.push(['fma', 'simd', 'torch32'].map((b) => `${b} ${t.check[b].lossRel.toExponential(0)} / ${t.check[b].gradRel.toExponential(0)}`).join(', '));
    say(`| ${cells.join(' | ')} |`);
  }
}
if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ results, copyGbs, trainResults, lines }, null, 2));
