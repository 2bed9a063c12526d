// configurator.test.mjs: recommend() through the JS API on both builds: the lesson's rule-of-thumb
// table, a real deployment case, refusals, and bad requests answered with an Error naming the field.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { BUILDS, load } from './helpers.mjs';
import { CATALOGS } from './i18n-kit.mjs';
import { LANG_IDS, createI18n, loadI18n } from '../../web/src/i18n/index.js';
import { messageText } from '../../web/src/parts/cfg-messages.js';

/** Requests that make the core say each of its sentences (every rule, warning, fit and check). */
const SENTENCE_CASES = [
  { paramBudget: 8e9, seqLen: 8192, target: 'gpu-24gb' },
  { paramBudget: 125e6, seqLen: 2048, batch: 4 },
  { paramBudget: 8e9, seqLen: 65536, priority: 'quality' },
  { paramBudget: 8e9, seqLen: 65536, variant: 'mha' },
  { paramBudget: 3e9, seqLen: 65536, variant: 'mha' },
  { paramBudget: 350e6, seqLen: 4096, variant: 'mla' },
  { paramBudget: 350e6, seqLen: 4096, priority: 'memory' },
  { paramBudget: 8e9, seqLen: 8192, priority: 'memory', target: 'gpu-80gb' },
  { paramBudget: 8e9, seqLen: 8192, target: 'phone' },
  { dModel: 4096, nLayers: 32, seqLen: 131072, batch: 8, target: 'gpu-24gb' },
  { paramBudget: 8e9, seqLen: 131072, target: 'gpu-24gb' },
  { paramBudget: 8e9, seqLen: 49152, target: 'gpu-24gb' },
];
/** Every message id in a message and its parts, with the names of its values. */
function idsOf(m, out = new Map()) {
  out.set(m.id, Object.keys(m.params).sort());
  for (const v of Object.values(m.params)) if (v && typeof v === 'object' && 'id' in v) idsOf(v, out);
  return out;
}
const placeholders = (text) => [...new Set(text.match(/\{\w+\}/g) ?? [])].map((p) => p.slice(1, -1)).sort();

