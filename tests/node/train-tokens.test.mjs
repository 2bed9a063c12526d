// train-tokens.test.mjs: task 'tokens' through the JS API (createTrainer with token ids and vocabSize,
// loadModel with { tokens }) on both builds: it learns, its refusals name the field, and a model file
// names its ids by reference. The ids of the zoo tokenizer's fixture (tests/fixtures/zoo-tokenizer)
// train too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { BUILDS, REPO, load } from './helpers.mjs';
import { editModelFile } from './model-file-kit.mjs';

const cycle = (count, period) => Uint16Array.from({ length: count }, (_, i) => i % period);
const SPEC = {
  task: 'tokens', vocabSize: 16,
  model: { variant: 'mha', dModel: 32, nHeads: 2 },
  seqLen: 16, batchSize: 8, learningRate: 1e-2, seed: 3,
};
const refused = (f, name, field, part) => assert.throws(f, (e) => {
  assert.equal(e.name, name, e.message);
  assert.equal(e.field, field, e.message);
  if (part) assert.ok(e.message.includes(part), e.message);
  return true;
});

for (const { simd, name } of BUILDS) {
  describe(`task 'tokens' (${name})`, () => {
    let attn;
    before(async () => { attn = await load(simd); });

    test('a repeated pattern of ids is learned', () => {
      const t = attn.createTrainer({ ...SPEC, tokens: cycle(2000, 10) });
      assert.equal(t.vocabSize, 16);
      const before = t.evaluate().loss;
      for (let i = 0; i < 15; i++) t.step(10);
      const after = t.evaluate();
      assert.ok(before > 2 && after.loss < 0.2, `held-out loss ${before} -> ${after.loss}`);
      assert.ok(after.accuracy > 0.95);
      t.dispose();
    });

    test('bad tokens and vocabSize are refused naming the field and the value', () => {
      const ids = cycle(400, 10);
      refused(() => attn.createTrainer({ ...SPEC, vocabSize: undefined, tokens: ids }), 'TypeError', 'vocabSize', 'vocabSize is required');
      refused(() => attn.createTrainer({ ...SPEC }), 'TypeError', 'tokens', 'tokens is required');
      const bad = Int32Array.from(ids);
      bad[3] = 20;
      refused(() => attn.createTrainer({ ...SPEC, tokens: bad }), 'RangeError', 'tokens', 'tokens[3] (20) is not a token id below vocabSize (16)');
      refused(() => attn.createTrainer({ ...SPEC, tokens: [0, 1, 1.5, ...ids] }), 'RangeError', 'tokens', 'tokens[2] (1.5) must be an integer');
      refused(() => attn.createTrainer({ ...SPEC, tokens: cycle(179, 10) }), 'RangeError', 'tokens', 'tokens (179 ids) are too few for seqLen (16)');
      refused(() => attn.createTrainer({ ...SPEC, tokens: 'abc' }), 'TypeError', 'tokens');
      refused(() => attn.createTrainer({ ...SPEC, task: 'copy', tokens: ids }), 'RangeError', 'tokens', "applies to task 'tokens' only");
    });

    test('a model file names its ids by reference; loadModel takes them back', () => {
      const ids = cycle(1000, 7);
      const t = attn.createTrainer({ ...SPEC, vocabSize: 12, tokens: ids });
      t.step(5);
      const bytes = t.exportModel();
      refused(() => attn.loadModel(bytes), 'TypeError', 'tokens', 'loadModel(bytes, { tokens })');
      const other = Uint16Array.from(ids);
      other[10] = (ids[10] + 1) % 7;  // another id at one place
      refused(() => attn.loadModel(bytes, { tokens: other }), 'RangeError', 'tokens', 'are not the ids this model was trained on');
      for (const tokens of [ids, Array.from(ids), Int32Array.from(ids)]) {
        const u = attn.loadModel(bytes, { tokens });
        assert.equal(u.steps, 5);
        assert.equal(u.evaluate().loss, t.evaluate().loss);
        u.dispose();
      }
      // its header fields: both required for task 'tokens', each checked; refused for any other task
      const edited = (edit) => editModelFile(bytes, edit);
      const badFile = (file, part) => refused(() => attn.loadModel(file, { tokens: ids }), 'RangeError', 'bytes', part);
      badFile(edited((m) => { delete m.tokensCrc32; }), "'tokenCount' and 'tokensCrc32' are required");
      badFile(edited((m) => { m.tokenCount = '-1'; }), "'tokenCount' ('-1') must be an integer");
      badFile(edited((m) => { m.tokensCrc32 = 'ABCDEF01'; }), "'tokensCrc32' ('ABCDEF01') must be 8 lowercase hex digits");
      const copy = attn.createTrainer({ task: 'copy', model: { variant: 'mha', dModel: 16, nHeads: 2 } });
      const copyFile = copy.exportModel();
      copy.dispose();
      refused(() => attn.loadModel(editModelFile(copyFile, (m) => { m.tokenCount = '5'; })), 'RangeError', 'bytes',
        "'tokenCount' applies to task 'tokens' only");
      refused(() => attn.loadModel(copyFile, { tokens: ids }), 'RangeError', 'tokens', "applies only to a model file of task 'tokens'");
      t.dispose();
    });

    test("the zoo tokenizer's ids of held-out lines train", () => {
      const e = JSON.parse(fs.readFileSync(path.join(REPO, 'tests/fixtures/zoo-tokenizer/expected.json'), 'utf8'));
      const tokens = Int32Array.from(e.lineIds.flat());
      const t = attn.createTrainer({ ...SPEC, vocabSize: e.vocabSize, tokens, seqLen: 32, batchSize: 4, model: { variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2 } });
      const first = t.step(1).loss;
      assert.ok(Math.abs(first - Math.log(e.vocabSize)) < 1, `first loss ${first}, ln V = ${Math.log(e.vocabSize)}`);
      assert.ok(t.step(20).loss < first);
      t.dispose();
    });
  });
}
