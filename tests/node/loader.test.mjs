// loader.test.mjs: loadAttention() itself: choosing the build, memoisation, option checks, and
// results that JS owns (they survive wasm memory growth).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { importLib, load, randomArray } from './helpers.mjs';

describe('loadAttention', () => {
  test("simd: 'auto' (the default) picks the SIMD build on an engine with SIMD (Node >= 20)", async () => {
    const { loadAttention } = await importLib();
    const attn = await loadAttention();
    assert.equal(attn.info.build, 'simd');
    assert.equal(attn.info.simd, true);
    assert.equal(await loadAttention({ simd: 'auto' }), attn, 'auto and the default are the same load');
  });

  test('each build is instantiated once (memoised)', async () => {
    const { loadAttention } = await importLib();
    const [a, b] = await Promise.all([loadAttention({ simd: true }), loadAttention({ simd: true })]);
    assert.equal(a, b);
    const c = await loadAttention({ simd: false });
    assert.notEqual(c, a);
    assert.equal(c.info.build, 'scalar');
    assert.equal(c.info.simd, false);
    assert.equal(await loadAttention({ simd: false }), c);
  });

  test('the Attention object has the API of docs/api.md', async () => {
    const attn = await load(true);
    for (const f of ['forward', 'createSession', 'paramCount', 'kvCacheBytes', 'presets']) {
      assert.equal(typeof attn[f], 'function', f);
    }
    assert.deepEqual(Object.keys(attn.info).sort(), ['build', 'maxSyncSeconds', 'maxWorkBytes', 'simd', 'version']);
    assert.equal(attn.info.maxSyncSeconds, 1);
    assert.equal(typeof attn.heapBytes, 'function');
  });

  test('a bad simd option is refused with a TypeError naming it', async () => {
    const { loadAttention } = await importLib();
    await assert.rejects(loadAttention({ simd: 'yes' }), (e) => e instanceof TypeError && /options\.simd/.test(e.message));
  });

  test('simd: true on an engine without SIMD throws an Error naming the option; auto falls back to scalar', async (t) => {
    const { loadAttention } = await importLib();
    t.mock.method(WebAssembly, 'validate', () => false); // an engine that rejects v128 code
    await assert.rejects(loadAttention({ simd: true }), (e) => e instanceof Error && /simd/.test(e.message));
    const attn = await loadAttention();
    assert.equal(attn.info.build, 'scalar');
  });

  test('results are owned by JS and survive wasm memory growth', async () => {
    const attn = await load(true);
    const spec = { variant: 'gqa', seqLen: 8, dModel: 16, nHeads: 4, nKvHeads: 2, returnWeights: true };
    const first = attn.forward({ ...spec, x: randomArray(8 * 16, 1) });
    const copy = first.output.slice();
    // a forward pass with 64 MB of seeded weights grows the heap (it starts at 16 MB)
    const D = 2048;
    const big = attn.forward({ variant: 'mha', seqLen: 2, dModel: D, nHeads: 16, x: randomArray(2 * D, 2) });
    assert.equal(big.output.length, 2 * D);
    assert.equal(first.output.length, 8 * 16, 'an earlier result was detached by memory growth');
    assert.deepEqual(first.output, copy);
    // and the module still answers
    assert.equal(attn.forward({ ...spec, x: randomArray(8 * 16, 1) }).output.length, 8 * 16);
  });
});
