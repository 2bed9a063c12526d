// Where a kept model's weights could live in the browser, measured: the time to write a file of
// `--mb` MB into each store and to read it back into a new wasm memory in a worker (what a second open
// of a Hub model does before its check and setup), in Chromium:
//   cache       Cache Storage, as sources/model-store.js keeps files today: written by cache.put(Response
//               of a stream) on the page, read back in the worker as the kept Blob's stream()
//   cache in 2 or 4 slices   the kept Blob read as 2 or 4 slices' streams at once
//   opfs-file   the origin-private file system, read back as a File's stream() (the same Blob path)
//   opfs-sync   the origin-private file system through a worker's FileSystemSyncAccessHandle: written
//               chunk by chunk as a stream moved to the worker arrives, read back straight into the heap
// Rounds alternate the stores. Times of one machine in one run: compare within the run.
//
//   node scripts/bench-store-read.mjs [--mb 269] [--rounds 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { chromiumOptions } from './chromium.mjs';
import { startServer } from './serve.mjs';

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '269' }, rounds: { type: 'string', default: '3' } } });
const BYTES = Math.round(Number(args.mb) * 1e6);

// ---- the worker: writes a moved stream into an OPFS file, or reads a store's copy into a new wasm memory
function workerMain() {
  const heapFor = (bytes) => {
    const mem = new WebAssembly.Memory({ initial: 0, maximum: 65536 });
    mem.grow(Math.ceil(bytes / 65536));
    return new Uint8Array(mem.buffer, 0, bytes);
  };
  const fileHandle = async (create) => (await navigator.storage.getDirectory()).getFileHandle('bench-store.bin', { create });
  self.onmessage = async ({ data }) => {
    const t0 = performance.now();
    if (data.how === 'write-sync') {
      const h = await (await fileHandle(true)).createSyncAccessHandle();
      h.truncate(0);
      const reader = data.stream.getReader();
      for (let at = 0; ;) {
        const r = await reader.read();
        if (r.done) break;
        at += h.write(r.value, { at });
      }
      h.flush();
      h.close();
    } else if (data.how === 'read-sync') {
      const h = await (await fileHandle(false)).createSyncAccessHandle();
      const size = h.getSize(), heap = heapFor(size), CHUNK = 16 << 20;
      for (let at = 0; at < size; at += CHUNK) h.read(heap.subarray(at, Math.min(size, at + CHUNK)), { at });
      h.close();
    } else if (data.how === 'read-blob-parts') {  // the Blob's stream in `parts` slices read at once
      const heap = heapFor(data.blob.size), size = data.blob.size, step = Math.ceil(size / data.parts);
      await Promise.all(Array.from({ length: data.parts }, async (_, p) => {
        const reader = data.blob.slice(p * step, Math.min(size, (p + 1) * step)).stream().getReader();
        for (let at = p * step; ;) {
          const r = await reader.read();
          if (r.done) break;
          heap.set(r.value, at);
          at += r.value.length;
        }
      }));
    } else {  // read-blob: a Blob's stream, chunk by chunk into the heap (wasm/pretrained-api.mjs's streamCopies)
      const heap = heapFor(data.blob.size), reader = data.blob.stream().getReader();
      for (let at = 0; ;) {
        const r = await reader.read();
        if (r.done) break;
        heap.set(r.value, at);
        at += r.value.length;
      }
    }
    self.postMessage(performance.now() - t0);
  };
}

// ---- the page: makes the file's bytes, writes and reads each store in turn
async function pageMain({ bytes, rounds, workerUrl }) {
  const CHUNK = 1 << 20;
  const data = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 4096) data[i] = i & 255;
  const source = () => {
    let at = 0;
    return new ReadableStream({ pull(c) {
      if (at >= bytes) return c.close();
      c.enqueue(data.slice(at, Math.min(bytes, at + CHUNK)));
      at += CHUNK;
    } }, { highWaterMark: 0 });
  };
  const worker = new Worker(workerUrl);
  const ask = (message, transfer = []) => new Promise((resolve) => { worker.onmessage = (e) => resolve(e.data); worker.postMessage(message, transfer); });
  const cache = await caches.open('bench-store');
  const dir = await navigator.storage.getDirectory();
  const rows = [];
  for (let round = 0; round < rounds; round++) {
    let t = performance.now();
    await cache.put('/bench-store.bin', new Response(source()));
    const cacheWrite = performance.now() - t;
    const cacheRead = await ask({ how: 'read-blob', blob: await (await cache.match('/bench-store.bin')).blob() });
    const kept = await (await cache.match('/bench-store.bin')).blob();
    const cacheRead4 = await ask({ how: 'read-blob-parts', blob: kept, parts: 4 });
    const cacheRead2 = await ask({ how: 'read-blob-parts', blob: kept, parts: 2 });
    const stream = source();
    t = performance.now();
    await ask({ how: 'write-sync', stream }, [stream]);
    const syncWrite = performance.now() - t;
    const fileRead = await ask({ how: 'read-blob', blob: await (await dir.getFileHandle('bench-store.bin')).getFile() });
    const syncRead = await ask({ how: 'read-sync' });
    rows.push({ cacheWrite, cacheRead, syncWrite, fileRead, syncRead, cacheRead2, cacheRead4 });
  }
  await caches.delete('bench-store');
  await dir.removeEntry('bench-store.bin');
  return rows;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-bench-store-'));
fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><meta charset="utf-8"><title>store bench</title>');
fs.writeFileSync(path.join(root, 'worker.js'), `(${workerMain.toString()})();\n`);
const server = await startServer({ root, port: 0 });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, chromiumOptions());
let rows;
try {
  const page = await context.newPage();
  await page.goto(`${server.url}index.html`);
  rows = await page.evaluate(`(${pageMain.toString()})(${JSON.stringify({ bytes: BYTES, rounds: Number(args.rounds), workerUrl: 'worker.js' })})`);
} finally {
  await context.close();
  await server.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(profile, { recursive: true, force: true });
}
const mbs = (ms) => `${(ms / 1e3).toFixed(2)} s (${(BYTES / 1e6 / (ms / 1e3)).toFixed(0)} MB/s)`;
console.log(`| ${args.mb} MB, round | write: cache.put (page) | write: OPFS sync (worker) | read into wasm: Cache Storage Blob | read: OPFS File | read: OPFS sync | read: Cache Storage Blob, 2 slices at once | 4 slices |`);
console.log('|---|--:|--:|--:|--:|--:|--:|--:|');
rows.forEach((r, i) => console.log(`| ${i + 1} | ${mbs(r.cacheWrite)} | ${mbs(r.syncWrite)} | ${mbs(r.cacheRead)} | ${mbs(r.fileRead)} | ${mbs(r.syncRead)} | ${mbs(r.cacheRead2)} | ${mbs(r.cacheRead4)} |`));
console.log(`\n${os.cpus()[0].model}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
