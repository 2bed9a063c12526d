#!/usr/bin/env node
// npm run bench:labs — how a lab's wall time scales with trainer workers (web/src/client.js: one per
// core the device reports, at most 4). Opens embed.html?view=<lab> in Debian's Chromium with
// navigator.hardwareConcurrency set to each worker count, presses Start, and times the run to 'done'
// (every variant × seed trained). Rounds alternate the counts; prints a table of medians (min-max) and
// each count's speed-up over one worker, from the same rounds. A benchmark: it asserts nothing.
//
//   BENCH_LAB=lab-mqa (default) | lab-rank | lab-heads      BENCH_WORKERS=1,2,4      BENCH_ROUNDS=3
//   BENCH_STEPS=<the lab's steps field, default its default>
import os from 'node:os';
import { app, labStatus, startBrowser } from '../tests/e2e/browser.mjs';

const lab = process.env.BENCH_LAB || 'lab-mqa';
const STEP_KEYS = { 'lab-mqa': 'labMSteps', 'lab-rank': 'labRSteps', 'lab-heads': 'labHSteps' };
if (!STEP_KEYS[lab]) throw new Error(`BENCH_LAB=${lab}: one of ${Object.keys(STEP_KEYS).join(', ')}`);
const counts = (process.env.BENCH_WORKERS || '1,2,4').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS || 3);
const steps = process.env.BENCH_STEPS ? `&${STEP_KEYS[lab]}=${Number(process.env.BENCH_STEPS)}` : '';

const b = await startBrowser();
const times = new Map(counts.map((n) => [n, []]));
try {
  for (let r = 0; r < rounds; r++) {
    for (const n of r % 2 ? [...counts].reverse() : counts) {
      const page = await b.open(`embed.html?view=${lab}&v=2${steps}`, {
        init: (cores) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => cores }), initArg: n });
      const view = app(page).locator(`[data-slot="${lab}"]`);
      await view.locator('[data-role="start"]').waitFor();
      const t0 = performance.now();
      await view.locator('[data-role="start"]').click();
      await labStatus(page, lab, ['done'], 15 * 60_000);
      const s = (performance.now() - t0) / 1000;
      const workers = await page.evaluate(() => navigator.hardwareConcurrency);
      if (workers !== n) throw new Error(`the page saw ${workers} cores, not ${n}`);
      if (page.errors.length) throw new Error(`console errors: ${page.errors.join('; ')}`);
      times.get(n).push(s);
      console.error(`round ${r + 1}: ${n} worker(s): ${s.toFixed(1)} s`);
      await page.close();
    }
  }
} finally {
  await b.close();
}

const median = (xs) => { const v = [...xs].sort((a, c) => a - c); return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2; };
const base = median(times.get(counts[0]));
console.log(`\n${lab}${steps ? ` (${steps.slice(1)})` : ''}: wall time of one run, ${rounds} alternated rounds, ${os.cpus().length} CPUs `
  + `(${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg()[0].toFixed(1)} at the end\n`);
console.log('| trainer workers | wall time, median (min-max) | speed-up over ' + counts[0] + ' |');
console.log('|--:|--:|--:|');
for (const n of counts) {
  const t = times.get(n);
  console.log(`| ${n} | ${median(t).toFixed(1)} s (${Math.min(...t).toFixed(1)}-${Math.max(...t).toFixed(1)}) | ${(base / median(t)).toFixed(2)}x |`);
}
