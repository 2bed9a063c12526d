#!/usr/bin/env node
// npm run bench:page — what a learner waits for, measured in headless Chromium (Debian's, through
// playwright-core) on dist/ served locally:
//   1. navigation to the first view drawn (the section at the top) and to the first heatmap drawn,
//      on embed.html?view=heatmap and on index.html, median of BENCH_LOADS (5) loads each:
//      - cold cache: a new context (empty HTTP and code caches, a new renderer process) in a running
//        browser, as a learner with the browser open who visits the page for the first time;
//      - cold cache, stock new window: the same in a second running browser with Chromium's default
//        features. A new context opens a new window, and Chromium 15x starts the window's omnibox
//        popup (a WebUI renderer of its own) during the page's load, which delays the first map by
//        ~130-180 ms on these 2-core machines; a learner's open window has paid that long before.
//        So the browser of the other loads runs with those window features off
//        (scripts/chromium.mjs); this row keeps the stock cost visible (docs/performance.md);
//      - cold browser: the first navigation of a new browser profile (the browser's own start-up
//        work competes with the page's);
//      - warm: a reload of the cold-cache load (files revalidated from the HTTP cache);
//   2. bytes each page transfers, gzip -9 per file as a static host would serve them, by kind, and
//      whether the lab's training module was fetched (it should not be, before a lab asks for it),
//   3. the redraw when a control changes (seed) at N = 64 tokens: from the input event to the
//      maps drawn again (median of 15), measured in the page;
//   4. interaction at the default shape on the full page (every view live): control change (variant,
//      RoPE, seed) -> the walkthrough (the first section) and, separately, the heatmap drawn and
//      painted, median and p95 over 20 changes each; typing in the sentence (keys 40 ms apart) ->
//      maps of the final text painted, measured from the LAST key.
// "Drawn" is a view's finished-drawing signal (data-draws, web/src/kit.js); the page marks the first
// ones (performance marks attention-playground:first-view / :first-heatmap).
// How the loads are timed, so that the harness does not slow what it measures: the server runs in
// a process of its own (in this one it answers late while Playwright's traffic is handled), and the
// page reports its marks through a PerformanceObserver installed before it loads, read from the
// console (waitForFunction would inject Playwright's script into the page while it loads).
// Run `npm run build` first. BENCH_DIST=<folder> measures another build (e.g. a checkout of main).
// BENCH_ONLY=load: only 1 and 2; BENCH_ONLY=interaction: only 3 and 4.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumOptions } from './chromium.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.BENCH_DIST ? path.resolve(process.env.BENCH_DIST) : path.join(REPO, 'dist');
const ONLY_INTERACTION = process.env.BENCH_ONLY === 'interaction';
const ONLY_LOAD = process.env.BENCH_ONLY === 'load';  // the cold/warm loads and transfer only
const LAUNCH = chromiumOptions();                          // window UI off (chromium.mjs)
const STOCK_LAUNCH = chromiumOptions({ stockWindow: true });  // Chromium's defaults
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const kindOf = (url) => (/\.wasm$/.test(url) ? 'wasm' : /\.(m?js)$/.test(url) ? 'JS' : /\.css$/.test(url) ? 'CSS' : /\.html?$|\/$/.test(url) ? 'HTML' : 'other');
const FIRST_VIEW = 'attention-playground:first-view';
const FIRST_HEATMAP = 'attention-playground:first-heatmap';

async function browser() {
  return chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), 'attn-bench-')), LAUNCH);
}

