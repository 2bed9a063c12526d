// Browser tests of the configurator panel (views/configurator.js) in Chromium, served like the
// playground tests (see browser.mjs). Every recommendation comes from the core's `recommend`:
// without it these tests fail with the panel's own message (e.g. "attn.recommend is not a function").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SHOTS, app, draws, heatmapDrawn, shot, startBrowser, viewReady, viewResult } from './browser.mjs';
import { importLib } from '../node/helpers.mjs';

let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

const EMBED = 'embed.html?view=configurator';

/** How many answers (recommendations or errors) the panel has shown so far. */
const computed = (page) => app(page).locator('[data-slot="configurator"]').evaluate((v) => Number(v.dataset.draws || 0));

/** Waits for the panel's next answer after `seen` answers (the view-ready signal) and returns it: { state: 'ready' | 'error', rec, status }. */
async function answer(page, seen = 0) {
  await viewReady(page, 'configurator', seen + 1, 0, 30000);
  return app(page).locator('[data-slot="configurator"]').evaluate((v) => (
    { state: v.dataset.state, rec: v.result?.recommendation ?? null, status: v.querySelector('[data-role="status"]').textContent }));
}

/** The series of the panel's KV-cache chart, once drawn (the nested chart's own signal). */
async function chartSeries(page) {
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="configurator"] .cfg-chart')?.dataset.state === 'ready', null, { timeout: 20000 });
  return app(page).locator('[data-slot="configurator"] .cfg-chart').evaluate((c) => c.result.series.map((x) => x.id));
}

/**
 * Scrolls a section into view and waits until it is rendered (content-visibility: auto skips
 * offscreen ones). Sections above it that render for the first time replace their estimated
 * height (contain-intrinsic-size) with their real one and move it, so scroll again until it stays.
 */
async function reveal(page, locator) {
  for (let tries = 0; tries < 10; tries++) {
    await locator.scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const box = await locator.boundingBox();
    if (box && box.y < page.viewportSize().height && box.y + box.height > 0) return;
  }
  assert.fail('the section did not stay in view');
}

/** As answer(), but fails with the panel's message unless there is a recommendation. */
async function recommendation(page, seen = 0) {
  const a = await answer(page, seen);
  assert.equal(a.state, 'ready', `the configurator gave no recommendation: ${a.status}`);
  return a.rec;
}

/** Does something to the form and returns the recommendation (or answer) that follows. */
async function afterChange(page, action, { ok = true } = {}) {
  const seen = await computed(page);
  await action();
  return ok ? recommendation(page, seen) : answer(page, seen);
}

