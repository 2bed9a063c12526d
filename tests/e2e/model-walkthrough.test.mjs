// Browser test of the walkthrough with an opened checkpoint (views/walkthrough.js, lesson/stages.js,
// sources/pretrained.js): in Chromium, under the strict CSP and a sub-path (browser.mjs), the full page
// opens tiny checkpoints (tests/fixtures/pretrained) through the file picker, the learner types the
// fixture's token ids and picks a layer, and every step draws that layer's stages: the tensors drawn
// (the view's root.result) are PyTorch's (expected.safetensors' maps of each layer, stages.safetensors'
// stages of the last layer) within 1e-4 of the largest value, as the Node tests bound them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, SHOTS, app, startBrowser, viewReady, viewResult } from './browser.mjs';

const FIXTURES = path.join(REPO, 'tests/fixtures/pretrained');
const TOL = 1e-4;
let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

/** A fixture's .safetensors file: { name: { shape, data: Float32Array | Int32Array } } (a reader of its own). */
function tensors(name, file) {
  const buf = fs.readFileSync(path.join(FIXTURES, name, file));
  const n = Number(buf.readBigUInt64LE(0));
  const h = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const out = {};
  for (const [k, t] of Object.entries(h)) {
    if (k === '__metadata__') continue;
    const raw = buf.buffer.slice(buf.byteOffset + 8 + n + t.data_offsets[0], buf.byteOffset + 8 + n + t.data_offsets[1]);
    out[k] = { shape: t.shape, data: t.dtype === 'I32' ? new Int32Array(raw) : new Float32Array(raw) };
  }
  return out;
}

/** max |got - want| / max |want| over the finite cells; -Infinity (a masked score) must be in the same cells. */
function assertClose(got, want, what) {
  const g = Array.from(got), w = Array.from(want);
  assert.equal(g.length, w.length, `${what}: ${g.length} values, PyTorch has ${w.length}`);
  let d = 0, s = 0;
  w.forEach((v, k) => {
    assert.equal(g[k] === -Infinity, v === -Infinity, `${what}[${k}]: ${g[k]} against PyTorch's ${v}`);
    if (Number.isFinite(v)) { d = Math.max(d, Math.abs(g[k] - v)); s = Math.max(s, Math.abs(v)); }
  });
  assert.ok(d / s <= TOL, `${what}: relative difference ${(d / s).toExponential(2)} > ${TOL}`);
}

/** Opens the fixture through the file picker (config.json and its weight files) and types its ids. */
async function openFixture(page, name) {
  const el = app(page);
  await viewReady(page, 'model');
  const files = fs.readdirSync(path.join(FIXTURES, name)).filter((f) => f === 'config.json' || /^model.*\.safetensors$/.test(f));
  await el.locator('[data-role="pick-files"]').setInputFiles(files.map((f) => path.join(FIXTURES, name, f)));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="model"]')?.result?.opened === true, null, { timeout: 30000 });
  const ids = [...tensors(name, 'expected.safetensors').ids.data];
  await el.locator('input[name="text"]').fill(ids.join(' '));
  await page.waitForFunction((n) => {
    const r = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="walkthrough"]')?.result;
    return r?.shape?.seqLen === n && r.shape.modelType;
  }, ids.length, { timeout: 20000 });
  return ids;
}

/** Goes to a step through its button in the step list; returns what the view drew. */
async function goTo(page, step) {
  const slot = app(page).locator('[data-slot="walkthrough"]');
  const before = Number(await slot.getAttribute('data-draws'));
  await slot.locator(`button[data-step="${step}"]`).click();
  await viewReady(page, 'walkthrough', before + 1);
  const r = await viewResult(page, 'walkthrough');
  assert.equal(r.step, step);
  return r;
}

/** Picks a layer in the walkthrough's own layer picker and waits for its stages. */
async function pickLayer(page, layer) {
  const slot = app(page).locator('[data-slot="walkthrough"]');
  await slot.locator('select[name="layer"]').selectOption(String(layer));
  await page.waitForFunction((l) => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="walkthrough"]')?.result?.shape?.layer === l, layer);
  await viewReady(page, 'walkthrough');
}

