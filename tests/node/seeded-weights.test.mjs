// seeded-weights.test.mjs: the binding keeps the last set of seeded weights it drew (wasm/bindings.cpp,
// seeded_weights: drawing them costs more than the pass at dModel 512). Whatever was asked before, a
// seeded call must give the bits a fresh module gives for it: the kept set is used only for the same
// variant, sizes and seed, and calls with explicit weights neither use nor change it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { BUILDS, bitIdentical, load, randomArray, randomWeights } from './helpers.mjs';

const X = randomArray(6 * 24, 5);
const CALLS = [
  { variant: 'mha', dModel: 24, nHeads: 4, seed: 1 },
  { variant: 'mha', dModel: 24, nHeads: 4, seed: 2 },
  { variant: 'mha', dModel: 24, nHeads: 4, seed: 1 },
  { variant: 'gqa', dModel: 24, nHeads: 4, nKvHeads: 2, seed: 1 },  // GQA's wk is MHA's first columns: not the same set
  { variant: 'mqa', dModel: 24, nHeads: 4, seed: 1 },
  { variant: 'mha', dModel: 24, nHeads: 4, dHead: 8, seed: 1 },
  { variant: 'mla', dModel: 24, nHeads: 4, latentRank: 8, seed: 1 },
  { variant: 'mla', dModel: 24, nHeads: 4, latentRank: 8, ropeDim: 2, seed: 1 },
  { variant: 'mla', dModel: 24, nHeads: 4, latentRank: 6, ropeDim: 2, seed: 1 },
  { variant: 'mha', dModel: 24, nHeads: 4, seed: 1, causal: true, rope: true },
  { variant: 'mha', dModel: 24, nHeads: 4, seed: 1, weights: randomWeights({ variant: 'mha', dModel: 24, nHeads: 4, seqLen: 1 }, 3) },
  { variant: 'mha', dModel: 24, nHeads: 4, seed: 1 },
];

for (const { simd, name } of BUILDS) {
  describe(`seeded weights kept between calls (${name})`, () => {
    test('every call in a sequence equals the same call on a fresh module', async () => {
      const attn = await load(simd);
      const results = CALLS.map((c) => attn.forward({ ...c, seqLen: 6, x: X, returnWeights: true }));
      for (const [i, c] of CALLS.entries()) {
        const fresh = await load(simd);  // a new module instance: nothing kept
        const want = fresh.forward({ ...c, seqLen: 6, x: X, returnWeights: true });
        assert.ok(bitIdentical(results[i].output, want.output), `call ${i} (${JSON.stringify({ ...c, weights: c.weights ? '...' : undefined })}): output`);
        assert.ok(bitIdentical(results[i].weights, want.weights), `call ${i}: weights`);
      }
      assert.ok(!bitIdentical(results[0].output, results[1].output), 'seeds 1 and 2 gave the same output');
      assert.ok(bitIdentical(results[0].output, results[2].output), 'seed 1 twice differs');
    });

    test('sessions and layers made from kept weights equal those of a fresh module', async () => {
      const attn = await load(simd);
      const spec = { variant: 'gqa', dModel: 24, nHeads: 4, nKvHeads: 2, seed: 9 };
      attn.forward({ ...spec, seqLen: 6, x: X });  // keeps seed 9's set
      const fresh = await load(simd);
      const layer = attn.createLayer(spec), freshLayer = fresh.createLayer(spec);
      assert.ok(bitIdentical(layer.forward(X).output, freshLayer.forward(X).output), 'layer');
      const s = attn.createSession({ ...spec, maxLen: 8 }), fs = fresh.createSession({ ...spec, maxLen: 8 });
      assert.ok(bitIdentical(s.append(X).output, fs.append(X).output), 'session');
      for (const o of [layer, freshLayer, s, fs]) o.dispose();
    });
  });
}
