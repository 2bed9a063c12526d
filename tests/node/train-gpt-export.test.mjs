// train-gpt-export.test.mjs: the GPT-style block's models (the labs' default) as Hugging Face checkpoints
// (trainer.exportCheckpoint): MHA as gpt2, MQA as gpt_bigcode, with and without the MLP, tied or not,
// opened by attn.loadPretrained (whose gpt2 and gpt_bigcode are checked against PyTorch in
// pretrained.test.mjs) with the trainer's own next-token probabilities; and the models no architecture
// computes, refused by the field that makes them so (trainer.checkpointType '' for them).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load } from './helpers.mjs';

const softmax = (row) => {
  const m = Math.max(...row);
  const e = row.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
};

const COPY = { task: 'copy', vocabSize: 16, seqLen: 16, batchSize: 8, learningRate: 3e-3, seed: 3 };

for (const { simd, name } of BUILDS) {
  describe(`the GPT-style block as a Hugging Face checkpoint (${name})`, () => {
    let attn;
    before(async () => { attn = await load(simd); });

    for (const [variant, type] of [['mha', 'gpt2'], ['mqa', 'gpt_bigcode']]) {
      test(`${variant} opens as ${type} with the trainer's probabilities (MLP on and off, tied and not)`, async () => {
        for (const [mlp, tiedEmbeddings] of [[false, false], [true, true], [true, false]]) {
          const t = attn.createTrainer({ ...COPY, model: { variant, dModel: 32, nHeads: 4, nLayers: 2, mlp, tiedEmbeddings } });
          t.step(30);
          assert.equal(t.checkpointType, type);
          const { config, safetensors } = t.exportCheckpoint();
          const parsed = JSON.parse(config);
          assert.equal(parsed.model_type, type);
          assert.equal(parsed.n_positions, COPY.seqLen);
          assert.equal(parsed.tie_word_embeddings, tiedEmbeddings);
          const model = await attn.loadPretrained({ config: parsed, weights: safetensors });
          assert.equal(model.info.modelType, type);
          assert.equal(model.info.nKvHeads, variant === 'mqa' ? 1 : 4);
          const ids = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 15, 3, 1, 4];
          const { logits } = model.forward(ids);
          const v = model.info.vocabSize;
          for (const at of [0, 6, ids.length - 1]) {
            const got = softmax(Array.from(logits.subarray(at * v, (at + 1) * v)));
            const want = t.nextTokenProbs(ids.slice(0, at + 1));
            const worst = Math.max(...got.map((p, j) => Math.abs(p - want[j])));
            assert.ok(worst < 1e-5, `mlp ${mlp}, tied ${tiedEmbeddings}, position ${at}: max |p - p_trainer| = ${worst}`);
          }
          model.dispose();
          t.dispose();
        }
      });
    }

    test('Lab 1\'s pairs model (inputs the first A of A² tokens) opens as gpt2 with the trainer\'s probabilities', async () => {
      const t = attn.createTrainer({ task: 'pairs', vocabSize: 8, seqLen: 16, batchSize: 16, seed: 1,
        model: { variant: 'mha', dModel: 64, nHeads: 2, nLayers: 1, layerNorm: true } });
      t.step(20);
      const { config, safetensors } = t.exportCheckpoint();
      assert.equal(JSON.parse(config).input_vocab_size, 8, 'config.json names the ids it reads (the model view probes those)');
      const model = await attn.loadPretrained({ config: JSON.parse(config), weights: safetensors });
      assert.equal(model.info.vocabSize, 64);
      const ids = [1, 7, 0, 3, 3, 5];
      const v = 64;
      const got = softmax(Array.from(model.forward(ids).logits.subarray((ids.length - 1) * v)));
      const want = t.nextTokenProbs(ids);
      assert.ok(Math.max(...got.map((p, j) => Math.abs(p - want[j]))) < 1e-5);
      model.dispose();
      t.dispose();
    });

    test('a model no architecture computes: checkpointType \'\' and exportCheckpoint names the field', () => {
      for (const [model, field] of [
        [{ variant: 'gqa', nKvHeads: 2 }, 'model.variant'],
        [{ variant: 'mla', latentRank: 8 }, 'model.variant'],
        [{ variant: 'mha', rope: true }, 'model.rope'],
        [{ variant: 'mha', layerNorm: false }, 'model.layerNorm'],
        [{ variant: 'mha', mlp: true, activation: 'relu' }, 'model.activation'],
        [{ variant: 'mha', dHead: 4 }, 'model.dHead'],
      ]) {
        const t = attn.createTrainer({ ...COPY, model: { dModel: 32, nHeads: 4, nLayers: 1, ...model } });
        assert.equal(t.checkpointType, '', field);
        assert.throws(() => t.exportCheckpoint(), (e) => e instanceof RangeError && e.field === field && /Hugging Face/.test(e.message), field);
        assert.ok(t.step(1).loss > 0, 'the trainer keeps working');
        t.dispose();
      }
    });
  });
}
