// Browser tests of the playground (dist/index.html, embed.html, the custom element) in Chromium:
// served from a sub-path under the strict CSP with every outside request refused (see browser.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { app, draws, heatmapDrawn, shot, startBrowser, viewReady, viewResult } from './browser.mjs';

let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

const drawnCount = (page, n = 0) => draws(page, 'heatmap', n);

test('the playground boots with no console errors, draws one map per head, and runs the SIMD build', async () => {
  const page = await b.open();
  await heatmapDrawn(page);
  const el = app(page);
  assert.equal(await el.locator('[data-slot="heatmap"] canvas[data-head]').count(), 4, 'the lesson\'s example: MHA, 4 heads');
  assert.equal(await el.locator('.kv-group').count(), 4, 'MHA: every head its own K/V head');
  assert.match(await el.locator('.app-head [data-role="build"]').innerText(), /SIMD/);
  await shot(page, 'playground-desktop');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(b.outside, [], 'no request outside dist/');
  await page.close();
});

test('changing the variant or nKvHeads redraws the maps and updates the chart', async () => {
  const page = await b.open('?variant=gqa&nHeads=8&nKvHeads=2&v=2');  // GQA, 8 query heads, 2 K/V heads
  await heatmapDrawn(page);
  const el = app(page);
  await viewReady(page, 'kv-chart');
  const chartBefore = JSON.stringify(await viewResult(page, 'kv-chart'));
  const chartDraws = await draws(page, 'kv-chart');
  const before = await drawnCount(page);
  await el.locator('input[name="nKvHeads"]').fill('4');
  await heatmapDrawn(page, before + 1);
  assert.equal(await el.locator('.kv-group').count(), 4);
  await viewReady(page, 'kv-chart', chartDraws + 1);
  assert.notEqual(JSON.stringify(await viewResult(page, 'kv-chart')), chartBefore, 'the chart has new numbers');
  const n = await drawnCount(page);
  await el.locator('select[name="variant"]').selectOption('mqa');
  await heatmapDrawn(page, n + 1);
  assert.equal(await el.locator('.kv-group').count(), 1, 'MQA: all heads share one K/V head');
  assert.match(page.url(), /variant=mqa/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an invalid combination is explained next to the control the learner edited, in the core\'s words', async () => {
  const page = await b.open('?variant=gqa&nHeads=8&nKvHeads=2&v=2');  // GQA, 8 query heads, 2 K/V heads
  await heatmapDrawn(page);
  const el = app(page);
  await el.locator('input[name="nKvHeads"]').fill('3');
  // The core names nHeads ("nHeads must be divisible by nKvHeads"); the learner edited nKvHeads, which
  // is where the message goes (parts/error-field.js), placed from the structured field, not the text.
  const err = el.locator('[data-field="nKvHeads"] .field-error');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /nHeads \(8\) must be divisible by nKvHeads \(3\)/);
  assert.equal(await el.locator('[data-field="nHeads"] .field-error').isHidden(), true, 'not under nHeads, which was not edited');
  assert.equal(await el.locator('input[name="nKvHeads"]').getAttribute('aria-invalid'), '');
  assert.equal(await el.locator('input[name="nKvHeads"]').inputValue(), '3', 'the value is not silently changed');
  await el.locator('input[name="nKvHeads"]').fill('4');
  await err.waitFor({ state: 'hidden' });
  // the learner then edits nHeads to 2: the core names nKvHeads ("must not exceed nHeads"), the
  // message goes under nHeads, the field edited
  await el.locator('input[name="nHeads"]').fill('2');
  const errH = el.locator('[data-field="nHeads"] .field-error');
  await errH.waitFor({ state: 'visible' });
  assert.match(await errH.innerText(), /nKvHeads \(4\) must not exceed nHeads \(2\)/);
  assert.equal(await err.isHidden(), true);
  await el.locator('input[name="nHeads"]').fill('8');
  await errH.waitFor({ state: 'hidden' });
  await page.close();
});

test('from a link, an error goes under the field that breaks the shape; a derived dHead is never marked', async () => {
  let page = await b.open('?v=2&variant=gqa&nHeads=8&nKvHeads=3');
  let el = app(page);
  const kvErr = el.locator('[data-field="nKvHeads"] .field-error');
  await kvErr.waitFor({ state: 'visible' });
  assert.match(await kvErr.innerText(), /nHeads \(8\) must be divisible by nKvHeads \(3\)/);
  assert.equal(await el.locator('[data-field="nHeads"] .field-error').isHidden(), true);
  await page.close();
  page = await b.open('?v=2&dModel=131072&nHeads=1');
  el = app(page);
  const dErr = el.locator('[data-field="dModel"] .field-error');
  await dErr.waitFor({ state: 'visible' });
  assert.equal(await el.locator('input[name="dHead"]').inputValue(), '0');
  assert.equal(await el.locator('[data-field="dHead"] .field-error').isHidden(), true, 'dHead 0 is dModel / nHeads: not the learner\'s to fix');
  // every message the form shows ends its sentence: none runs into the next
  const texts = await el.locator('.field-error:visible, .form-error:visible').allInnerTexts();
  for (const text of texts) assert.doesNotMatch(text, /[a-z0-9)] (this|the|dHead|dModel|nHeads) \w+ (needs|must)/, text);
  await shot(page, 'form-error-dmodel');
  await page.close();
});

