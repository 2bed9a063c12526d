// A trained (zoo) model's decode as a learner feels it: `embed.html?view=decode&source=trained` in
// Chromium, the "step" button pressed once per character of a 60-character sentence, each timed from
// the click to the view's drawn result (web/src/kit.js's view-ready event: the worker's append, the
// model's next character and the page's drawing). Prints the median and range per stretch of the
// sentence (the work grows with the characters cached) and over all of it; one frame is 16.7 ms.
// Beside the wall time, the page's main thread's busy time per character (Chromium's
// Performance.getMetrics: TaskDuration, of which script, style and layout), which other processes on a
// shared machine inflate less: on a loaded machine the wall time mostly waits for a core.
//
//   npm run build && node scripts/bench-zoo-decode.mjs [--rounds 3] [--layer 1]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { startBrowser } from '../tests/e2e/browser.mjs';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, layer: { type: 'string', default: '1' } } });
const SENTENCE = 'to be, or not to be, that is the question: whether tis nobler';  // 60 characters, fewer than the 64 cached
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

const b = await startBrowser();
const rounds = [], busy = [];
try {
  const page = await b.open(`embed.html?view=decode&source=trained&layer=${args.layer}&text=${encodeURIComponent(SENTENCE)}`);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  for (let round = 0; round < Number(args.rounds); round++) {
    await page.waitForFunction(() => {
      const v = document.querySelector('attention-playground')?.shadowRoot?.querySelector('[data-slot="decode"]');
      return v && v.dataset.state === 'ready' && !v.querySelector('button[data-action="step"]')?.disabled;
    }, null, { timeout: 60000, polling: 50 });
    const m0 = await metrics();
    rounds.push(await page.evaluate(async () => {
      const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="decode"]');
      const press = (action) => new Promise((resolve) => {
        const t = performance.now();
        const done = (e) => {
          if (e.detail.view !== 'decode' || e.detail.state === 'busy') return;
          v.removeEventListener('view-ready', done);
          resolve(performance.now() - t);
        };
        v.addEventListener('view-ready', done);
        v.querySelector(`button[data-action="${action}"]`).click();
      });
      const ms = [];
      while (!v.querySelector('button[data-action="step"]').disabled) ms.push(await press('step'));
      return ms;
    }));
    const m1 = await metrics(), n = rounds[rounds.length - 1].length;
    busy.push(Object.fromEntries(['TaskDuration', 'ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration']
      .map((k) => [k, ((m1[k] - m0[k]) * 1e3) / n])));
    await page.evaluate(() => document.querySelector('attention-playground').shadowRoot
      .querySelector('[data-slot="decode"] button[data-action="reset"]').click());
  }
  if (page.errors.length) throw new Error(page.errors.join('\n'));
} finally {
  await b.close();
}

const n = Math.min(...rounds.map((r) => r.length));
const row = (label, from, to) => {
  const xs = rounds.flatMap((r) => r.slice(from, to));
  return `| ${label} | ${median(xs).toFixed(1)} | ${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)} |`;
};
console.log(`| characters cached | ms per character, median of ${rounds.length} rounds | range |\n|---|--:|--:|`);
for (let from = 0; from < n; from += 15) console.log(row(`${from + 1}-${Math.min(n, from + 15)}`, from, Math.min(n, from + 15)));
console.log(row(`all ${n}`, 0, n));
const mid = (k) => median(busy.map((x) => x[k])).toFixed(1);
console.log(`\nmain thread busy per character (median of rounds): ${mid('TaskDuration')} ms, of which script ${mid('ScriptDuration')}, ` +
  `style ${mid('RecalcStyleDuration')}, layout ${mid('LayoutDuration')}`);
console.log(`\n${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
