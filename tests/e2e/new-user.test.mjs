// Regression tests of what a new user met (issue 8, section 2) that are in the page: each fails
// on the page before its fix. (Lab fields: lab-b.test.mjs; pure parts: tests/node/web-*.test.mjs.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { app, startBrowser, viewReady, viewResult } from './browser.mjs';

let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

test('a sentence longer than 100 tokens is cut, and the maps say so', async () => {
  const text = Array.from({ length: 130 }, (_, i) => `w${i}`).join(' ');
  const page = await b.open(`embed.html?view=heatmap&text=${encodeURIComponent(text)}`);
  await viewReady(page, 'heatmap');
  const el = app(page);
  assert.equal((await viewResult(page, 'heatmap')).tokens, 100);
  assert.match(await el.locator('[data-role="truncated"]').innerText(), /130 tokens: only the first 100 are used \(30 left out\)/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a refusal speaks the page\'s words, not the API field returnWeights', async () => {
  const page = await b.open('?dModel=16384&text=' + encodeURIComponent(Array.from({ length: 100 }, () => 'a').join(' ')));
  await viewReady(page, 'heatmap', 1, 0, 30000);
  const el = app(page);
  const summary = await el.locator('[data-slot="heatmap"] [data-role="summary"]').innerText();
  assert.match(summary, /Cannot compute: .*working memory/);
  assert.doesNotMatch(summary, /returnWeights|seqLen/);
  const formError = el.locator('.controls-panel .form-error, .controls-panel .field-error:visible');
  await formError.first().waitFor({ state: 'visible' });
  for (const t of await formError.allInnerTexts()) assert.doesNotMatch(t, /returnWeights/);
  await page.close();
});

test('labels: "1 KV head" (not "1 KV heads") and the 2-byte type is "fp16 / bf16"', async () => {
  const page = await b.open('embed.html?view=kv-chart');
  await viewReady(page, 'kv-chart');
  const el = app(page);
  const falcon = await el.locator('input[name="preset"][value="falcon-7b"]').locator('..').textContent();  // inside a closed <details>
  assert.match(falcon, /\b1 KV head of/);
  assert.equal(await el.locator('select[name="dtype"] option[value="bf16"]').innerText(), 'fp16 / bf16 (2 B / element)');
  await page.close();
  const params = await b.open('embed.html?view=params&variant=mqa');
  await viewReady(params, 'params');
  assert.match(await app(params).locator('[data-slot="params"]').innerText(), /fp16 \/ bf16/);
  await params.close();
});

test('KV chart: the top of the axis has a tick above 32 GiB (Llama 3 70B at 1M tokens) and the memory lines come from the core', async () => {
  const page = await b.open('embed.html?view=kv-chart&presets=llama-3-70b&kvVariants=');
  await viewReady(page, 'kv-chart');
  const r = await viewResult(page, 'kv-chart');
  assert.deepEqual(r.series.map((s) => s.id), ['llama-3-70b'], 'kvVariants= hides the "this shape" series');
  assert.ok(r.series[0].bytes.at(-1) > 300 * 2 ** 30, 'Llama 3 70B reaches ~320 GiB at 1M tokens');
  const caption = await app(page).locator('[data-role="caption"]').innerText();
  assert.match(caption, /phone or browser tab \(4 GB\), 16 GB laptop, 24 GB GPU \(RTX 4090\), 80 GB GPU \(A100 \/ H100\)/);
  await page.close();
});

test('the KV-chart embed takes its own shape from the URL', async () => {
  const page = await b.open('embed.html?view=kv-chart&variant=gqa&nHeads=64&nKvHeads=8&dHead=128&nLayers=80&kvVariants=gqa&presets=');
  await viewReady(page, 'kv-chart');
  const r = await viewResult(page, 'kv-chart');
  assert.deepEqual(r.series.map((s) => s.id), ['gqa']);
  // 2 * G * dh * layers * bytes per token: 2 * 8 * 128 * 80 * 2 = 327,680 bytes per token.
  assert.equal(r.series[0].bytes[r.lengths.indexOf(1024)], 327680 * 1024);
  await page.close();
});

test('the compare view\'s small maps are reachable and read out by keyboard', async () => {
  const page = await b.open('embed.html?view=compare');
  await viewReady(page, 'compare');
  const el = app(page);
  const canvas = el.locator('canvas.cmp-canvas').first();
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const readout = el.locator('.cmp-readout').first();
  assert.match(await readout.innerText(), /head 0: “sat” \(#2\) → “the” \(#0\) = \d\.\d{3}/);
  assert.match(await el.locator('[data-slot="compare"] .sr-live').innerText(), /“sat” \(#2\)/, 'announced through the live region');
  await page.close();
});

test('the element fires ready and statechange (with the state) for course pages', async () => {
  const page = await b.open('test-pages/two-elements.html');
  const events = await page.evaluate(() => new Promise((resolve) => {
    const el = document.querySelector('#a');
    const seen = [];
    el.addEventListener('statechange', (e) => { seen.push(['statechange', e.detail.variant]); if (e.detail.variant === 'mqa') resolve(seen); });
    el.addEventListener('ready', (e) => { seen.push(['ready', e.detail.view]); el.setState({ variant: 'mqa' }); });
  }));
  // The first render's statechange (the state from config), ready, then the change with its state.
  assert.deepEqual(events, [['statechange', 'mha'], ['ready', 'heatmap'], ['statechange', 'mqa']]);
  await page.close();
});
