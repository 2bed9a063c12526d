// Browser test of the core-check page (dist/index.html) in Debian's Chromium, driven by
// playwright-core: dist/ served from a sub-path under the strict Content-Security-Policy, every
// request outside that folder refused. The page must load the SIMD build in a module Web Worker,
// run a forward pass and draw it, with no console errors; the library must also work on the main
// thread (both builds) with the same numbers. Screenshots go to test-results/e2e/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(REPO, 'dist');
const SHOTS = path.join(REPO, 'test-results/e2e');
const SUBPATH = '/courses/attention/playground/';

let server, context, base;
const outside = [];        // requests that left dist/
const consoleErrors = [];

before(async () => {
  assert.ok(fs.existsSync(path.join(DIST, 'lib/attention.mjs')), 'dist/ is missing: run npm run build first');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-e2e-'));
  fs.cpSync(DIST, path.join(root, SUBPATH), { recursive: true });
  server = await startServer({ root, port: 0, csp: true });
  base = `${server.url.replace(/\/$/, '')}${SUBPATH}`;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // Only dist/ may be fetched: anything else is recorded and refused.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    outside.push(url);
    return route.abort();
  });
  fs.mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await context?.close();
  await server?.close();
});

async function openPage(viewport) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(base);
  return page;
}

test('the core-check page runs a forward pass in a Web Worker and draws it', async () => {
  const page = await openPage({ width: 1200, height: 900 });
  const run = page.locator('#run');
  await run.waitFor({ state: 'visible' });
  await page.waitForFunction(() => !document.querySelector('#run').disabled, null, { timeout: 20000 });
  assert.match(await page.locator('#build').innerText(), /SIMD/i);
  await run.click();
  await page.locator('#results').waitFor({ state: 'visible', timeout: 20000 });
  const headTables = await page.locator('#weights table').count();
  assert.equal(headTables, 4, 'one table of attention weights per query head');
  const outputCells = await page.locator('#output td').count();
  assert.equal(outputCells, 6 * 16, 'the 6 x 16 output is shown');
  await page.screenshot({ path: path.join(SHOTS, 'core-check-desktop.png'), fullPage: true });
  assert.deepEqual(consoleErrors, [], 'no console errors');
  assert.deepEqual(outside, [], 'no request outside dist/');
  await page.close();
});

test('the library works on the main thread too, both builds giving the same numbers', async () => {
  const page = await openPage();
  const result = await page.evaluate(async () => {
    const { loadAttention } = await import('./lib/attention.mjs');
    const simd = await loadAttention();
    const scalar = await loadAttention({ simd: false });
    const x = new Float32Array(9 * 32).map((_, i) => Math.sin(i));
    const spec = { variant: 'mla', seqLen: 9, dModel: 32, nHeads: 4, dHead: 8, latentRank: 12, ropeDim: 4, causal: true, x };
    const a = simd.forward(spec).output, b = scalar.forward(spec).output;
    let maxDiff = 0;
    for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
    let error = '';
    try { simd.forward({ ...spec, latentRank: -3 }); } catch (e) { error = `${e.name}: ${e.message}`; }
    return { builds: [simd.info.build, scalar.info.build], maxDiff, finite: a.every(Number.isFinite), error,
      after: simd.forward(spec).output[3] === a[3] };
  });
  assert.deepEqual(result.builds, ['simd', 'scalar']);
  assert.ok(result.finite);
  assert.ok(result.maxDiff <= 1e-6, `SIMD and scalar builds differ by ${result.maxDiff}`);
  assert.match(result.error, /RangeError: .*latentRank \(-3\)/);
  assert.ok(result.after, 'the module keeps working after an error');
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(outside, []);
  await page.close();
});

test('a phone-sized viewport renders the page', async () => {
  const page = await openPage({ width: 375, height: 740 });
  await page.waitForFunction(() => !document.querySelector('#run').disabled, null, { timeout: 20000 });
  await page.locator('#run').click();
  await page.locator('#results').waitFor({ state: 'visible', timeout: 20000 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px on a phone`);
  await page.screenshot({ path: path.join(SHOTS, 'core-check-phone.png'), fullPage: true });
  assert.deepEqual(consoleErrors, []);
  await page.close();
});
