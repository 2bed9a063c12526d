// Real models' speed in Chromium, through the page: a SmolLM2-135M-shaped and a Qwen2.5-0.5B-shaped
// checkpoint with random BF16 weights (scripts/bench-pretrained.mjs makes them), written to a temporary
// folder served beside a copy of dist/ (scripts/serve.mjs, strict CSP) and opened as a learner's link
// does: `embed.html?view=model&model=models/<name>/` (sources/model-files.js fetches the folder, the
// worker loads it). For each model it prints
//   open        download + load into the worker's wasm heap (the model view's own figure), in bytes
//               per second beside the copy bandwidth of a wasm memory.copy measured in the same page
//   fresh-page write   the least the load can take once the bytes are here: the file written once into
//               a wasm memory's new pages, in the same page (freshWriteMs)
//   first map   from navigation to the model view's first drawn maps (every layer's and the next tokens:
//               the view's mark), and to its head roles (their probes' forwards come after the maps)
//   peak memory the most the browser's processes held (proportional set size, sampled every 100 ms from
//               /proc) above what they held before the page, while opening: weights held twice show
//               as ~2x the file
//   prefill     the decode view's word box: 64 typed ids as one append (every layer's maps, the logits),
//               click to drawn
//   decode      the same box, one id per append in a new session (median of `--steps`, after 2),
//               click to drawn (each click after the last step's frame, as a learner's: --back-to-back
//               clicks as soon as it is drawn, and the click then forces the last step's style and layout),
//               beside the floor: every weight once plus the K/V cache it reads, at the
//               copy bandwidth; and of it the worker's own time (the append with every layer's maps and
//               the next tokens: the view's workerMs), the rest being the page's round trips and drawing
// Numbers of one run on one machine: ratios are taken within the run.
//
//   npm run build && node scripts/bench-pretrained-page.mjs [--only smollm2,qwen2.5] [--steps 16] [--hub] [--profile FILE]
// --profile samples the decode page's main thread (Chromium's CPU profiler: where the page's part of a
// step goes), writes FILE-<model>.cpuprofile and FILE-<model>.trace.json (DevTools opens both), prints
// the profile's top functions by self time and a step's split: from the click to the message to the
// worker, the round trip, and from the answer to drawn (the profiler and the trace slow the page a little).
// --hub opens them from a stand-in Hub instead (model=hf:bench/<name>: downloaded and kept in Cache Storage).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumOptions } from './chromium.mjs';
import { spawn } from 'node:child_process';
import { COPY_WASM, QWEN25_05B, SMOLLM2_135M, copyBandwidth, randomBf16Checkpoint } from './bench-pretrained.mjs';
import { cspWith, startServer } from './serve.mjs';
import { startHub } from '../tests/e2e/hub-server.mjs';

/**
 * The least an open can cost once the bytes are here: ms to write `bytes` into a wasm memory's new
 * pages (grown for them, then written 1 MiB at a time, as the worker writes a file's chunks into its
 * heap). The first touch of each page costs more than a copy into pages in use (the copy bandwidth).
 * Self-contained: it runs in a page.
 */
function freshWriteMs(bytes) {
  const t = performance.now();
  const mem = new WebAssembly.Memory({ initial: 0, maximum: 65536 });
  mem.grow(Math.ceil(bytes / 65536));
  const heap = new Uint8Array(mem.buffer), chunk = new Uint8Array(1 << 20).fill(7);
  for (let at = 0; at < bytes; at += chunk.length) heap.set(chunk.subarray(0, Math.min(chunk.length, bytes - at)), at);
  return performance.now() - t;
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(REPO, 'dist');
const MODELS = { smollm2: ['smollm2-135m', SMOLLM2_135M], 'qwen2.5': ['qwen2.5-0.5b', QWEN25_05B] };
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

const { values: args } = parseArgs({ options: { only: { type: 'string' }, steps: { type: 'string', default: '16' }, hub: { type: 'boolean', default: false },
  profile: { type: 'string' },  // FILE prefix: the decode page's main thread profiled, written as FILE-<model>.cpuprofile, its top functions printed
  'back-to-back': { type: 'boolean', default: false },  // click as soon as a step is drawn (the click then pays for its layout)
  layers: { type: 'string' }, timeout: { type: 'string', default: '600' } } });  // layers: fewer, to try the script quickly
const only = args.only ? args.only.split(',') : Object.keys(MODELS);
const STEPS = Number(args.steps);

// ---- --profile: a CPU profile's functions by self time (ms), the top 20 on stderr; the profile written for DevTools
function printProfile(profile, file) {
  fs.writeFileSync(file, JSON.stringify(profile));
  const self = new Map(), byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i + 1] ?? 0) / 1e3);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.error(`profile: ${file}, ${total.toFixed(0)} ms sampled; by self time:`);
  for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.error(`  ${ms.toFixed(1).padStart(8)} ms  ${k}`);
}

