// layer.test.mjs: attn.createLayer (docs/api.md), for every variant and both builds. A layer reads,
// checks and packs its weights once; layer.forward(x) must give the bits attn.forward gives for the
// same spec and x, for any number of rows, call after call; the weights are copied at creation; bad
// input is refused naming the field, and the layer (and the module) keep working afterwards.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, assertClose, bitIdentical, load, randomArray, randomWeights, referenceForward, throwsField } from './helpers.mjs';

const VARIANTS = {
  mha: { variant: 'mha', dModel: 32, nHeads: 4 },
  'mqa causal': { variant: 'mqa', dModel: 32, nHeads: 4, causal: true },
  'gqa rope': { variant: 'gqa', dModel: 48, nHeads: 6, nKvHeads: 2, rope: true },
  'mha dHead 6 rope base 500, causal': { variant: 'mha', dModel: 20, nHeads: 3, dHead: 6, rope: { base: 500 }, causal: true },
  'mla no rope': { variant: 'mla', dModel: 32, nHeads: 4, latentRank: 8 },
  'mla ropeDim 4, causal': { variant: 'mla', dModel: 32, nHeads: 4, dHead: 6, latentRank: 10, ropeDim: 4, causal: true },
};

for (const { simd, name } of BUILDS) {
  describe(`createLayer (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    for (const [label, cfg] of Object.entries(VARIANTS)) {
      test(`${label}: layer.forward equals attn.forward bit for bit, for N = 1, 9, 40, 9`, () => {
        const weights = randomWeights({ ...cfg, seqLen: 1 }, 7);
        const layer = attn.createLayer({ ...cfg, weights, returnWeights: true });
        assert.equal(layer.dModel, cfg.dModel);
        for (const [i, n] of [1, 9, 40, 9].entries()) {
          const x = randomArray(n * cfg.dModel, 100 + i);
          const got = layer.forward(x);
          const want = attn.forward({ ...cfg, weights, returnWeights: true, seqLen: n, x });
          assert.ok(bitIdentical(got.output, want.output), `N = ${n}: output differs from attn.forward`);
          assert.equal(got.weights.length, cfg.nHeads * n * n, `N = ${n}: weights must be (H, N, N)`);
          assert.ok(bitIdentical(got.weights, want.weights), `N = ${n}: weights differ from attn.forward`);
        }
        layer.dispose();
      });
    }

    test('seeded weights; the output agrees with the float64 reference', () => {
      const cfg = VARIANTS['gqa rope'];
      const n = 11;
      const x = randomArray(n * cfg.dModel, 3);
      const layer = attn.createLayer({ ...cfg, seed: 5 });
      const seeded = layer.forward(x);
      const want = attn.forward({ ...cfg, seed: 5, seqLen: n, x, returnIntermediates: true });
      assert.ok(bitIdentical(seeded.output, want.output), 'seeded layer differs from seeded forward');
      const ref = referenceForward({ ...cfg, seqLen: n }, x, want.parameters);
      assertClose(seeded.output, ref.output, 1e-4, 'seeded layer vs float64 reference');
      assert.equal(seeded.weights, undefined, 'weights only when returnWeights');
      layer.dispose();
    });

    test('the weights are copied at creation: changing the caller\'s arrays later changes nothing', () => {
      const cfg = VARIANTS.mha;
      const weights = randomWeights({ ...cfg, seqLen: 1 }, 9);
      const x = randomArray(5 * cfg.dModel, 4);
      const layer = attn.createLayer({ ...cfg, weights });
      const first = layer.forward(x);
      weights.wq.fill(0.5);
      assert.ok(bitIdentical(layer.forward(x).output, first.output), 'layer followed the caller\'s array');
      layer.dispose();
    });

    test('bad specs are refused naming the field', () => {
      const cfg = VARIANTS.mha;
      throwsField(() => attn.createLayer({ ...cfg, x: new Float32Array(32) }), TypeError, 'x');
      throwsField(() => attn.createLayer({ ...cfg, seqLen: 4 }), RangeError, 'seqLen');
      throwsField(() => attn.createLayer({ ...cfg, maxLen: 4 }), RangeError, 'maxLen');
      throwsField(() => attn.createLayer({ ...cfg, returnIntermediates: true }), TypeError, 'returnIntermediates');
      throwsField(() => attn.createLayer({ ...cfg, nHeads: 5 }), RangeError, 'dModel');
      const w = randomWeights({ ...cfg, seqLen: 1 }, 2);
      w.wk = w.wk.slice(1);
      throwsField(() => attn.createLayer({ ...cfg, weights: w }), RangeError, 'weights.wk');
      const nan = randomWeights({ ...cfg, seqLen: 1 }, 2);
      nan.wo[17] = NaN;
      const err = throwsField(() => attn.createLayer({ ...cfg, weights: nan }), RangeError, 'weights.wo');
      assert.match(err.message, /17/, 'the message names the index');
    });

    test('bad x is refused naming x; the layer keeps working afterwards; dispose ends it', () => {
      const cfg = VARIANTS.mha;
      const layer = attn.createLayer({ ...cfg, seed: 1, returnWeights: true });
      const x = randomArray(3 * cfg.dModel, 8);
      const good = layer.forward(x);
      throwsField(() => layer.forward(new Float32Array(0)), RangeError, 'x');
      throwsField(() => layer.forward(new Float32Array(cfg.dModel + 1)), RangeError, 'x');
      throwsField(() => layer.forward('abc'), TypeError, 'x');
      throwsField(() => layer.forward(undefined), TypeError, 'x');
      const bad = x.slice();
      bad[40] = Infinity;
      throwsField(() => layer.forward(bad), RangeError, 'x', [/40/]);
      // (H, N, N) weights of N = 20000: 6.4 GB, above the work cap, refused before copying
      throwsField(() => layer.forward(new Float32Array(20000 * cfg.dModel)), RangeError, undefined, [/seqLen \(20000\)/]);
      const huge = new Float32Array(3 * cfg.dModel).fill(1e20);
      throwsField(() => layer.forward(huge), RangeError, 'x', [/overflowed float32.*1e\+20/]);
      assert.ok(bitIdentical(layer.forward(x).output, good.output), 'the layer changed after refused calls');
      assert.ok(attn.forward({ ...cfg, seqLen: 3, x, seed: 1 }).output.length === 3 * cfg.dModel, 'the module still works');
      layer.dispose();
      layer.dispose(); // a second dispose does nothing
      assert.throws(() => layer.forward(x), /layer is disposed/);
      assert.throws(() => layer.dModel, /layer is disposed/);
    });

    test('an overflow caused by the weights names the weight, not x', () => {
      const cfg = VARIANTS.mha;
      const weights = randomWeights({ ...cfg, seqLen: 1 }, 3);
      weights.wq.fill(1e30);
      weights.wk.fill(1e30);
      const layer = attn.createLayer({ ...cfg, weights });
      const err = throwsField(() => layer.forward(randomArray(4 * cfg.dModel, 1)), RangeError, 'weights.wq');
      assert.match(err.message, /overflowed float32/);
      assert.match(err.message, /weights\.wq up to 1e\+30/);
      assert.match(err.message, /x up to/);
      layer.dispose();
    });
  });
}
