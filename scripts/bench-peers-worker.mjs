#!/usr/bin/env node
// One timed process of `npm run bench:peers` (scripts/bench-peers.mjs): a JS peer on one workload.
//
//   node scripts/bench-peers-worker.mjs fma|simd|scalar|layer|before|ort|ortf|copy DIR [BUDGET_MS]
//
// Reads DIR/meta.json and the float32 arrays of scripts/bench_peers.py, computes the workload once and
// writes the output to DIR/out-<peer>.bin, warms up, then times calls for about BUDGET_MS and prints one
// JSON line {"ms": median wall time, "cpuMs": median CPU time of this process, "iters": n}.
//   fma, simd, scalar  our WASM builds (fma: run with node --experimental-wasm-relaxed-simd). Prefill:
//                 attention.forward({... weights, x}) of dist/lib/attention.mjs (weights and x passed on
//                 every call, as a page would). Decode: a session of the same
//                 module whose cache holds the seeded rows (the binding's benchmark-only fillForBenchmark:
//                 appending 4095 tokens of D=4096 through the API would take minutes), then
//                 append(x) + truncate(cacheLen) per step, the calls the public Session wraps one-to-one.
//   layer         our WASM FMA build through a layer: attention.createLayer({... weights}) once, then
//                 layer.forward(x) per call (prefill only): weights read, checked and packed once, as ORT's
//                 session does with its graph's initializers.
//   ort, ortf     onnxruntime-web (wasm backend, 1 thread) on DIR/plain.onnx, or DIR/fused.onnx (its fused
//                 com.microsoft.MultiHeadAttention op; MHA workloads only), both from bench_peers.py.
//   copy          copy bandwidth: memory.copy of 64 MiB inside a tiny wasm module (bytes read per second).
//
//   node scripts/bench-peers-worker.mjs export:fma|export:simd DIR     a training workload (DIR/workload.json):
//                 our trainer's step-0 weights (DIR/ours-step0.safetensors), then one step: its loss
//                 (DIR/ours-step1-<build>.json) and the model file after it, whose AdamW first moment
//                 is (1 - beta1) x the step's gradient (DIR/ours-step1-<build>.safetensors)
//   node scripts/bench-peers-worker.mjs train:fma|train:simd DIR STEPS  time STEPS optimiser steps after a
//                 1.5 s warm-up, in calls of about 20 ms as the lab makes them; prints {"msPerStep",
//                 "cpuMsPerStep", "loss"}
// (the FMA build needs node --experimental-wasm-relaxed-simd)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [peer, dir, budgetArg] = process.argv.slice(2);
const budget = Number(budgetArg ?? 1500);
// 'before' = the SIMD build of another dist/lib (ATTN_BEFORE_LIB), e.g. the code before a change, timed in the same run.
const LIB = peer === 'before' ? process.env.ATTN_BEFORE_LIB : path.join(REPO, 'dist/lib');
const build = peer === 'before' ? 'simd' : peer === 'layer' ? 'fma' : peer;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

// CPU time of this process (user + system, ms): on a shared machine a process's wall time includes
// the time the OS gave its core to others; a single-threaded peer's CPU time does not.
const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** Times fn (sync) or, with `awaited`, an async fn: {ms, cpuMs} medians per call, iters. */
async function timeIt(fn, awaited = false) {
  const call = awaited ? fn : async () => fn();
  const t0 = performance.now();
  await call();
  const first = performance.now() - t0;
  const warm = Math.max(1, Math.min(10, Math.ceil(300 / Math.max(first, 1e-3))));
  for (let i = 0; i < warm; i++) await call();
  const t1 = performance.now();
  await call();
  const per = performance.now() - t1;
  const iters = Math.max(3, Math.min(200, Math.ceil(budget / Math.max(per, 1e-3))));
  const ms = [], cpu = [];
  for (let i = 0; i < iters; i++) {
    const t = performance.now(), c = cpuNow();
    await call();
    cpu.push(cpuNow() - c);
    ms.push(performance.now() - t);
  }
  return { ms: median(ms), cpuMs: median(cpu), iters };
}

// ---- copy bandwidth: a wasm function copying 64 MiB with memory.copy, 128 MiB of traffic per call ----
if (peer === 'copy') {
  // (module (memory (export "m") 2048) (func (export "c") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.copy))
  const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 3, 127, 127, 127, 0, 3, 2, 1, 0, 5, 4, 1,
    0, 128, 16, 7, 9, 2, 1, 109, 2, 0, 1, 99, 0, 0, 10, 14, 1, 12, 0, 32, 0, 32, 1, 32, 2, 252, 10, 0, 0, 11]);
  const { instance } = await WebAssembly.instantiate(bytes);
  const size = 64 << 20;
  new Uint8Array(instance.exports.m.buffer).fill(1);
  const r = await timeIt(() => instance.exports.c(size, 0, size));
  // GB/s counted like the decode floor: bytes read (a copy also writes as many).
  console.log(JSON.stringify({ ...r, gbs: size / (r.ms * 1e6), gbsCpu: size / (r.cpuMs * 1e6) }));
  process.exit(0);
}

