#!/usr/bin/env node
// npm run build: build the WebAssembly core with Emscripten and assemble dist/ (no dependencies).
//
//   1. emcmake cmake --preset wasm ...   (CMakePresets.json; only when build-wasm is not configured yet)
//      cmake --build build-wasm -j2
//   2. dist/      <- web/
//      dist/zoo/  <- web/zoo/ (the trained models and their manifest)
//      dist/lib/  <- build-wasm/attention{,-train,-pretrained}-{fma,simd,scalar}.{mjs,wasm},
//                    build-wasm/attention-configurator.{mjs,wasm} (one for every build), wasm/*.mjs,
//                    wasm/attention.d.ts, @huggingface/tokenizers' build (tokenizers.mjs, tokenizers.LICENSE)
//      (the fma modules were rewritten after linking by scripts/wasm-relaxed-fix.mjs, a step of the cmake build)
//   3. prints dist/ with raw and gzip -9 sizes.
//
// Env: BUILD_JOBS (default 2); ATTN_WASM_FROM=<another checkout's build-wasm> copies its modules
// instead of building them (page-only work). Delete build-wasm/ to force a fresh configure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = path.join(REPO, 'build-wasm');
const DIST = path.join(REPO, 'dist');
const jobs = process.env.BUILD_JOBS || '2';

// The single-file classic builds are staged for standalone.html only (not published in dist/lib).
const SINGLE_FILES = [
  'build-wasm/attention-fma-single.js', 'build-wasm/attention-simd-single.js', 'build-wasm/attention-scalar-single.js',
  'build-wasm/attention-train-fma-single.js', 'build-wasm/attention-train-simd-single.js',
  'build-wasm/attention-train-scalar-single.js', 'build-wasm/attention-configurator-single.js',
  'build-wasm/attention-pretrained-simd-single.js',
];
// Three modules per build: attention (forward, sessions, accounting), attention-train (the lab's
// trainer), which attention.mjs loads only when asked (loadAttention() or attn.loadTraining()), and
// attention-pretrained (checkpoints, on attn.loadPretrained()); one attention-configurator (the
// configurator's search, on attn.loadConfigurator()) serves every build.
const LIB_FILES = [
  'build-wasm/attention-fma.mjs',
  'build-wasm/attention-fma.wasm',
  'build-wasm/attention-simd.mjs',
  'build-wasm/attention-simd.wasm',
  'build-wasm/attention-scalar.mjs',
  'build-wasm/attention-scalar.wasm',
  'build-wasm/attention-train-fma.mjs',
  'build-wasm/attention-train-fma.wasm',
  'build-wasm/attention-train-simd.mjs',
  'build-wasm/attention-train-simd.wasm',
  'build-wasm/attention-train-scalar.mjs',
  'build-wasm/attention-train-scalar.wasm',
  'build-wasm/attention-pretrained-fma.mjs',
  'build-wasm/attention-pretrained-fma.wasm',
  'build-wasm/attention-pretrained-simd.mjs',
  'build-wasm/attention-pretrained-simd.wasm',
  'build-wasm/attention-pretrained-scalar.mjs',
  'build-wasm/attention-pretrained-scalar.wasm',
  'build-wasm/attention-configurator.mjs',
  'build-wasm/attention-configurator.wasm',
  'wasm/attention.mjs',
  'wasm/pretrained-api.mjs',
  'wasm/tokenizer.mjs',
  'wasm/attention-api.mjs',
  'wasm/engine-features.mjs',
  'wasm/attention.d.ts',
];

function fail(message) {
  console.error(`build: FAILED: ${message}`);
  process.exit(1);
}

// emcc's JS optimizer needs acorn, which Debian ships in /usr/share/nodejs (see the toolchain notes).
const env = { ...process.env };
env.NODE_PATH = ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(path.delimiter);

