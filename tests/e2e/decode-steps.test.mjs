// The decode view keeps what it drew between appends: a step of decoding adds one block to the cache
// strip and redraws the heads' maps of the newest token, it does not build the strip and the maps again
// (which cost a trained model's decode several frames per character: docs/performance.md). Checked by
// node identity: the blocks and the maps' canvases of the first steps are still in the page after
// later steps, and there is one block per cached token; a reset starts a new strip. The words around
// them are kept too (the token list, the facts, the intro, the keys under the maps): a step appends a
// token and rewrites only the words that changed, and what they say is still the cache's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, REPO, app, startBrowser, viewReady } from './browser.mjs';

// The zoo's tokenizer (every zoo folder has the same): a trained model's tokens are its pieces, each shown as its text.
const { loadAttention } = await import(pathToFileURL(path.join(DIST, 'lib', 'attention.mjs')).href);
const zooTokenizer = await (await loadAttention({ simd: true })).loadTokenizer(fs.readFileSync(path.join(REPO, 'web/zoo/mha/tokenizer.json'), 'utf8'));
const pieces = (text) => [...zooTokenizer.encode(text, { addSpecialTokens: true }).ids].map((id) => zooTokenizer.decode([id]).replaceAll(' ', '␣'));

let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

const root = 'document.querySelector("attention-playground").shadowRoot.querySelector(\'[data-slot="decode"]\')';

