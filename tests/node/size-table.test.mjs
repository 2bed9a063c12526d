// size-table.test.mjs: sizeTable(), the configurator's rule-of-thumb table that the page's heads table
// shows, holds the lesson's four rows exactly (reference/lesson.md, "Rules of thumb") and real models
// between them, ordered by budget; recommend() at a lesson budget returns that row's shape.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load } from './helpers.mjs';

// The lesson's table: size, d_model, n_heads, d_head.
const LESSON = [
  [125e6, 768, 12, 64],
  [350e6, 1024, 16, 64],
  [1e9, 2048, 16, 128],
  [70e9, 8192, 64, 128],
];

for (const { simd, name } of BUILDS) {
  describe(`sizeTable (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    test('the lesson rows, exactly, and marked', () => {
      const lesson = attn.sizeTable().filter((r) => r.lesson);
      assert.deepEqual(lesson.map((r) => [r.params, r.dModel, r.nHeads, r.dHead]), LESSON);
      for (const r of lesson) assert.match(r.source, /^lesson: /);
    });

    test('real models between, ordered by budget', () => {
      const rows = attn.sizeTable();
      // the lesson's four rows and five real models between and above them
      assert.deepEqual(rows.map((r) => r.params), [125e6, 350e6, 1e9, 3e9, 8e9, 13e9, 33e9, 70e9, 405e9]);
      assert.deepEqual(rows.filter((r) => !r.lesson).map((r) => r.source),
        ['Llama 3.2 3B', 'Llama 3 8B, Mistral 7B', 'Llama 2 13B', 'LLaMA 33B', 'Llama 3.1 405B']);
      for (let i = 1; i < rows.length; i++) assert.ok(rows[i].params > rows[i - 1].params, rows[i].source);
      const llama8b = rows.find((r) => r.params === 8e9);
      assert.deepEqual([llama8b.dModel, llama8b.nHeads, llama8b.dHead, llama8b.nLayers], [4096, 32, 128, 32]);
    });

    test('recommend() at a lesson budget takes that row', () => {
      for (const [params, dModel, nHeads, dHead] of LESSON) {
        const r = attn.recommend({ paramBudget: params, seqLen: 4096 });
        assert.deepEqual([r.dModel, r.nHeads, r.dHead], [dModel, nHeads, dHead], `budget ${params}`);
      }
    });
  });
}
