// model.stages(ids, { layer }) on both builds (docs/api.md, "The stages of one layer"): every stage of
// the last layer of every fixture checkpoint against PyTorch's (tests/fixtures/pretrained/<case>/
// stages.safetensors, written by scripts/gen_pretrained_fixtures.py), every layer's attention equal to
// forward's maps bit for bit, and every refusal with its error.field.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BUILDS, load, assertClose, bitIdentical } from './helpers.mjs';
import { CASES, config, weights, expected, expectedStages } from './pretrained-kit.mjs';

const TOL = 1e-4;  // against the float64 reference, as the logits and maps (pretrained.test.mjs)

/** The error `fn` throws (fails when it does not). */
function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected an error');
}

/** got and want agree within TOL on their finite cells and are -Infinity in the same cells. */
function assertStage(got, want, label) {
  assert.deepEqual(got.shape, want.shape, `${label}: shape`);
  const masked = (a) => a.map((v) => (v === -Infinity ? 1 : 0));
  assert.deepEqual(masked(got.data), masked(want.data), `${label}: the masked cells`);
  const finite = (a) => a.filter((v) => Number.isFinite(v));
  assertClose(finite(got.data), finite(want.data), TOL, label);
}

for (const build of BUILDS) {
  describe(`pretrained stages (${build.name})`, () => {
    for (const c of CASES) {
      test(`${c.name} (${c.model_type}): the last layer's stages against PyTorch, every layer's maps are forward's`, async () => {
        const attn = await load(build.simd);
        const model = await attn.loadPretrained({ config: config(c.name), weights: weights(c.name) });
        const e = expected(c.name);
        const want = expectedStages(c.name);
        const r = model.stages(e.ids, { layer: want.layer });
        const N = e.ids.length, D = model.info.dModel;
        const got = { ...r.intermediates, x: { shape: [N, D], data: r.x }, output: { shape: [N, D], data: r.output } };
        assert.deepEqual(Object.keys(got).sort(), Object.keys(want.tensors).sort(), `${c.name}: the stages`);
        for (const [name, t] of Object.entries(want.tensors)) assertStage(got[name], t, `${c.name} ${name}`);
        assert.equal(r.shape.layer, want.layer);
        assert.equal(r.shape.seqLen, N);
        assert.equal(r.shape.modelType, c.model_type);
        const maps = model.forward(e.ids, { attentions: true }).attentions;
        for (let l = 0; l < model.info.nLayers; l++) {
          const s = model.stages(e.ids, { layer: l });
          assert.ok(bitIdentical(s.intermediates.attention.data, maps[l]), `${c.name} layer ${l}: the stages' maps are forward's`);
        }
        model.dispose();
        assert.throws(() => model.stages(e.ids, { layer: 0 }), /disposed/);
      });
    }

    test('what each architecture computes is said in the shape: biases, q/k norms, RoPE pairs and scaling, windows', async () => {
      const attn = await load(build.simd);
      const shapeOf = async (name) => {
        const model = await attn.loadPretrained({ config: config(name), weights: weights(name) });
        const { shape } = model.stages([1, 2, 3], { layer: 0 });
        model.dispose();
        return shape;
      };
      const gpt2 = await shapeOf('gpt2');
      assert.deepEqual([gpt2.rope, gpt2.norm, gpt2.qkvBias, gpt2.oBias, gpt2.fusedQkv], [false, 'layernorm', true, true, true]);
      const qwen3 = await shapeOf('qwen3');
      assert.deepEqual([qwen3.qkNorm, qwen3.rope.pairs, qwen3.rope.type, qwen3.rope.base], [true, 'half', 'default', 1e6]);
      const llama3 = await shapeOf('llama3');
      assert.deepEqual([llama3.rope.type, llama3.qkvBias, llama3.dHead], ['llama3', false, 16]);
      assert.equal((await shapeOf('mistral')).slidingWindow, 4);
      const yarn = await shapeOf('deepseek_v2_lora_yarn');
      assert.deepEqual([yarn.rope.pairs, yarn.rope.type, yarn.dNope, yarn.dValue, yarn.queryRank], ['adjacent', 'yarn', 8, 8, 24]);
      assert.ok(yarn.rope.attentionFactor !== 1 && yarn.scale !== 1 / Math.sqrt(16), 'YaRN scales cos/sin and the softmax');
    });

    test('a bad layer, bad ids or bad options are refused, naming the field', async () => {
      const attn = await load(build.simd);
      const model = await attn.loadPretrained({ config: config('qwen2'), weights: weights('qwen2') });  // 2 layers, vocabulary 64
      const ids = [1, 2, 3];
      const cases = [
        [() => model.stages(ids, {}), 'TypeError', 'layer', /layer is required/],
        [() => model.stages(ids, { layer: '1' }), 'TypeError', 'layer', /layer must be a number, got string/],
        [() => model.stages(ids, { layer: 2 }), 'RangeError', 'layer', /layer \(2\) must be an integer between 0 and 1/],
        [() => model.stages(ids, { layer: -1 }), 'RangeError', 'layer', /layer \(-1\)/],
        [() => model.stages(ids, { layer: 0.5 }), 'RangeError', 'layer', /layer \(0\.5\)/],
        [() => model.stages(ids, { layer: NaN }), 'RangeError', 'layer', /layer \(NaN\)/],
        [() => model.stages(ids, { layer: 0, heads: 2 }), 'TypeError', 'heads', /unknown field 'heads'/],
        [() => model.stages(ids, { layer: 0, allowLongWork: 1 }), 'TypeError', 'allowLongWork', /must be a boolean/],
        [() => model.stages([], { layer: 0 }), 'RangeError', 'ids', /ids is empty/],
        [() => model.stages([1, 64], { layer: 0 }), 'RangeError', 'ids', /ids\[1\] \(64\) must be a token id between 0 and 63/],
        [() => model.stages([1, 2.5], { layer: 0 }), 'RangeError', 'ids', /ids\[1\] \(2\.5\)/],
        [() => model.stages('1 2', { layer: 0 }), 'TypeError', 'ids', /ids must be an Int32Array or an Array/],
      ];
      for (const [fn, name, field, message] of cases) {
        const e = thrown(fn);
        assert.equal(e.name, name, `${e.message}`);
        assert.equal(e.field, field, `${e.message}`);
        assert.match(e.message, message);
      }
      assert.throws(() => model.stages(ids), /options must be an object/);
      assert.equal(model.stages(ids, { layer: 1 }).shape.layer, 1, 'the model still works after the refusals');
      model.dispose();
    });
  });
}