// Steps: the lesson's 8 (gpt2: no RoPE), RoPE (+1), qwen3's q/k norms (+1); MLA: the latent, its norm, the
// up-projections, RoPE, the cache (12), the query latent (+1).
for (const [name, stepsWanted] of [['gpt2', 8], ['gpt_bigcode', 8], ['llama3', 9], ['mistral', 9], ['qwen2', 9], ['qwen3', 10],
  ['deepseek_v2', 12], ['deepseek_v2_lora_yarn', 13]]) {
  test(`${name}: the walkthrough draws every layer's maps and every stage of the last layer as PyTorch computes them`, async () => {
    const page = await b.open('index.html');
    await openFixture(page, name);
    const maps = tensors(name, 'expected.safetensors');
    const stages = tensors(name, 'stages.safetensors');
    const last = stages.layer.data[0];
    const layers = Object.keys(maps).filter((k) => k.startsWith('attentions.')).length;
    for (let l = 0; l < layers; l++) {
      await pickLayer(page, l);
      const r = await goTo(page, 'softmax');
      assert.equal(r.shape.layer, l);
      assertClose(r.drawn.attention.data, maps[`attentions.${l}`].data, `${name} layer ${l}: the drawn maps`);
    }
    // the last layer, step by step: every tensor drawn is PyTorch's stage of the same name
    await pickLayer(page, last);
    const first = await viewResult(page, 'walkthrough');
    assert.equal(first.steps.length, stepsWanted, `${name}: ${first.steps.join(', ')}`);
    const seen = new Set();
    for (const step of first.steps) {
      const r = await goTo(page, step);
      for (const [key, t] of Object.entries(r.drawn)) {
        assert.ok(stages[key], `${name} step ${step}: ${key} has no PyTorch stage`);
        assert.deepEqual(t.shape, stages[key].shape, `${name} ${key}: shape`);
        assertClose(t.data, stages[key].data, `${name} step ${step}: ${key}`);
        seen.add(key);
      }
    }
    const all = Object.keys(stages).filter((k) => k !== 'layer');
    assert.deepEqual(all.filter((k) => !seen.has(k)), [], `${name}: stages never drawn`);
    await goTo(page, name === 'qwen3' ? 'qkNorm' : 'scores');
    await app(page).locator('[data-slot="walkthrough"]').screenshot({ path: path.join(SHOTS, `model-walkthrough-${name}.png`) });
    assert.deepEqual(page.errors, []);
    assert.deepEqual(b.outside, [], 'every request stays under the sub-path');
    await page.close();
  });
}

test('mistral: a score outside the sliding window is masked, and its cell says so', async () => {
  const page = await b.open('index.html');
  await openFixture(page, 'mistral');  // window 4 over 10 tokens
  await pickLayer(page, 0);
  const r = await goTo(page, 'scores');
  const N = r.shape.seqLen;
  assert.equal(r.drawn.scores.data[9 * N + 2], -Infinity, 'query 9 cannot see key 2 (window 4)');
  assert.ok(Number.isFinite(r.drawn.scores.data[9 * N + 6]), 'query 9 sees key 6');
  const slot = app(page).locator('[data-slot="walkthrough"]');
  const canvas = slot.locator('canvas').first();
  await canvas.scrollIntoViewIfNeeded();
  await canvas.focus();
  for (let k = 0; k < 9; k++) await page.keyboard.press('ArrowDown');
  for (let k = 0; k < 2; k++) await page.keyboard.press('ArrowRight');
  assert.match(await slot.locator('[data-role="readout"]').innerText(), /^S_0\[9, 2\] = −∞: key .* is masked/);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.match(await slot.locator('[data-role="readout"]').innerText(), /^S_0\[9, 6\] = Q_0\[9\] · K_0\[6\] · 0\.3536 = -?\d/);
  // the heatmap view's layer picker and the walkthrough's are one state: layer 1 in one is layer 1 in the other
  await pickLayer(page, 1);
  await viewReady(page, 'heatmap');
  assert.equal((await viewResult(page, 'heatmap')).layer, 1);
  assert.deepEqual(page.errors, []);
  await page.close();
});
