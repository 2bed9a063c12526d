#!/usr/bin/env node
// npm run screenshots: every view of dist/ in Debian's Chromium, as a learner sees it, written to
// test-results/shots/<view>-<desktop|phone>-<light|dark>.png (served the way the browser tests serve it:
// a sub-path, the strict CSP, nothing fetched from outside). Look at them after changing the page.
//   node scripts/screenshots.mjs [view ...] [--query 'variant=gqa&nHeads=8'] [--lang hi] [--model gpt2]
// --model <name>: the tiny checkpoint tests/fixtures/pretrained/<name> served beside the page and opened
// with ?model= (the views that draw it wait for it).
import fs from 'node:fs';
import path from 'node:path';
import { REPO, startBrowser, viewReady } from '../tests/e2e/browser.mjs';

const args = process.argv.slice(2);
const option = (name) => {
  const k = args.indexOf(name);
  return k >= 0 ? args.splice(k, 2)[1] : '';
};
const query = option('--query');
const lang = option('--lang');
const model = option('--model');
const VIEWS = [...fs.readFileSync(path.join(REPO, 'web/src/registry.js'), 'utf8').matchAll(/\{ id: '([a-z-]+)'/g)].map((m) => m[1]);
const views = args.length ? args : ['all', ...VIEWS];
const OUT = path.join(REPO, 'test-results/shots');
fs.mkdirSync(OUT, { recursive: true });

const b = await startBrowser(model ? { copy: { [`models/${model}`]: `tests/fixtures/pretrained/${model}` } } : {});
/** Until the view draws the opened checkpoint (sources/pretrained.js), where it is one of the views that do. */
const modelDrawn = (page, view) => page.waitForFunction((v) => {
  const r = document.querySelector('attention-playground').shadowRoot.querySelector(`[data-slot="${v}"]`)?.result;
  return v === 'model' ? r?.opened === true : v === 'heatmap' ? r?.source === 'pretrained' : true;
}, view, { timeout: 30000 });
try {
  for (const view of views) {
    for (const [device, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 375, height: 800 }]]) {
      for (const scheme of ['light', 'dark']) {
        const params = new URLSearchParams(query);
        if (lang) params.set('lang', lang);
        if (model) params.set('model', `models/${model}/`);
        const rel = view === 'all' ? `?${params}` : `embed.html?view=${view}&${params}`;
        const page = await b.open(rel, { viewport });
        await page.emulateMedia({ colorScheme: scheme });
        await viewReady(page, view === 'all' ? 'heatmap' : view, 1, 0, 30000);
        if (model) {
          await modelDrawn(page, view === 'all' ? 'model' : view);
          await viewReady(page, view === 'all' ? 'model' : view, 1, 0, 30000);
        }
        await page.waitForTimeout(300);
        const file = path.join(OUT, `${view}-${device}-${scheme}${lang ? `-${lang}` : ''}${model ? `-${model}` : ''}.png`);
        await page.screenshot({ path: file, fullPage: true });
        if (page.errors.length) console.log(`${view} ${device} ${scheme}: console errors:`, page.errors);
        console.log(path.relative(REPO, file));
        await page.close();
      }
    }
  }
} finally {
  await b.close();
}