for (const source of ['', '&source=trained']) {
  test(`decode${source ? ' (a trained model)' : ''}: a step adds one block and keeps the strip and the maps`, async () => {
    const page = await b.open(`embed.html?view=decode${source}&text=${encodeURIComponent('to be or not')}`);
    await viewReady(page, 'decode');
    const dec = app(page).locator('[data-slot="decode"]');
    const step = async (k) => {
      await dec.locator('button[data-action="step"]').click();
      await page.waitForFunction((n) => document.querySelector('attention-playground').shadowRoot
        .querySelector('[data-slot="decode"]')?.result?.length === n, k);
    };
    await step(1);
    await step(2);
    await page.evaluate(`(() => { const v = ${root}; window.kept = { block: v.querySelector('.dec-block'), canvas: v.querySelector('.dec-weights canvas') }; })()`);
    await step(3);
    await step(4);
    const r = await page.evaluate(`(() => { const v = ${root}; return { sameBlock: window.kept.block === v.querySelector('.dec-block'),
      sameCanvas: window.kept.canvas === v.querySelector('.dec-weights canvas'), blocks: v.querySelectorAll('.dec-block').length,
      newest: [...v.querySelectorAll('.dec-block')].map((x) => x.classList.contains('dec-block-newest')) }; })()`);
    assert.equal(r.sameBlock, true, 'the first block is the one drawn before');
    assert.equal(r.sameCanvas, true, 'the first head\'s map is redrawn, not made again');
    assert.equal(r.blocks, 4);
    assert.deepEqual(r.newest, [false, false, false, true], 'only the last block is the newest');
    // the strip is laid out as a full one (8rem tall, each block its share of it), not as the empty strip
    const box = await page.evaluate(`(() => { const v = ${root}; const h = (s) => v.querySelector(s).getBoundingClientRect().height;
      return { strip: h('.dec-strip'), block: h('.dec-block'), empty: v.querySelectorAll('.dec-strip-empty').length }; })()`);
    assert.equal(box.empty, 0, 'the strip\'s empty note leaves with the first block');
    assert.ok(box.strip >= 100 && box.block >= 10, `the strip ${box.strip} px tall, a block ${box.block} px`);
    await dec.locator('button[data-action="reset"]').click();
    await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
      .querySelector('[data-slot="decode"]')?.result?.length === 0);
    assert.deepEqual(await page.evaluate(`[${root}.querySelectorAll('.dec-block').length, ${root}.querySelectorAll('.dec-strip-empty').length]`),
      [0, 1], 'a reset empties the strip, and its empty note is back');
    await step(1);
    assert.equal(await page.evaluate(`${root}.querySelectorAll('.dec-block').length`), 1, 'a reset starts a new strip');
    assert.equal(await page.evaluate(`${root}.querySelectorAll('.dec-strip-empty').length`), 0);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

// What the view says, read from the page: the token list, the facts' figure of the cache now, the keys.
const said = `(() => { const v = ${root}; return {
  tokens: [...v.querySelectorAll('.dec-token')].map((li) => li.textContent),
  titles: [...v.querySelectorAll('.dec-token')].map((li) => li.title),
  newest: [...v.querySelectorAll('.dec-token')].map((li) => li.classList.contains('dec-token-newest')),
  empty: v.querySelectorAll('.dec-token-empty').length,
  now: v.querySelector('.dec-facts dd.dec-total')?.textContent ?? '',
  facts: v.querySelectorAll('.dec-facts dt').length,
  keys: [...v.querySelectorAll('.dec-keys span')].map((s) => s.textContent),
  length: v.result.length }; })()`;

// The lesson's block takes words, a trained model its tokenizer's pieces ('␣be': a piece with its space).
const trained4 = pieces('to be or not').slice(0, 4);
for (const [source, first4, word] of [['', ['to', 'be', 'or', 'not'], ['to', 'ab']], ['&source=trained', trained4, [trained4[0], ...pieces('ab')]]]) {
  test(`decode${source ? ' (a trained model)' : ''}: a step keeps the token list, the facts, the intro and the keys, and they stay right`, async () => {
    const page = await b.open(`embed.html?view=decode${source}&text=${encodeURIComponent('to be or not')}`);
    await viewReady(page, 'decode');
    const dec = app(page).locator('[data-slot="decode"]');
    const settled = (n) => page.waitForFunction((k) => {
      const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="decode"]');
      return v?.result?.length === k && v.dataset.state === 'ready';
    }, n);
    const step = async (k) => {
      await dec.locator('button[data-action="step"]').click();
      await settled(k);
    };
    await step(1);
    await step(2);
    const factsAt2 = (await page.evaluate(said)).facts;
    await page.evaluate(`(() => { const v = ${root}; window.kept = { token: v.querySelector('.dec-token'), dt: v.querySelector('.dec-facts dt'),
      now: v.querySelector('.dec-facts dd.dec-total'), intro: v.querySelector('.dec-intro').firstChild, key: v.querySelector('.dec-keys span') }; })()`);
    await step(3);
    await step(4);
    const kept = await page.evaluate(`(() => { const v = ${root}; return {
      token: window.kept.token === v.querySelector('.dec-token'), dt: window.kept.dt === v.querySelector('.dec-facts dt'),
      now: window.kept.now === v.querySelector('.dec-facts dd.dec-total'), intro: window.kept.intro === v.querySelector('.dec-intro').firstChild,
      key: window.kept.key === v.querySelector('.dec-keys span') }; })()`);
    assert.deepEqual(kept, { token: true, dt: true, now: true, intro: true, key: true }, 'the nodes drawn at step 2 are still in the page at step 4');
    let r = await page.evaluate(said);
    assert.deepEqual(r.tokens, first4);
    assert.deepEqual(r.titles, ['position 0', 'position 1', 'position 2', 'position 3']);
    assert.deepEqual(r.newest, [false, false, false, true], 'only the last token is the newest');
    assert.equal(r.empty, 0);
    assert.equal(r.facts, factsAt2);
    assert.match(r.now, /^4 /, 'the cache now: 4 tokens');
    assert.deepEqual(r.keys, first4, 'one key under the maps per cached token');

    await dec.locator('button[data-action="reset"]').click();
    await settled(0);
    r = await page.evaluate(said);
    assert.deepEqual(r.tokens, [], 'a reset empties the list');
    assert.equal(r.empty, 1, 'and says how to fill it');
    assert.match(r.now, /^0 /);
    await step(1);
    r = await page.evaluate(said);
    assert.deepEqual([r.tokens, r.newest, r.keys], [first4.slice(0, 1), [true], first4.slice(0, 1)], 'a new session starts a new list');
    assert.equal(r.empty, 0);
    assert.match(r.now, /^1 /);

    await dec.locator('input[name="word"]').fill('ab');
    await dec.locator('button[data-action="word"]').click();
    await settled(word.length);
    r = await page.evaluate(said);
    assert.deepEqual(r.tokens, word, 'a word appends its tokens');
    assert.deepEqual(r.newest, word.map((_, i) => i === word.length - 1));
    assert.deepEqual(r.keys, r.tokens);
    assert.match(r.now, new RegExp(`^${r.length} `));
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

// The heads' strips of the newest token gain a column per step. Their canvases are kept, and so are their
// bitmaps: a canvas's width set anew reallocates and clears its bitmap and lays the page out again, which
// cost a trained model's decode a good part of its frame (docs/performance.md), so the bitmaps grow
// several columns at a time (render/heatmap.js growBy) and show only the cached tokens' columns. What a
// strip shows must still be the newest token's weights, in cells of the same size as before: each of the
// first head's drawn columns is as bright as its weight (read from the read-out, cell by cell with the
// keyboard) says (viridis grows brighter with the weight), and the canvas's box is one cell per token.
const strips = `(() => { const v = ${root}; return [...v.querySelectorAll('.dec-weights canvas')].map((c) => {
  const r = c.getBoundingClientRect(), px = c.getContext('2d').getImageData(0, 0, v.result.length, 1).data;
  return { width: c.width, boxWidth: r.width, boxHeight: r.height, plotWidth: c.parentNode.getBoundingClientRect().width,
    light: Array.from({ length: v.result.length }, (_, j) => 0.2126 * px[4 * j] + 0.7152 * px[4 * j + 1] + 0.0722 * px[4 * j + 2]),
    opaque: Array.from({ length: v.result.length }, (_, j) => px[4 * j + 3]).every((a) => a === 255) }; }); })()`;

for (const source of ['', '&source=trained']) {
  test(`decode${source ? ' (a trained model)' : ''}: a step redraws the heads' strips without resizing their canvases`, async () => {
    const page = await b.open(`embed.html?view=decode${source}&text=${encodeURIComponent('to be or not to be')}`);
    await viewReady(page, 'decode');
    const dec = app(page).locator('[data-slot="decode"]');
    const step = async (k) => {
      await dec.locator('button[data-action="step"]').click();
      await page.waitForFunction((n) => {
        const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="decode"]');
        return v?.result?.length === n && v.dataset.state === 'ready';
      }, k);
    };
    await step(1);
    await page.evaluate(`window.keptCanvases = [...${root}.querySelectorAll('.dec-weights canvas')]`);
    const widths = [];
    for (let k = 2; k <= 6; k++) {
      await step(k);
      const now = await page.evaluate(strips);
      assert.equal(await page.evaluate(`window.keptCanvases.every((c, h) => c === [...${root}.querySelectorAll('.dec-weights canvas')][h])`),
        true, `step ${k}: the heads' canvases are the ones drawn at step 1`);
      widths.push(now.map((s) => s.width));
      for (const s of now) {
        assert.ok(s.width >= k, `step ${k}: a bitmap of ${s.width} columns holds the ${k} cached tokens`);
        assert.equal(s.opaque, true, `step ${k}: every cached token's column is drawn`);
        assert.ok(Math.abs(s.boxWidth - s.plotWidth) < 1, `step ${k}: the strip spans its plot (${s.boxWidth} of ${s.plotWidth} px)`);
        assert.ok(Math.abs(s.boxHeight - s.boxWidth / k) < 1, `step ${k}: square cells, one per token (${s.boxWidth} × ${s.boxHeight} px)`);
      }
    }
    assert.deepEqual(widths.slice(1), widths.slice(0, -1), 'the bitmaps keep their width from step to step');

    // the first head's cells, read out with the keyboard: the newest token's weights over the 6 cached tokens
    const canvas = dec.locator('.dec-weights canvas').first();
    await canvas.focus();
    await canvas.press('Home');
    const weights = [];
    for (let j = 0; j < 6; j++) {
      if (j) await canvas.press('ArrowRight');
      const text = await dec.locator('[data-role="readout"]').textContent();
      weights.push(Number(text.match(/= ([\d.]+)/)[1]));
    }
    assert.ok(Math.abs(weights.reduce((a, w) => a + w, 0) - 1) < 0.01, `the newest token's weights sum to 1 (${weights})`);
    const { light } = (await page.evaluate(strips))[0];
    for (let i = 0; i < 6; i++) {
      for (let j = 0; j < 6; j++) {
        if (weights[i] > weights[j] + 0.02) assert.ok(light[i] > light[j], `column ${i} (${weights[i]}) is brighter than ${j} (${weights[j]}): ${light}`);
      }
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