for (const build of BUILDS) {
  describe(`recommend (${build.name})`, () => {
    let attn;
    before(async () => { attn = await load(build.simd); });

    test('the rule-of-thumb table: 125M, 350M, 1B, 70B', () => {
      const rows = [[125e6, 768, 12, 64], [350e6, 1024, 16, 64], [1e9, 2048, 16, 128], [70e9, 8192, 64, 128]];
      for (const [paramBudget, dModel, nHeads, dHead] of rows) {
        const r = attn.recommend({ paramBudget, seqLen: 2048 });
        assert.deepEqual([r.dModel, r.nHeads, r.dHead], [dModel, nHeads, dHead], `${paramBudget}`);
      }
      const big = attn.recommend({ paramBudget: 70e9, seqLen: 2048 });
      assert.equal(big.variant, 'gqa');
      assert.equal(big.nKvHeads, 8);
    });

    test('an 8B model at 8K on a 24 GB GPU gets GQA with 8 KV heads, and it fits', () => {
      const r = attn.recommend({ paramBudget: 8e9, seqLen: 8192, target: 'gpu-24gb' });
      assert.equal(r.variant, 'gqa');
      assert.equal(r.nKvHeads, 8);
      assert.equal(r.fits, true);
      assert.equal(r.kvBytesPerTokenPerLayer, 2 * 8 * 128 * 2);
      assert.equal(r.kvBytesTotal, 2 * 8 * 128 * 2 * 32 * 8192);
      assert.equal(r.memoryBytes, 24e9);
      // 8e9 parameters in bf16 = 16e9 bytes; KV cache 2 * 8 * 128 * 2 * 32 * 8192 = 1 GiB
      assert.equal(r.weightBytes, 16e9);
      assert.equal(r.marginBytes, 24e9 - 16e9 - 2 ** 30);  // 6,926,258,176
      assert.match(r.justification, /KV cache/);
      assert.ok(r.rules.includes('balanced-gqa'));
      assert.ok(r.alternatives.length >= 5);
    });

    test('refusals become warnings when the variant is forced', () => {
      const mha = attn.recommend({ paramBudget: 8e9, seqLen: 65536, variant: 'mha' });
      assert.ok(mha.rules.includes('refuse-mha-long-context'));
      assert.match(mha.warnings.join(' '), /MHA with 32 heads/);
      const mla = attn.recommend({ paramBudget: 350e6, seqLen: 4096, variant: 'mla' });
      assert.ok(mla.rules.includes('refuse-mla-small'));
      assert.equal(attn.recommend({ paramBudget: 350e6, seqLen: 4096, variant: 'mla', benchmark: true }).warnings.length, 0);
    });

    test('deployment targets', () => {
      assert.deepEqual(attn.deploymentTargets().map((t) => t.id), ['phone', 'laptop-16gb', 'gpu-24gb', 'gpu-80gb']);
    });

    test('every sentence comes with its message; every catalog writes each message id with exactly its values', async () => {
      const ids = new Map();
      for (const q of SENTENCE_CASES) {
        const r = attn.recommend(q);
        const m = r.messages;
        assert.equal(m.reasons.length, r.reasons.length, JSON.stringify(q));
        assert.equal(m.warnings.length, r.warnings.length, JSON.stringify(q));
        for (const x of [m.justification, ...m.reasons, ...m.warnings, m.init, m.bias, m.check]) idsOf(x, ids);
        // The page's English of each message says what the core's English says, in the page's formats.
        const en = createI18n('en');
        assert.match(messageText(m.justification, en), /KV cache is /);
        assert.equal(messageText(m.bias, en), r.bias);
      }
      for (const t of attn.deploymentTargets()) idsOf(t.message, ids);
      assert.ok(ids.size >= 35, `message ids seen: ${[...ids.keys()].join(' ')}`);
      for (const lang of LANG_IDS) {
        for (const [id, names] of ids) {
          const text = CATALOGS[lang][`cfg.msg.${id}`];
          assert.equal(typeof text, 'string', `${lang}: no sentence for cfg.msg.${id}`);
          assert.deepEqual(placeholders(text), names, `${lang} cfg.msg.${id}: its values`);
        }
      }
      // Values say what they are: bytes, parameters, a citation.
      const r = attn.recommend({ paramBudget: 8e9, seqLen: 8192, target: 'gpu-24gb' });
      assert.deepEqual(r.messages.justification.params.cache, { bytes: r.kvBytesTotal });
      assert.deepEqual(r.messages.reasons[0].params.budget, { parameters: 8e9 });
      assert.deepEqual(r.messages.reasons[0].params.source, { text: 'Llama 3 8B, Mistral 7B' });
      assert.deepEqual(attn.deploymentTargets()[2].message, { id: 'target-gpu-24gb', params: { memory: { decimalBytes: 24e9 } } });
      // In Hindi, nothing of the core's English is left.
      const hi = await loadI18n('hi');
      for (const x of [r.messages.justification, ...r.messages.reasons, r.messages.init, r.messages.check]) {
        assert.doesNotMatch(messageText(x, hi), /\b(at|its|is|the|heads|layers|parameters|tokens)\b/, x.id);
      }
    });

    test('bad requests name the field; the module keeps working', () => {
      assert.throws(() => attn.recommend({ paramBudget: 1000, seqLen: 2048 }), (e) => e instanceof RangeError && /paramBudget \(1000\)/.test(e.message));
      assert.throws(() => attn.recommend({ paramBudget: 8e9 }), (e) => e instanceof TypeError && /seqLen/.test(e.message));
      assert.throws(() => attn.recommend({ paramBudget: '8B', seqLen: 1 }), (e) => e instanceof TypeError && /paramBudget/.test(e.message));
      assert.throws(() => attn.recommend({ paramBudget: 8e9, seqLen: 1, target: 'tpu' }), /target \('tpu'\)/);
      assert.throws(() => attn.recommend({ paramBudget: 8e9, seqLen: 1, budget: 3 }), (e) => e instanceof TypeError && /budget/.test(e.message));
      assert.throws(() => attn.recommend(null), TypeError);
      assert.equal(attn.recommend({ paramBudget: 8e9, seqLen: 8192, target: 'gpu-24gb' }).nKvHeads, 8);
    });
  });
}