test('the panel recommends GQA with 8 KV heads for 8B parameters at 8K tokens on a 24 GB GPU', async () => {
  const page = await b.open();
  const rec = await recommendation(page);
  // The lesson's rules: ~8B -> dModel 4096, 32 heads of 128 (the size table); balanced -> GQA-8
  // (Llama 3 8B's choice); 16 GB of bf16 weights + 1 GiB of cache fit 24 GB.
  assert.equal(rec.variant, 'gqa');
  assert.equal(rec.nKvHeads, 8);
  assert.equal(rec.dModel, 4096);
  assert.equal(rec.nHeads % rec.nKvHeads, 0);
  assert.equal(rec.fits, true);
  assert.equal(rec.kvBytesPerTokenPerLayer, 2 * rec.nKvHeads * rec.dHead * 2, '2 * G * dh * 2 bytes (bf16)');
  assert.equal(rec.kvBytesTotal, rec.kvBytesPerTokenPerLayer * rec.nLayers * 8192);

  const section = app(page).locator('section[data-section="configurator"]');
  await reveal(page, section);  // below the fold: not rendered, no innerText
  const panel = app(page).locator('[data-slot="configurator"]');
  assert.equal(await panel.locator('[data-role="variant"]').innerText(), 'GQA');
  assert.match(await panel.locator('[data-role="justification"]').innerText(), /\S/);
  const fit = panel.locator('[data-role="fit"]');
  assert.match(await fit.innerText(), /^✓ Fits\b/);
  assert.match(await fit.getAttribute('class'), /cfg-fit-yes/);
  assert.equal(await panel.locator('.cfg-shape tr[data-key="nKvHeads"] td').innerText(), '8');
  assert.equal(await panel.locator('.cfg-shape tr[data-key="dModel"] td').innerText(), '4,096');
  assert.match(await panel.locator('.cfg-memory').innerText(), /KV cache per token per layer\s+4 KiB/);
  assert.equal(await panel.locator('.cfg-memory span[title="4,096 bytes"]').count(), 1, 'exact bytes on hover');
  const chips = await panel.locator('.cfg-chip').allInnerTexts();
  assert.deepEqual(chips, rec.rules);
  assert.ok(chips.includes('size-table'), `rules: ${chips}`);
  for (const role of ['init', 'bias', 'check']) assert.match(await panel.locator(`[data-role="${role}"]`).innerText(), /\S/);
  assert.match(await panel.locator('[data-role="check"]').innerText(), /induction/i);
  assert.equal(await panel.locator('.cfg-ladder tbody tr').count(), rec.alternatives.length);
  assert.equal(await panel.locator('.cfg-ladder tr[aria-current="true"]').count(), 1, 'the recommended rung is marked');

  // The chart: the four variants at the recommended shape and the three closest real models.
  const series = await chartSeries(page);
  assert.deepEqual(series.slice(0, 4), ['mha', 'mqa', 'gqa', 'mla']);
  assert.equal(series.length, 7, `presets drawn: ${series.slice(4)}`);
  assert.ok(series.includes('llama-3-8b'), 'Llama 3 8B is among the closest real models');
  // The chart's own settings change only the chart, not the shared state or the recommendation.
  const n = await computed(page);
  await panel.locator('.cfg-chart select[name="dtype"]').selectOption('fp32');
  await page.waitForTimeout(300);
  assert.equal(await computed(page), n);
  assert.doesNotMatch(page.url(), /dtype=/);

  await reveal(page, section);
  await section.screenshot({ path: path.join(SHOTS, 'configurator.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('priority, target, budget and size mode update the recommendation and the URL', async () => {
  const page = await b.open(EMBED);
  await recommendation(page);
  const el = app(page);
  const field = (name) => el.locator(`[name="${name}"]`);

  let rec = await afterChange(page, () => field('cfgPriority').selectOption('quality'));
  assert.equal(rec.variant, 'mha', 'quality: every query head keeps its own K/V');
  assert.equal(rec.nKvHeads, rec.nHeads);
  assert.match(page.url(), /cfgPriority=quality/);

  rec = await afterChange(page, () => field('cfgPriority').selectOption('memory'));
  assert.equal(rec.variant, 'mla', 'memory at 8B: MLA');
  assert.deepEqual([rec.latentRank, rec.ropeDim], [512, 64], "DeepSeek's ratios at dHead 128: r = 4 * dHead, dr = dHead / 2");
  assert.equal(await el.locator('.cfg-shape tr[data-key="latentRank"] td').innerText(), String(rec.latentRank));

  await field('cfgPriority').selectOption('balanced');
  rec = await afterChange(page, () => field('cfgTarget').selectOption('phone'));
  assert.equal(rec.fits, false, '16 GB of weights do not fit a 4 GB phone');
  assert.ok(rec.marginBytes < 0);
  const fit = el.locator('[data-role="fit"]');
  assert.match(await fit.innerText(), /^✗ Does not fit\b/);
  assert.match(await fit.getAttribute('class'), /cfg-fit-no/);
  assert.ok(await el.locator('.cfg-warnings li').count() >= 1, 'a warning says why');

  // Custom memory: the GB field appears and is sent as memoryBytes.
  await field('cfgTarget').selectOption('custom');
  await el.locator('[data-field="cfgMemoryGB"]').waitFor({ state: 'visible' });
  rec = await afterChange(page, () => field('cfgMemoryGB').fill('20'));
  assert.equal(rec.memoryBytes, 20e9);
  assert.match(page.url(), /cfgMemoryGB=20/);

  // A 350M budget at 8K tokens: the lesson's Base row, and MHA's cache is cheap.
  await field('cfgTarget').selectOption('gpu-24gb');
  rec = await afterChange(page, () => field('cfgBudget').fill('0.35'));
  assert.equal(rec.dModel, 1024);
  assert.equal(rec.params, 350e6);
  assert.match(page.url(), /cfgBudget=350000000/);

  // Give dModel and layers directly: the fields start from the recommended shape.
  rec = await afterChange(page, () => el.locator('input[name="cfgMode"][value="dims"]').check());
  assert.equal(await field('cfgDModel').inputValue(), '1024');
  assert.ok(rec.rules.includes('direct-shape'), `rules: ${rec.rules}`);
  rec = await afterChange(page, () => field('cfgDModel').fill('2048'));
  assert.equal(rec.dModel, 2048);
  assert.ok(await el.locator('[data-field="cfgBudget"]').isHidden());
  rec = await afterChange(page, () => el.locator('input[name="cfgMode"][value="budget"]').check());
  assert.equal(rec.params, 350e6);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a permalink restores the configurator form', async () => {
  const page = await b.open(`${EMBED}&cfgPriority=memory&cfgTarget=gpu-80gb&cfgDtype=fp8&cfgSeqLen=131072&cfgBudget=70000000000`);
  const rec = await recommendation(page);
  const el = app(page);
  assert.equal(await el.locator('[name="cfgPriority"]').inputValue(), 'memory');
  assert.equal(await el.locator('[name="cfgTarget"]').inputValue(), 'gpu-80gb');
  assert.equal(await el.locator('[name="cfgDtype"]').inputValue(), 'fp8');
  assert.equal(await el.locator('[name="cfgSeqLen"]').inputValue(), '131072');
  assert.equal(await el.locator('[name="cfgBudget"]').inputValue(), '70');
  assert.equal(rec.variant, 'mla');
  assert.equal(rec.kvBytesPerTokenPerLayer, (rec.latentRank + rec.ropeDim) * 1, 'fp8: one byte per cached element');
  await page.close();
});

test('a bad request is explained next to the field it names, and clears when fixed', async () => {
  const page = await b.open(EMBED);
  await recommendation(page);
  const el = app(page);
  const a = await afterChange(page, () => el.locator('[name="cfgBudget"]').fill('0.000001'), { ok: false });  // 1,000 parameters
  assert.equal(a.state, 'error', 'a budget of 1,000 parameters is refused');
  const err = el.locator('[data-field="cfgBudget"] .field-error');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /paramBudget/);
  assert.equal(await el.locator('[name="cfgBudget"]').getAttribute('aria-invalid'), '');
  assert.ok(await el.locator('[data-role="result"]').isHidden(), 'no stale recommendation beside the error');
  assert.equal(await el.locator('[name="cfgBudget"]').inputValue(), '0.000001', 'the value is not silently changed');
  const rec = await afterChange(page, () => el.locator('[name="cfgBudget"]').fill('8'));
  assert.equal(rec.dModel, 4096);
  await err.waitFor({ state: 'hidden' });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('"open in the playground" loads the recommended heads, with dModel and dh scaled so the seeded weights stay small', async () => {
  const page = await b.open();
  await heatmapDrawn(page);
  await recommendation(page);
  const el = app(page);
  const panel = el.locator('[data-slot="configurator"]');
  await reveal(page, panel);
  const drawn = () => draws(page, 'heatmap');
  let n = await drawn();
  await panel.locator('button[data-action="open"]').click();
  await heatmapDrawn(page, n + 1);
  // GQA 32 / 8 keeps its 32 query heads on 8 K/V heads; dModel 4096 -> 128, and dh 128 -> 64, the
  // largest halving at which one block's weights stay within 2^20 (655,360 at dh 64, 1,310,720 at 128).
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelectorAll('.kv-group').length === 8);
  assert.equal(await el.locator('[data-slot="heatmap"] canvas[data-head]').count(), 32);
  assert.equal(await el.locator('select[name="variant"]').inputValue(), 'gqa');
  assert.equal(await el.locator('input[name="nHeads"]').inputValue(), '32');
  assert.equal(await el.locator('input[name="nKvHeads"]').inputValue(), '8');
  assert.equal(await el.locator('input[name="dModel"]').inputValue(), '128');
  assert.equal(await el.locator('input[name="dHead"]').inputValue(), '64');
  assert.match(page.url(), /dModel=128/);
  const said = await panel.locator('[data-role="open-status"]').textContent();
  assert.match(said, /H = 32 query heads, G = 8 K\/V heads, dh = 64, D = 128/);
  assert.match(said, /Scaled so that .*: dModel 4,096 → 128; dh 128 → 64\./);
  assert.doesNotMatch(said, /query heads →/, 'the heads are the model\'s');

  // MLA: the latent and the RoPE key are halved with dh (r = 4 dh and dr = dh / 2 stay the model's).
  await afterChange(page, () => panel.locator('[name="cfgPriority"]').selectOption('memory'));
  n = await drawn();
  await panel.locator('button[data-action="open"]').click();
  await heatmapDrawn(page, n + 1);
  assert.equal(await el.locator('select[name="variant"]').inputValue(), 'mla');
  assert.equal(await el.locator('input[name="dHead"]').inputValue(), '32');
  assert.equal(await el.locator('input[name="latentRank"]').inputValue(), '128');
  assert.equal(await el.locator('input[name="ropeDim"]').inputValue(), '16');
  assert.equal(await el.locator('[data-slot="heatmap"] canvas[data-head]').count(), 32);
  assert.match(await panel.locator('[data-role="open-status"]').textContent(), /latent rank r 512 → 128; RoPE width dr 64 → 16/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('embed.html?view=configurator renders the panel alone and opens the full playground in a new tab', async () => {
  const page = await b.open(EMBED, { viewport: { width: 720, height: 900 } });
  const rec = await recommendation(page);
  assert.equal(rec.variant, 'gqa');
  const el = app(page);
  assert.equal(await el.locator('section[data-section]').count(), 1, 'one view only');
  assert.equal(await el.locator('.controls-panel').count(), 0, 'the shape form is not shown with the configurator');
  await chartSeries(page);
  await shot(page, 'embed-configurator');
  const [tab] = await Promise.all([
    b.context.waitForEvent('page'),
    el.locator('button[data-action="open"]').click(),
  ]);
  await tab.waitForLoadState();
  const url = new URL(tab.url());
  assert.equal(url.pathname, new URL(b.base).pathname, 'the playground beside embed.html');
  assert.equal(url.searchParams.get('dModel'), '128');
  assert.equal(url.searchParams.get('nHeads'), '32');
  assert.equal(url.searchParams.get('view'), null, 'the full playground');
  await heatmapDrawn(tab);
  assert.equal(await app(tab).locator('input[name="nKvHeads"]').inputValue(), '8');
  assert.equal(await app(tab).locator('.kv-group').count(), 8);
  assert.match(await el.locator('[data-role="open-status"]').innerText(), /new tab/);
  assert.deepEqual(page.errors, []);
  await tab.close();
  await page.close();
});

test('the configurator fits a phone-sized viewport', async () => {
  const page = await b.open(EMBED, { viewport: { width: 375, height: 800 } });
  await recommendation(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the configurator scrolls sideways by ${overflow}px on a phone`);
  await shot(page, 'embed-configurator-phone');
  await page.close();
});

/** Clicks a heads-table row's "Load shape" and waits for the maps it loads. */
async function loadShape(page, row) {
  const n = await draws(page, 'heatmap');
  await app(page).locator(`[data-slot="heads-table"] tr[data-row="${row}"] button[data-action="load-shape"]`).click();
  await heatmapDrawn(page, n + 1);
}

test('"Load shape" keeps the row\'s heads: the 350M row loads 16 heads, Llama 3 70B 64 query heads on 8 K/V heads', async () => {
  const page = await b.open('index.html?v=2');
  await heatmapDrawn(page);
  await viewReady(page, 'heads-table');
  const el = app(page);
  const status = el.locator('[data-slot="heads-table"] [data-role="status"]');
  const input = (name) => el.locator(`[name="${name}"]`).first().inputValue();

  await loadShape(page, 'lesson-350000000');  // the lesson's Base row: MHA, 16 heads of 64, dModel 1,024
  assert.equal(await el.locator('[data-slot="heatmap"] canvas[data-head]').count(), 16);
  assert.equal(await el.locator('.kv-group').count(), 16, 'MHA: a K/V head per query head');
  assert.deepEqual([await input('nHeads'), await input('dModel'), await input('dHead')], ['16', '128', '64']);
  assert.match(await status.textContent(), /H = 16 query heads, G = 16 K\/V heads, dh = 64, D = 128\. Scaled so that .*: dModel 1,024 → 128\.$/);

  await loadShape(page, 'llama-3-70b');  // GQA, 64 query heads on 8 K/V heads of 128, dModel 8,192
  assert.equal(await el.locator('[data-slot="heatmap"] canvas[data-head]').count(), 64);
  assert.equal(await el.locator('.kv-group').count(), 8, '8 query heads per K/V head, as in the model');
  assert.equal(await input('variant'), 'gqa');
  assert.deepEqual([await input('nHeads'), await input('nKvHeads'), await input('dModel'), await input('dHead')], ['64', '8', '128', '32']);
  assert.match(await status.textContent(), /Llama 3 70B .*H = 64 query heads, G = 8 K\/V heads, dh = 32.*dModel 8,192 → 128; dh 128 → 32\./);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('after "Load shape", what was scaled is said where the learner lands (the maps)', async () => {
    const page = await b.open('index.html?v=2');
    await heatmapDrawn(page);
    await viewReady(page, 'heads-table');
    await loadShape(page, 'llama-3-70b');
    // the smooth scroll to the maps takes a while on a loaded machine: wait for the note to be on screen
    const onScreen = await page.waitForFunction(() => {
      const root = document.querySelector('attention-playground').shadowRoot;
      return [...root.querySelectorAll('p, div, span')].some((e) => {
        if (e.closest('[data-slot="heads-table"]') || !/dh 128 → 32/.test(e.textContent) || e.children.length) return false;
        const r = e.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight;
      });
    }, null, { timeout: 10000 }).then(() => true, () => false);
    assert.ok(onScreen, 'the note on what was scaled is visible beside the maps the learner lands on');
    await page.close();
  });

test('on a phone, a table wider than the screen says that it scrolls sideways', async () => {
  for (const view of ['params', 'heads-table']) {
    const page = await b.open(`embed.html?view=${view}&v=2`, { viewport: { width: 375, height: 800 } });
    await viewReady(page, view);
    const region = app(page).locator(`[data-slot="${view}"] .scroll-region`).first();
    const scroller = region.locator('.scroll[role="region"]');
    assert.equal(await scroller.getAttribute('tabindex'), '0', `${view}: the keyboard reaches it`);
    assert.ok(await scroller.getAttribute('aria-label'), `${view}: the region is named`);
    await page.waitForFunction((v) => document.querySelector('attention-playground').shadowRoot
      .querySelector(`[data-slot="${v}"] .scroll-region`).dataset.more === 'right', view);
    assert.ok(await region.locator('.scroll-hint').isVisible(), `${view}: the hint shows`);
    const fade = (side) => region.locator('.scroll-frame').evaluate((f, s) => getComputedStyle(f, s).opacity, side);
    await page.waitForTimeout(200);  // the fade's transition
    assert.deepEqual([await fade('::before'), await fade('::after')], ['0', '1'], `${view}: a fade on the right, where the columns are`);
    if (view === 'params') await shot(page, 'params-phone');
    await scroller.evaluate((s) => { s.scrollLeft = s.scrollWidth; });
    await page.waitForFunction((v) => document.querySelector('attention-playground').shadowRoot
      .querySelector(`[data-slot="${v}"] .scroll-region`).dataset.more === 'left', view);
    await page.close();
  }
  const wide = await b.open('embed.html?view=params&v=2');  // 1280 px: the table fits, no cue
  await viewReady(wide, 'params');
  const region = app(wide).locator('[data-slot="params"] .scroll-region');
  assert.equal(await region.getAttribute('data-more'), '');
  assert.ok(await region.locator('.scroll-hint').isHidden());
  await wide.close();
});

test('the parameter table shows the core\'s numbers (paramCount, kvCacheBytes) for every variant', async () => {
  const attn = await (await importLib()).loadAttention();
  const shapes = [
    ['', { dModel: 64, nHeads: 4, nKvHeads: 2, latentRank: 16, ropeDim: 4 }, 2],
    ['variant=gqa&nHeads=8&nKvHeads=2&dHead=16&latentRank=8&ropeDim=0&dtype=fp32', { dModel: 64, nHeads: 8, nKvHeads: 2, dHead: 16, latentRank: 8, ropeDim: 0 }, 4],
  ];
  for (const [query, s, bpe] of shapes) {
    const page = await b.open(`embed.html?view=params&v=2&${query}`);
    await viewReady(page, 'params');
    const shown = await viewResult(page, 'params');
    const expected = ['mha', 'mqa', 'gqa', 'mla'].map((variant) => {
      const spec = { variant, dModel: s.dModel, nHeads: s.nHeads, ...(s.dHead ? { dHead: s.dHead } : {}),
        ...(variant === 'gqa' ? { nKvHeads: s.nKvHeads } : {}), ...(variant === 'mla' ? { latentRank: s.latentRank, ropeDim: s.ropeDim } : {}) };
      const kv = (bytesPerElement) => attn.kvCacheBytes({ ...spec, nLayers: 1, seqLen: 1, batch: 1, bytesPerElement });
      return { variant, params: attn.paramCount(spec).total, elements: kv(1), bytes: kv(bpe) };
    });
    assert.deepEqual(shown, expected, query || 'the defaults');
    await page.close();
  }
});

test('no request left dist/ in the configurator tests', () => {
  assert.deepEqual(b.outside, []);
});