/** Per click in a trace: the ms of style recalculation and layout run inside it (forced: the last step's drawing, laid out). */
function forcedLayout(events) {
  const clicks = events.filter((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'click' && e.dur);
  return clicks.map((c) => events.filter((e) => e.ph === 'X' && (e.name === 'UpdateLayoutTree' || e.name === 'Layout') && e.pid === c.pid &&
    e.tid === c.tid && e.ts >= c.ts && e.ts + e.dur <= c.ts + c.dur).reduce((a, e) => a + e.dur / 1e3, 0));
}

// ---- the browser's memory: PSS of the processes under the browser's (found by its profile folder)
function processTree(profile) {
  const all = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return { pid: Number(pid), ppid, cmd: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') };
    } catch { return null; }
  }).filter(Boolean);
  const roots = all.filter((p) => p.cmd.includes(profile) && !all.some((q) => q.pid === p.ppid && q.cmd.includes(profile)));
  const tree = new Set(roots.map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) if (!tree.has(p.pid) && tree.has(p.ppid)) { tree.add(p.pid); grew = true; }
  }
  return [...tree];
}
function pssBytes(pids) {
  let kb = 0;
  for (const pid of pids) {
    try { kb += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0); } catch { /* gone */ }
  }
  return kb * 1024;
}
function sampleMemory(profile) {
  let peak = 0, pids = processTree(profile), n = 0;
  const timer = setInterval(() => {
    if (++n % 20 === 0) pids = processTree(profile);  // new renderers (a scan of /proc: rarely, it blocks the server)
    peak = Math.max(peak, pssBytes(pids));
  }, 100);
  return { stop: () => { clearInterval(timer); return peak; } };
}

// ---- the site: dist/ and the models beside it
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-bench-models-'));
fs.cpSync(DIST, root, { recursive: true });
const files = {};
for (const key of only) {
  const [name, full] = MODELS[key];
  const config = args.layers ? { ...full, num_hidden_layers: Number(args.layers) } : full;
  const dir = path.join(root, 'models', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  const file = randomBf16Checkpoint(config);
  fs.writeFileSync(path.join(dir, 'model.safetensors'), file);
  files[key] = file.length;
}
let server, hub = null;
if (args.hub) {
  // --hub: the models from the stand-in Hub (tests/e2e/hub-server.mjs: a listing, then each file through a
  // redirect to a second origin), as `model=hf:bench/<name>` opens them: downloaded and kept in Cache
  // Storage. Both servers run in this process (the memory sampler may slow their answers a little).
  hub = await startHub({ extra: Object.fromEntries(only.map((k) => [`bench/${MODELS[k][0]}`, path.join(root, 'models', MODELS[k][0])])) });
  server = await startServer({ root, port: 0, csp: cspWith([hub.hub, hub.cdn]) });
} else {
  // the server in a process of its own: the memory sampler's reads of /proc must not hold up its responses
  const serverProcess = spawn(process.execPath, [path.join(REPO, 'scripts/serve.mjs'), '--root', root, '--port', '0', '--csp'], { stdio: ['ignore', 'pipe', 'inherit'] });
  server = { url: await new Promise((resolve, reject) => {
    serverProcess.stdout.on('data', (d) => { const m = /at (http:\/\/\S+)/.exec(String(d)); if (m) resolve(m[1]); });
    serverProcess.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
  }), close: async () => { serverProcess.kill('SIGTERM'); } };
}
/** The model's link: a folder beside the page, or the stand-in Hub's id. */
const modelParam = (name) => (hub ? `hf:bench/${name}&hub=${encodeURIComponent(hub.hub)}` : `models/${name}/`);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, chromiumOptions());

