// accounting.test.mjs: kvCacheBytes, paramCount and presets against the golden figures of
// shared/reference/models.md (DeepSeek-V2 Table 1 and Table 9, Llama, PaLM, Falcon) and the lesson's
// MQA exercise (shared/reference/lesson.md), for both builds.

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load } from './helpers.mjs';

const PARAM_KEYS = ['wq', 'wk', 'wv', 'wo', 'wDkv', 'wUk', 'wUv', 'wQr', 'wKr', 'total'];

/** The models of reference/models.md: how to find each preset by name, and the expected fields. */
const MODELS = [
  // model, name pattern (on a lower-cased name with '-', '_' and spaces folded to one space), fields, KV elements/token
  ['GPT-2 small', /gpt 2/, { variant: 'mha', dModel: 768, nHeads: 12, nKvHeads: 12, dHead: 64, nLayers: 12 }, 18432],
  ['BERT-base', /bert/, { variant: 'mha', dModel: 768, nHeads: 12, nKvHeads: 12, dHead: 64, nLayers: 12 }, 18432],
  ['T5-base', /\bt5\b/, { variant: 'mha', dModel: 768, nHeads: 12, nKvHeads: 12, dHead: 64, nLayers: 12 }, 18432],
  ['Llama 2 7B', /llama 2 7b/, { variant: 'mha', dModel: 4096, nHeads: 32, nKvHeads: 32, dHead: 128, nLayers: 32 }, 262144],
  ['Llama 2 70B', /llama 2 70b/, { variant: 'gqa', dModel: 8192, nHeads: 64, nKvHeads: 8, dHead: 128, nLayers: 80 }, 163840],
  ['Llama 3 8B', /llama 3 8b/, { variant: 'gqa', dModel: 4096, nHeads: 32, nKvHeads: 8, dHead: 128, nLayers: 32 }, 65536],
  ['Llama 3 70B', /llama 3 70b/, { variant: 'gqa', dModel: 8192, nHeads: 64, nKvHeads: 8, dHead: 128, nLayers: 80 }, 163840],
  ['Llama 3.1 405B', /405b/, { variant: 'gqa', dModel: 16384, nHeads: 128, nKvHeads: 8, dHead: 128, nLayers: 126 }, 258048],
  ['Mistral 7B', /mistral 7b/, { variant: 'gqa', dModel: 4096, nHeads: 32, nKvHeads: 8, dHead: 128, nLayers: 32 }, 65536],
  ['Qwen2-7B', /qwen ?2 7b/, { variant: 'gqa', dModel: 3584, nHeads: 28, nKvHeads: 4, dHead: 128, nLayers: 28 }, 28672],
  ['Qwen2.5-72B', /qwen ?2(\.5)? 72b/, { variant: 'gqa', dModel: 8192, nHeads: 64, nKvHeads: 8, dHead: 128, nLayers: 80 }, 163840],
  ['Falcon-7B', /falcon 7b/, { variant: 'mqa', dModel: 4544, nHeads: 71, nKvHeads: 1, dHead: 64, nLayers: 32 }, 4096],
  ['Falcon-40B', /falcon 40b/, { variant: 'gqa', dModel: 8192, nHeads: 128, nKvHeads: 8, dHead: 64, nLayers: 60 }, 61440],
  ['PaLM 540B', /palm/, { variant: 'mqa', dModel: 18432, nHeads: 48, nKvHeads: 1, dHead: 256, nLayers: 118 }, 60416],
  [
    'DeepSeek-V2',
    /deepseek v2(?! ?lite)/,
    { variant: 'mla', dModel: 5120, nHeads: 128, dHead: 128, nLayers: 60, latentRank: 512, ropeDim: 64 },
    34560,
  ],
  [
    'DeepSeek-V2-Lite',
    /deepseek v2 ?lite/,
    { variant: 'mla', dModel: 2048, nHeads: 16, dHead: 128, nLayers: 27, latentRank: 512, ropeDim: 64 },
    15552,
  ],
  [
    'DeepSeek-V3',
    /deepseek v3/,
    { variant: 'mla', dModel: 7168, nHeads: 128, dHead: 128, nLayers: 61, latentRank: 512, ropeDim: 64 },
    35136,
  ],
];

const fold = (name) => name.toLowerCase().replace(/[-_\s]+/g, ' ');

