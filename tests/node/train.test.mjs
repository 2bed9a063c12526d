// train.test.mjs: the training lab's JS API (createTrainer, loadModel) on both builds: a copy-task run
// whose loss falls, held-out evaluation, head scores, attention maps, export/load, bad specs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load } from './helpers.mjs';

const assertNear = (got, want, what) => assert.ok(Math.abs(got - want) <= 1e-5 * Math.abs(want), `${what}: ${got}, want ${want}`);

const SPEC = {
  task: 'copy',
  model: { variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2, nLayers: 1, layerNorm: true },
  seqLen: 16, batchSize: 8, learningRate: 3e-3, seed: 1,
};

for (const { simd, name } of BUILDS) {
  describe(`training (${name})`, () => {
    let attn;
    before(async () => { attn = await load(simd); });

    test('a seeded copy-task run lowers the loss and evaluates on held-out data', () => {
      const t = attn.createTrainer(SPEC);
      const first = t.step(1);
      assert.equal(first.step, 1);
      // Known values of this seeded run (both builds agree bit for bit); 1e-5 relative leaves room
      // for a reordered sum in the training code, not for a different computation.
      assertNear(first.loss, 2.8641084048947745, 'first loss');
      const later = t.step(60);
      assert.equal(later.step, 61);
      assert.equal(t.steps, 61);
      assert.ok(later.loss < first.loss, `loss ${first.loss} -> ${later.loss}`);
      assertNear(later.loss, 2.668582917062109, 'loss at step 61');
      const ev = t.evaluate();
      assertNear(ev.loss, 2.647213954967799, 'held-out loss');
      assert.ok(Math.abs(ev.bitsPerToken - ev.loss / Math.LN2) < 1e-9);
      assert.equal(ev.accuracy, 252 / 2048, 'held-out accuracy: 252 of 2048 copy positions (256 sequences x 8)');
      t.dispose();
      assert.throws(() => t.step(), /disposed/);
    });

    test('the same seed gives the same run', () => {
      const a = attn.createTrainer(SPEC), b = attn.createTrainer(SPEC);
      assert.equal(a.step(5).loss, b.step(5).loss);
      a.dispose();
      b.dispose();
    });

    test('attention maps are causal probability rows; head scores are in [0, 1]', () => {
      const t = attn.createTrainer({ ...SPEC, model: { ...SPEC.model, nLayers: 2 } });
      t.step(3);
      const tokens = [1, 2, 3, 1, 2, 3, 4];
      const { weights, layers, heads, n } = t.attention(tokens);
      assert.deepEqual([layers, heads, n], [2, 4, 7]);
      assert.equal(weights.length, 2 * 4 * 7 * 7);
      for (let r = 0; r < 2 * 4 * 7; r++) {
        let sum = 0;
        for (let j = 0; j < 7; j++) {
          sum += weights[r * 7 + j];
          if (j > r % 7) assert.equal(weights[r * 7 + j], 0);
        }
        assert.ok(Math.abs(sum - 1) < 1e-5);
      }
      const scores = t.headScores();
      assert.equal(scores.length, 2 * 4);
      for (const s of scores) {
        for (const k of ['previousToken', 'induction', 'firstToken', 'diagonal']) assert.ok(s[k] >= 0 && s[k] <= 1, `${k} ${s[k]}`);
      }
      t.dispose();
    });

    test('exportModel / loadModel round trip', () => {
      const t = attn.createTrainer(SPEC);
      t.step(10);
      const bytes = t.exportModel();
      assert.ok(bytes instanceof Uint8Array && bytes.length > 1000);
      const u = attn.loadModel(bytes);
      assert.equal(u.steps, 10);
      assert.deepEqual(u.attention([1, 2, 3]).weights, t.attention([1, 2, 3]).weights);
      assert.deepEqual(u.evaluate(), t.evaluate());
      t.dispose();
      u.dispose();
      assert.throws(() => attn.loadModel(new Uint8Array([1, 2, 3])), Error);
      assert.throws(() => attn.loadModel('model'), TypeError);
    });

    test('bad specs name the field; the module keeps working', () => {
      assert.throws(() => attn.createTrainer({ ...SPEC, task: 'sort' }), /task/);
      assert.throws(() => attn.createTrainer({ ...SPEC, model: { ...SPEC.model, nKvHeads: 3 } }), /nKvHeads \(3\)/);
      assert.throws(() => attn.createTrainer({ ...SPEC, seqLen: -4 }), /seqLen \(-4\)/);
      assert.throws(() => attn.createTrainer({ ...SPEC, lr: 1 }), (e) => e instanceof TypeError && /lr/.test(e.message));
      assert.throws(() => attn.createTrainer({ ...SPEC, model: undefined }), TypeError);
      assert.throws(() => attn.createTrainer({ ...SPEC, task: 'chars' }), /text/);
      const t = attn.createTrainer(SPEC);
      assert.ok(Number.isFinite(t.step(2).loss));
      t.dispose();
    });
  });
}