// ---- training workloads: our trainer through the public API --------------------------------------
if (peer.startsWith('export:') || peer.startsWith('train:')) {
  const trainBuild = peer.split(':')[1];
  const { loadAttention } = await import(pathToFileURL(path.join(REPO, 'dist/lib/attention.mjs')).href);
  const attn = await loadAttention({ simd: true, fma: trainBuild === 'fma' });
  if (attn.info.build !== trainBuild) throw new Error(`bench-peers-worker: asked for ${trainBuild}, loaded ${attn.info.build}`);
  const w = JSON.parse(fs.readFileSync(path.join(dir, 'workload.json'), 'utf8'));
  // allowLongWork: the baby-GPT's evaluate() is above the cap of a synchronous call (a benchmark, not a page)
  const t = attn.createTrainer({ ...w.spec, text: fs.readFileSync(path.join(REPO, w.textFile), 'utf8'), allowLongWork: true });
  if (peer.startsWith('export:')) {
    fs.writeFileSync(path.join(dir, 'ours-step0.safetensors'), t.exportModel());
    const { loss } = t.step(1);
    fs.writeFileSync(path.join(dir, `ours-step1-${trainBuild}.safetensors`), t.exportModel());
    fs.writeFileSync(path.join(dir, `ours-step1-${trainBuild}.json`), JSON.stringify({ loss }));
    console.log(JSON.stringify({ loss }));
  } else {
    const steps = Number(budgetArg);
    const w0 = performance.now();
    while (performance.now() - w0 < 1500) t.step(1);  // V8 tiers the training code up meanwhile
    const t1 = performance.now();
    t.step(2);
    const chunk = Math.max(1, Math.round(20 / ((performance.now() - t1) / 2)));
    let loss;
    const t0 = performance.now(), c0 = cpuNow();
    for (let left = steps; left > 0; left -= chunk) loss = t.step(Math.min(left, chunk)).loss;
    console.log(JSON.stringify({ msPerStep: (performance.now() - t0) / steps, cpuMsPerStep: (cpuNow() - c0) / steps, loss, chunk }));
  }
  t.dispose();
  process.exit(0);
}

const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
const read = (name) => {
  const b = fs.readFileSync(path.join(dir, `${name}.bin`));
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
};
const x = read('x');
const save = (out) => fs.writeFileSync(path.join(dir, `out-${peer}.bin`), Buffer.from(out.buffer, out.byteOffset, out.byteLength));
const variant = meta.g === meta.h ? 'mha' : meta.g === 1 ? 'mqa' : 'gqa';
const shape = { variant, dModel: meta.d, nHeads: meta.h, nKvHeads: meta.g, dHead: meta.dh };

let result;
if (build === 'fma' || build === 'simd' || build === 'scalar') {
  const { loadAttention } = await import(pathToFileURL(path.join(LIB, 'attention.mjs')).href);
  // 'before' may be a dist/lib older than the fma option: it gets { simd } alone (and runs without relaxed SIMD)
  const attn = await loadAttention(peer === 'before' ? { simd: true } : { simd: build !== 'scalar', fma: build === 'fma' });
  if (peer !== 'before' && attn.info.build !== build) throw new Error(`bench-peers-worker: asked for ${build}, loaded ${attn.info.build}`);
  if (peer === 'layer') {
    if (meta.decode) {
      console.log(JSON.stringify({ skipped: 'a layer is for prefill; decoding runs through a session' }));
      process.exit(0);
    }
    // allowLongWork: the workloads time calls above the cap of a synchronous call on purpose
    const layer = attn.createLayer({ ...shape, causal: meta.causal, allowLongWork: true,
      weights: { wq: read('wq'), wk: read('wk'), wv: read('wv'), wo: read('wo') } });
    save(layer.forward(x).output);
    result = await timeIt(() => layer.forward(x));
  } else if (!meta.decode) {
    const spec = { ...shape, seqLen: meta.n, causal: meta.causal, x, allowLongWork: true,
      weights: { wq: read('wq'), wk: read('wk'), wv: read('wv'), wo: read('wo') } };
    save(attn.forward(spec).output);
    result = await timeIt(() => attn.forward(spec));
  } else {
    // The module with fillForBenchmark: build-wasm/attention-bench-<build> (dist/lib's module leaves the
    // benchmark functions out); for 'before', an older dist/lib whose module still has them, else its
    // build-wasm beside it.
    const bench = peer === 'before'
      ? (fs.existsSync(path.join(LIB, `attention-bench-${build}.mjs`)) ? path.join(LIB, `attention-bench-${build}`) : path.join(LIB, `attention-${build}`))
      : path.join(REPO, 'build-wasm', `attention-bench-${build}`);
    const factory = (await import(pathToFileURL(`${bench}.mjs`).href)).default;
    const M = await factory({ wasmBinary: fs.readFileSync(`${bench}.wasm`) });
    const s = M.createSession({ ...shape, maxLen: meta.cache + 1, seed: 0, allowLongWork: true });  // seeded weights = the files
    if (typeof s.fillForBenchmark === 'function') s.fillForBenchmark(meta.cache, 0);  // an older module: a method
    else M.fillForBenchmark(s, meta.cache, 0);
    save(s.append(x).output);
    s.truncate(meta.cache);
    result = await timeIt(() => { s.append(x); s.truncate(meta.cache); });
    s.delete();
  }
} else if (peer === 'ort' || peer === 'ortf') {
  const graph = peer === 'ort' ? meta.onnx : meta.fused;  // ortf: the fused MultiHeadAttention graph (MHA only)
  if (!graph) {
    console.log(JSON.stringify({ skipped: meta.onnxMissing ?? 'no ONNX graph for this workload' }));
    process.exit(0);
  }
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  const session = await ort.InferenceSession.create(fs.readFileSync(path.join(dir, graph)), {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const feeds = { x: new ort.Tensor('float32', x, [meta.n, meta.d]) };
  // ORT's run is async (a resolved promise in the wasm backend): time it awaited, call by call.
  const run = async () => (await session.run(feeds)).y.data;
  save(await run());
  result = await timeIt(run, true);
} else {
  throw new Error(`bench-peers-worker: unknown peer ${peer}`);
}
console.log(JSON.stringify(result));
