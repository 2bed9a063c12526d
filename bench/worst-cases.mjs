#!/usr/bin/env node
// bench/worst-cases.mjs: the slowest call each entry point accepts, timed (docs/reliability.md,
// "What a call may cost"). A benchmark, not a test: it prints a table.
//
//   node bench/worst-cases.mjs [--build simd|scalar]
//
// For each entry point and each way it can be made slow (long sequences, wide models, MLA's latent
// rank, seeded weights, the walkthrough's stages, long caches, big trainers), the largest size the
// core accepts without allowLongWork is found by bisection over its refusals (resolveShape, the
// internal _cost estimate, createTrainer, which refuse before running anything), then the call is
// timed once at that size (after a warm-up call at a small size, so that V8 has compiled the code).
import { parseArgs } from 'node:util';

import { loadRawModules } from './raw-modules.mjs';

const { values: opts } = parseArgs({ options: { build: { type: 'string', default: 'simd' } } });
const build = opts.build;

const { M, T, attn } = await loadRawModules(build);

const accepts = (fn) => {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
};
/** The largest integer in [lo, hi] with ok(v) (ok(lo) holds; ok is monotone). */
function largest(lo, hi, ok, step = 1) {
  if (!ok(lo)) throw new Error(`nothing accepted at ${lo}`);
  while (hi - lo > step) {
    const mid = Math.floor((lo + hi) / 2 / step) * step;
    if (mid <= lo) break;
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return ok(hi) ? hi : lo;
}
/** One call timed: wall ms and this process's CPU ms (user + system: on a shared machine, close to
 * what the call takes alone). */
const time = (fn) => {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = fn();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpu: (c.user + c.system) / 1000, r };
};
const x = (n) => new Float32Array(n).map((_, i) => Math.sin(i) * 0.5);

/** @type {string[][]} */
const table = [];
const row = (entry, worst, estimate, { ms, cpu }) => {
  table.push([entry, worst, estimate === undefined ? '-' : `${(estimate * 1000).toFixed(0)}`, cpu.toFixed(0), ms.toFixed(0)]);
  process.stderr.write(`  ${entry} ${worst}: ${cpu.toFixed(0)} ms CPU, ${ms.toFixed(0)} ms wall\n`);
};
const estimate = (kind, spec, cached = 0) => M._cost(kind, spec, cached).seconds;

// ---- forward: the longest sequence (scores), the widest model (projections, seeded weights) ------
attn.forward({ variant: 'mha', seqLen: 64, dModel: 32, nHeads: 4, x: x(64 * 32) });  // warm-up
for (const [label, base, vary, lo, hi, step] of [
  ['seqLen, dModel 1 (the softmax)', { variant: 'mha', dModel: 1, nHeads: 1 }, 'seqLen', 64, 131072, 64],
  ['seqLen, dModel 64, causal', { variant: 'mha', dModel: 64, nHeads: 4, causal: true }, 'seqLen', 64, 131072, 64],
  ['dModel, 1 token (seeded weights)', { variant: 'mha', seqLen: 1, nHeads: 8 }, 'dModel', 64, 131072, 64],
  ['dModel, 512 tokens', { variant: 'gqa', seqLen: 512, nHeads: 8, nKvHeads: 2 }, 'dModel', 64, 131072, 64],
  ['seqLen, MLA latentRank 4096 dHead 1', { variant: 'mla', dModel: 64, nHeads: 8, dHead: 1, latentRank: 4096 }, 'seqLen', 8, 131072, 8],
]) {
  const spec = (v) => ({ ...base, [vary]: v });
  const v = largest(lo, hi, (n) => accepts(() => attn.resolveShape(spec(n))), step);
  const s = spec(v);
  row('forward', `${label}: ${vary} ${v}`, estimate('forward', s), time(() => attn.forward({ ...s, x: x(s.seqLen * s.dModel) })));
}
// returnIntermediates: the stages' plain loops (check_intermediates: the estimate of _cost 'intermediates')
{
  const spec = (n) => ({ variant: 'mha', dModel: 64, nHeads: 4, seqLen: n });
  const v = largest(8, 8192, (n) => accepts(() => attn.resolveShape(spec(n))) && estimate('intermediates', spec(n)) <= 1, 8);
  const s = spec(v);
  row('forward (returnIntermediates)', `seqLen ${v}, dModel 64, 4 heads`, estimate('intermediates', s),
    time(() => attn.forward({ ...s, returnIntermediates: true, x: x(s.seqLen * s.dModel) })));
}

