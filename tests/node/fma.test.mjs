// fma.test.mjs: the FMA build (relaxed SIMD's f32x4.relaxed_madd) against the PyTorch golden fixtures
// and against the SIMD build, with stated tolerances (a fused multiply-add rounds once where the SIMD
// build rounds twice, so the builds agree within rounding, not bit for bit), and how loadAttention
// chooses it.
//
// Node 20 runs relaxed SIMD only with --experimental-wasm-relaxed-simd. Run without it (npm test,
// npm run test:node), this file runs itself again in a child process with the flag, and fails
// when the child does; with the flag, it runs the tests.
//
// Tolerances, max |fma - ref| / max |ref| per tensor:
//   golden fixtures (PyTorch, float64)     GOLDEN_TOL = 1e-4, as for the other builds (golden.test.mjs);
//                                          measured 3.3e-7 at worst, as the SIMD build's 3.3e-7
//   FMA vs SIMD build, one pass            FORWARD_TOL = 2e-6 (measured at most 5.2e-7)
//   FMA vs SIMD build, 30 training steps   TRAIN_TOL = 1e-6 on the loss (measured at most 8e-9)

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { LIB_DIR, REPO, assertClose, bitIdentical, decodeF32, importLib, randomArray } from './helpers.mjs';

const FORWARD_TOL = 2e-6;
const TRAIN_TOL = 1e-6;
const GOLDEN_TOL = 1e-4;
const FLAG = '--experimental-wasm-relaxed-simd';

const { engineHasRelaxedSimd } = await import(pathToFileURL(path.join(LIB_DIR, 'engine-features.mjs')).href);