function run(cmd, args, hint = '') {
  const shown = [cmd, ...args].map((a) => (/[\s'"]/.test(a) ? JSON.stringify(a) : a)).join(' ');
  console.log(`build: $ ${shown}`);
  const r = spawnSync(cmd, args, { cwd: REPO, env, stdio: 'inherit' });
  if (r.error) {
    const why = r.error.code === 'ENOENT' ? ` (${cmd} not found: run \`bash scripts/setup.sh\`)` : '';
    fail(`${shown}\n  ${r.error.message}${why}`);
  }
  if (r.status !== 0) fail(`${shown}\n  exited with ${r.signal ? `signal ${r.signal}` : `code ${r.status}`}${hint}`);
}

// ---- 1. configure + build -----------------------------------------------------------------
const t0 = performance.now();
// ATTN_WASM_FROM=<dir>: take the WebAssembly modules another checkout built (its build-wasm/) instead of
// building them here: for work on the page alone, in a second worktree, without an hour of compiling.
const wasmFrom = process.env.ATTN_WASM_FROM;
if (wasmFrom) {
  fs.mkdirSync(BUILD, { recursive: true });
  for (const f of [...LIB_FILES, ...SINGLE_FILES].filter((f) => f.startsWith('build-wasm/'))) {
    fs.copyFileSync(path.join(path.resolve(wasmFrom), path.basename(f)), path.join(REPO, f));
  }
}
const configured =
  fs.existsSync(path.join(BUILD, 'CMakeCache.txt')) && fs.existsSync(path.join(BUILD, 'build.ninja'));
if (!configured && !wasmFrom) {
  // emcmake adds the Emscripten toolchain file; its default emulator option (node
  // --experimental-wasm-threads) is refused by Node 20, and only a command-line value replaces it.
  run('emcmake', [
    'cmake', '--preset', 'wasm',
    '-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node',
  ], '\n  (if build-wasm/ holds an older configuration, e.g. another generator, delete it and retry)');
}
if (!wasmFrom) run('cmake', ['--build', 'build-wasm', `-j${jobs}`]);

// ---- 2. stage the library, bundle the page, assemble dist/ --------------------------------
const missing = LIB_FILES.filter((f) => !fs.existsSync(path.join(REPO, f)));
if (missing.length) fail(`missing after the build: ${missing.join(', ')}`);
const STAGE = path.join(BUILD, 'lib');  // the library as published: what web/ imports as @core
fs.rmSync(STAGE, { recursive: true, force: true });
fs.mkdirSync(STAGE, { recursive: true });
for (const f of LIB_FILES) fs.copyFileSync(path.join(REPO, f), path.join(STAGE, path.basename(f)));
for (const f of SINGLE_FILES) fs.copyFileSync(path.join(REPO, f), path.join(STAGE, path.basename(f)));
// The tokenizer library (tokenizer.mjs imports it): @huggingface/tokenizers' own ES build and licence,
// beside the library, so that dist/lib keeps no runtime dependency.
const tokenizersDir = (() => {
  try {
    return path.dirname(path.dirname(createRequire(import.meta.url).resolve('@huggingface/tokenizers')));  // <pkg>/dist/x.cjs
  } catch {
    return fail('@huggingface/tokenizers is not installed: run `npm ci` (or `bash scripts/setup.sh`)');
  }
})();
fs.copyFileSync(path.join(tokenizersDir, 'dist/tokenizers.min.mjs'), path.join(STAGE, 'tokenizers.mjs'));
fs.copyFileSync(path.join(tokenizersDir, 'LICENSE'), path.join(STAGE, 'tokenizers.LICENSE'));
// TypeScript looks for attention.d.mts beside attention.mjs (NodeNext resolution); ship both names.
fs.copyFileSync(path.join(REPO, 'wasm/attention.d.ts'), path.join(STAGE, 'attention.d.mts'));

const vite = path.join(REPO, 'node_modules/vite/bin/vite.js');
if (!fs.existsSync(vite)) fail('vite is not installed: run `npm ci` (or `bash scripts/setup.sh`)');
run(process.execPath, [vite, 'build', '--config', 'web/vite.config.mjs', '--logLevel', 'warn']);
// The bundled trained models (npm run zoo, docs/zoo.md): fetched by the page only for trained views.
fs.cpSync(path.join(REPO, 'web/zoo'), path.join(DIST, 'zoo'), { recursive: true });
fs.cpSync(STAGE, path.join(DIST, 'lib'), {  // for course pages using the JS API
  recursive: true,
  filter: (src) => !src.endsWith('-single.js'),
});

// standalone.html: the playground as one file that works from file:// (see web/vite.standalone.mjs).
run(process.execPath, [vite, 'build', '--config', 'web/vite.standalone.mjs', '--logLevel', 'warn']);
const app = fs.readFileSync(path.join(BUILD, 'standalone/standalone.js'), 'utf8').replace(/<\/(script)/gi, '<\\/$1');
const template = fs.readFileSync(path.join(REPO, 'web/standalone.html'), 'utf8');
if (!template.includes('/*APP*/')) fail('web/standalone.html lacks the /*APP*/ marker');
fs.writeFileSync(path.join(DIST, 'standalone.html'), template.replace('/*APP*/', () => app));

// ---- 3. report --------------------------------------------------------------------------------
function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
const rows = walk(DIST).map((f) => {
  const data = fs.readFileSync(f);
  return [path.relative(DIST, f).split(path.sep).join('/'), data.length, zlib.gzipSync(data, { level: 9 }).length];
});
const total = rows.reduce((acc, r) => [acc[0], acc[1] + r[1], acc[2] + r[2]], ['total', 0, 0]);
const fmt = (n) => n.toLocaleString('en-US');
const w0 = Math.max(4, ...rows.map((r) => r[0].length), total[0].length);
const w1 = Math.max(5, ...[...rows, total].map((r) => fmt(r[1]).length));
const w2 = Math.max(7, ...[...rows, total].map((r) => fmt(r[2]).length));
const line = (a, b, c) => `  ${a.padEnd(w0)}  ${b.padStart(w1)}  ${c.padStart(w2)}`;
console.log(`\nbuild: dist/ assembled in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
console.log(line('file', 'bytes', 'gzip -9'));
console.log(line('-'.repeat(w0), '-'.repeat(w1), '-'.repeat(w2)));
for (const r of rows) console.log(line(r[0], fmt(r[1]), fmt(r[2])));
console.log(line('-'.repeat(w0), '-'.repeat(w1), '-'.repeat(w2)));
console.log(line(total[0], fmt(total[1]), fmt(total[2])));