/** scripts/serve.mjs on DIST in a child process, on a free port. */
async function startServerProcess() {
  const child = spawn(process.execPath, [path.join(REPO, 'scripts/serve.mjs'), '--root', DIST, '--port', String(8900 + (process.pid % 500))],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/at (http:\/\/\S+\/)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve.mjs exited (${code}): ${out}`)));
  });
  return { url, close: () => child.kill() };
}

/**
 * Loads `url` in `page` and returns { view, heatmap }: ms from navigation to the page's first-view
 * and first-heatmap marks, reported by an observer installed before the page's scripts run.
 */
async function timedLoad(page, url, reload = false) {
  const marks = {};
  const both = new Promise((resolve) => {
    const onConsole = (m) => {
      const [tag, name, t] = m.text().split(' ');
      if (tag !== 'bench-mark') return;
      marks[name] = Number(t);
      if (marks[FIRST_VIEW] !== undefined && marks[FIRST_HEATMAP] !== undefined) { page.off('console', onConsole); resolve(); }
    };
    page.on('console', onConsole);
  });
  if (reload) await page.reload(); else await page.goto(url);
  await Promise.race([both, new Promise((_, reject) => setTimeout(() => reject(new Error(`${url}: no first view/heatmap in 30 s`)), 30000))]);
  return { view: marks[FIRST_VIEW], heatmap: marks[FIRST_HEATMAP] };
}
const OBSERVE = ([a, b]) => new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.name === a || e.name === b) console.log(`bench-mark ${e.name} ${e.startTime}`);
}).observe({ type: 'mark', buffered: true });

const server = await startServerProcess();
const url = server.url;
// Cold loads of each page: the single-view embed of the heatmap (what a course page shows first)
// and the full page. Targets: <= 300 ms and <= 120 KB gzip (embed), <= 400 ms (index).
const PAGES = [
  { name: 'embed.html?view=heatmap', path: 'embed.html?view=heatmap' },
  { name: 'index.html', path: '' },
];
const LOADS = Number(process.env.BENCH_LOADS || 5);
const loads = {};  // page name -> { cache: [], stock: [], browser: [], warm: [] of { view, heatmap }, transfer, training }
if (!ONLY_INTERACTION) {
  const running = await chromium.launch(LAUNCH);
  const stock = await chromium.launch(STOCK_LAUNCH);
  for (const b of [running, stock]) { const c = await b.newContext(); await (await c.newPage()).goto(url + 'embed.html'); await c.close(); }  // the browser's own first-use work
  for (const p of PAGES) {
    const r = (loads[p.name] = { cache: [], stock: [], browser: [], warm: [], transfer: null, training: false });
    // What the first load transfers (its own load: reading response bodies costs the harness time).
    {
      const ctx = await running.newContext();
      const page = await ctx.newPage();
      const files = new Map();
      page.on('response', async (res) => {
        try {
          const body = await res.body();
          files.set(res.url(), { kind: kindOf(new URL(res.url()).pathname), raw: body.length, gz: zlib.gzipSync(body, { level: 9 }).length });
        } catch { /* redirects have no body */ }
      });
      await page.addInitScript(OBSERVE, [FIRST_VIEW, FIRST_HEATMAP]);
      await timedLoad(page, url + p.path);
      await page.waitForTimeout(500);
      r.transfer = [...files.entries()];
      r.training = r.transfer.some(([u]) => /attention-train/.test(u));  // the lab's module fetched?
      await ctx.close();
    }
    for (let run = 0; run < LOADS; run++) {
      // Cold cache (a new context of the running browser), then its reload (warm).
      const ctx = await running.newContext();
      const page = await ctx.newPage();
      await page.addInitScript(OBSERVE, [FIRST_VIEW, FIRST_HEATMAP]);
      r.cache.push(await timedLoad(page, url + p.path));
      await page.waitForTimeout(300);
      r.warm.push(await timedLoad(page, url + p.path, true));  // files from the HTTP cache (no-cache: revalidated)
      await ctx.close();
      // Cold cache in a new window of the stock browser (its omnibox WebUI starts during the load).
      const sctx = await stock.newContext();
      const spage = await sctx.newPage();
      await spage.addInitScript(OBSERVE, [FIRST_VIEW, FIRST_HEATMAP]);
      r.stock.push(await timedLoad(spage, url + p.path));
      await sctx.close();
      // Cold browser: a new profile's first navigation.
      const fresh = await browser();
      const fpage = fresh.pages()[0] ?? await fresh.newPage();
      await fpage.addInitScript(OBSERVE, [FIRST_VIEW, FIRST_HEATMAP]);
      r.browser.push(await timedLoad(fpage, url + p.path));
      await fresh.close();
    }
  }
  await running.close();
  await stock.close();
}
if (ONLY_LOAD) {
  server.close();
  report();
  process.exit(0);
}

// Redraw at N = 64.
const ctx = await browser();
const page = await ctx.newPage();
const text = Array.from({ length: 64 }, (_, i) => ['the', 'cat', 'sat', 'on', 'mat', 'and', 'looked', 'at', 'a', 'dog', '.'][i % 11]).join(' ');
await page.goto(`${url}${process.env.PAGE_PATH ?? ""}?text=${encodeURIComponent(text)}`);
await page.waitForFunction(() => performance.getEntriesByName('attention-playground:first-heatmap').length > 0);
const redraws = await page.evaluate(async () => {
  const el = document.querySelector('attention-playground');
  const view = el.shadowRoot.querySelector('[data-slot="heatmap"]');
  const seed = el.shadowRoot.querySelector('input[name="seed"]');
  const times = [];
  for (let i = 1; i <= 16; i++) {
    const drawn = () => Number(view.dataset.draws ?? view.dataset.drawn ?? 0);  // this build's signal, or the older one
    const before = drawn();
    const t0 = performance.now();
    seed.value = String(i);
    seed.dispatchEvent(new Event('input', { bubbles: true }));
    while (drawn() === before) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));  // until painted
    times.push(performance.now() - t0);
  }
  return { times: times.slice(1), tokens: Number(view.dataset.tokens), heads: Number(view.dataset.heads) };
});
await ctx.close();

// Interaction at the default shape, full page.
const ictx = await browser();
const ipage = await ictx.newPage();
await ipage.setViewportSize({ width: 1280, height: 900 });
await ipage.goto(url);
await ipage.waitForFunction(() => performance.getEntriesByName('attention-playground:first-heatmap').length > 0, null, { timeout: 30000 });
await ipage.waitForTimeout(1500);  // let every view finish its first draw
// Control changes are timed twice: until the walkthrough (the first section, what is on screen under
// the form) has drawn, and until the heatmap has; typing until the heatmap shows the final text.
const interaction = await ipage.evaluate(async () => {
  const el = document.querySelector('attention-playground');
  const root = el.shadowRoot;
  const slot = (id) => root.querySelector(`[data-slot="${id}"]`);
  const drawnOf = (v) => () => Number(v.dataset.draws ?? v.dataset.drawn ?? 0);
  const painted = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const settle = () => new Promise((r) => setTimeout(r, 250));  // the other views finish too: changes do not pile up
  const out = {};
  for (const id of ['walkthrough', 'heatmap']) {
    const view = slot(id);
    if (!view) continue;
    const drawn = drawnOf(view);
    async function change(input, apply) {
      const before = drawn();
      const t0 = performance.now();
      apply(input);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      while (drawn() === before) await new Promise((r) => setTimeout(r, 1));
      await painted();
      return performance.now() - t0;
    }
    const variant = root.querySelector('select[name="variant"]');
    const start = variant.value;
    const order = ['gqa', 'mla', 'mqa', 'mha'];
    out[`variant -> ${id}`] = [];
    for (let i = 0; i < 20; i++) { out[`variant -> ${id}`].push(await change(variant, (s) => { s.value = order[i % 4]; })); await settle(); }
    variant.value = start; variant.dispatchEvent(new Event('input', { bubbles: true })); await settle();
    const rope = root.querySelector('input[name="rope"]');
    out[`RoPE -> ${id}`] = [];
    for (let i = 0; i < 20; i++) { out[`RoPE -> ${id}`].push(await change(rope, (c) => { c.checked = !c.checked; })); await settle(); }
    const seed = root.querySelector('input[name="seed"]');
    out[`seed -> ${id}`] = [];
    for (let i = 0; i < 20; i++) { out[`seed -> ${id}`].push(await change(seed, (x) => { x.value = String(100 + i + (id === 'heatmap' ? 50 : 0)); })); await settle(); }
  }
  // Typing: keys 40 ms apart; from the last key to the final text's maps painted.
  const view = slot('heatmap');
  const text = root.querySelector('input[name="text"]');
  out['typing (last key) -> heatmap'] = [];
  for (let k = 0; k < 10; k++) {
    const word = ` word${k}`;
    let last = 0;
    for (const ch of word) {
      text.value += ch;
      text.dispatchEvent(new Event('input', { bubbles: true }));
      last = performance.now();
      await new Promise((r) => setTimeout(r, 40));
    }
    // The maps show the final text when the first map's last row label is the last word typed.
    const lastLabel = () => view.querySelector('.hm-rows, .row-labels')?.lastElementChild?.textContent;  // the row labels of the first map
    while (lastLabel() !== `word${k}` || view.dataset.state === 'busy') await new Promise((r) => setTimeout(r, 1));
    await painted();
    out['typing (last key) -> heatmap'].push(performance.now() - last);
    await settle();
  }
  return out;
});
await ictx.close();
server.close();

report();

/** Prints the loads of each page: first heatmap cold and warm, and what the first load transferred. */
function report() {
  if (ONLY_INTERACTION) return;
  const kb = (n) => (n / 1024).toFixed(1);
  console.log(`\nPage benchmark, ${new Date().toISOString().slice(0, 10)}: ${os.cpus()[0]?.model}, ${os.cpus().length} cores, ` +
    `load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; chromium (headless, omnibox WebUI off but in the stock rows); ${DIST}`);
  for (const [name, r] of Object.entries(loads)) {
    const byKind = {};
    for (const [, f] of r.transfer) {
      byKind[f.kind] ??= { files: 0, raw: 0, gz: 0 };
      byKind[f.kind].files++;
      byKind[f.kind].raw += f.raw;
      byKind[f.kind].gz += f.gz;
    }
    console.log(`\n${name}`);
    const row = (label, xs, key) => `| ${label} | ${median(xs.map((x) => x[key])).toFixed(0)} | ${xs.map((x) => x[key].toFixed(0)).join(', ')} |`;
    console.log(`navigation -> drawn, ms (median of ${r.cache.length} loads, then each load):`);
    console.log('| load | median | loads |\n|---|--:|---|');
    console.log(row('cold cache, first view', r.cache, 'view'));
    console.log(row('cold cache, first heatmap', r.cache, 'heatmap'));
    console.log(row('cold cache, stock new window, first view', r.stock, 'view'));
    console.log(row('cold cache, stock new window, first heatmap', r.stock, 'heatmap'));
    console.log(row('cold browser, first view', r.browser, 'view'));
    console.log(row('cold browser, first heatmap', r.browser, 'heatmap'));
    console.log(row('warm (reload), first view', r.warm, 'view'));
    console.log(row('warm (reload), first heatmap', r.warm, 'heatmap'));
    console.log(`transferred (gzip -9 of every response of the first load; training module fetched: ${r.training ? 'yes' : 'no'}):`);
    console.log('| kind | files | raw KiB | gzip KiB |\n|---|--:|--:|--:|');
    let tr = 0, tg = 0;
    for (const [k, v] of Object.entries(byKind).sort()) { console.log(`| ${k} | ${v.files} | ${kb(v.raw)} | ${kb(v.gz)} |`); tr += v.raw; tg += v.gz; }
    console.log(`| total | ${r.transfer.length} | ${kb(tr)} | ${kb(tg)} |`);
  }
}
console.log(`\ninteraction at the default shape, full page (${DIST}):`);
console.log('| change | n | median ms | p95 ms | max ms |\n|---|--:|--:|--:|--:|');
for (const [k, xs] of Object.entries(interaction)) {
  console.log(`| ${k} | ${xs.length} | ${median(xs).toFixed(0)} | ${pct(xs, 95).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`);
}
console.log(`\nredraw after a control change (seed) at N = ${redraws.tokens} tokens, ${redraws.heads} heads: median ${median(redraws.times).toFixed(1)} ms, ` +
  `min ${Math.min(...redraws.times).toFixed(1)}, max ${Math.max(...redraws.times).toFixed(1)} (${redraws.times.length} changes)`);