if (!engineHasRelaxedSimd()) {
  test(`the FMA build's tests, run in a child process with ${FLAG}`, () => {
    const self = fileURLToPath(import.meta.url);
    // Without the test runner's own variable, so that the child reports in plain TAP.
    const { NODE_TEST_CONTEXT, ...env } = process.env;
    const r = spawnSync(process.execPath, [FLAG, '--disallow-code-generation-from-strings', '--test-reporter=tap', self],
      { encoding: 'utf8', env, timeout: 600_000 });
    assert.equal(r.status, 0, `the FMA tests failed (node ${FLAG} ${self}):\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /# pass [1-9]/, 'the child ran no passing test');
    assert.match(r.stdout, /# fail 0/);
  });
} else {
  // Whether this engine fuses relaxed_madd here (x86 with FMA3, arm64: yes): a*b + c for a*b
  // inexact, rounded once or twice.
  const fuses = (() => {
    // (func (param f32 f32 f32) (result f32): f32x4.relaxed_madd of the splats, lane 0)
    const m = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 125, 125, 125, 1, 125, 3, 2, 1, 0, 7, 5, 1,
      1, 102, 0, 0, 10, 22, 1, 20, 0, 32, 0, 253, 19, 32, 1, 253, 19, 32, 2, 253, 19, 253, 133, 2, 253, 31, 0, 11]);
    const f = new WebAssembly.Instance(new WebAssembly.Module(m)).exports.f;
    return f(1 + 2 ** -23, 1 - 2 ** -23, -1) !== 0;
  })();

  describe('loadAttention with relaxed SIMD', () => {
    test("fma: 'auto' (the default) picks the FMA build; fma: false the SIMD build; simd: false the scalar one", async () => {
      const { loadAttention } = await importLib();
      const attn = await loadAttention();
      assert.equal(attn.info.build, 'fma');
      assert.equal(attn.info.simd, true);
      assert.equal(await loadAttention({ fma: 'auto', simd: 'auto' }), attn, 'memoised');
      assert.equal(await loadAttention({ fma: true }), attn);
      assert.equal(await loadAttention({ simd: true }), attn, 'simd: true takes the FMA build where it runs');
      const plain = await loadAttention({ fma: false });
      assert.equal(plain.info.build, 'simd');
      assert.notEqual(plain, attn);
      assert.equal((await loadAttention({ simd: false })).info.build, 'scalar');
    });

    test('bad fma options are refused with a TypeError naming them', async () => {
      const { loadAttention } = await importLib();
      await assert.rejects(loadAttention({ fma: 'yes' }), (e) => e instanceof TypeError && /options\.fma \(yes\)/.test(e.message));
      await assert.rejects(loadAttention({ fma: true, simd: false }), (e) => e instanceof TypeError && /options\.simd is false/.test(e.message));
    });

    test('fma: true where the engine lacks relaxed SIMD is an Error; auto falls back to SIMD', async (t) => {
      const { loadAttention } = await importLib();
      const real = WebAssembly.validate;
      // an engine with SIMD but without relaxed SIMD: the relaxed probe (opcode fd 85 02) fails
      t.mock.method(WebAssembly, 'validate', (bytes) => !Buffer.from(bytes).includes(Buffer.from([0xfd, 0x85, 0x02])) && real(bytes));
      await assert.rejects(loadAttention({ fma: true }), (e) => e instanceof Error && /relaxed SIMD/.test(e.message));
      assert.equal((await loadAttention()).info.build, 'simd');
    });
  });

  describe('FMA build against the PyTorch golden fixtures and the SIMD build', () => {
    let fma, simd;
    before(async () => {
      const { loadAttention } = await importLib();
      fma = await loadAttention({ fma: true });
      simd = await loadAttention({ fma: false });
      assert.equal(fma.info.build, 'fma');
      assert.equal(simd.info.build, 'simd');
    });

    const fixture = JSON.parse(fs.readFileSync(path.join(REPO, 'tests/fixtures/attention_golden.json'), 'utf8'));
    test(`golden forward: every fixture case within ${GOLDEN_TOL} (output and weights)`, () => {
      assert.equal(fixture.cases.length, 20);
      for (const c of fixture.cases) {
        const x = decodeF32(c.x);
        const weights = Object.fromEntries(Object.entries(c.weights).map(([k, v]) => [k, decodeF32(v)]));
        const r = fma.forward({ ...c.spec, x, weights, returnWeights: true });
        assertClose(r.output, decodeF32(c.output), GOLDEN_TOL, `${c.name}: output`);
        assertClose(r.weights, decodeF32(c.attention), GOLDEN_TOL, `${c.name}: attention weights`);
      }
    });

    // Shapes that take every kernel path: the blocked gemm (N >= 8) with remainder rows and
    // columns, the direct decode path (N < 8), grouped heads, MLA's latent, RoPE.
    const SPECS = [
      { variant: 'mha', seqLen: 37, dModel: 64, nHeads: 4 },
      { variant: 'mha', seqLen: 64, dModel: 96, nHeads: 6, causal: true, rope: true },
      { variant: 'gqa', seqLen: 50, dModel: 64, nHeads: 8, nKvHeads: 2, causal: true },
      { variant: 'mqa', seqLen: 5, dModel: 48, nHeads: 4 },
      { variant: 'mla', seqLen: 33, dModel: 64, nHeads: 4, dHead: 16, latentRank: 24, ropeDim: 8, causal: true },
    ];
    test(`forward: FMA within ${FORWARD_TOL} of SIMD, and different bits where the engine fuses`, () => {
      let differs = false;
      for (const [i, spec] of SPECS.entries()) {
        const x = randomArray(spec.seqLen * spec.dModel, 100 + i);
        const a = fma.forward({ ...spec, x, seed: 7, returnWeights: true });
        const b = simd.forward({ ...spec, x, seed: 7, returnWeights: true });
        assertClose(a.output, b.output, FORWARD_TOL, `${spec.variant} N=${spec.seqLen}: output`);
        assertClose(a.weights, b.weights, FORWARD_TOL, `${spec.variant} N=${spec.seqLen}: weights`);
        differs ||= !bitIdentical(a.output, b.output);
      }
      // Where relaxed_madd fuses, identical bits would mean the FMA build does not use it.
      assert.equal(differs, fuses, fuses ? 'the FMA build computed the SIMD build\'s bits' : 'unfused madd changed bits');
    });

    test(`a decoding session: FMA within ${FORWARD_TOL} of SIMD, token by token`, () => {
      const spec = { variant: 'gqa', dModel: 128, nHeads: 8, nKvHeads: 2, maxLen: 40, seed: 3, rope: true };
      const sa = fma.createSession(spec), sb = simd.createSession(spec);
      const x = randomArray(40 * 128, 9);
      assertClose(sa.append(x.subarray(0, 20 * 128)).output, sb.append(x.subarray(0, 20 * 128)).output, FORWARD_TOL, 'prefill');
      for (let t = 20; t < 40; t++) {
        const row = x.subarray(t * 128, (t + 1) * 128);
        assertClose(sa.append(row).output, sb.append(row).output, FORWARD_TOL, `token ${t}`);
      }
      sa.dispose();
      sb.dispose();
    });

    test(`training: 30 AdamW steps of a 2-layer model with MLP, losses within ${TRAIN_TOL} of the SIMD build's`, async () => {
      await fma.loadTraining();
      await simd.loadTraining();
      const spec = { task: 'induction', seqLen: 32, batchSize: 8, seed: 2,
        model: { variant: 'mha', dModel: 64, nHeads: 4, nLayers: 2, mlp: true, layerNorm: true, tiedEmbeddings: true } };
      const ta = fma.createTrainer(spec), tb = simd.createTrainer(spec);
      for (let s = 0; s < 30; s += 5) {
        const la = ta.step(5).loss, lb = tb.step(5).loss;
        assert.ok(Math.abs(la - lb) <= TRAIN_TOL * Math.abs(lb), `step ${s + 5}: loss ${la} (FMA) vs ${lb} (SIMD)`);
      }
      const ea = ta.evaluate().loss, eb = tb.evaluate().loss;
      assert.ok(Math.abs(ea - eb) <= TRAIN_TOL * Math.abs(eb), `held-out loss ${ea} (FMA) vs ${eb} (SIMD)`);
      ta.dispose();
      tb.dispose();
    });

    test('bad input is refused the same way, and the module keeps working', () => {
      const bad = { variant: 'gqa', seqLen: 4, dModel: 16, nHeads: 4, nKvHeads: 3, x: new Float32Array(64) };
      assert.throws(() => fma.forward(bad), (e) => e instanceof RangeError && e.field === 'nHeads');
      assert.equal(fma.forward({ ...bad, nKvHeads: 2 }).output.length, 64);
    });
  });
}