test('"Copy embed code": an iframe and a small script that sizes it from the height embed.html posts, from that iframe only', async () => {
  const page = await b.open();
  await heatmapDrawn(page);
  await app(page).locator('[data-action="copy-embed"]').click();
  const code = await (await page.waitForFunction(() => document.querySelector('attention-playground').lastCopied)).jsonValue();
  assert.match(code, /^<iframe id="attention-playground-[a-z0-9]+" src="[^"]*embed\.html\?[^"]*view=heatmap[^"]*"[^>]* height="520"><\/iframe>\n<script>/);
  assert.match(code, /e\.source === f\.contentWindow/);
  const host = await b.context.newPage();
  await host.setContent(`<!doctype html><html><body style="margin:0">${code}</body></html>`);
  await host.waitForFunction(() => document.querySelector('iframe')?.height !== '520', null, { timeout: 30000 });
  const sized = Number(await host.locator('iframe').getAttribute('height'));
  assert.ok(sized > 0 && sized !== 520, `sized to ${sized}`);
  // a message from another window (the course page itself) does not resize it
  await host.evaluate(() => window.postMessage({ type: 'attention-playground:height', height: 5 }, '*'));
  await host.waitForTimeout(300);
  assert.notEqual(Number(await host.locator('iframe').getAttribute('height')), 5);
  await host.close();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a permalink restores the state exactly', async () => {
  const page = await b.open();
  await heatmapDrawn(page);
  const el = app(page);
  await el.locator('select[name="variant"]').selectOption('mla');
  await el.locator('input[name="text"]').fill('attention is all you need .');
  await el.locator('input[name="seed"]').fill('5');
  await page.waitForFunction(() => /seed=5/.test(location.search) && /text=/.test(location.search));
  await page.waitForTimeout(300);
  const url = page.url();
  const pixels = async (p) => p.evaluate(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('[data-slot="heatmap"] canvas[data-head]')].map((c) => c.toDataURL()));
  const first = await pixels(page);
  const again = await b.open(url.slice(b.base.length));
  await heatmapDrawn(again);
  const el2 = app(again);
  assert.equal(await el2.locator('select[name="variant"]').inputValue(), 'mla');
  assert.equal(await el2.locator('input[name="text"]').inputValue(), 'attention is all you need .');
  assert.equal(await el2.locator('input[name="seed"]').inputValue(), '5');
  assert.deepEqual(await pixels(again), first, 'the same maps, pixel for pixel');
  await page.close();
  await again.close();
});

test('the decode stepper grows the cache by the right number of bytes', async () => {
  const page = await b.open('?variant=gqa&nHeads=8&nKvHeads=2&dModel=64');
  const decode = app(page).locator('[data-slot="decode"]');
  await viewReady(page, 'decode');
  for (let k = 1; k <= 3; k++) {
    const seen = await draws(page, 'decode');
    await decode.locator('button[data-action="step"]').click();
    await viewReady(page, 'decode', seen + 1);
    const d = await viewResult(page, 'decode');
    assert.equal(d.length, k);
    assert.equal(d.cacheBytes, 2 * 2 * 8 * k * 4, `after ${k} tokens: 2 * G * dh * length * 4`);
  }
  await page.close();
});

