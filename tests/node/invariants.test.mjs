// invariants.test.mjs: properties every forward pass must have, for both builds: attention rows sum
// to 1, causal masks are exact zeros, MHA/MQA are GQA special cases, seeded weights are
// deterministic, explicit weights match a float64 reference, and the SIMD build agrees with the
// scalar one.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import {
  BUILDS,
  REPO,
  assertClose,
  bitIdentical,
  load,
  randomArray,
  randomWeights,
  referenceForward,
  relDiff,
} from './helpers.mjs';

const PACKAGE_VERSION = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;

// Sizes straddle the core's blocking (32 queries per block, a direct path below 8 queries).
const CONFIGS = {
  mha: { variant: 'mha', seqLen: 12, dModel: 32, nHeads: 4 },
  mqa: { variant: 'mqa', seqLen: 40, dModel: 32, nHeads: 4 },
  gqa: { variant: 'gqa', seqLen: 37, dModel: 48, nHeads: 6, nKvHeads: 2 },
  'gqa rope': { variant: 'gqa', seqLen: 20, dModel: 32, nHeads: 4, nKvHeads: 2, rope: true },
  'mha rope base 500': { variant: 'mha', seqLen: 9, dModel: 16, nHeads: 2, rope: { base: 500 } },
  'mqa dHead != dModel/nHeads (PaLM-like)': { variant: 'mqa', seqLen: 10, dModel: 24, nHeads: 3, dHead: 16 },
  'mla no rope': { variant: 'mla', seqLen: 11, dModel: 32, nHeads: 4, latentRank: 8 },
  'mla ropeDim 4': { variant: 'mla', seqLen: 35, dModel: 32, nHeads: 4, dHead: 6, latentRank: 10, ropeDim: 4 },
};

/** x for a config, from our own PRNG. */
const inputFor = (spec, seed = 7) => randomArray(spec.seqLen * spec.dModel, seed);

/** Checks the (H, N, N) weights: in [0, 1], rows summing to 1, zeros above the diagonal if causal. */
function checkAttentionMatrix(w, H, N, causal, label) {
  assert.equal(w.length, H * N * N, `${label}: weights length`);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < N; i++) {
      let sum = 0;
      for (let j = 0; j < N; j++) {
        const p = w[h * N * N + i * N + j];
        assert.ok(p >= 0 && p <= 1 + 1e-6, `${label}: weight (h ${h}, i ${i}, j ${j}) = ${p} is not in [0, 1]`);
        if (causal && j > i) assert.ok(p === 0, `${label}: causal weight (h ${h}, i ${i}, j ${j}) = ${p}, expected exactly 0`);
        sum += p;
      }
      assert.ok(Math.abs(sum - 1) <= 1e-5, `${label}: row (h ${h}, i ${i}) sums to ${sum}`);
    }
  }
}

