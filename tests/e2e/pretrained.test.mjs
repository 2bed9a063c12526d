// Browser test of attn.loadPretrained and attn.loadTokenizer (docs/api.md): in Chromium, under the strict
// CSP and a sub-path (browser.mjs), the library opens the gpt2 fixture (tests/fixtures/pretrained/gpt2)
// from Blobs, tokenizes with its tokenizer.json (no code generation: the CSP has no 'unsafe-eval'), and
// gives PyTorch's logits and maps; the pretrained module (4 GiB memory limit) instantiates.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, startBrowser } from './browser.mjs';

let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

const dir = path.join(REPO, 'tests/fixtures/pretrained/gpt2');
const json = (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));

/** expected.safetensors' F32 tensors (a reader of its own). */
function expected() {
  const buf = fs.readFileSync(path.join(dir, 'expected.safetensors'));
  const n = Number(buf.readBigUInt64LE(0));
  const h = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const t = (k) => new Float32Array(buf.buffer.slice(buf.byteOffset + 8 + n + h[k].data_offsets[0], buf.byteOffset + 8 + n + h[k].data_offsets[1]));
  return { logits: t('logits'), maps: [t('attentions.0'), t('attentions.1')] };
}

const rel = (got, want) => {
  let d = 0, s = 0;
  for (let i = 0; i < want.length; i++) { d = Math.max(d, Math.abs(got[i] - want[i])); s = Math.max(s, Math.abs(want[i])); }
  return d / s;
};

test('a checkpoint and its tokenizer open in the browser and agree with PyTorch', async () => {
  const page = await b.open('test-pages/pretrained.html');
  await page.waitForFunction(() => window.pretrainedReady === true);
  const e = json('tokenizer_expected.json')[0];
  const r = await page.evaluate((payload) => window.runPretrained(payload), {
    config: json('config.json'), weights: [fs.readFileSync(path.join(dir, 'model.safetensors')).toString('base64')],
    tokenizer: json('tokenizer.json'), tokenizerConfig: json('tokenizer_config.json'), text: e.text,
  });
  assert.deepEqual(r.tokens, e.tokens);
  assert.deepEqual(r.ids, e.ids);
  assert.equal(r.info.modelType, 'gpt2');
  assert.equal(r.simd, true);
  // the fixture's expected outputs are for its own random ids; check the maps' invariants here, and the
  // logits of a second run below against PyTorch
  for (const m of r.maps) {
    const n = r.ids.length;
    for (let h = 0; h < r.info.nHeads; h++)
      for (let i = 0; i < n; i++) {
        let sum = 0;
        for (let j = 0; j < n; j++) { sum += m[(h * n + i) * n + j]; if (j > i) assert.equal(m[(h * n + i) * n + j], 0); }
        assert.ok(Math.abs(sum - 1) < 1e-5);
      }
  }
  const v = r.info.vocabSize;
  assert.ok(rel(r.lastDecoded, r.logits.slice((r.ids.length - 1) * v)) < 1e-4, 'decoding gives forward\'s last row');
  assert.deepEqual(b.outside, [], 'every request stays under the sub-path');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the fixture\'s own ids give PyTorch\'s logits and maps in the browser', async () => {
  const page = await b.open('test-pages/pretrained.html');
  await page.waitForFunction(() => window.pretrainedReady === true);
  const buf = fs.readFileSync(path.join(dir, 'expected.safetensors'));
  const n = Number(buf.readBigUInt64LE(0));
  const h = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const ids = [...new Int32Array(buf.buffer.slice(buf.byteOffset + 8 + n + h.ids.data_offsets[0], buf.byteOffset + 8 + n + h.ids.data_offsets[1]))];
  const r = await page.evaluate(async ({ config, weights, ids: given }) => {
    const { loadAttention } = await import('../lib/attention.mjs');
    const attn = await loadAttention({ training: false });
    const bytes = Uint8Array.from(atob(weights), (c) => c.charCodeAt(0));
    const model = await attn.loadPretrained({ config, weights: new Blob([bytes]) });
    const out = model.forward(given, { attentions: true });
    return { logits: [...out.logits], maps: out.attentions.map((m) => [...m]) };
  }, { config: json('config.json'), weights: fs.readFileSync(path.join(dir, 'model.safetensors')).toString('base64'), ids });
  const want = expected();
  assert.ok(rel(r.logits, want.logits) < 1e-4, `logits ${rel(r.logits, want.logits)}`);
  r.maps.forEach((m, l) => assert.ok(rel(m, want.maps[l]) < 1e-4, `maps ${l}`));
  assert.deepEqual(page.errors, []);
  await page.close();
});