test('embed.html renders each view alone', async () => {
  for (const view of ['heatmap', 'kv-chart', 'compare', 'decode', 'params']) {
    const page = await b.open(`embed.html?view=${view}&variant=gqa`, { viewport: { width: 720, height: 600 } });
    const el = app(page);
    await viewReady(page, view);
    assert.equal(await el.locator(`[data-slot="${view}"]`).getAttribute('data-state'), 'ready', `${view}: drawn without an error`);
    assert.equal(await el.locator('section[data-section]').count(), 1, `${view}: one view only`);
    await shot(page, `embed-${view}`);
    assert.deepEqual(page.errors, [], `${view}: no console errors`);
    await page.close();
  }
});

test('two custom elements on one page work independently', async () => {
  const page = await b.open('test-pages/two-elements.html');
  await heatmapDrawn(page, 1, 0);
  await heatmapDrawn(page, 1, 1);
  const heads = (n) => app(page, n).locator('canvas[data-head]').count();
  assert.equal(await heads(0), 4);
  assert.equal(await heads(1), 8);
  const before1 = await drawnCount(page, 1);
  await page.evaluate(() => document.querySelector('#a').setAttribute('config', 'variant=mha&nHeads=2&dModel=32'));
  await page.waitForFunction(() => document.querySelector('#a').shadowRoot.querySelectorAll('canvas[data-head]').length === 2);
  assert.equal(await heads(1), 8, 'the other element is untouched');
  assert.equal(await drawnCount(page, 1), before1, 'and did not redraw');
  assert.deepEqual(page.errors, []);
  await shot(page, 'two-elements');
  await page.close();
});

test('a phone-sized viewport renders without sideways scrolling', async () => {
  const page = await b.open('', { viewport: { width: 375, height: 800 } });
  await heatmapDrawn(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px on a phone`);
  await shot(page, 'playground-phone');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('without SIMD the scalar build runs and says so', async () => {
  const page = await b.open('?simd=0');
  await heatmapDrawn(page);
  assert.match(await app(page).locator('.app-head [data-role="build"]').innerText(), /scalar/);
  await page.close();
});

test('no request left dist/ in any test', () => {
  assert.deepEqual(b.outside, []);
});

test('the dark theme follows prefers-color-scheme', async () => {
  const page = await b.open();
  await page.emulateMedia({ colorScheme: 'dark' });
  await heatmapDrawn(page);
  const bg = await page.evaluate(() => getComputedStyle(document.querySelector('attention-playground').shadowRoot.querySelector('.app')).backgroundColor);
  const [r, g, bl] = bg.match(/\d+/g).map(Number);
  assert.ok(r + g + bl < 120, `dark background expected, got ${bg}`);
  await shot(page, 'playground-dark');
  await page.close();
});

test('hover reads out query, key and weight; a selected query is shown across all heads (mouse and keyboard)', async () => {
  const page = await b.open('?variant=gqa&nHeads=8&nKvHeads=2&v=2');  // GQA, 8 query heads, 2 K/V heads
  await heatmapDrawn(page);
  const el = app(page);
  const canvas = el.locator('canvas[data-head="2"]');
  await canvas.scrollIntoViewIfNeeded();  // the walkthrough comes first on the full page
  const box = await canvas.boundingBox();
  const cell = box.width / 6;
  await page.mouse.move(box.x + cell * 1.5, box.y + cell * 3.5);  // query 3 ("on"), key 1 ("cat")
  const tip = el.locator('[data-slot="heatmap"] [data-role="readout"]');
  await page.waitForFunction(() => /query/.test(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"] [data-role="readout"]').textContent));
  assert.match(await tip.innerText(), /head 2 → K\/V 0 · query “on” \(3\) → key “cat” \(1\): 0\.\d{3}/);
  await page.mouse.click(box.x + cell * 1.5, box.y + cell * 3.5);
  const selected = el.locator('[data-role="selected"]');
  await selected.waitFor({ state: 'visible' });
  assert.match(await selected.locator('h3').innerText(), /Query “on” \(3\) in every head/);
  assert.equal(await selected.locator('tr').count(), 1 + 8, 'a header row and one row per head');
  assert.match(page.url(), /sel=3/);
  // Keyboard: focus a map, move down twice, Enter selects that query.
  await el.locator('canvas[data-head="0"]').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /sel=2/.test(location.search));
  await selected.locator('h3', { hasText: 'Query “sat” (2)' }).waitFor();  // the panel redraws after the URL
  await page.keyboard.press('Escape');
  await selected.waitFor({ state: 'hidden' });
  assert.deepEqual(page.errors, []);
  await page.close();
});
