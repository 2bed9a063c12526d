// The render layer (web/src/render/): every map view draws through the one heatmap component, with
// tokens on its axes, the same keyboard cursor and read-out, and "Save figure" as PNG and SVG named
// after what the map shows. Views take their tensors from a source: the maps of the heatmap view are
// those the core computes for the same spec in Node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { DIST, REPO, app, startBrowser, viewReady, viewResult } from './browser.mjs';
import { CATALOGS } from '../node/i18n-kit.mjs';

const { loadAttention } = await import(pathToFileURL(path.join(DIST, 'lib', 'attention.mjs')).href);
const { embed, tokenize } = await import(pathToFileURL(path.join(REPO, 'web/src/tokens.js')).href);

let b, attn;
before(async () => { b = await startBrowser(); attn = await loadAttention({ simd: true, training: false }); });
after(async () => { await b?.close(); });

test('every map view draws through the one heatmap component, with the keyboard cursor and a read-out', async () => {
  for (const [view, query] of [['heatmap', ''], ['compare', ''], ['decode', ''], ['walkthrough', '&step=softmax']]) {
    const page = await b.open(`embed.html?view=${view}&variant=gqa&nHeads=4&nKvHeads=2&v=2${query}`);
    await viewReady(page, view);
    const slot = app(page).locator(`[data-slot="${view}"]`);
    if (view === 'decode') {
      const d = Number(await slot.getAttribute('data-draws'));
      await slot.locator('button[data-action="all"]').click();
      await viewReady(page, view, d + 1);
    }
    assert.ok(await slot.locator('figure.hm canvas.hm-canvas').count() >= 4, `${view}: maps drawn by render/heatmap.js`);
    assert.equal(await slot.locator('canvas:not(.hm-canvas)').count(), 0, `${view}: no canvas drawn another way`);
    const canvas = slot.locator('canvas.hm-canvas').first();
    await canvas.focus();
    await page.keyboard.press('ArrowRight');
    const text = await slot.locator('[data-role="readout"]').innerText();
    assert.match(text, view === 'walkthrough' ? /P_0\[0, 1\] = 0: masked/ : /“|"/, `${view}: the read-out names what the cursor is on`);
    assert.equal(await slot.locator('[data-role="readout"]').getAttribute('aria-live'), 'polite', `${view}: announced`);
    assert.deepEqual(page.errors, [], `${view}: no console errors`);
    await page.close();
  }
});

test('the heatmap view draws the core\'s maps for the same spec, with tokens on both axes', async () => {
  const page = await b.open('embed.html?view=heatmap&variant=gqa&nHeads=8&nKvHeads=2&v=2');
  await viewReady(page, 'heatmap');
  const el = app(page);
  const tokens = tokenize('the cat sat on the mat');
  const x = embed(tokens, 64, { seed: 0, positions: true });
  const want = attn.forward({ variant: 'gqa', seqLen: 6, dModel: 64, nHeads: 8, nKvHeads: 2, causal: true, returnWeights: true, x });
  assert.deepEqual(want.shape.kvHeadOf, [0, 0, 0, 0, 1, 1, 1, 1], 'the core says which K/V head each query head reads');
  assert.equal(await el.locator('.kv-group').count(), 2, 'one box per K/V head, from shape.kvHeadOf');
  assert.deepEqual(await el.locator('.kv-group').first().locator('canvas').evaluateAll((cs) => cs.map((c) => c.dataset.head)), ['0', '1', '2', '3']);
  // The pixels of head 5's map are the core's weights on viridis: compare one cell's colour band.
  const cells = await page.evaluate(() => {
    const c = document.querySelector('attention-playground').shadowRoot.querySelector('canvas[data-head="5"]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    return { w: c.width, h: c.height, first: [...d.slice(0, 3)], masked: [...d.slice(4, 7)] };
  });
  assert.deepEqual([cells.w, cells.h], [6, 6], 'one canvas pixel per cell');
  assert.notDeepEqual(cells.first, cells.masked, 'the masked cell is painted differently from a weight');
  const rows = await el.locator('canvas[data-head="5"]').locator('xpath=ancestor::figure[1]').locator('.hm-rows span').allInnerTexts();
  const cols = await el.locator('canvas[data-head="5"]').locator('xpath=ancestor::figure[1]').locator('.hm-cols span').allInnerTexts();
  assert.deepEqual(rows, tokens, 'queries labelled');
  assert.deepEqual(cols, tokens, 'keys labelled');
  assert.equal((await viewResult(page, 'heatmap')).source, 'seeded');
  await page.close();
});

test('"Save figure" writes a PNG and an SVG named after the variant, layer and head', async () => {
  const page = await b.open('embed.html?view=heatmap&variant=gqa&nHeads=4&nKvHeads=2&v=2');
  await viewReady(page, 'heatmap');
  const el = app(page);
  const figure = el.locator('canvas[data-head="3"]').locator('xpath=ancestor::figure[1]');
  const saved = {};
  for (const format of ['png', 'svg']) {
    await figure.locator('.save-figure summary').click();
    const [download] = await Promise.all([page.waitForEvent('download'), figure.locator(`button[data-save="${format}"]`).click()]);
    const file = path.join(fs.mkdtempSync(path.join(REPO, 'test-results', 'save-')), download.suggestedFilename());
    await download.saveAs(file);
    saved[format] = { name: download.suggestedFilename(), bytes: fs.readFileSync(file) };
  }
  assert.equal(saved.png.name, 'attention-gqa-layer0-head3.png');
  assert.equal(saved.svg.name, 'attention-gqa-layer0-head3.svg');
  assert.deepEqual([...saved.png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG file');
  const svg = saved.svg.bytes.toString('utf8');
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.equal((svg.match(/<rect x=/g) ?? []).length, 36 + 1, 'a rectangle per cell (6 × 6) and the legend bar');
  for (const t of ['the', 'cat', 'sat', 'mat']) assert.match(svg, new RegExp(`>${t}</text>`), `token ${t} on an axis`);
  assert.match(svg, /head 3 → K\/V 1/, 'the title says which K/V head it reads');
  // The whole view at once: every head in one figure.
  await el.locator('.view-tools .save-figure summary').click();
  const [all] = await Promise.all([page.waitForEvent('download'), el.locator('.view-tools button[data-save="svg"]').click()]);
  assert.equal(all.suggestedFilename(), 'attention-gqa-layer0-all-heads.svg');
  await page.close();
});

/** What the heatmap embed transfers until its first map: { total (bytes gzip -9), names, hindi (a file holds the Hindi catalog) }. */
async function firstMap(query) {
  const files = new Map();
  const hindi = Buffer.from(CATALOGS.hi['shell.tagline']);
  let hasHindi = false;
  const page = await b.context.newPage();
  page.on('response', async (res) => {
    const body = await res.body().catch(() => null);
    if (!body) return;
    files.set(new URL(res.url()).pathname, zlib.gzipSync(body, { level: 9 }).length);
    hasHindi ||= body.includes(hindi);
  });
  await page.goto(`${b.base}embed.html?view=heatmap${query}`);
  await viewReady(page, 'heatmap');
  await page.waitForLoadState('networkidle');
  await page.close();
  return { total: [...files.values()].reduce((s, n) => s + n, 0), names: [...files.keys()].map((p) => path.basename(p)), hindi: hasHindi };
}

test('the heatmap embed\'s first map transfers at most 120 KB gzip, without the training module, the figure export or the Hindi catalog', async (t) => {
  const { total, names, hindi } = await firstMap('');
  // the SIMD build, or the FMA one where the engine has relaxed SIMD (attention.mjs picks it)
  assert.ok(names.some((n) => /^attention-(simd|fma)-.*\.wasm$/.test(n)), `the SIMD or FMA core is among ${names.join(', ')}`);
  assert.ok(!names.some((n) => /train|export-/.test(n)), `neither the training module nor export.js: ${names.join(', ')}`);
  assert.equal(hindi, false, `the English page fetched the Hindi catalog: ${names.join(', ')}`);
  t.diagnostic(`first map: ${total} bytes gzip (${(total / 1024).toFixed(1)} KB) in ${names.length} files`);
  assert.ok(total <= 120 * 1024, `first map: ${(total / 1024).toFixed(1)} KB gzip in ${names.length} files (${names.join(', ')}), budget 120 KB`);
  // In Hindi the catalog comes too (fetched once the language is known): measured, and it must arrive.
  const hi = await firstMap('&lang=hi');
  assert.equal(hi.hindi, true, `lang=hi: no file held the Hindi catalog (${hi.names.join(', ')})`);
  t.diagnostic(`first map with lang=hi: ${hi.total} bytes gzip (${(hi.total / 1024).toFixed(1)} KB) in ${hi.names.length} files`);
});
