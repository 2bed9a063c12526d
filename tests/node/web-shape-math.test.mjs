// web/src/shape-math.js against the core: K/V heads, cache elements per token and attention weights
// for every variant and several shapes must equal what paramCount and kvCacheBytes return.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importLib } from './helpers.mjs';
import { attentionParams, cacheElementsPerToken, headWidth, kvHeads } from '../../web/src/shape-math.js';

const SHAPES = [
  { dModel: 64, nHeads: 8, nKvHeads: 2, dHead: 0, latentRank: 16, ropeDim: 4 },
  { dModel: 96, nHeads: 6, nKvHeads: 3, dHead: 0, latentRank: 8, ropeDim: 0 },
  { dModel: 64, nHeads: 4, nKvHeads: 4, dHead: 32, latentRank: 32, ropeDim: 8 },  // dHead != D / H (PaLM)
  { dModel: 4096, nHeads: 32, nKvHeads: 8, dHead: 128, latentRank: 512, ropeDim: 64 },
];
const VARIANTS = ['mha', 'mqa', 'gqa', 'mla'];

/** The core's spec for a shape and variant (only the fields the variant takes). */
function coreSpec(v, s) {
  const spec = { variant: v, dModel: s.dModel, nHeads: s.nHeads };
  if (s.dHead) spec.dHead = s.dHead;
  if (v === 'gqa') spec.nKvHeads = s.nKvHeads;
  if (v === 'mla') Object.assign(spec, { latentRank: s.latentRank, ropeDim: s.ropeDim });
  return spec;
}

test('shape-math agrees with the core for every variant', async () => {
  const attn = await (await importLib()).loadAttention();
  let checked = 0;
  for (const s of SHAPES) {
    for (const v of VARIANTS) {
      const spec = coreSpec(v, s);
      assert.deepEqual(attentionParams(v, s), attn.paramCount(spec), `${v} ${JSON.stringify(s)}: paramCount`);
      const elements = attn.kvCacheBytes({ ...spec, dHead: headWidth(s), nLayers: 1, seqLen: 1, batch: 1, bytesPerElement: 1 });
      assert.equal(cacheElementsPerToken(v, s), elements, `${v} ${JSON.stringify(s)}: cache elements per token`);
      // Whole model: elements per token x layers x length x batch x bytes.
      const big = attn.kvCacheBytes({ ...spec, dHead: headWidth(s), nLayers: 3, seqLen: 1000, batch: 2, bytesPerElement: 2 });
      assert.equal(cacheElementsPerToken(v, s) * 3 * 1000 * 2 * 2, big, `${v}: scaled by layers, length, batch, bytes`);
      checked++;
    }
  }
  assert.equal(checked, SHAPES.length * VARIANTS.length);
});

test('kvHeads: H for MHA, 1 for MQA, G for GQA, none cached for MLA', () => {
  const s = { nHeads: 8, nKvHeads: 2 };
  assert.deepEqual(VARIANTS.map((v) => kvHeads(v, s)), [8, 1, 2, 0]);
  assert.equal(headWidth({ dModel: 64, nHeads: 8, dHead: 0 }), 8);
  assert.equal(headWidth({ dModel: 64, nHeads: 8, dHead: 16 }), 16);
});
