// train-llama.test.mjs: the trainer's block 'llama' through the JS API, on both builds: a run whose
// loss falls, its model file, its Hugging Face checkpoint (trainer.exportCheckpoint) opened by
// attn.loadPretrained with the trainer's own next-token probabilities, and the refusals (error.field).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load } from './helpers.mjs';

const SPEC = {
  task: 'induction',
  model: { block: 'llama', variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2, nLayers: 2, mlpWidth: 48 },
  seqLen: 16, batchSize: 8, learningRate: 3e-3, seed: 2,
};

const softmax = (row) => {
  const m = Math.max(...row);
  const e = row.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
};

for (const { simd, name } of BUILDS) {
  describe(`block 'llama' (${name})`, () => {
    let attn;
    before(async () => { attn = await load(simd); });

    test('trains, and its model file loads back with the same held-out loss', () => {
      const t = attn.createTrainer(SPEC);
      const first = t.step(1).loss;
      const later = t.step(80).loss;
      assert.ok(later < first, `loss ${first} -> ${later}`);
      const copy = attn.loadModel(t.exportModel());
      assert.equal(copy.evaluate().loss, t.evaluate().loss);
      copy.dispose();
      t.dispose();
    });

    test('its Hugging Face checkpoint opens in the checkpoint loader with the trainer\'s probabilities', async () => {
      for (const tiedEmbeddings of [false, true]) {
        const t = attn.createTrainer({ ...SPEC, model: { ...SPEC.model, tiedEmbeddings } });
        t.step(20);
        const { config, safetensors } = t.exportCheckpoint();
        const parsed = JSON.parse(config);
        assert.equal(parsed.model_type, 'llama');
        assert.equal(parsed.tie_word_embeddings, tiedEmbeddings);
        const model = await attn.loadPretrained({ config: parsed, weights: safetensors });
        assert.equal(model.info.modelType, 'llama');
        assert.equal(model.info.nKvHeads, 2);
        assert.equal(model.info.intermediateSize, 48);
        const ids = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
        const { logits } = model.forward(ids);
        const v = model.info.vocabSize;
        const got = softmax(Array.from(logits.subarray((ids.length - 1) * v, ids.length * v)));
        const want = t.nextTokenProbs(ids);
        const worst = Math.max(...got.map((p, j) => Math.abs(p - want[j])));
        assert.ok(worst < 1e-5, `tied ${tiedEmbeddings}: max |p - p_trainer| = ${worst}`);
        model.dispose();
        t.dispose();
      }
    });

    test('a chars model\'s checkpoint brings its characters as a tokenizer.json: a text encodes to the ids it trained on', async () => {
      const text = 'To be, or not to be: that is the question.\nWhether \'tis nobler "in the mind" to suffer…\n'.repeat(3);
      const t = attn.createTrainer({ task: 'chars', text, seqLen: 8, batchSize: 4, seed: 1,
        model: { block: 'deepseek', variant: 'mla', dModel: 16, nHeads: 2, dHead: 8, latentRank: 4, ropeDim: 2 } });
      t.step(5);
      const { config, safetensors, tokenizer } = t.exportCheckpoint();
      assert.equal(typeof tokenizer, 'string');
      // the chars task's numbering, worked out here: the text's distinct code points, sorted
      const alphabet = [...new Set([...text].map((ch) => ch.codePointAt(0)))].sort((a, b) => a - b);
      assert.equal(t.vocabSize, alphabet.length);
      const tok = await attn.loadTokenizer(tokenizer);
      assert.equal(tok.vocabSize, alphabet.length);
      const sentence = 'Whether to be… "noble".\n';
      const want = [...sentence].map((ch) => alphabet.indexOf(ch.codePointAt(0)));
      assert.ok(want.every((id) => id >= 0));
      const { ids, tokens } = tok.encode(sentence);
      assert.deepEqual([...ids], want, 'one id per character, the trainer\'s');
      assert.deepEqual(tokens, [...sentence]);
      assert.equal(tok.decode(ids).replace(/ /g, ''), sentence.replace(/ /g, ''));
      assert.deepEqual([...tok.encode('beZ').ids], [...'be'].map((ch) => alphabet.indexOf(ch.codePointAt(0))), 'a character the text lacks has no id');
      const model = await attn.loadPretrained({ config: JSON.parse(config), weights: safetensors });
      assert.equal(model.info.modelType, 'deepseek_v2');
      model.dispose();
      t.dispose();
      const induction = attn.createTrainer(SPEC);
      assert.equal(induction.exportCheckpoint().tokenizer, undefined, 'the synthetic tasks\' ids are their own: no tokenizer');
      induction.dispose();
    });

    test('refusals name the field', () => {
      const bad = (model, field) => assert.throws(() => attn.createTrainer({ ...SPEC, model: { ...SPEC.model, ...model } }),
        (e) => e.field === field, field);
      bad({ block: 'mamba' }, 'model.block');
      bad({ variant: 'mla', nKvHeads: undefined, latentRank: 8 }, 'model.variant');
      bad({ layerNorm: false }, 'model.layerNorm');
      bad({ activation: 'relu' }, 'model.activation');
      bad({ mlpWidth: 0 }, 'model.mlpWidth');
      bad({ block: 'gpt' }, 'model.mlpWidth');
      const gpt = attn.createTrainer({ ...SPEC, model: { variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2 } });
      assert.throws(() => gpt.exportCheckpoint(), (e) => e.field === 'model.variant', 'the GPT-style block\'s GQA has no architecture');
      gpt.dispose();
    });
  });
}
