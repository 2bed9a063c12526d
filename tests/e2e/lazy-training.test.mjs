// Browser test of the training module loaded on demand (docs/api.md, "A lighter load"): the page's
// worker loads the attention module only, so the heatmap embed never requests the training module
// (attention-train-*.{js,wasm}); a lab requests it when it first asks for a trainer, and trains; the
// views of the configurator's search fetch its small module (attention-configurator.*) instead.
// Served under a sub-path with the strict CSP (browser.mjs), so the chunk and .wasm URLs Vite emits
// for the training module are relative and allowed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { app, heatmapDrawn, labStatus, startBrowser, startStandalone, viewReady, viewResult } from './browser.mjs';

let b;
let requests = [];
before(async () => {
  b = await startBrowser();
  // Context-wide, so that requests made by the page's worker are seen too.
  b.context.on('request', (r) => requests.push(r.url()));
});
after(async () => { await b?.close(); });

const isTraining = (u) => /attention-train/.test(new URL(u).pathname);
/** What only an opened checkpoint needs: its module, its page code, the tokenizer library. */
const isPretrained = (u) => /\/(attention-pretrained|pretrained|worker-pretrained|model|model-files|tokenizers?)[-.][^/]*$/.test(new URL(u).pathname);
const isAttentionWasm = (u) => /\/attention-(fma|simd|scalar)-[^/]*\.wasm$/.test(new URL(u).pathname);

test('the heatmap embed draws its maps without requesting the training module', async () => {
  requests = [];
  const page = await b.open('embed.html?view=heatmap');
  await heatmapDrawn(page);
  await page.waitForTimeout(500);  // anything requested after the first map would show up here
  assert.ok(requests.some(isAttentionWasm), `the attention module was fetched: ${requests.join('\n')}`);
  assert.deepEqual(requests.filter(isTraining), [], 'no training module for the heatmap');
  assert.deepEqual(requests.filter(isPretrained), [], 'nothing of the pretrained checkpoints for the heatmap');
  assert.deepEqual(b.outside, [], 'every request stays under the sub-path');
  assert.deepEqual(page.errors, []);
  await page.close();
});

const isConfigurator = (u) => /attention-configurator/.test(new URL(u).pathname);

test('the heads table, the KV chart and the configurator fetch the configurator module, not the training module', async () => {
  for (const view of ['heads-table', 'kv-chart', 'configurator']) {
    requests = [];
    const page = await b.open(`embed.html?view=${view}`);
    await viewReady(page, view);
    await page.waitForTimeout(500);  // anything requested after the view drew would show up here
    assert.ok(requests.some((u) => isConfigurator(u) && /\.wasm$/.test(new URL(u).pathname)),
      `${view}: the configurator's .wasm was fetched: ${requests.join('\n')}`);
    assert.deepEqual(requests.filter(isTraining), [], `${view}: no training module`);
    assert.deepEqual(b.outside, [], 'every request stays under the sub-path');
    assert.deepEqual(page.errors, [], view);
    await page.close();
  }
});

test('a lab requests the training module when it trains (same build), and trains', async () => {
  requests = [];
  const page = await b.open('embed.html?view=lab-induction&labISteps=20');
  const view = app(page).locator('[data-slot="lab-induction"]');
  const start = view.locator('[data-act="start"]');
  await start.waitFor();
  await page.waitForTimeout(300);
  assert.deepEqual(requests.filter(isTraining), [], 'no training module before the click');
  await start.click();
  await labStatus(page, 'lab-induction', ['done'], 30000);
  const res = await viewResult(page, 'lab-induction');
  assert.equal(res.status, 'done');
  const train = requests.filter(isTraining);
  assert.ok(train.some((u) => /\.wasm$/.test(new URL(u).pathname)), `the training .wasm was fetched: ${train.join(', ')}`);
  const builds = new Set(requests.filter((u) => /\.wasm$/.test(new URL(u).pathname)).map((u) => (/scalar/.test(u) ? 'scalar' : 'simd')));
  assert.deepEqual([...builds], ['simd'], 'the training module of the same (SIMD) build');
  assert.deepEqual(b.outside, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('standalone.html from file:// trains a lab with its inlined training module', async () => {
  const standalone = await startStandalone();
  try {  // closed whatever happens: a failed assertion must not leave Chromium (and this test file) running
    const page = await standalone.open('?view=lab-induction&labISteps=20');
    const start = app(page).locator('[data-slot="lab-induction"] [data-act="start"]');
    await start.waitFor({ timeout: 30000 });
    await start.click();
    await labStatus(page, 'lab-induction', ['done'], 30000);
    assert.equal((await viewResult(page, 'lab-induction')).status, 'done');
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.outside(), []);
  } finally {
    await standalone.close();
  }
});