// ---- a layer's forward: the most rows --------------------------------------------------------------
{
  const spec = { variant: 'mha', dModel: 64, nHeads: 4 };
  const layer = attn.createLayer(spec);
  layer.forward(x(64 * 64));
  const v = largest(64, 131072, (n) => estimate('layer', { ...spec, seqLen: n }) <= 1, 64);
  row('layer.forward', `x of ${v} rows, dModel 64, 4 heads`, estimate('layer', { ...spec, seqLen: v }), time(() => layer.forward(x(v * 64))));
  layer.dispose();
}
// ---- createLayer / createSession: the widest seeded weights, the longest cache ----------------------
{
  const v = largest(64, 131072, (d) => accepts(() => attn.createLayer({ variant: 'mha', dModel: d, nHeads: 8, seed: 3 }).dispose()), 64);
  const created = time(() => attn.createLayer({ variant: 'mha', dModel: v, nHeads: 8, seed: 3 }));
  created.r.dispose();
  row('createLayer', `dModel ${v}, 8 heads, seeded`, estimate('createLayer', { variant: 'mha', dModel: v, nHeads: 8 }), created);
  const m = largest(64, 131072, (n) => accepts(() => attn.resolveShape({ variant: 'mla', dModel: 64, nHeads: 32, dHead: 8,
    latentRank: 1024, maxLen: n })), 64);
  const sspec = { variant: 'mla', dModel: 64, nHeads: 32, dHead: 8, latentRank: 1024, maxLen: m };
  const t = time(() => attn.createSession(sspec));
  row('createSession', `MLA latentRank 1024, 32 heads, maxLen ${m}`, estimate('createSession', sspec), t);
  // ---- session.append: the largest chunk at once. (The last token of a full cache of maxLen, which
  // createSession's estimate bounds, is not timed: filling 120,000 rows takes hours of appends.)
  t.r.dispose();
  const cspec = { variant: 'mla', dModel: 64, nHeads: 8, dHead: 1, latentRank: 4096, maxLen: 8192 };
  const c = attn.createSession(cspec);
  const k = largest(1, 8192, (n) => estimate('append', { ...cspec, seqLen: n }, 0) <= 1);
  const big = time(() => c.append(x(k * 64)));
  row('session.append', `${k} tokens at once (MLA latentRank 4096, dHead 1, 8 heads)`, estimate('append', { ...cspec, seqLen: k }, 0), big);
  c.dispose();
}

// ---- training: the biggest trainer of each shape the caps accept, each of its calls ------------------
const trainerAt = (d, base) => ({ ...base, model: { ...base.model, dModel: d } });
for (const [label, base] of [
  ['4 layers, MLP, seqLen 2, batch 1', { task: 'copy', seqLen: 2, batchSize: 1, model: { variant: 'mha', nHeads: 8, nLayers: 4, mlp: true } }],
  ['4 layers, MLP, seqLen 16, batch 16', { task: 'copy', seqLen: 16, batchSize: 16, model: { variant: 'mha', nHeads: 8, nLayers: 4, mlp: true } }],
  ['1 layer, seqLen 256, batch 1', { task: 'copy', seqLen: 256, batchSize: 1, model: { variant: 'mha', nHeads: 8 } }],
]) {
  const fits = (v) => accepts(() => attn.createTrainer(trainerAt(v, base)).dispose());
  if (!fits(8)) {  // some call of even the smallest such trainer is above the cap on this build
    table.push(['createTrainer', `${label}: refused from dModel 8`, '-', '-', '-']);
    continue;
  }
  const d = largest(8, 4096, fits, 8);
  const spec = trainerAt(d, base);
  const created = time(() => attn.createTrainer(spec));
  const t = created.r;
  const twin = T.createTrainer(spec);
  const c = twin._costs();
  twin.delete();
  const what = `dModel ${d}, ${label}`;
  row('createTrainer', what, c.create.seconds, created);
  row('trainer.step', `${t.maxStepsPerCall} steps (maxStepsPerCall), ${what}`, c.step.seconds * t.maxStepsPerCall,
    time(() => t.step(t.maxStepsPerCall)));
  row('trainer.evaluate', what, c.evaluate.seconds, time(() => t.evaluate()));
  row('trainer.headScores', what, c.headScores.seconds, time(() => t.headScores()));
  row('trainer.attention', `${spec.seqLen} tokens, ${what}`, c.attention.seconds,
    time(() => t.attention(new Float32Array(spec.seqLen).fill(1))));
  const exported = time(() => t.exportModel());
  row('trainer.exportModel', `${(exported.r.length / 2 ** 20).toFixed(0)} MiB, ${what}`, c.exportModel.seconds, exported);
  const loaded = time(() => attn.loadModel(exported.r));
  row('loadModel', `the export above, its trainer alive`, c.loadModel.seconds, loaded);
  loaded.r.dispose();
  t.dispose();
}

console.log(`\nThe slowest call each entry point accepts (no allowLongWork), ${build} build, ${new Date().toISOString().slice(0, 10)}:\n`);
const header = ['entry point', 'worst case accepted', 'estimate ms', 'CPU ms', 'wall ms'];
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const r of table) console.log(line(r));
