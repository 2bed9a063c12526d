// decode-probe.test.mjs: the decode probe (attn.createDecodeProbe, attn.copyBandwidth; the binding
// wasm/bindings_decode_probe.cpp, core/include/attn/decode_probe.hpp) as the page's worker calls it,
// through the Attention object of each build: a cached step and the recompute without a cache in
// short calls, the bytes each step reads, the copy bandwidth, and errors that name the field.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, importLib, load } from './helpers.mjs';

describe('decode probe without the training module', () => {
  test('asks for loadTraining(), naming the field', async () => {
    const { loadAttention } = await importLib();
    const attn = await loadAttention({ simd: false, training: false });
    if (attn.trainingLoaded) return;  // another test of this process loaded it already
    assert.throws(() => attn.createDecodeProbe({ variant: 'mha', dModel: 8, nHeads: 2, maxLen: 4 }), (e) => e.field === 'training');
    assert.throws(() => attn.copyBandwidth(10), (e) => e.field === 'training');
  });
});

for (const { simd, name } of BUILDS) {
  describe(`decode probe (${name})`, () => {
    let attn;
    before(async () => { attn = await load(simd); });

    // A small GQA layer (the page uses Llama 3 8B's: D 4096, H 32, G 8, dh 128, maxLen 8193).
    const spec = { variant: 'gqa', dModel: 128, nHeads: 8, nKvHeads: 2, maxLen: 700, rope: true };
    const D = 128, dh = 16, G = 2, H = 8;

    test('a cached step: time per token and the bytes it reads', () => {
      const p = attn.createDecodeProbe(spec);
      const r = p.cachedStep(600, 20);
      assert.equal(r.context, 600);
      assert.ok(r.steps >= 1 && r.msPerToken > 0, JSON.stringify(r));
      assert.equal(r.weightBytes, 4 * (D * H * dh + 2 * D * G * dh + H * dh * D));
      assert.equal(r.cacheBytes, 4 * 600 * 2 * G * dh);
      assert.equal(p.cachedStep(0, 1).cacheBytes, 0);
      p.dispose();
    });

    test('without a cache: chunked calls until done, each call short', () => {
      const p = attn.createDecodeProbe(spec);
      let r;
      let calls = 0;
      do {
        r = p.uncachedStep(650, 1e-3);  // a tiny budget: one chunk of 256 rows per call
        calls++;
      } while (!r.done && calls < 20);
      assert.equal(r.done, true);
      assert.equal(calls, 3, '650 rows in chunks of 256');
      assert.equal(r.rows, 650);
      assert.ok(r.ms > 0);
      assert.equal(r.flops, 2 * 650 * D * 2 * G * dh);
      // another context starts over
      assert.equal(p.uncachedStep(300, 1e-3).rows, 256);
      p.dispose();
    });

    test('MLA: the cache row is [c | kr], the recompute is x [W_dkv | W_kr]', () => {
      const p = attn.createDecodeProbe({ variant: 'mla', dModel: 128, nHeads: 4, dHead: 32, latentRank: 48, ropeDim: 16, maxLen: 300 });
      assert.equal(p.cachedStep(299, 5).cacheBytes, 4 * 299 * (48 + 16));
      let r;
      do r = p.uncachedStep(299, 50); while (!r.done);
      assert.equal(r.flops, 2 * 299 * 128 * (48 + 16));
      p.dispose();
    });

    test('copy bandwidth: bytes read per second of a 64 MiB copy', () => {
      assert.ok(attn.copyBandwidth(10) > 1e8);
    });

    test('bad arguments name their field, and the probe keeps working', () => {
      const p = attn.createDecodeProbe(spec);
      const field = (fn) => { try { fn(); } catch (e) { return [e.name, e.field]; } return 'no error'; };
      assert.deepEqual(field(() => p.cachedStep(700, 10)), ['RangeError', 'context']);
      assert.deepEqual(field(() => p.cachedStep(-1, 10)), ['RangeError', 'context']);
      assert.deepEqual(field(() => p.uncachedStep(1.5, 10)), ['RangeError', 'context']);
      assert.deepEqual(field(() => p.cachedStep(1, 0)), ['RangeError', 'budgetMs']);
      assert.deepEqual(field(() => attn.copyBandwidth(1e6)), ['RangeError', 'budgetMs']);
      assert.deepEqual(field(() => attn.createDecodeProbe({ ...spec, nKvHeads: 3 })), ['RangeError', 'nHeads']);
      assert.deepEqual(field(() => attn.createDecodeProbe({ variant: 'mha', dModel: 4096, nHeads: 32, maxLen: 131072 })), ['RangeError', undefined]);
      assert.deepEqual(field(() => p.cachedStep('3', 1)), ['TypeError', 'context']);
      assert.deepEqual(field(() => attn.copyBandwidth(undefined)), ['TypeError', 'budgetMs']);
      assert.ok(p.cachedStep(3, 1).steps >= 1);
      p.dispose();
      assert.throws(() => p.cachedStep(3, 1), /disposed/);
    });
  });
}
