// dist/standalone.html opened straight from disk (file://), as a teacher who copies one file
// would: it must boot the core (inlined, in a Blob worker) and draw the maps with no console
// errors and no request other than the file itself, and open a checkpoint from the file picker
// (the pretrained module inlined too). Also the dark theme of the served page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, SHOTS, startStandalone } from './browser.mjs';

let standalone;
before(async () => { standalone = await startStandalone(); });
after(async () => { await standalone?.close(); });

test('standalone.html works from file:// on its own', async () => {
  const page = await standalone.open();
  await page.waitForFunction(() => Number(document.querySelector('attention-playground')?.shadowRoot
    ?.querySelector('[data-slot="heatmap"]')?.dataset.draws || 0) >= 1, null, { timeout: 30000 });
  const el = page.locator('attention-playground');
  assert.equal(await el.locator('canvas[data-head]').count(), 4, 'the lesson\'s example: MHA, 4 heads');
  assert.match(await el.locator('.app-head [data-role="build"]').innerText(), /SIMD/);
  // It stays interactive: another variant redraws.
  await el.locator('select[name="variant"]').selectOption('mla');
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('.kv-group').length === 1, null, { timeout: 20000 });
  await page.screenshot({ path: path.join(SHOTS, 'standalone-file.png') });
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.outside(), []);
  await page.close();
});

test('standalone.html opens a checkpoint from the file picker, from file://, and draws PyTorch\'s maps', async () => {
  const fixture = path.join(REPO, 'tests/fixtures/pretrained/qwen2');
  const buf = fs.readFileSync(path.join(fixture, 'expected.safetensors'));
  const n = Number(buf.readBigUInt64LE(0));
  const h = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const raw = (k) => buf.buffer.slice(buf.byteOffset + 8 + n + h[k].data_offsets[0], buf.byteOffset + 8 + n + h[k].data_offsets[1]);
  const ids = [...new Int32Array(raw('ids'))];
  const want = new Float32Array(raw('attentions.1'));
  const page = await standalone.open();
  const el = page.locator('attention-playground');
  await page.waitForFunction(() => Number(document.querySelector('attention-playground')?.shadowRoot
    ?.querySelector('[data-slot="model"]')?.dataset.draws || 0) >= 1, null, { timeout: 30000 });
  await el.locator('[data-role="pick-files"]').setInputFiles(['config.json', 'model.safetensors'].map((f) => path.join(fixture, f)));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="model"]')?.result?.opened === true, null, { timeout: 30000 });
  await el.locator('input[name="text"]').fill(ids.join(' '));
  // the walkthrough of layer 1 (qwen2: 2 layers), its softmax step: the maps drawn are PyTorch's
  await el.locator('[data-slot="walkthrough"] select[name="layer"]').selectOption('1');
  await page.waitForFunction((N) => {
    const r = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="walkthrough"]')?.result;
    return r?.shape?.layer === 1 && r.shape.seqLen === N;
  }, ids.length, { timeout: 20000 });
  await el.locator('[data-slot="walkthrough"] button[data-step="softmax"]').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="walkthrough"]')?.result?.step === 'softmax');
  const drawn = await page.evaluate(() => Array.from(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="walkthrough"]').result.drawn.attention.data));
  let d = 0;
  want.forEach((v, k) => { d = Math.max(d, Math.abs(drawn[k] - v)); });
  assert.ok(d <= 1e-4, `the maps of layer 1 differ from PyTorch's by ${d}`);
  await el.locator('[data-slot="walkthrough"]').screenshot({ path: path.join(SHOTS, 'standalone-file-checkpoint.png') });
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.outside(), []);
  await page.close();
});
