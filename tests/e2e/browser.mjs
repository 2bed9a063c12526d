// browser.mjs — shared set-up of the browser tests: dist/ copied under a sub-path of a temporary
// root, served with the strict CSP, Debian's Chromium through playwright-core (launched as
// scripts/chromium.mjs says), every request that leaves the folder recorded and refused, console
// errors collected per page.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumOptions } from '../../scripts/chromium.mjs';
import { cspWith, startServer } from '../../scripts/serve.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = path.join(REPO, 'dist');
export const SHOTS = path.join(REPO, 'test-results/e2e');
const SUBPATH = '/courses/attention/playground/';

/**
 * @param {{ copy?: Record<string, string>, allow?: string[] }} [options] copy: more folders of the repo served beside
 *   the page ({ 'models/gpt2': 'tests/fixtures/pretrained/gpt2' }); allow: origins the page may fetch from (a test
 *   Hub: tests/e2e/hub-server.mjs), added to the CSP's connect-src and let through (every other request is refused)
 */
export async function startBrowser({ copy = {}, allow = [] } = {}) {
  assert.ok(fs.existsSync(path.join(DIST, 'index.html')), 'dist/ is missing: run npm run build first');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-e2e-'));
  const site = path.join(root, SUBPATH);
  fs.cpSync(DIST, site, { recursive: true });
  fs.cpSync(path.join(REPO, 'tests/e2e/pages'), path.join(site, 'test-pages'), { recursive: true });
  for (const [to, from] of Object.entries(copy)) fs.cpSync(path.join(REPO, from), path.join(site, to), { recursive: true });
  const server = await startServer({ root, port: 0, csp: allow.length ? cspWith(allow) : true });
  const base = `${server.url.replace(/\/$/, '')}${SUBPATH}`;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-chromium-'));
  const context = await chromium.launchPersistentContext(profile, chromiumOptions());
  const outside = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('blob:') || url.startsWith('data:') || allow.some((o) => url.startsWith(`${o}/`))) return route.continue();
    outside.push(url);
    return route.abort();
  });
  fs.mkdirSync(SHOTS, { recursive: true });

  /**
   * Opens a page of dist/ (path relative to it); `errors` collects console errors and page errors.
   * `init`: a function run in the page before its scripts (page.addInitScript), with `initArg`, or a
   * list of such functions (each with `initArg`).
   */
  async function open(rel = '', { viewport = { width: 1280, height: 900 }, init = null, initArg } = {}) {
    const page = await context.newPage();
    await page.setViewportSize(viewport);
    for (const f of [init ?? []].flat()) await page.addInitScript(f, initArg);
    page.errors = [];
    page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
    page.on('pageerror', (e) => page.errors.push(String(e)));
    await page.goto(base + rel);
    return page;
  }
  async function close() {
    await context.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { base, open, close, outside, context };
}

/**
 * An init script (open's `init`): every call the page posts to a worker is noted in window.corePosts as
 * { method, at (Date.now()), weights: 'stream' | 'blob' | null } (what the call's weights list starts with).
 */
export function recordCorePosts() {
  const post = Worker.prototype.postMessage;
  window.corePosts = [];
  Worker.prototype.postMessage = function (m, ...rest) {
    const w = m?.args?.[1]?.weights?.[0];
    if (m?.method) window.corePosts.push({ method: m.method, at: Date.now(), weights: w?.stream instanceof ReadableStream ? 'stream' : w instanceof Blob ? 'blob' : null });
    return post.call(this, m, ...rest);
  };
}
/** What the page posted to its workers for a method (recordCorePosts): the first such call. */
export const corePost = (page, method) => page.evaluate((m) => window.corePosts.find((p) => p.method === m), method);

/** The first <attention-playground>'s shadow root, via a locator. */
export const app = (page, n = 0) => page.locator('attention-playground').nth(n);

