// train.test.mjs: the training lab's JS API (createTrainer, loadModel) on both builds: a copy-task run
// whose loss falls, held-out evaluation, head scores, attention maps, export/load, bad specs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load } from './helpers.mjs';
import { editModelFile, readModelFile } from './model-file-kit.mjs';

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

    test('attention maps are causal probability rows', () => {
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
      assert.equal(t.headScores().length, 2 * 4);
      t.dispose();
    });

    test('a layer run by the inference core: forward and a session give the trainer\'s maps; refusals name the field', () => {
      for (const model of [{ variant: 'mha', dModel: 16, nHeads: 4, nLayers: 2, mlp: true, rope: true },
        { variant: 'mla', dModel: 16, nHeads: 2, latentRank: 6, ropeDim: 2, nLayers: 2, layerNorm: false }]) {
        const t = attn.createTrainer({ task: 'copy', seqLen: 8, batchSize: 4, seed: 2, model });
        t.step(4);
        const tokens = [3, 1, 4, 1, 5, 9, 2];
        const all = t.attention(tokens).weights;  // (2, H, N, N)
        const size = model.nHeads * 7 * 7;
        for (const layer of [0, 1]) {
          const { spec, x, weights } = t.layer(tokens, layer);
          assert.equal(spec.seqLen, 7);
          assert.equal(spec.causal, true);
          assert.equal(x.length, 7 * 16);
          const mine = all.subarray(layer * size, (layer + 1) * size);
          const maps = attn.forward({ ...spec, x, weights, returnWeights: true }).weights;
          assert.ok(maps.every((w, i) => Math.abs(w - mine[i]) < 1e-5), `${model.variant} layer ${layer}: forward's maps`);
          // Token by token through the core's KV cache: each new row is that query's row of the maps.
          const { seqLen, causal, ...shape } = spec;
          const s = attn.createSession({ ...shape, weights, maxLen: 8, returnWeights: true });
          for (let i = 0; i < 7; i++) {
            const row = s.append(x.subarray(i * 16, (i + 1) * 16)).weights;  // (H, 1, i + 1)
            for (let h = 0; h < model.nHeads; h++)
              for (let j = 0; j <= i; j++) assert.ok(Math.abs(row[h * (i + 1) + j] - mine[h * 49 + i * 7 + j]) < 1e-5, `session row ${i} head ${h}`);
          }
          s.dispose();
        }
        const p = t.nextTokenProbs(tokens);
        assert.equal(p.length, t.vocabSize);
        assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-5);
        assert.throws(() => t.layer(tokens, 2), (e) => e instanceof RangeError && e.field === 'layer');
        assert.throws(() => t.layer(tokens, 'a'), (e) => e instanceof TypeError && e.field === 'layer');
        assert.throws(() => t.layer([], 0), (e) => e instanceof RangeError && e.field === 'tokens');
        assert.throws(() => t.nextTokenProbs([99]), (e) => e instanceof RangeError && e.field === 'tokens');
        t.dispose();
      }
    });

    test('the pairs task: the vocabulary is the alphabet squared, and a file keeps the alphabet', () => {
      const t = attn.createTrainer({ task: 'pairs', vocabSize: 5, seqLen: 10, batchSize: 4, seed: 1,
        model: { variant: 'mha', dModel: 16, nHeads: 2, nLayers: 1 } });
      assert.equal(t.vocabSize, 25);
      t.step(3);
      const u = attn.loadModel(t.exportModel());
      assert.equal(u.vocabSize, 25);
      assert.equal(u.evaluate().loss, t.evaluate().loss);
      u.dispose();
      t.dispose();
      assert.throws(() => attn.createTrainer({ task: 'pairs', vocabSize: 300, model: { variant: 'mha', dModel: 16, nHeads: 2 } }),
        (e) => e instanceof RangeError && e.field === 'vocabSize' && /300/.test(e.message));
    });

    // The hand-set model of test_train.cpp (HeadScores.KnownValuesOfAHandSetModel), written into a
    // model file: x_i = e_i (token embeddings 0, position p's embedding the unit vector e_p); head 0
    // attends exactly to the previous token, head 1 to the first, head 2 uniformly.
    test('head scores of a hand-set model are the known values', () => {
      const t = attn.createTrainer({ task: 'induction', seqLen: 8, batchSize: 16, seed: 3,
        model: { variant: 'mha', dModel: 12, nHeads: 3, dHead: 8, nLayers: 1, layerNorm: false } });
      const file = editModelFile(t.exportModel(), (meta, w) => {
        const D = 12, cols = 24, dh = 8, c = 1000;
        w.wte.data.fill(0);
        w.wpe.data.fill(0);
        for (let p = 0; p < 8; p++) w.wpe.data[p * D + p] = 1;
        const wq = w['layers.0.attn.wq'].data.fill(0), wk = w['layers.0.attn.wk'].data.fill(0);
        for (let p = 1; p < 8; p++) wq[p * cols + 0 * dh + p - 1] = c; // head 0: q_i = c e_(i-1)
        for (let p = 0; p < 8; p++) wk[p * cols + 0 * dh + p] = 1; //      k_j = e_j
        for (let p = 0; p < 8; p++) wq[p * cols + 1 * dh] = c; //       head 1: q_i = c e_0
        wk[0 * cols + 1 * dh] = 1; //                                         k_0 = e_0
      });
      t.dispose();
      const u = attn.loadModel(file);
      const [prev, first, uniform] = u.headScores();
      assert.deepEqual([prev.layer, prev.head, first.head, uniform.head], [0, 0, 1, 2]);
      // a key 354 logits below the best gets the kernel's smallest exp, FLT_MIN (1.2e-38), not 0
      const nothing = 1e-37;
      assert.equal(prev.previousToken, 1);
      assert.ok(prev.diagonal <= nothing, String(prev.diagonal));
      assert.ok(Math.abs(prev.firstToken - 1 / 7) < 1e-15, prev.firstToken);
      assert.equal(first.firstToken, 1);
      assert.ok(first.diagonal <= nothing, String(first.diagonal));
      assert.ok(first.induction <= nothing, String(first.induction));
      assert.ok(Math.abs(first.previousToken - 1 / 7) < 1e-15);
      for (const k of ['previousToken', 'diagonal', 'firstToken']) {
        assert.ok(Math.abs(uniform[k] - 481 / 1960) < 1e-7, `${k} ${uniform[k]}`); // (1/2 + ... + 1/8) / 7
      }
      // a uniform head puts the same 1/(i+1) on the first occurrence and on the key after it
      assert.ok(uniform.induction > 0 && uniform.duplicateToken === uniform.induction, `${uniform.duplicateToken} ${uniform.induction}`);
      u.dispose();
    });

    test('exportModel / loadModel round trip', () => {
      const t = attn.createTrainer(SPEC);
      t.step(10);
      const bytes = t.exportModel();
      assert.ok(bytes instanceof Uint8Array);
      // .safetensors: 8 bytes of header length, the JSON header (padded to 8), then 3 x 4736 float32
      // (the 4736 parameters and AdamW's two moments of each)
      const { headerLength, metadata } = readModelFile(bytes);
      assert.equal(headerLength % 8, 0);
      assert.equal(bytes.length, 8 + headerLength + 3 * 4 * 4736);
      assert.equal(metadata.step, '10');
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
