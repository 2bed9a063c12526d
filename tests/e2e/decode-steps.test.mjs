// The decode view keeps what it drew between appends: a step of decoding adds one block to the cache
// strip and redraws the heads' maps of the newest token, it does not build the strip and the maps again
// (which cost a trained model's decode several frames per character: docs/performance.md). Checked by
// node identity: the blocks and the maps' canvases of the first steps are still in the page after
// later steps, and there is one block per cached token; a reset starts a new strip.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { app, startBrowser, viewReady } from './browser.mjs';

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
    await dec.locator('button[data-action="reset"]').click();
    await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
      .querySelector('[data-slot="decode"]')?.result?.length === 0);
    await step(1);
    assert.equal(await page.evaluate(`${root}.querySelectorAll('.dec-block').length`), 1, 'a reset starts a new strip');
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
