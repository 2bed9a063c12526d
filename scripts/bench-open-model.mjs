// node scripts/bench-open-model.mjs: the time to open each fixture through the folder picker of embed.html?view=model (sources/pretrained.js
// openCheckpoint: files read, the checkpoint loaded in the worker; the first open also loads the module).
import path from 'node:path';
import { REPO, app, startBrowser, viewReady } from '../tests/e2e/browser.mjs';
const b = await startBrowser();
const page = await b.open('embed.html?view=model');
await viewReady(page, 'model');
const el = app(page);
const times = {};  // fixture -> ms of each round
for (const round of [0, 1, 2]) {
  for (const name of ['gpt2', 'qwen2', 'llama3', 'deepseek_v2']) {
    await el.locator('[data-role="pick-folder"]').setInputFiles(path.join(REPO, 'tests/fixtures/pretrained', name));
    const ms = await page.waitForFunction((n) => {
      const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="model"]');
      const facts = v.querySelector('[data-role="model-facts"]')?.innerText ?? '';
      return v.result?.opened && facts.includes(n) ? facts.match(/in ([\d.]+) s/)[1] : false;
    }, name, { timeout: 30000 }).then((h) => h.jsonValue());
    times[name] = [...(times[name] ?? []), Math.round(Number(ms) * 1000)];
    await el.locator('[data-action="close-model"]').first().click();
    await page.waitForTimeout(200);
  }
}
await b.close();
console.log('| fixture | open ms, rounds 1-3 |\n|---|--:|');
for (const [name, ms] of Object.entries(times)) console.log(`| ${name} | ${ms.join(', ')} |`);
