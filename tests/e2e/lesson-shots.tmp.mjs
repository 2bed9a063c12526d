import { startBrowser, viewReady } from './browser.mjs';
const b = await startBrowser();
try {
  for (const [name, rel, vp] of [
    ['wt-mha', 'embed.html?view=walkthrough&step=project', { width: 1000, height: 900 }],
    ['wt-gqa-scores', 'embed.html?view=walkthrough&variant=gqa&nHeads=8&nKvHeads=2&step=scores&v=2', { width: 1000, height: 900 }],
    ['wt-mla-cache', 'embed.html?view=walkthrough&variant=mla&step=cache&v=2', { width: 1000, height: 900 }],
    ['pytorch', 'embed.html?view=pytorch&variant=gqa&nHeads=8&v=2', { width: 1000, height: 900 }],
    ['heads-table', 'embed.html?view=heads-table', { width: 1000, height: 900 }],
    ['wt-phone', 'embed.html?view=walkthrough&step=softmax', { width: 390, height: 800 }],
  ]) {
    const page = await b.open(rel, { viewport: vp });
    const slot = rel.match(/view=([\w-]+)/)[1];
    await viewReady(page, slot);
    await page.waitForTimeout(300);
    if (slot === 'walkthrough') {
      const c = page.locator('attention-playground').locator('canvas').first();
      await c.focus(); await page.keyboard.press('ArrowRight'); await page.keyboard.press('ArrowDown');
    }
    await page.screenshot({ path: `/tmp/shots/${name}.png`, fullPage: true });
    console.log(name, page.errors);
    await page.close();
  }
} finally { await b.close(); }
