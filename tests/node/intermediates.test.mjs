// intermediates.test.mjs: forward({ returnIntermediates: true }) returns every stage of the lesson
// (split, scores, maps, per-head outputs, concat; MLA's latent, RoPE parts, cache row, absorbed query)
// equal to PyTorch's (tests/fixtures/intermediates_golden.json, scripts/gen_fixtures.py), an output
// bit-identical to forward()'s, and the weights it used. Both builds.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { BUILDS, REPO, assertClose, bitIdentical, decodeF32, load } from './helpers.mjs';

const read = (name) => JSON.parse(fs.readFileSync(path.join(REPO, 'tests', 'fixtures', name), 'utf8'));
const golden = read('attention_golden.json');
const staged = read('intermediates_golden.json');
const TOLERANCE = 1e-4;

test('the stage fixture covers every variant, RoPE and causal', () => {
  const specs = staged.cases.map((s) => golden.cases.find((c) => c.name === s.name)?.spec);
  assert.ok(specs.every(Boolean), 'a stage case has no golden case of the same name');
  for (const v of ['mha', 'mqa', 'gqa', 'mla']) assert.ok(specs.some((s) => s.variant === v), `no ${v} case`);
  assert.ok(specs.some((s) => s.rope && s.rope !== false), 'no RoPE case');
  assert.ok(specs.some((s) => s.variant === 'mla' && s.ropeDim > 0), 'no MLA case with decoupled RoPE');
  assert.ok(specs.some((s) => s.causal) && specs.some((s) => !s.causal), 'causal and non-causal both needed');
});

for (const { simd, name } of BUILDS) {
  describe(`forward with returnIntermediates (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    for (const sc of staged.cases) {
      test(sc.name, () => {
        const c = golden.cases.find((g) => g.name === sc.name);
        const x = decodeF32(c.x);
        const weights = Object.fromEntries(Object.entries(c.weights).map(([k, v]) => [k, decodeF32(v)]));
        const r = attn.forward({ ...c.spec, x, weights, returnIntermediates: true });
        assert.deepEqual(Object.keys(r.intermediates).sort(), Object.keys(sc.stages).sort(), 'stage names');
        for (const [stage, want] of Object.entries(sc.stages)) {
          assert.deepEqual(r.intermediates[stage].shape, want.shape, `${stage} shape`);
          assertClose(r.intermediates[stage].data, decodeF32(want.data), TOLERANCE, `${sc.name}: ${stage}`);
        }
        const plain = attn.forward({ ...c.spec, x, weights, returnWeights: true });
        assert.ok(bitIdentical(r.output, plain.output), 'output differs from forward()');
        assert.ok(bitIdentical(r.intermediates.attention.data, plain.weights), 'maps differ from forward() weights');
        for (const [k, v] of Object.entries(weights)) assert.ok(bitIdentical(r.parameters[k], v), `parameters.${k}`);
      });
    }

    test('seeded weights come back as parameters, and returnWeights still gives weights', () => {
      const spec = { variant: 'gqa', seqLen: 4, dModel: 16, nHeads: 4, nKvHeads: 2, seed: 3, causal: true };
      const x = new Float32Array(64).map((_, i) => Math.sin(i));
      const r = attn.forward({ ...spec, x, returnIntermediates: true, returnWeights: true });
      assert.deepEqual(Object.keys(r.parameters), ['wq', 'wk', 'wv', 'wo']);
      assert.equal(r.parameters.wk.length, 16 * 8);
      const again = attn.forward({ ...spec, x, weights: r.parameters });
      assert.ok(bitIdentical(again.output, r.output), 'the returned parameters are not the weights used');
      assert.ok(bitIdentical(r.weights, r.intermediates.attention.data));
      assert.equal(r.intermediates.scores.shape.join(), '4,4,4');
      // causal: the maps are 0 above the diagonal while the scores there are the unmasked values
      const { data: p } = r.intermediates.attention;
      assert.equal(p[0 * 16 + 0 * 4 + 3], 0);
      assert.notEqual(r.intermediates.scores.data[3], 0);
    });

    test('returnIntermediates: false is a plain forward, and a non-boolean is refused', () => {
      const spec = { variant: 'mha', seqLen: 2, dModel: 8, nHeads: 2, x: new Float32Array(16).fill(0.5) };
      const r = attn.forward({ ...spec, returnIntermediates: false });
      assert.equal(r.intermediates, undefined);
      assert.ok(bitIdentical(r.output, attn.forward(spec).output));
      assert.throws(() => attn.forward({ ...spec, returnIntermediates: 1 }), (e) =>
        e instanceof TypeError && /returnIntermediates/.test(e.message));
    });

    test('stages above the work cap are refused before computing, naming returnIntermediates', () => {
      // (H, N, N) scores and maps at N = 8192, H = 4: 2 GiB of stages alone (with allowLongWork: the
      // pass itself is above the time cap too, which speaks first without it)
      const N = 8192, D = 16;
      assert.throws(() => attn.forward({ variant: 'mha', seqLen: N, dModel: D, nHeads: 4, x: new Float32Array(N * D),
        returnIntermediates: true, allowLongWork: true }),
      (e) => e instanceof RangeError && e.field === 'returnIntermediates' && /bytes with the pass itself/.test(e.message));
      // the stages' plain loops, within the memory cap: refused on time, naming seqLen
      assert.throws(() => attn.forward({ variant: 'mha', seqLen: 2048, dModel: D, nHeads: 4, x: new Float32Array(2048 * D),
        returnIntermediates: true }), (e) => e instanceof RangeError && e.field === 'seqLen' && /returnIntermediates/.test(e.message));
      const ok = attn.forward({ variant: 'mha', seqLen: 2, dModel: 8, nHeads: 2, x: new Float32Array(16),
        returnIntermediates: true });
      assert.equal(ok.output.length, 16, 'the module keeps working');
    });
  });
}
