// A trained (zoo) model's decode as a learner feels it: `embed.html?view=decode&source=trained` in
// Chromium, the "step" button pressed once per token of a sentence (its tokenizer's word pieces), each timed from
// the click to the view's drawn result (web/src/kit.js's view-ready event: the worker's append, the
// model's next token and the page's script) and to the next frame after it (the style, layout and
// paint that put it on the screen: the first task after that frame's requestAnimationFrame). Prints the
// median and range per stretch of the sentence (the work grows with the tokens cached) and over
// all of it; one frame is 16.7 ms.
// Beside the wall time, the page's main thread's busy time per token (Chromium's
// Performance.getMetrics: TaskDuration, of which script, style and layout), which other processes on a
// shared machine inflate less: on a loaded machine the wall time mostly waits for a core.
// --trace: also Chromium's trace of the presses, and the main thread's CPU time per token (the
// trace's thread time, which a core shared with other processes does not inflate) by phase: script
// (with the canvases' drawing calls), style, layout, paint, the canvases' frames, the commit to the
// compositor, the rest. Tracing slows the page a little; compare traced runs with traced runs.
//
//   npm run build && node scripts/bench-zoo-decode.mjs [--rounds 3] [--layer 1] [--trace]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { startBrowser } from '../tests/e2e/browser.mjs';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, layer: { type: 'string', default: '1' },
  trace: { type: 'boolean', default: false } } });
// Hamlet's lines: 54 tokens of the zoo's tokenizer, fewer than the 64 a pass takes
const SENTENCE = 'to be, or not to be, that is the question: whether tis nobler in the mind to suffer the slings and arrows of outrageous fortune, or to take arms against a sea of troubles';
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

// A trace event's phase: its own name's, else its nearest enclosing event's (a canvas's frame inside the commit is the canvas's).
const PHASES = [
  ['canvas', (n) => n.startsWith('Canvas')],
  ['style', (n) => n === 'UpdateLayoutTree'],
  ['layout', (n) => n === 'Layout'],
  ['paint', (n) => ['PrePaint', 'Paint', 'PaintArtifactCompositor::Update', 'Layerize'].includes(n)],
  ['commit', (n) => n === 'LayerTreeHost::DoUpdateLayers' || n.startsWith('ProxyMain::BeginMainFrame::commit')],
  ['script', (n) => ['FunctionCall', 'RunMicrotasks', 'EventDispatch', 'v8.callFunction', 'TimerFire', 'FireAnimationFrame'].includes(n)],
];
const phaseOf = (name) => PHASES.find(([, is]) => is(name))?.[0];

/** The renderer's main thread's CPU time (ms) in a trace, by phase: each event's own time (less its children's) goes to its phase. */
function mainThreadCpu(events) {
  const threads = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args.name === 'CrRendererMain');
  const own = (t) => events.filter((e) => e.pid === t.pid && e.tid === t.tid && e.ph === 'X' && e.tdur != null);
  const evs = threads.map(own).sort((a, b) => b.length - a.length)[0].sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const ms = { total: 0 }, stack = [];
  for (const e of evs) {
    while (stack.length && stack[stack.length - 1].e.ts + stack[stack.length - 1].e.dur <= e.ts) stack.pop();
    const parent = stack[stack.length - 1];
    const phase = phaseOf(e.name) ?? parent?.phase ?? 'rest';
    if (parent) ms[parent.phase] -= e.tdur / 1e3; else ms.total += e.tdur / 1e3;
    ms[phase] = (ms[phase] ?? 0) + e.tdur / 1e3;
    stack.push({ e, phase });
  }
  return ms;
}

const b = await startBrowser();
const rounds = [], busy = [], cpu = [];
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
    const traced = args.trace && startTrace(cdp);
    if (traced) await traced.started;
    rounds.push(await page.evaluate(async () => {
      const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="decode"]');
      const press = (action) => new Promise((resolve) => {
        const t = performance.now();
        const done = (e) => {
          if (e.detail.view !== 'decode' || e.detail.state === 'busy') return;
          v.removeEventListener('view-ready', done);
          const ready = performance.now() - t;
          requestAnimationFrame(() => setTimeout(() => resolve({ ready, painted: performance.now() - t })));
        };
        v.addEventListener('view-ready', done);
        v.querySelector(`button[data-action="${action}"]`).click();
      });
      const ms = [];
      while (!v.querySelector('button[data-action="step"]').disabled) ms.push(await press('step'));
      return ms;
    }));
    const m1 = await metrics(), n = rounds[rounds.length - 1].length;
    if (traced) cpu.push(Object.fromEntries(Object.entries(mainThreadCpu(await traced.stop())).map(([k, v]) => [k, v / n])));
    busy.push(Object.fromEntries(['TaskDuration', 'ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration']
      .map((k) => [k, ((m1[k] - m0[k]) * 1e3) / n])));
    await page.evaluate(() => document.querySelector('attention-playground').shadowRoot
      .querySelector('[data-slot="decode"] button[data-action="reset"]').click());
  }
  if (page.errors.length) throw new Error(page.errors.join('\n'));
} finally {
  await b.close();
}

/** Records Chromium's trace from now until stop() (the events). */
function startTrace(cdp) {
  const events = [];
  const collect = (e) => events.push(...e.value);
  cdp.on('Tracing.dataCollected', collect);
  const started = cdp.send('Tracing.start', { transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'toplevel', 'v8'] } });
  return {
    started,
    async stop() {
      const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
      await cdp.send('Tracing.end');
      await complete;
      cdp.off('Tracing.dataCollected', collect);
      return events;
    },
  };
}

const n = Math.min(...rounds.map((r) => r.length));
const row = (label, from, to) => {
  const cell = (k) => {
    const xs = rounds.flatMap((r) => r.slice(from, to).map((x) => x[k]));
    return `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
  };
  return `| ${label} | ${cell('ready')} | ${cell('painted')} |`;
};
console.log(`| tokens cached | ms per token to drawn, median (range) of ${rounds.length} rounds | to the next frame |\n|---|--:|--:|`);
for (let from = 0; from < n; from += 15) console.log(row(`${from + 1}-${Math.min(n, from + 15)}`, from, Math.min(n, from + 15)));
console.log(row(`all ${n}`, 0, n));
const mid = (k) => median(busy.map((x) => x[k])).toFixed(1);
const other = median(busy.map((x) => x.TaskDuration - x.ScriptDuration - x.RecalcStyleDuration - x.LayoutDuration)).toFixed(1);
console.log(`\nmain thread busy per token (median of rounds): ${mid('TaskDuration')} ms, of which script ${mid('ScriptDuration')}, ` +
  `style ${mid('RecalcStyleDuration')}, layout ${mid('LayoutDuration')}, the rest (paint, canvases, compositing, tasks) ${other}`);
if (cpu.length) {
  const phases = ['script', 'style', 'layout', 'paint', 'canvas', 'commit', 'rest'];
  const at = (k) => median(cpu.map((x) => x[k] ?? 0)).toFixed(1);
  console.log(`main thread CPU per token, traced (median of rounds): ${at('total')} ms, of which ${phases.map((k) => `${k} ${at(k)}`).join(', ')}`);
}
console.log(`\n${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
