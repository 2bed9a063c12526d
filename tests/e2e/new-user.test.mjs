// Regression tests of what a new user met that are in the page: each fails
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
  const canvas = el.locator('[data-slot="compare"] canvas.hm-canvas').first();
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const readout = el.locator('[data-slot="compare"] [data-role="readout"]');
  assert.match(await readout.innerText(), /head 0: “sat” \(#2\) → “the” \(#0\) = \d\.\d{3}/);
  assert.equal(await readout.getAttribute('aria-live'), 'polite', 'announced through the live region');
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

// ---- what a new user met in the render layer's views and the element (each failed before its fix) ----

test('a negative or huge dModel is refused next to its field by the core\'s rule; nothing hangs or goes stale', async () => {
  for (const [query, value] of [['v=2&dModel=-5', '-5'], ['v=2&dModel=1000000000', '1000000000']]) {
    const page = await b.open(`?${query}`);
    const el = app(page);
    for (const v of ['walkthrough', 'heatmap', 'compare', 'decode']) await viewReady(page, v, 1, 0, 30000);
    const err = el.locator('[data-field="dModel"] .field-error');
    await err.waitFor({ state: 'visible' });
    assert.match(await err.innerText(), new RegExp(`dModel \\(${value}\\) must be an integer between 1 and 131072`));
    const text = await el.locator('[data-slot="heatmap"]').innerText();
    assert.doesNotMatch(text, /Loading|Invalid typed array length|allocation failed/);
    assert.deepEqual(page.errors, [], `${query}: no page errors`);
    // Typing a good value brings the maps back.
    await el.locator('input[name="dModel"]').fill('32');
    await err.waitFor({ state: 'hidden' });
    await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
      .querySelectorAll('[data-slot="heatmap"] canvas[data-head]').length === 4);
    await page.close();
  }
});

test('the sentence box says when it is full (4,000 characters) instead of stopping silently', async () => {
  const page = await b.open('embed.html?view=heatmap');
  await viewReady(page, 'heatmap');
  const el = app(page);
  const note = el.locator('[data-role="text-full"]');
  assert.equal(await note.isVisible(), false);
  await el.locator('input[name="text"]').fill('a '.repeat(2100));
  await note.waitFor({ state: 'visible' });
  assert.match(await note.innerText(), /at most 4,000 characters/);
  await page.close();
});

test('course authors: controls=off in the URL hides the form; the "Open" link follows setState; a mistyped view says so', async () => {
  const off = await b.open('embed.html?view=heatmap&controls=off');
  await viewReady(off, 'heatmap');
  assert.equal(await app(off).locator('[data-slot="controls"]').count(), 0, 'no shape form');
  await off.close();

  const page = await b.open('embed.html?view=heatmap');
  await viewReady(page, 'heatmap');
  const link = () => page.evaluate(() => document.querySelector('attention-playground').shadowRoot.querySelector('[data-action="open-playground"]')?.href ?? '');
  assert.doesNotMatch(await link(), /variant=mqa/);
  await page.evaluate(() => document.querySelector('attention-playground').setState({ variant: 'mqa', nHeads: 2 }));
  await page.waitForFunction(() => /variant=mqa/.test(document.querySelector('attention-playground').shadowRoot.querySelector('[data-action="open-playground"]').href));
  assert.match(await link(), /nHeads=2/);
  await page.close();

  const typo = await b.open('embed.html?view=heat-map');
  const msg = app(typo).locator('[data-role="unknown-view"]');
  await msg.waitFor();
  assert.match(await msg.innerText(), /There is no view "heat-map"\. The views are: all, walkthrough, heatmap/);
  assert.equal(await app(typo).locator('section[data-section]').count(), 0, 'not the whole page');
  await typo.close();
});

test('the walkthrough labels its tokens, writes the scale apart from the scores, and fits a phone', async () => {
  const page = await b.open('embed.html?view=walkthrough&step=scores&v=2', { viewport: { width: 375, height: 800 } });
  await viewReady(page, 'walkthrough');
  const slot = app(page).locator('[data-slot="walkthrough"]');
  const first = slot.locator('figure.hm').first();
  assert.deepEqual(await first.locator('.hm-rows span').allInnerTexts(), ['the', 'cat', 'sat', 'on', 'the', 'mat'], 'query tokens');
  assert.deepEqual(await first.locator('.hm-cols span').allInnerTexts(), ['the', 'cat', 'sat', 'on', 'the', 'mat'], 'key tokens');
  const formula = await slot.locator('[data-role="formula"]').innerText();
  assert.match(formula, /^S_h = Q_h · K_gᵀ \/ √dh\n/, 'the scores formula stands alone');
  assert.doesNotMatch(formula, /√dh = √16:/, 'never "/ √dh = √16:", which reads as S_h = √16');
  assert.match(formula, /√dh = √16 ≈ 4\.00/);
  const cut = await slot.locator('[data-role="formula"]').evaluate((f) => f.scrollWidth - f.clientWidth);
  assert.ok(cut <= 0, `the formula box is cut by ${cut}px on a phone`);
  await page.close();
});

test('decode: an empty cache says so, a long word stays in the panel, a full cache says it is full', async () => {
  const page = await b.open('embed.html?view=decode', { viewport: { width: 375, height: 800 } });
  await viewReady(page, 'decode');
  const slot = app(page).locator('[data-slot="decode"]');
  assert.match(await slot.locator('.dec-strip').innerText(), /Empty: each appended token adds one block/);
  const strip = await slot.locator('.dec-strip').boundingBox();
  assert.ok(strip.height < 100, `the empty strip is ${strip.height}px tall`);
  let d = Number(await slot.getAttribute('data-draws'));
  await slot.locator('input[name="word"]').fill('supercalifragilisticexpialidociouslyextraordinarilylongword');
  await slot.locator('button[data-action="word"]').click();
  await viewReady(page, 'decode', d + 1);
  const chip = await slot.locator('.dec-token').first().boundingBox();
  const panel = await slot.boundingBox();
  assert.ok(chip.x + chip.width <= panel.x + panel.width + 1, 'the chip stays inside the panel');
  for (let k = 0; k < 7; k++) {  // 1 + 7 × 9 = 64 tokens
    d = Number(await slot.getAttribute('data-draws'));
    await slot.locator('input[name="word"]').fill('a b c d e f g h i');
    await slot.locator('button[data-action="word"]').click();
    await viewReady(page, 'decode', d + 1);
  }
  assert.equal((await viewResult(page, 'decode')).length, 64);
  assert.equal(await slot.locator('input[name="word"]').isDisabled(), true);
  assert.match(await slot.locator('.dec-full').innerText(), /The cache is full: this view keeps at most 64 tokens/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the full page opens with its contents in lesson order; a link goes to its section', async () => {
  const page = await b.open('', { viewport: { width: 375, height: 800 } });
  await viewReady(page, 'walkthrough');
  const el = app(page);
  const links = el.locator('[data-role="contents"] a');
  const sections = await el.locator('section[data-section]').evaluateAll((s) => s.map((x) => x.dataset.section));
  assert.deepEqual(await links.evaluateAll((a) => a.map((x) => x.dataset.go)), sections, 'one link per section, in page order');
  await links.filter({ hasText: 'Lab 1' }).click();
  await page.waitForFunction(() => {
    const s = document.querySelector('attention-playground').shadowRoot.querySelector('[data-section="lab-heads"]');
    return Math.abs(s.getBoundingClientRect().top) < 80;
  });
  await page.close();
});

test('an error message never quotes an earlier value (a huge budget, then text that is not a number)', async () => {
  const page = await b.open('embed.html?view=configurator&v=2');
  await viewReady(page, 'configurator');
  const el = app(page);
  const budget = el.locator('input[name="cfgBudget"]');
  const error = el.locator('[data-field="cfgBudget"] .field-error');
  await budget.fill('1e200');  // billion parameters: the core refuses it, quoting the value
  await budget.press('Tab');
  await page.waitForFunction(() => /1e\+?209/.test(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-field="cfgBudget"] .field-error')?.textContent ?? ''));
  await budget.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('abc');
  await page.waitForTimeout(400);
  const text = await error.innerText();
  assert.doesNotMatch(text, /1e\+?209/, `a stale message: ${text}`);
  assert.match(text, /Parameter budget: what is typed is not a number|Parameter budget is empty: type a number/);
  // The same in the shape form of the maps.
  const maps = await b.open('embed.html?view=heatmap&v=2&variant=gqa&nHeads=8&nKvHeads=3');
  await viewReady(maps, 'heatmap');
  const kv = app(maps).locator('input[name="nKvHeads"]');
  // the link's error sits under the field whose own default makes the shape valid: nKvHeads (parts/error-field.js)
  await app(maps).locator('[data-field="nKvHeads"] .field-error').waitFor({ state: 'visible' });
  assert.match(await app(maps).locator('[data-field="nKvHeads"] .field-error').innerText(), /\b3\b/);
  await kv.click();
  await maps.keyboard.press('Control+A');
  await maps.keyboard.press('Backspace');
  const kvError = app(maps).locator('[data-field="nKvHeads"] .field-error');
  await kvError.waitFor({ state: 'visible' });
  assert.match(await kvError.innerText(), /nKvHeads \(G\) is empty: type a number/);
  await page.close();
  await maps.close();
});