/** The accounting fields of a preset, without undefined ones. */
function kvConfig(p, extra) {
  const cfg = {};
  for (const k of ['variant', 'nLayers', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim']) {
    if (p[k] !== undefined) cfg[k] = p[k];
  }
  return { ...cfg, ...extra };
}

for (const { simd, name } of BUILDS) {
  describe(`accounting (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    describe('kvCacheBytes', () => {
      test('Llama 3 70B at bf16: 327,680 bytes per token, 10,737,418,240 at 32,768 tokens', () => {
        const llama = { variant: 'gqa', nLayers: 80, nHeads: 64, nKvHeads: 8, dHead: 128, bytesPerElement: 2 };
        assert.equal(attn.kvCacheBytes({ ...llama, seqLen: 1 }), 327680);
        assert.equal(attn.kvCacheBytes({ ...llama, seqLen: 32768 }), 10737418240);
        // defaults: batch 1, bytesPerElement 2
        const { bytesPerElement, ...noBytes } = llama;
        assert.equal(attn.kvCacheBytes({ ...noBytes, seqLen: 32768 }), 10737418240, 'default bytesPerElement is 2');
        assert.equal(attn.kvCacheBytes({ ...llama, seqLen: 32768, batch: 1 }), 10737418240);
        assert.equal(attn.kvCacheBytes({ ...llama, seqLen: 32768, batch: 4 }), 4 * 10737418240, 'batch multiplies');
      });

      test('7B MHA (32 layers, 32 heads of 128) at fp16: 524,288 bytes per token, 17,179,869,184 at 32K', () => {
        const mha = { variant: 'mha', nLayers: 32, nHeads: 32, dHead: 128, bytesPerElement: 2 };
        assert.equal(attn.kvCacheBytes({ ...mha, seqLen: 1 }), 524288);
        assert.equal(attn.kvCacheBytes({ ...mha, seqLen: 32768 }), 17179869184);
        assert.equal(attn.kvCacheBytes({ ...mha, nKvHeads: 32, seqLen: 32768 }), 17179869184, 'with nKvHeads given');
        assert.equal(attn.kvCacheBytes({ ...mha, seqLen: 1, nLayers: 1 }), 16384, '16 KiB per token per layer');
      });

      test('DeepSeek-V3 at bf16 and 131,072 tokens: 9,210,691,584 bytes (latent + RoPE key, not 2 * latent)', () => {
        const v3 = { variant: 'mla', nLayers: 61, nHeads: 128, dHead: 128, latentRank: 512, ropeDim: 64 };
        assert.equal(attn.kvCacheBytes({ ...v3, seqLen: 131072, bytesPerElement: 2 }), 9210691584);
      });

      test('DeepSeek-V2 Table 9 elements per token: V2-Lite MHA 110,592 and MLA 15,552; V2 MLA 34,560', () => {
        const one = { seqLen: 1, bytesPerElement: 1 };
        assert.equal(attn.kvCacheBytes({ variant: 'mha', nLayers: 27, nHeads: 16, dHead: 128, ...one }), 110592);
        const mla = { variant: 'mla', nHeads: 16, dHead: 128, latentRank: 512, ropeDim: 64, ...one };
        assert.equal(attn.kvCacheBytes({ ...mla, nLayers: 27 }), 15552);
        assert.equal(attn.kvCacheBytes({ ...mla, nHeads: 128, nLayers: 60 }), 34560);
        // "about 1/57 of MHA" at DeepSeek-V2's 128 heads of 128
        assert.equal(attn.kvCacheBytes({ variant: 'mha', nLayers: 1, nHeads: 128, dHead: 128, ...one }), 32768);
        assert.equal(attn.kvCacheBytes({ ...mla, nLayers: 1 }), 576);
      });

      test('MQA caches 2 * dHead per layer; MLA without RoPE caches the latent only', () => {
        const one = { seqLen: 1, bytesPerElement: 1 };
        assert.equal(attn.kvCacheBytes({ variant: 'mqa', nLayers: 32, nHeads: 71, dHead: 64, ...one }), 4096);
        assert.equal(attn.kvCacheBytes({ variant: 'mqa', nLayers: 32, nHeads: 71, nKvHeads: 1, dHead: 64, ...one }), 4096);
        assert.equal(attn.kvCacheBytes({ variant: 'mla', nLayers: 2, nHeads: 8, dHead: 8, latentRank: 12, ...one }), 24);
      });

      test('other element sizes: fp32 4, fp8 1, int4 0.5 bytes', () => {
        const llama = { variant: 'gqa', nLayers: 80, nHeads: 64, nKvHeads: 8, dHead: 128, seqLen: 1 };
        assert.equal(attn.kvCacheBytes({ ...llama, bytesPerElement: 4 }), 655360);
        assert.equal(attn.kvCacheBytes({ ...llama, bytesPerElement: 1 }), 163840);
        assert.equal(attn.kvCacheBytes({ ...llama, bytesPerElement: 0.5 }), 81920);
        assert.equal(attn.kvCacheBytes({ ...llama, seqLen: 3, bytesPerElement: 0.5 }), 245760);
      });
    });

    describe('paramCount', () => {
      const check = (cfg, expected) => {
        const got = attn.paramCount(cfg);
        for (const k of PARAM_KEYS) {
          assert.equal(got[k], expected[k] ?? 0, `${JSON.stringify(cfg)}: ${k}`);
        }
      };

      test("the lesson's MQA exercise: d_model 64, 8 heads: MHA 16,384, MQA 9,216 (-43.75%)", () => {
        const mha = attn.paramCount({ variant: 'mha', dModel: 64, nHeads: 8 });
        const mqa = attn.paramCount({ variant: 'mqa', dModel: 64, nHeads: 8 });
        check({ variant: 'mha', dModel: 64, nHeads: 8 }, { wq: 4096, wk: 4096, wv: 4096, wo: 4096, total: 16384 });
        check({ variant: 'mqa', dModel: 64, nHeads: 8 }, { wq: 4096, wk: 512, wv: 512, wo: 4096, total: 9216 });
        assert.equal((mha.total - mqa.total) / mha.total, 0.4375);
        assert.equal(mha.total - mqa.total, 2 * 64 * (64 - 8), 'MQA removes 2 * d_model * (d_model - d_head)');
      });

      test('GQA: only K and V shrink', () => {
        check({ variant: 'gqa', dModel: 64, nHeads: 8, nKvHeads: 2 }, { wq: 4096, wk: 1024, wv: 1024, wo: 4096, total: 10240 });
        check(
          { variant: 'gqa', dModel: 8192, nHeads: 64, nKvHeads: 8, dHead: 128 },
          { wq: 67108864, wk: 8388608, wv: 8388608, wo: 67108864, total: 150994944 },
        );
      });

      test('MLA: wDkv, wUk, wUv, wQr, wKr and the total', () => {
        check(
          { variant: 'mla', dModel: 64, nHeads: 8, dHead: 8, latentRank: 16, ropeDim: 4 },
          { wq: 4096, wDkv: 1024, wUk: 1024, wUv: 1024, wo: 4096, wQr: 2048, wKr: 256, total: 13568 },
        );
        check(
          { variant: 'mla', dModel: 64, nHeads: 8, latentRank: 16 },
          { wq: 4096, wDkv: 1024, wUk: 1024, wUv: 1024, wo: 4096, total: 11264 },
        );
        // DeepSeek-V2-Lite shapes (no q compression in this block): D 2048, 16 heads of 128, r 512, dr 64
        check(
          { variant: 'mla', dModel: 2048, nHeads: 16, dHead: 128, latentRank: 512, ropeDim: 64 },
          {
            wq: 2048 * 2048,
            wDkv: 2048 * 512,
            wUk: 512 * 2048,
            wUv: 512 * 2048,
            wo: 2048 * 2048,
            wQr: 2048 * 16 * 64,
            wKr: 2048 * 64,
            total: 2 * 2048 * 2048 + 2048 * 512 + 2 * 512 * 2048 + 2048 * 1024 + 2048 * 64,
          },
        );
      });

      test('dHead != dModel / nHeads (PaLM 540B: 48 heads of 256 at d_model 18,432, MQA)', () => {
        check(
          { variant: 'mqa', dModel: 18432, nHeads: 48, dHead: 256 },
          { wq: 226492416, wk: 4718592, wv: 4718592, wo: 226492416, total: 462422016 },
        );
        check({ variant: 'mha', dModel: 12, nHeads: 4, dHead: 5 }, { wq: 240, wk: 240, wv: 240, wo: 240, total: 960 });
      });
    });

    describe('presets', () => {
      let presets;
      before(() => {
        presets = attn.presets();
      });

      test('every preset has an id, a name, a source and a consistent shape', () => {
        assert.ok(Array.isArray(presets), 'presets() returns an array');
        // the 17 models of reference/models.md, in order, with where their figures come from
        assert.deepEqual(presets.map((p) => [p.id, p.name, p.source]), [
          ['gpt2-small', 'GPT-2 small', 'HF openai-community/gpt2 config'],
          ['bert-base', 'BERT-base', 'HF google-bert/bert-base-uncased'],
          ['t5-base', 'T5-base', 'HF google-t5/t5-base'],
          ['llama-2-7b', 'Llama 2 7B', 'HF meta-llama/Llama-2-7b-hf'],
          ['llama-2-70b', 'Llama 2 70B', 'HF meta-llama/Llama-2-70b-hf'],
          ['llama-3-8b', 'Llama 3 8B', 'HF meta-llama/Meta-Llama-3-8B'],
          ['llama-3-70b', 'Llama 3 70B', 'HF meta-llama/Meta-Llama-3-70B'],
          ['llama-3.1-405b', 'Llama 3.1 405B', 'meta-llama/llama-models sku list'],
          ['mistral-7b', 'Mistral 7B', 'mistralai/Mistral-7B-v0.1'],
          ['qwen2-7b', 'Qwen2-7B', 'Qwen/Qwen2-7B config'],
          ['qwen2.5-72b', 'Qwen2.5-72B', 'Qwen/Qwen2-72B family config'],
          ['falcon-7b', 'Falcon-7B', 'tiiuae/falcon-7b'],
          ['falcon-40b', 'Falcon-40B', 'tiiuae/falcon-40b'],
          ['palm-540b', 'PaLM 540B', 'PaLM paper, Table 1'],
          ['deepseek-v2', 'DeepSeek-V2', 'DeepSeek-V2 report; deepseek-ai config_236B'],
          ['deepseek-v2-lite', 'DeepSeek-V2-Lite', 'DeepSeek-V2 report; config_16B'],
          ['deepseek-v3', 'DeepSeek-V3', 'DeepSeek-V3 config_671B'],
        ]);
        const ids = new Set();
        for (const p of presets) {
          const label = `preset ${JSON.stringify(p.id)}`;
          for (const k of ['id', 'name', 'source']) assert.equal(typeof p[k], 'string', `${label}: ${k}`);
          assert.ok(!ids.has(p.id), `${label}: duplicate id`);
          ids.add(p.id);
          assert.ok(['mha', 'mqa', 'gqa', 'mla'].includes(p.variant), `${label}: variant ${p.variant}`);
          for (const k of ['dModel', 'nHeads', 'nKvHeads', 'dHead', 'nLayers']) {
            assert.ok(Number.isInteger(p[k]) && p[k] > 0, `${label}: ${k} = ${p[k]}`);
          }
          if (p.variant === 'mla') {
            assert.ok(Number.isInteger(p.latentRank) && p.latentRank > 0, `${label}: latentRank`);
            assert.ok(Number.isInteger(p.ropeDim) && p.ropeDim >= 0, `${label}: ropeDim`);
          } else {
            assert.equal(p.nHeads % p.nKvHeads, 0, `${label}: nHeads divisible by nKvHeads`);
          }
          if (p.variant === 'mqa') assert.equal(p.nKvHeads, 1, `${label}: MQA has one KV head`);
          if (p.variant === 'mha') assert.equal(p.nKvHeads, p.nHeads, `${label}: MHA has nHeads KV heads`);
          // paramCount accepts every preset and adds up
          const { nLayers, ...shape } = kvConfig(p, { dModel: p.dModel });
          const pc = attn.paramCount(shape);
          const sum = PARAM_KEYS.slice(0, -1).reduce((s, k) => s + pc[k], 0);
          assert.equal(pc.total, sum, `${label}: paramCount total`);
        }
      });

      for (const [model, pattern, fields, kvElements] of MODELS) {
        test(`${model}: fields and ${kvElements.toLocaleString('en-US')} KV elements per token`, () => {
          const found = presets.filter((p) => pattern.test(fold(p.name)));
          assert.equal(
            found.length,
            1,
            `expected exactly one preset whose name matches ${pattern}, got ${found.length}: ` +
              JSON.stringify(presets.map((p) => p.name)),
          );
          const p = found[0];
          for (const [k, v] of Object.entries(fields)) assert.equal(p[k], v, `${p.name}: ${k}`);
          const elements = attn.kvCacheBytes(kvConfig(p, { seqLen: 1, batch: 1, bytesPerElement: 1 }));
          assert.equal(elements, kvElements, `${p.name}: KV elements per token`);
        });
      }
    });
  });
}
