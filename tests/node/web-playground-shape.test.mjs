// web/src/parts/playground-shape.js ("Load shape", "Open in the playground") against the core: every
// real model and every lesson row loads with its own variant, query heads and K/V heads; dModel is at
// most 128; dh is the model's or the largest halving of it at which one block's weights (paramCount)
// stay within 2^20; MLA keeps its ratios r / dh and dr / dh; the state it patches is one the core takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importLib } from './helpers.mjs';
import { PLAY_MAX_DMODEL, PLAY_MAX_WEIGHTS, playgroundShape, scaledNote } from '../../web/src/parts/playground-shape.js';
import { DEFAULTS, shapeSpec } from '../../web/src/state.js';

/** The worker's proxy, on the core itself. */
const clientOf = (attn) => ({ call: async (method, ...args) => attn[method](...args) });

/** Every model the page offers to load: the presets and the lesson's rows with the configurator's variant. */
function models(attn) {
  const lesson = attn.sizeTable().filter((s) => s.lesson).map((s) => {
    const rec = attn.recommend({ paramBudget: s.params, seqLen: 8192 });
    return { id: `lesson-${s.params}`, variant: rec.variant, dModel: s.dModel, nHeads: s.nHeads, dHead: s.dHead,
      nKvHeads: rec.nKvHeads, latentRank: rec.latentRank, ropeDim: rec.ropeDim };
  });
  return [...attn.presets(), ...lesson];
}

test('every model loads with its own heads, dModel at most 128 and the largest dh that keeps the weights small', async () => {
  const attn = await (await importLib()).loadAttention();
  const client = clientOf(attn);
  const all = models(attn);
  assert.ok(all.length >= 20, `${all.length} models`);
  for (const row of all) {
    const { patch, notes, weights } = await playgroundShape(client, row);
    const spec = shapeSpec({ ...DEFAULTS, ...patch });
    const shape = attn.resolveShape(spec);  // the state it loads is one the core accepts
    const id = row.id;
    assert.equal(shape.variant, row.variant, `${id}: variant`);
    assert.equal(shape.nHeads, row.nHeads, `${id}: query heads`);
    if (row.variant === 'gqa') assert.equal(shape.nKvHeads, row.nKvHeads, `${id}: K/V heads`);
    assert.equal(shape.dModel, Math.min(row.dModel, PLAY_MAX_DMODEL), `${id}: dModel`);
    assert.equal(attn.paramCount(spec).total, weights, `${id}: the weights counted are the core's`);
    assert.ok(weights <= PLAY_MAX_WEIGHTS || shape.dHead < 16, `${id}: ${weights} weights`);
    if (shape.dHead !== row.dHead) {
      // Halved only as far as needed: at twice this dh (and r, dr) the block is over the limit.
      const k = row.dHead / shape.dHead;
      assert.ok(Number.isInteger(Math.log2(k)), `${id}: dh ${row.dHead} -> ${shape.dHead} is a halving`);
      const wider = { ...spec, dHead: shape.dHead * 2 };
      if (row.variant === 'mla') Object.assign(wider, { latentRank: shape.latentRank * 2, ropeDim: shape.ropeDim * 2 });
      assert.ok(attn.paramCount(wider).total > PLAY_MAX_WEIGHTS, `${id}: dh ${shape.dHead * 2} would have fitted`);
      if (row.variant === 'mla') {
        assert.equal(shape.latentRank * k, row.latentRank, `${id}: r / dh kept`);
        assert.equal(shape.ropeDim * k, row.ropeDim, `${id}: dr / dh kept`);
      }
    }
    const changed = shape.dModel !== row.dModel || shape.dHead !== row.dHead;
    assert.equal(notes.length > 0, changed, `${id}: the notes say what changed (${notes})`);
  }
});

test('the lesson\'s 350M row loads 16 heads and Llama 3 70B 64 query heads on 8 K/V heads, and the note says so', async () => {
  const attn = await (await importLib()).loadAttention();
  const client = clientOf(attn);
  const base = models(attn).find((m) => m.id === 'lesson-350000000');
  const a = await playgroundShape(client, base);
  assert.deepEqual(a.patch, { variant: 'mha', dModel: 128, nHeads: 16, nKvHeads: 16, dHead: 64 });
  assert.deepEqual(a.notes, ['dModel 1,024 → 128']);
  const llama = attn.presets().find((p) => p.id === 'llama-3-70b');
  const b = await playgroundShape(client, llama);
  assert.deepEqual(b.patch, { variant: 'gqa', dModel: 128, nHeads: 64, nKvHeads: 8, dHead: 32 });
  assert.equal(b.what, 'GQA, H = 64 query heads, G = 8 K/V heads, dh = 32, D = 128');
  assert.match(scaledNote(b.notes), /^Scaled so that the seeded weights stay small: dModel at most 128, one block at most 1,048,576 weights, the model's query and K\/V heads kept: dModel 8,192 → 128; dh 128 → 32\.$/);
  assert.equal(scaledNote([]), '');
  const v3 = await playgroundShape(client, attn.presets().find((p) => p.id === 'deepseek-v3'));
  assert.deepEqual(v3.patch, { variant: 'mla', dModel: 128, nHeads: 128, nKvHeads: 128, dHead: 16, latentRank: 64, ropeDim: 8 });
});
