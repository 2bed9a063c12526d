// Accessibility: axe-core (devDependency) injected into the served page, on index.html and every
// embed view, light and dark, in English and in Hindi (lang=hi): no moderate, serious or critical
// violations (a page without its main landmark, headings that skip a level, an empty table header).
// The view list comes from the registry, so a new view is checked without touching this file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { REPO, startBrowser, viewReady } from './browser.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const VIEW_IDS = [...fs.readFileSync(`${REPO}/web/src/registry.js`, 'utf8').matchAll(/\{ id: '([a-z-]+)'/g)].map((m) => m[1]);

let b;
before(async () => { b = await startBrowser({ copy: { 'models/gpt2': 'tests/fixtures/pretrained/gpt2' } }); });
after(async () => { await b?.close(); });

/** Moderate, serious and critical axe violations on the page, as readable lines. */
const COUNTED = ['moderate', 'serious', 'critical'];
async function violations(page) {
  await page.evaluate(AXE);  // through the DevTools protocol: the page's CSP (no inline scripts) stays on
  const found = await page.evaluate(async (counted) => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => counted.includes(v.impact))
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' > ')}: ${n.failureSummary}`) }));
  }, COUNTED);
  return found.map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.join(' | ')}`);
}

test('the registry lists every view', () => {
  assert.ok(VIEW_IDS.length >= 10, `views found: ${VIEW_IDS}`);
});

for (const [lang, scheme] of [['en', 'light'], ['en', 'dark'], ['hi', 'light'], ['hi', 'dark']]) {
  const query = lang === 'en' ? '' : `lang=${lang}`;
  test(`index.html has no moderate, serious or critical axe violations (${lang}, ${scheme})`, async () => {
    const page = await b.open(query ? `?${query}` : '');
    await page.emulateMedia({ colorScheme: scheme });
    for (const v of ['heatmap', 'compare', 'decode', 'params', 'kv-chart', 'configurator', 'check']) await viewReady(page, v, 1, 0, 30000);
    // Sections below the fold are not laid out (content-visibility: auto), so axe would compute colours
    // of overlapping, unlaid-out boxes: lay every section out first, as scrolling to it would.
    await page.evaluate(() => {
      const style = document.createElement('style');
      style.textContent = '.full .panel[data-section] { content-visibility: visible !important; }';
      document.querySelector('attention-playground').shadowRoot.append(style);
    });
    await page.waitForTimeout(300);
    assert.deepEqual(await violations(page), []);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test(`every embed view has no moderate, serious or critical axe violations (${lang}, ${scheme})`, async () => {
    const problems = [];
    for (const view of VIEW_IDS) {
      const page = await b.open(`embed.html?view=${view}${query ? `&${query}` : ''}`, { viewport: { width: 720, height: 700 } });
      await page.emulateMedia({ colorScheme: scheme });
      await viewReady(page, view, 1, 0, 30000);
      for (const line of await violations(page)) problems.push(`${view}: ${line}`);
      assert.deepEqual(page.errors, [], `${view}: console errors`);
      await page.close();
    }
    assert.deepEqual(problems, []);
  });
}

test('the views that draw an opened checkpoint have no moderate, serious or critical axe violations (light, dark)', async () => {
  const problems = [];
  for (const scheme of ['light', 'dark']) {
    for (const view of ['model', 'heatmap', 'decode', 'heads-table']) {
      const page = await b.open(`embed.html?view=${view}&model=models/gpt2/`, { viewport: { width: 720, height: 700 } });
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForFunction((v) => {
        const r = document.querySelector('attention-playground').shadowRoot.querySelector(`[data-slot="${v}"]`)?.result;
        return v === 'model' ? r?.opened === true : v === 'heatmap' ? r?.source === 'pretrained' : v === 'heads-table' ? Boolean(r?.opened) : r?.length >= 0;
      }, view, { timeout: 30000 });
      await viewReady(page, view, 1, 0, 30000);
      for (const line of await violations(page)) problems.push(`${view} (${scheme}, gpt2 fixture open): ${line}`);
      assert.deepEqual(page.errors, [], `${view}: console errors`);
      await page.close();
    }
  }
  assert.deepEqual(problems, []);
});