for (const { simd, name } of BUILDS) {
  describe(`forward invariants (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    test('info describes the loaded build', () => {
      assert.equal(attn.info.simd, simd);
      assert.equal(attn.info.build, simd ? 'simd' : 'scalar');
      assert.equal(attn.info.version, PACKAGE_VERSION, 'the version of package.json');
      assert.equal(attn.info.maxWorkBytes, 2 ** 30, 'maxWorkBytes: 1 GiB (README, Limits)');
    });

    for (const [label, cfg] of Object.entries(CONFIGS)) {
      test(`${label}: rows of the weights sum to 1, zeros above the diagonal when causal`, () => {
        for (const causal of [false, true]) {
          const r = attn.forward({ ...cfg, x: inputFor(cfg), causal, returnWeights: true });
          assert.ok(r.output instanceof Float32Array, 'output is a Float32Array');
          assert.equal(r.output.length, cfg.seqLen * cfg.dModel, 'output length');
          assert.ok(r.output.every(Number.isFinite), 'output is finite');
          checkAttentionMatrix(r.weights, cfg.nHeads, cfg.seqLen, causal, `${label}, causal ${causal}`);
        }
      });

      test(`${label}: explicit weights match a float64 reference`, () => {
        for (const causal of [false, true]) {
          const spec = { ...cfg, causal };
          const x = inputFor(cfg, 11);
          const weights = randomWeights(cfg, 3);
          const ref = referenceForward(spec, x, weights);
          const r = attn.forward({ ...spec, x, weights, returnWeights: true });
          assertClose(r.output, ref.output, 1e-4, `${label}, causal ${causal}: output`);
          assertClose(r.weights, ref.weights, 1e-4, `${label}, causal ${causal}: weights`);
        }
      });
    }

    test('weights are returned only when asked, and asking does not change the output', () => {
      const cfg = CONFIGS.gqa;
      const x = inputFor(cfg);
      const plain = attn.forward({ ...cfg, x, causal: true });
      assert.ok(plain.weights == null, 'weights returned without returnWeights');
      const withWeights = attn.forward({ ...cfg, x, causal: true, returnWeights: true });
      assertClose(withWeights.output, plain.output, 1e-6, 'output with returnWeights');
    });

    test('inputs are not modified', () => {
      for (const cfg of [CONFIGS['gqa rope'], CONFIGS['mla ropeDim 4']]) {
        const x = inputFor(cfg);
        const weights = randomWeights(cfg, 5);
        const xCopy = x.slice();
        const wCopy = Object.fromEntries(Object.entries(weights).map(([k, v]) => [k, v.slice()]));
        attn.forward({ ...cfg, x, weights, causal: true, returnWeights: true });
        assert.ok(bitIdentical(x, xCopy), `${cfg.variant}: x was modified`);
        for (const k of Object.keys(weights)) assert.ok(bitIdentical(weights[k], wCopy[k]), `${cfg.variant}: ${k} was modified`);
      }
    });

    test('MHA equals GQA with nKvHeads = nHeads (same seed and x)', () => {
      for (const causal of [false, true]) {
        const base = { seqLen: 14, dModel: 32, nHeads: 4, seed: 42, causal, returnWeights: true };
        const x = randomArray(14 * 32, 1);
        const mha = attn.forward({ ...base, variant: 'mha', x });
        const gqa = attn.forward({ ...base, variant: 'gqa', nKvHeads: 4, x });
        assertClose(gqa.output, mha.output, 1e-6, `causal ${causal}: output`);
        assertClose(gqa.weights, mha.weights, 1e-6, `causal ${causal}: weights`);
      }
    });

    test('MQA equals GQA with nKvHeads = 1 (same seed and x)', () => {
      for (const causal of [false, true]) {
        const base = { seqLen: 14, dModel: 32, nHeads: 4, seed: 43, causal, returnWeights: true, rope: true };
        const x = randomArray(14 * 32, 2);
        const mqa = attn.forward({ ...base, variant: 'mqa', x });
        const gqa = attn.forward({ ...base, variant: 'gqa', nKvHeads: 1, x });
        assertClose(gqa.output, mqa.output, 1e-6, `causal ${causal}: output`);
        assertClose(gqa.weights, mqa.weights, 1e-6, `causal ${causal}: weights`);
      }
    });

    test('seeded weights are deterministic: same seed identical, other seed different, default seed 0', () => {
      for (const cfg of [CONFIGS.gqa, CONFIGS['mla ropeDim 4']]) {
        const x = inputFor(cfg);
        const a = attn.forward({ ...cfg, x, seed: 5 }).output;
        const b = attn.forward({ ...cfg, x, seed: 5 }).output;
        const c = attn.forward({ ...cfg, x, seed: 6 }).output;
        assert.ok(bitIdentical(a, b), `${cfg.variant}: the same seed gave different outputs`);
        assert.ok(relDiff(c, a).rel > 1e-3, `${cfg.variant}: seeds 5 and 6 gave (nearly) the same output`);
        const d0 = attn.forward({ ...cfg, x }).output;
        const s0 = attn.forward({ ...cfg, x, seed: 0 }).output;
        assert.ok(bitIdentical(d0, s0), `${cfg.variant}: omitting seed differs from seed 0`);
      }
    });

    test('MLA: causal output differs from non-causal, except for the last query', () => {
      const cfg = CONFIGS['mla ropeDim 4'];
      const x = inputFor(cfg);
      const open = attn.forward({ ...cfg, x, causal: false }).output;
      const masked = attn.forward({ ...cfg, x, causal: true }).output;
      assert.ok(relDiff(masked, open).rel > 1e-3, 'causal and non-causal MLA outputs are the same');
      const D = cfg.dModel;
      const last = (o) => o.subarray((cfg.seqLen - 1) * D);
      assertClose(last(masked), last(open), 1e-5, 'last query (sees every key either way)');
    });
  });
}

describe('SIMD and scalar builds agree', () => {
  let simd, scalar;
  before(async () => {
    [simd, scalar] = await Promise.all([load(true), load(false)]);
  });

  for (const [label, cfg] of Object.entries(CONFIGS)) {
    test(label, (t) => {
      for (const causal of [false, true]) {
        const spec = { ...cfg, x: inputFor(cfg), seed: 9, causal, returnWeights: true };
        const a = simd.forward(spec);
        const b = scalar.forward(spec);
        const dOut = assertClose(a.output, b.output, 1e-6, `causal ${causal}: output`);
        const dW = assertClose(a.weights, b.weights, 1e-6, `causal ${causal}: weights`);
        const same = bitIdentical(a.output, b.output) && bitIdentical(a.weights, b.weights);
        t.diagnostic(
          `causal ${causal}: ${same ? 'bit-identical' : 'not bit-identical'} ` +
            `(output rel ${dOut.rel.toExponential(2)}, weights rel ${dW.rel.toExponential(2)})`,
        );
      }
    });
  }
});