/**
 * The one "view finished drawing" signal (web/src/kit.js setViewState): each view root
 * ([data-slot="<id>"]) has data-state="busy|ready|error" and data-draws counting finished draws.
 * Waits until view `slot` of element n has finished `atLeast` draws and is not busy.
 */
export async function viewReady(page, slot, atLeast = 1, n = 0, timeout = 20000) {
  await page.waitForFunction(([s, k, m]) => {
    const v = document.querySelectorAll('attention-playground')[m]?.shadowRoot?.querySelector(`[data-slot="${s}"]`);
    return v && Number(v.dataset.draws || 0) >= k && v.dataset.state !== 'busy';
  }, [slot, atLeast, n], { timeout });
}

/** How many draws view `slot` of element n has finished (data-draws). */
export const draws = (page, slot, n = 0) => page.evaluate(([s, m]) => Number(document.querySelectorAll('attention-playground')[m]
  .shadowRoot.querySelector(`[data-slot="${s}"]`)?.dataset.draws || 0), [slot, n]);

/** What view `slot` last drew (root.result, also the view-ready event's detail.result). */
export const viewResult = (page, slot, n = 0) => page.evaluate(([s, m]) => document.querySelectorAll('attention-playground')[m]
  .shadowRoot.querySelector(`[data-slot="${s}"]`)?.result ?? null, [slot, n]);

/** The view's state attribute: 'busy' | 'ready' | 'error' | null. */
export const viewState = (page, slot, n = 0) => page.evaluate(([s, m]) => document.querySelectorAll('attention-playground')[m]
  .shadowRoot.querySelector(`[data-slot="${s}"]`)?.dataset.state ?? null, [slot, n]);

/** Waits until a lab's result (the signal's result) has one of the `wanted` statuses, e.g. ['done']. */
export const labStatus = (page, slot, wanted, timeout = 30000, n = 0) => page.waitForFunction(([s, w, m]) => {
  const v = document.querySelectorAll('attention-playground')[m]?.shadowRoot?.querySelector(`[data-slot="${s}"]`);
  return v && w.includes(v.result?.status);
}, [slot, wanted, n], { timeout });

/**
 * After a lab's "Open in the model view": waits until the model view has opened the model and drawn,
 * then returns its facts' text (scrolled into view first: off screen, a section's text is not laid out
 * under content-visibility: auto, so its innerText is empty).
 */
export async function openedModelFacts(page) {
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="model"]')?.result?.opened === true, null, { timeout: 30000 });
  await viewReady(page, 'model');
  const facts = app(page).locator('[data-role="model-facts"]');
  await facts.scrollIntoViewIfNeeded();
  return facts.innerText();
}

/** Waits until the heatmap view of element n has drawn `atLeast` times. */
export const heatmapDrawn = (page, atLeast = 1, n = 0) => viewReady(page, 'heatmap', atLeast, n);

export const shot = (page, name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

/**
 * dist/standalone.html copied alone into a temporary folder and opened from file://, as a teacher who
 * copies one file would, in a Chromium context of its own (startBrowser's context serves http only).
 * `open(query)` returns a page with `errors` (console and page errors) and `outside()` (the requests
 * that left the file: none is expected). `close()` ends the context and removes the folder.
 */
export async function startStandalone() {
  assert.ok(fs.existsSync(path.join(DIST, 'standalone.html')), 'dist/standalone.html is missing: run npm run build');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-standalone-'));
  fs.copyFileSync(path.join(DIST, 'standalone.html'), path.join(dir, 'standalone.html'));
  const context = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), 'attn-chromium-')), chromiumOptions());
  const file = `file://${path.join(dir, 'standalone.html')}`;
  async function open(query = '') {
    const page = await context.newPage();
    const requests = [];
    page.errors = [];
    page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
    page.on('pageerror', (e) => page.errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    page.outside = () => requests.filter((u) => !u.startsWith(file) && !u.startsWith('blob:') && !u.startsWith('data:'));
    await page.goto(file + query);
    return page;
  }
  async function close() {
    await context.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { file, open, close };
}
