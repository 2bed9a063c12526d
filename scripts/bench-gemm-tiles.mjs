#!/usr/bin/env node
// bench-gemm-tiles.mjs: the gemm's register blocking (the micro-tile of kMR rows x kNV vectors,
// core/include/attn/kernels.hpp) measured per choice, in the FMA and SIMD builds (and scalar, on request),
// beside each build's register-only multiply-add peak: for each tile,
// core/src/kernels.cpp and bench/kernel_bench.cpp are compiled alone with em++ (-DATTN_GEMM_MR/NV; the
// FMA ones rewritten by wasm-relaxed-fix.mjs), then every module times the packed gemm at the shapes
// of npm run bench's kernel table, in interleaved rounds, in CPU time (process.cpuUsage: this machine's
// other work does not count). Prints GFLOP/s (median and range of the rounds) per tile and shape. The tile changes no result (each C element adds its k products in order).
//
//   node scripts/bench-gemm-tiles.mjs [--tiles 4x2,6x2,4x3,3x3,5x2] [--rounds 5] [--builds fma,simd,scalar]
//
// Needs the header shim of a configured build-wasm (build-wasm/xt-include: npm run build makes it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const RELAXED = '--experimental-wasm-relaxed-simd';
if (!process.execArgv.includes(RELAXED)) {
  const r = spawnSync(process.execPath, [...process.execArgv, RELAXED, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({ options: {
  tiles: { type: 'string', default: '4x2,6x2,4x3,3x3,5x2' },
  rounds: { type: 'string', default: '5' },
  builds: { type: 'string', default: 'fma,simd' },
} });
const tiles = opts.tiles.split(',').map((t) => t.split('x').map(Number));
const builds = opts.builds.split(',');
// The gemm shapes of npm run bench's kernel table (bench/workloads.json), without the decode gemv
// (m = 1 takes gemv_packed, which does not use the tile).
const SHAPES = JSON.parse(fs.readFileSync(path.join(REPO, 'bench/workloads.json'), 'utf8')).kernels.filter((g) => g.m > 1);
const shim = path.join(REPO, 'build-wasm/xt-include');
if (!fs.existsSync(shim)) throw new Error('build-wasm/xt-include is missing: run npm run build first');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'gemm-tiles-'));

function compile(build, mr, nv) {
  const file = path.join(out, `gemm-${build}-${mr}x${nv}.mjs`);
  const flags = { fma: ['-msimd128', '-mrelaxed-simd', '-DATTN_FMA'], simd: ['-msimd128'], scalar: [] }[build];
  const r = spawnSync('em++', ['-std=c++17', '-O3', '-DNDEBUG', ...flags, `-DATTN_GEMM_MR=${mr}`, `-DATTN_GEMM_NV=${nv}`,
    '-I', path.join(REPO, 'core/include'), '-isystem', shim, path.join(REPO, 'core/src/kernels.cpp'),
    path.join(REPO, 'bench/kernel_bench.cpp'), '-lembind', '-sMODULARIZE=1', '-sEXPORT_ES6=1', '-sENVIRONMENT=web',
    '-sALLOW_MEMORY_GROWTH=1', '-o', file], { encoding: 'utf8', env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
  if (r.status !== 0) throw new Error(`em++ ${build} ${mr}x${nv} failed:\n${r.stderr}`);
  if (build === 'fma') {
    const f = spawnSync(process.execPath, [path.join(REPO, 'scripts/wasm-relaxed-fix.mjs'), file.replace(/\.mjs$/, '.wasm')], { encoding: 'utf8' });
    if (f.status !== 0) throw new Error(f.stderr);
  }
  return file;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const modules = [];
for (const build of builds) {
  for (const [mr, nv] of tiles) {
    const file = compile(build, mr, nv);
    const factory = (await import(pathToFileURL(file).href)).default;
    const M = await factory({ wasmBinary: fs.readFileSync(file.replace(/\.mjs$/, '.wasm')) });
    modules.push({ build, tile: `${mr}x${nv}`, M, runs: SHAPES.map(() => []), peak: [] });
  }
}
for (const { M } of modules) {  // warm-up: V8 tiers the kernels (and the peak loops) up to TurboFan in the background
  const t0 = performance.now();
  while (performance.now() - t0 < 1500) {
    M.benchmarkPeak(7, 1e5, 0, 1);
    M.benchmarkPeak(8, 1e5, 0, 1);
    for (const g of SHAPES) M.benchmarkGemm(g.m, g.n, g.k, 0, 1);
  }
}
const rounds = Number(opts.rounds);
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < modules.length; i++) {
    const mod = modules[(i + round) % modules.length];
    const c0 = process.cpuUsage();  // the build's multiply-add peak (registers only): the better of its two shapes
    const p7 = mod.M.benchmarkPeak(7, 1e6, 0, 3), t7 = process.cpuUsage(c0);
    const c1 = process.cpuUsage();
    const p8 = mod.M.benchmarkPeak(8, 1e6, 0, 3), t8 = process.cpuUsage(c1);
    mod.peak.push(Math.max((3 * p7.flops) / ((t7.user + t7.system) * 1e3), (3 * p8.flops) / ((t8.user + t8.system) * 1e3)));
    SHAPES.forEach((g, j) => {
      const flops = 2 * g.m * g.n * g.k;
      const iters = Math.max(3, Math.min(30, Math.round(1e9 / flops)));
      mod.M.benchmarkGemm(g.m, g.n, g.k, 0, 2);
      const c0 = process.cpuUsage();
      mod.M.benchmarkGemm(g.m, g.n, g.k, 0, iters);
      const c = process.cpuUsage(c0);
      mod.runs[j].push(flops / (((c.user + c.system) / 1e3 / iters) * 1e6));
    });
  }
}
const load = os.loadavg()[0].toFixed(1);
console.log(`\nGEMM register blocking, GFLOP/s in CPU time (median, range over ${rounds} interleaved rounds), ${os.cpus()[0]?.model}, load ${load}\n`);
console.log(`| build | tile (rows x vectors) | peak (registers only) | ${SHAPES.map((g) => `${g.label} (${g.m}x${g.n}x${g.k})`).join(' | ')} |`);
console.log(`|---|---|--:|${SHAPES.map(() => '--:').join('|')}|`);
for (const mod of modules) {
  const cells = mod.runs.map((r) => `${median(r).toFixed(1)} (${Math.min(...r).toFixed(1)}-${Math.max(...r).toFixed(1)})`);
  const peak = `${median(mod.peak).toFixed(1)} (${Math.min(...mod.peak).toFixed(1)}-${Math.max(...mod.peak).toFixed(1)})`;
  console.log(`| ${mod.build} | ${mod.tile} | ${peak} | ${cells.join(' | ')} |`);
}
fs.rmSync(out, { recursive: true, force: true });
