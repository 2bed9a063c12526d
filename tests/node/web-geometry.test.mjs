// web/src/render/geometry.js against the core: the page takes every shape from resolveShape and every
// count from paramCount and kvCacheBytes; geometry.js only writes them as formulas. Each formula, with
// the shape's numbers put in for its symbols and evaluated here, must give the core's number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importLib } from './helpers.mjs';
import { cacheFormula, kvDetail, kvGroups, paramTerms, shapeLine } from '../../web/src/render/geometry.js';

const SHAPES = [
  { dModel: 64, nHeads: 8, nKvHeads: 2, latentRank: 16, ropeDim: 4 },
  { dModel: 96, nHeads: 6, nKvHeads: 3, latentRank: 8, ropeDim: 0 },
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

/**
 * Evaluates a formula as geometry.js writes it: sums (+) of products (· or ×) of numbers ("4,096")
 * and parenthesised sums. No eval: the tests run with code generation from strings disallowed.
 */
function evaluate(expr) {
  const text = expr.replace(/,/g, '').replace(/\s+/g, '');
  let i = 0;
  const sum = () => {
    let v = product();
    while (text[i] === '+') { i++; v += product(); }
    return v;
  };
  const product = () => {
    let v = factor();
    while (text[i] === '·' || text[i] === '×') { i++; v *= factor(); }
    return v;
  };
  const factor = () => {
    if (text[i] === '(') {
      i++;
      const v = sum();
      assert.equal(text[i++], ')', `unbalanced: ${expr}`);
      return v;
    }
    const m = /^\d+(\.\d+)?/.exec(text.slice(i));
    assert.ok(m, `not a formula: ${expr} (at ${text.slice(i)})`);
    i += m[0].length;
    return Number(m[0]);
  };
  const v = sum();
  assert.equal(i, text.length, `trailing text in ${expr}`);
  return v;
}

/** The symbolic formula with the shape's numbers (l: layers). */
function substitute(symbolic, shape, l = 1) {
  const values = { dh: shape.dHead, dr: shape.ropeDim, D: shape.dModel, H: shape.nHeads, G: shape.nKvHeads, r: shape.latentRank, l };
  return symbolic.replace(/\b(dh|dr|D|H|G|r|l)\b/g, (s) => String(values[s]));
}

test('the cache formulas give the core\'s cache per token, per layer and for l layers', async () => {
  const attn = await (await importLib()).loadAttention();
  let checked = 0;
  for (const s of SHAPES) {
    for (const v of VARIANTS) {
      const spec = coreSpec(v, s);
      const shape = attn.resolveShape(spec);
      const perToken = attn.kvCacheBytes({ ...spec, nLayers: 1, seqLen: 1, batch: 1, bytesPerElement: 1 });
      assert.equal(shape.cacheFloatsPerToken, perToken, `${v} ${JSON.stringify(s)}: the shape's cache per token`);
      for (const layers of [0, 3]) {
        const f = cacheFormula(shape, layers);
        const expected = attn.kvCacheBytes({ ...spec, nLayers: layers || 1, seqLen: 1, batch: 1, bytesPerElement: 1 });
        assert.equal(f.value, expected, `${v}: value, ${layers} layers`);
        assert.equal(evaluate(f.filled), expected, `${v}: ${f.filled}`);
        assert.equal(evaluate(substitute(f.symbolic, shape, layers)), expected, `${v}: ${f.symbolic}`);
      }
      checked++;
    }
  }
  assert.equal(checked, SHAPES.length * VARIANTS.length);
});

test('the parameter terms give the core\'s paramCount, term by term', async () => {
  const attn = await (await importLib()).loadAttention();
  for (const s of SHAPES) {
    for (const v of VARIANTS) {
      const spec = coreSpec(v, s);
      const shape = attn.resolveShape(spec);
      const counts = attn.paramCount(spec);
      const terms = paramTerms(shape, counts);
      assert.equal(terms.reduce((a, t) => a + t.value, 0), counts.total, `${v} ${JSON.stringify(s)}: the terms sum to the total`);
      for (const t of terms) {
        assert.equal(evaluate(t.filled), t.value, `${v} ${t.name}: ${t.filled}`);
        assert.equal(evaluate(substitute(t.symbolic, shape)), t.value, `${v} ${t.name}: ${t.symbolic}`);
      }
    }
  }
});

test('groups, labels and K/V details follow the core\'s shape', async () => {
  const attn = await (await importLib()).loadAttention();
  const gqa = attn.resolveShape({ variant: 'gqa', dModel: 64, nHeads: 8, nKvHeads: 2 });
  assert.deepEqual(kvGroups(gqa), [{ kvHead: 0, heads: [0, 1, 2, 3] }, { kvHead: 1, heads: [4, 5, 6, 7] }]);
  assert.equal(shapeLine(gqa), 'H = 8 query heads, G = 2 K/V heads, dh = 8');
  assert.equal(kvDetail(gqa), 'G = 2');
  const mha = attn.resolveShape({ variant: 'mha', dModel: 64, nHeads: 4 });
  assert.equal(kvGroups(mha).length, 4);
  assert.equal(kvDetail(mha), 'G = H = 4');
  const mqa = attn.resolveShape({ variant: 'mqa', dModel: 64, nHeads: 4 });
  assert.deepEqual(kvGroups(mqa), [{ kvHead: 0, heads: [0, 1, 2, 3] }]);
  assert.equal(shapeLine(mqa), 'H = 4 query heads, G = 1 K/V head, dh = 16');
  assert.equal(kvDetail(mqa), 'G = 1');
  const mla = attn.resolveShape({ variant: 'mla', dModel: 64, nHeads: 4, latentRank: 16, ropeDim: 4 });
  assert.deepEqual(kvGroups(mla), [{ kvHead: null, heads: [0, 1, 2, 3] }]);
  assert.equal(kvDetail(mla), 'r = 16, dr = 4');
});
