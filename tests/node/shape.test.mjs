// shape.test.mjs: the resolved geometry the core returns (docs/api.md, "The resolved shape"): every
// forward, append and layer.forward result carries `shape`, and attn.resolveShape(spec) gives the
// same object without running anything, refusing bad specs with the errors of the call they are for
// (a page checks its fields with it before it allocates an input). Both builds.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load, randomArray } from './helpers.mjs';

const GEOMETRIES = [
  { variant: 'mha', dModel: 32, nHeads: 4 },
  { variant: 'mqa', dModel: 32, nHeads: 4 },
  { variant: 'gqa', dModel: 48, nHeads: 6, nKvHeads: 2 },
  { variant: 'gqa', dModel: 40, nHeads: 4, nKvHeads: 4, dHead: 6 },
  { variant: 'mla', dModel: 32, nHeads: 4, latentRank: 6, ropeDim: 2 },
  { variant: 'mla', dModel: 32, nHeads: 2, dHead: 8, latentRank: 5 },
];

/** The shape docs/api.md promises, written out from the spec here (not by the core). */
function expected(spec) {
  const H = spec.nHeads;
  const G = spec.variant === 'mqa' ? 1 : spec.variant === 'gqa' ? spec.nKvHeads : H;
  const dHead = spec.dHead ?? spec.dModel / H;
  const mla = spec.variant === 'mla';
  const r = mla ? spec.latentRank : 0;
  const dr = mla ? spec.ropeDim ?? 0 : 0;
  return {
    variant: spec.variant, dModel: spec.dModel, nHeads: H, nKvHeads: G, dHead, latentRank: r, ropeDim: dr,
    kvHeadOf: Array.from({ length: H }, (_, h) => (mla ? 0 : Math.floor(h / (H / G)))),
    cacheFloatsPerToken: mla ? r + dr : 2 * G * dHead,
  };
}

for (const { simd, name } of BUILDS) {
  describe(`resolved shape (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    test('forward, session.append, layer.forward and resolveShape return the resolved geometry', () => {
      for (const g of GEOMETRIES) {
        const want = expected(g);
        const x = randomArray(3 * g.dModel, 4);
        const r = attn.forward({ ...g, seqLen: 3, x });
        assert.deepEqual({ ...r.shape }, want, `forward ${JSON.stringify(g)}`);
        assert.ok(Object.isFrozen(r.shape) && Object.isFrozen(r.shape.kvHeadOf));
        assert.deepEqual({ ...attn.resolveShape({ ...g, seqLen: 3 }) }, want, 'resolveShape of a forward spec');
        assert.deepEqual({ ...attn.resolveShape(g) }, want, 'resolveShape of a layer spec');
        assert.deepEqual({ ...attn.resolveShape({ ...g, maxLen: 4 }) }, want, 'resolveShape of a session spec');

        const s = attn.createSession({ ...g, maxLen: 4 });
        assert.deepEqual({ ...s.shape }, want, 'session.shape');
        const a = s.append(x.subarray(0, g.dModel));
        assert.equal(a.shape, s.shape, 'an append carries the session shape');
        s.dispose();
        const layer = attn.createLayer(g);
        assert.deepEqual({ ...layer.shape }, want, 'layer.shape');
        assert.equal(layer.forward(x).shape, layer.shape);
        layer.dispose();

        const ri = attn.forward({ ...g, seqLen: 3, x, returnIntermediates: true }).shape;
        assert.deepEqual({ ...ri, seqLen: undefined, rope: undefined, causal: undefined },
          { ...want, seqLen: undefined, rope: undefined, causal: undefined }, 'returnIntermediates adds to it');
        assert.equal(ri.seqLen, 3);
      }
    });

    test('resolveShape refuses what the call would refuse, with the same error, and allocates nothing', () => {
      const heap = attn.heapBytes();
      const bad = [
        { variant: 'mha', seqLen: 6, dModel: -5, nHeads: 2 },
        { variant: 'mha', seqLen: 6, dModel: 1e9, nHeads: 2 },
        { variant: 'gqa', seqLen: 4, dModel: 48, nHeads: 6, nKvHeads: 4 },
        { variant: 'mla', seqLen: 4, dModel: 32, nHeads: 4 },
        { variant: 'mha', seqLen: 4.5, dModel: 32, nHeads: 4 },
        { variant: 'mha', seqLen: 131072, dModel: 4096, nHeads: 32 },  // above the memory cap
        { variant: 'mha', seqLen: 4, dModel: 32, nHeads: 4, nKVHeads: 4 },
        { variant: 'mha\0x', seqLen: 4, dModel: 32, nHeads: 4 },
      ];
      for (const spec of bad) {
        const viaForward = (() => {
          try {
            attn.forward({ ...spec, x: new Float32Array(16) });
          } catch (e) {
            return e;
          }
          return null;
        })();
        assert.ok(viaForward, `forward refuses ${JSON.stringify(spec)}`);
        assert.throws(() => attn.resolveShape(spec), (e) => {
          assert.equal(e.constructor, viaForward.constructor, e.message);
          assert.equal(e.field, viaForward.field);
          assert.equal(e.message.replace('shape spec', 'forward spec'), viaForward.message);
          return true;
        });
      }
      // A session spec: the session's rules (causal false, seqLen) and its memory cap.
      const session = { variant: 'mha', dModel: 32, nHeads: 4, maxLen: 8 };
      assert.throws(() => attn.resolveShape({ ...session, causal: false }), (e) => e.field === 'causal');
      assert.throws(() => attn.createSession({ ...session, causal: false }), (e) => e.field === 'causal');
      assert.throws(() => attn.resolveShape({ ...session, maxLen: 0 }), (e) => e.field === 'maxLen');
      // resolveShape's own rules: no x (it allocates nothing), not seqLen and maxLen together.
      assert.throws(() => attn.resolveShape({ ...session, x: new Float32Array(32) }), (e) => e instanceof TypeError && e.field === 'x');
      assert.throws(() => attn.resolveShape({ ...session, seqLen: 4 }), (e) => e instanceof TypeError && e.field === 'maxLen');
      // the bare geometry has no work caps: a real model's sizes resolve
      assert.equal(attn.resolveShape({ variant: 'gqa', dModel: 8192, nHeads: 64, nKvHeads: 8 }).dHead, 128);
      assert.equal(attn.heapBytes(), heap);
    });
  });
}