const idList = Array.from({ length: 64 }, (_, k) => 1 + ((k * 7919) % 40000));
const ids = idList.join(' ');
const results = [];
try {
  for (const key of only) {
    const [name] = MODELS[key];
    const base = `${server.url.replace(/\/$/, '')}/`;
    // --- open and first map, with the memory it takes
    const blank = await context.newPage();
    await blank.goto(`${base}embed.html?view=heatmap`);
    await blank.waitForTimeout(500);
    const before = pssBytes(processTree(profile));
    const gbs = await blank.evaluate(`(${copyBandwidth.toString()})(${JSON.stringify(COPY_WASM)})`);
    const freshMs = await blank.evaluate(`(${freshWriteMs.toString()})(${files[key]})`);
    await blank.close();
    const page = await context.newPage();
    const mem = sampleMemory(profile);
    const t0 = Date.now();
    console.error(`${name}: opening`);
    await page.goto(`${base}embed.html?view=model&model=${modelParam(name)}&text=${encodeURIComponent(ids)}`);
    const opened = await page.waitForFunction(() => {
      const v = document.querySelector('attention-playground')?.shadowRoot?.querySelector('[data-slot="model"]');
      if (!v?.result?.opened) return false;
      const facts = v.querySelector('[data-role="model-facts"]')?.innerText ?? '';
      const get = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/model.safetensors'));
      return { openS: Number(facts.match(/in ([\d.]+) s/)?.[1]), firstMapMs: performance.getEntriesByName('attention-playground:model-maps')[0]?.startTime ?? NaN,
        rolesMs: performance.now(), downloadMs: get ? get.responseEnd - get.startTime : NaN };
    }, null, { timeout: Number(args.timeout) * 1000, polling: 100 }).then((h) => h.jsonValue()).catch(async (e) => {
      console.error(await page.evaluate(() => document.querySelector('attention-playground')?.shadowRoot?.querySelector('[data-slot="model"]')?.innerText));
      throw e;
    });
    const wallMs = Date.now() - t0;
    const peak = mem.stop();
    await page.close();
    console.error(`${name}: opened, ${JSON.stringify(opened)}`);
    // --hub: the second open, from the copy kept in this browser (no request to the Hub)
    let reopenS = NaN;
    if (hub) {
      const again = await context.newPage();
      await again.goto(`${base}embed.html?view=model&model=${modelParam(name)}&text=${encodeURIComponent(ids)}`);
      reopenS = await again.waitForFunction(() => {
        const v = document.querySelector('attention-playground')?.shadowRoot?.querySelector('[data-slot="model"]');
        return v?.result?.opened ? Number(v.querySelector('[data-role="model-facts"]')?.innerText.match(/in ([\d.]+) s/)?.[1]) : false;
      }, null, { timeout: Number(args.timeout) * 1000, polling: 100 }).then((h) => h.jsonValue());
      await again.close();
      console.error(`${name}: opened again from the store in ${reopenS} s`);
    }
    // --- prefill and decode in the decode view
    const dec = await context.newPage();
    // --profile: every message to and from the workers timestamped (the step's split: the page before
    // the worker, the round trip, the page after it)
    if (args.profile) {
      await dec.addInitScript(() => {
        const Base = window.Worker;
        window.__messages = [];
        window.Worker = class extends Base {
          constructor(...a) {
            super(...a);
            this.addEventListener('message', () => window.__messages.push({ dir: 'in', t: performance.now() }));
          }
          postMessage(...a) { window.__messages.push({ dir: 'out', t: performance.now() }); return super.postMessage(...a); }
        };
      });
    }
    await dec.goto(`${base}embed.html?view=decode&model=${modelParam(name)}&text=${encodeURIComponent(ids)}`);
    await dec.waitForFunction(() => {
      const v = document.querySelector('attention-playground')?.shadowRoot?.querySelector('[data-slot="decode"]');
      return v && v.dataset.state === 'ready' && !v.querySelector('button[data-action="word"]')?.disabled;
    }, null, { timeout: Number(args.timeout) * 1000, polling: 100 });
    // --profile: the page's main thread sampled (Chromium's CPU profiler) over the prefill and the steps
    const cdp = args.profile ? await context.newCDPSession(dec) : null;
    const traceEvents = [];
    if (cdp) {  // and a trace of the page's main thread (style, layout, events): DevTools' Performance panel opens it
      cdp.on('Tracing.dataCollected', (e) => traceEvents.push(...e.value));
      await cdp.send('Tracing.start', { categories: 'devtools.timeline,blink,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
      await cdp.send('Profiler.start');
    }
    const timed = await dec.evaluate(async ({ steps, ids, backToBack }) => {
      const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="decode"]');
      // a learner's click comes after the last step is on the screen: two frames, so that its style and
      // layout are done (--back-to-back: click as soon as it is drawn, and the click pays for them)
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const press = async (action, word) => { if (!backToBack) await frame(); return new Promise((resolve) => {
        if (word !== undefined) v.querySelector('input[name="word"]').value = word;
        const t = performance.now();
        const m0 = window.__messages?.length ?? 0;
        const done = (e) => {
          if (e.detail.view !== 'decode' || e.detail.state === 'busy') return;
          v.removeEventListener('view-ready', done);
          const end = performance.now();
          // with --profile: click to the first message out, first out to last in, last in to drawn
          const m = window.__messages?.slice(m0) ?? [];
          const out = m.find((x) => x.dir === 'out'), last = m.filter((x) => x.dir === 'in').pop();
          const split = out && last ? [out.t - t, last.t - out.t, end - last.t, m.length] : null;
          resolve({ ms: end - t, length: v.result?.length, cacheBytes: v.result?.cacheBytes, workerMs: v.result?.workerMs, split });
        };
        v.addEventListener('view-ready', done);
        v.querySelector(`button[data-action="${action}"]`).click();
      }); };
      // typed ids through the view's word box: all 64 as one append, then, after a reset, one per append
      const prefill = await press('word', ids.join(' '));
      await press('reset');
      const step = [];
      for (let k = 0; k < steps + 2; k++) step.push(await press('word', String(ids[k])));
      return { prefill, step };
    }, { steps: STEPS, ids: idList, backToBack: args['back-to-back'] });
    if (cdp) {
      printProfile((await cdp.send('Profiler.stop')).profile, `${args.profile}-${name}.cpuprofile`);
      const ended = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.end');
      await ended;
      fs.writeFileSync(`${args.profile}-${name}.trace.json`, JSON.stringify(traceEvents));
      const split = timed.step.slice(2).map((x) => x.split).filter(Boolean);
      const med = (k) => median(split.map((x) => x[k])).toFixed(2);
      console.error(`profile: a step's median split, ms: click to the first message out ${med(0)} (of it the style and layout ` +
        `the click forced ${median(forcedLayout(traceEvents)).toFixed(2)}); out to the last in ${med(1)} (the worker's own ` +
        `${median(timed.step.slice(2).map((x) => x.workerMs)).toFixed(2)}); last in to drawn ${med(2)}; messages ${med(3)}`);
    }
    await dec.close();
    const steps = timed.step.slice(2);  // the first two: the module's warm-up
    const stepMs = median(steps.map((s) => s.ms));
    const workerMs = median(steps.map((s) => s.workerMs));
    const last = steps[steps.length >> 1];
    const weightBytes = files[key];  // header included: within 0.01 %
    const floorMs = ((weightBytes + last.cacheBytes) / gbs) * 1e3;
    results.push({
      name, bytes: files[key], gbs, openS: opened.openS, reopenS, downloadS: opened.downloadMs / 1e3, firstMapMs: opened.firstMapMs, rolesMs: opened.rolesMs, freshMs, wallMs,
      peakExtra: peak - before, prefillMs: timed.prefill.ms, prefillTokens: timed.prefill.length,
      stepMs, stepRange: [Math.min(...steps.map((s) => s.ms)), Math.max(...steps.map((s) => s.ms))], floorMs, workerMs,
    });
  }
} finally {
  await context.close();
  await server.close();
  await hub?.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(profile, { recursive: true, force: true });
}

const mb = (b) => `${(b / 1e6).toFixed(0)} MB`;
const header = ['model (random BF16)', 'file', 'copy GB/s', 'open s (MB/s; / copy)', 'of which the download s', ...(hub ? ['open again from the store s (MB/s)'] : []), 'fresh-page write s', 'first map s', 'head roles s', 'peak memory above the page (x file)',
  'prefill 64 tokens ms (tokens/s)', 'decode ms/token (range)', 'of which the worker ms', 'floor ms', 'decode / floor', 'worker / floor'];
const rows = results.map((r) => {
  const rate = r.bytes / r.openS;
  return [r.name, mb(r.bytes), (r.gbs / 1e9).toFixed(1), `${r.openS.toFixed(1)} (${(rate / 1e6).toFixed(0)}; ${(rate / r.gbs).toFixed(3)}x)`, r.downloadS.toFixed(1),
    ...(hub ? [`${r.reopenS.toFixed(2)} (${(r.bytes / r.reopenS / 1e6).toFixed(0)})`] : []), (r.freshMs / 1e3).toFixed(2),
    (r.firstMapMs / 1e3).toFixed(1), (r.rolesMs / 1e3).toFixed(1), `${mb(r.peakExtra)} (${(r.peakExtra / r.bytes).toFixed(2)}x)`,
    `${r.prefillMs.toFixed(0)} (${(r.prefillTokens / (r.prefillMs / 1e3)).toFixed(0)})`,
    `${r.stepMs.toFixed(1)} (${r.stepRange.map((x) => x.toFixed(1)).join('-')})`, r.workerMs.toFixed(1), r.floorMs.toFixed(1),
    `${(r.stepMs / r.floorMs).toFixed(2)}x`, `${(r.workerMs / r.floorMs).toFixed(2)}x`];
});
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log(`\n${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
