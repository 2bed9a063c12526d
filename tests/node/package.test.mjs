// package.test.mjs: the package a course site installs. `npm pack` of this repo (dist/ must be
// built), installed from the tarball into a temporary project without network, then
//   (a) Node: `import { loadAttention } from 'attention-playground'` computes a forward pass whose
//       output is worked out by hand, and the exports (types, element) resolve to shipped files;
//   (b) Vite: a tiny project importing the package builds, and its output holds both .wasm builds.
// The package has no runtime dependencies (d3-scale-chromatic and uPlot are bundled into dist/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './helpers.mjs';

const DIST_LIB = path.join(REPO, 'dist', 'lib');
const PKG = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const VITE = path.join(REPO, 'node_modules', 'vite', 'bin', 'vite.js');
const skip = !fs.existsSync(path.join(DIST_LIB, 'attention.mjs'))
  ? 'dist/lib is missing: run `node scripts/build.mjs` (npm run build) first' : false;

const run = (cmd, args, cwd) => execFileSync(cmd, args, {
  cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000,
  env: { ...process.env, npm_config_update_notifier: 'false', npm_config_loglevel: 'error' },
});

test('npm pack: installs from the tarball offline; works in Node and through Vite', { skip, timeout: 90_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-pack-'));
  try {
    // ---- pack: what the tarball holds
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], REPO))[0];
    assert.equal(packed.name, 'attention-playground');
    assert.equal(packed.version, PKG.version);
    const files = packed.files.map((f) => f.path);
    for (const f of ['package.json', 'dist/lib/attention.mjs', 'dist/lib/attention-api.mjs', 'dist/lib/attention.d.ts',
      'dist/lib/attention.d.mts', 'dist/lib/attention-simd.mjs', 'dist/lib/attention-simd.wasm',
      'dist/lib/attention-scalar.mjs', 'dist/lib/attention-scalar.wasm', 'dist/attention-playground.js',
      'dist/index.html', 'dist/embed.html', 'docs/api.md']) {
      assert.ok(files.includes(f), `${f} is not in the tarball`);
    }
    const outside = files.filter((f) => !/^(dist\/|docs\/(api|embedding)\.md$|package\.json$|README\.md$)/.test(f));
    assert.deepEqual(outside, [], 'only dist/, the two docs, README and package.json are packed');

    // ---- a course site's project, installed from the tarball with no network
    const site = path.join(tmp, 'site');
    fs.mkdirSync(site);
    fs.writeFileSync(path.join(site, 'package.json'), JSON.stringify({ name: 'course-site', private: true, type: 'module' }));
    run('npm', ['install', path.join(tmp, packed.filename), '--offline', '--no-audit', '--no-fund'], site);
    const installed = path.join(site, 'node_modules', 'attention-playground');
    assert.equal(JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).version, PKG.version);
    assert.deepEqual(fs.readdirSync(path.join(site, 'node_modules')).filter((d) => !d.startsWith('.')), ['attention-playground'],
      'no runtime dependencies are installed');

    // ---- (a) Node: the bare specifier, a forward pass worked out by hand.
    // MHA, 1 head, D = dHead = 2, identity weights, x = [[1, 0], [0, 1]], not causal, no RoPE:
    // scores = x x^T / sqrt(2) = [[s, 0], [0, s]], s = 1/sqrt(2); softmax row 0 = [p, 1 - p] with
    // p = 1 / (1 + exp(-s)) = 0.669761...; output = weights @ x @ I = [[p, 1-p], [1-p, p]].
    const script = `
      const { loadAttention } = await import('attention-playground');
      const attn = await loadAttention();
      const I = new Float32Array([1, 0, 0, 1]);
      const r = attn.forward({ variant: 'mha', seqLen: 2, dModel: 2, nHeads: 1, returnWeights: true,
        x: new Float32Array([1, 0, 0, 1]), weights: { wq: I, wk: I, wv: I, wo: I } });
      console.log(JSON.stringify({ version: attn.info.version, build: attn.info.build,
        output: [...r.output], weights: [...r.weights], outputType: r.output.constructor.name,
        types: import.meta.resolve('attention-playground/package.json'),
        element: import.meta.resolve('attention-playground/element') }));`;
    const got = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script], site));
    assert.equal(got.version, PKG.version);
    assert.equal(got.build, 'simd');
    assert.equal(got.outputType, 'Float32Array');
    const p = 1 / (1 + Math.exp(-Math.SQRT1_2));
    const want = [p, 1 - p, 1 - p, p];
    assert.equal(got.output.length, 4);
    got.output.forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-6, `output[${i}] = ${v}, want ${want[i]}`));
    got.weights.forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-6, `weights[${i}] = ${v}, want ${want[i]}`));
    assert.equal(new URL(got.element).pathname, path.join(installed, 'dist', 'attention-playground.js'));
    for (const f of [PKG.types, PKG.exports['.'].types, PKG.exports['.'].default, PKG.exports['./element']]) {
      assert.ok(fs.existsSync(path.join(installed, f)), `${f} (named in package.json) is not installed`);
    }

    // ---- (b) Vite: a page importing the package by name; the build carries both .wasm files.
    fs.writeFileSync(path.join(site, 'index.html'),
      '<!doctype html><title>course</title><script type="module" src="./main.js"></script>\n');
    fs.writeFileSync(path.join(site, 'main.js'),
      "import { loadAttention } from 'attention-playground';\n" +
      'const attn = await loadAttention();\ndocument.title = attn.info.version;\n');
    run(process.execPath, [VITE, 'build', site, '--logLevel', 'error', '--base', './'], site);
    const out = path.join(site, 'dist', 'assets');
    const assets = fs.readdirSync(out);
    for (const build of ['simd', 'scalar']) {
      const wasm = assets.filter((f) => new RegExp(`^attention-${build}-.*\\.wasm$`).test(f));
      assert.equal(wasm.length, 1, `attention-${build}-*.wasm in ${assets.join(', ')}`);
      assert.ok(fs.readFileSync(path.join(out, wasm[0])).equals(fs.readFileSync(path.join(DIST_LIB, `attention-${build}.wasm`))),
        `${wasm[0]} differs from dist/lib/attention-${build}.wasm`);
      const js = assets.filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(path.join(out, f), 'utf8')).join('\n');
      assert.ok(js.includes(wasm[0]), `no JS chunk refers to ${wasm[0]}`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
