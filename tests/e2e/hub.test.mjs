// Browser test of "Open a model from the Hugging Face Hub" (parts/hub-open.js, sources/hub.js,
// sources/model-store.js): in Chromium, under the strict CSP (its connect-src naming the test Hub and its
// file origin) and a sub-path, against a stand-in Hub on loopback (hub-server.mjs) that serves the
// API's file listing, `resolve` with a redirect to a second origin (Range, ETag), a gated id (401), an
// unknown one (404), a cut connection, a model too big and one the loader cannot read. Nothing is
// requested before the learner asks; a model opens by id, is kept, and opens again from the store with
// no request; a download can be stopped and retried after a cut; refusals come before any weight byte.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { app, corePost, recordCorePosts, shot, startBrowser, viewReady, viewResult } from './browser.mjs';
import { startHub } from './hub-server.mjs';

let b, hub;
before(async () => {
  hub = await startHub();
  b = await startBrowser({ allow: [hub.hub, hub.cdn] });
});
after(async () => { await b?.close(); await hub?.close(); });

const root = (page) => app(page).locator('[data-slot="model"]');
const query = (extra = '') => `embed.html?view=model&hub=${encodeURIComponent(hub.hub)}${extra}`;

const errorText = (page) => page.evaluate(() => {
  const e = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="model"] [data-role="model-error"]');
  return e && !e.hidden ? e.textContent : null;
});

/** Types a model id in the Hub form and opens it; returns once the last model's error (if any) has gone. */
async function openById(page, id) {
  await root(page).locator('[data-role="hub-id"]').fill(id);
  const before = await errorText(page);
  await root(page).locator('[data-action="hub-open"]').click();
  if (before !== null) {
    await page.waitForFunction((b) => {
      const e = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="model"] [data-role="model-error"]');
      return e.hidden || e.textContent !== b;
    }, before);
  }
}

/** Waits until the model view has drawn an opened model, or shows an error; returns its result or the error's text. */
async function settled(page) {
  await page.waitForFunction(() => {
    const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="model"]');
    const err = v.querySelector('[data-role="model-error"]');
    return (v.result?.opened && v.dataset.state === 'ready') || (err && !err.hidden);
  }, null, { timeout: 30000 });
  const err = root(page).locator('[data-role="model-error"]');
  return (await err.isVisible()) ? { error: await err.textContent(), field: await err.getAttribute('data-field') } : viewResult(page, 'model');
}

const keptIds = (page) => root(page).locator('[data-role="hub-kept"] li[data-model]').evaluateAll((lis) => lis.map((li) => li.dataset.model));

test('nothing is fetched until the learner asks; a model opens by id, is kept, and opens again from the store with no request', async () => {
  hub.reset();
  const page = await b.open(query());
  await viewReady(page, 'model');
  const picks = await root(page).locator('[data-role="hub-suggestions"] button').allTextContents();
  assert.equal(picks.length, 5);
  assert.match(picks[0], /SmolLM2-135M · llama · GQA, 9 query heads : 3 K\/V heads, download about 257 MiB/);
  assert.ok(picks.some((p) => /gpt2 · gpt2 · MHA, 12 query heads : 12 K\/V heads/.test(p)), picks.join('\n'));
  assert.deepEqual(hub.log, [], 'the page asked the Hub for nothing before the learner did');

  await openById(page, 'test-org/tiny-gpt2');
  const r = await settled(page);
  assert.equal(r.opened, true, JSON.stringify(r));
  assert.equal(r.model, 'gpt2');
  const order = hub.log.map((e) => `${e.origin}:${e.path}`);
  const firstWeight = order.findIndex((e) => e.startsWith('cdn:'));
  assert.ok(order.indexOf('hub:/api/models/test-org/tiny-gpt2/tree/main') === 0, order.join('\n'));
  assert.ok(order.indexOf('hub:/test-org/tiny-gpt2/resolve/main/config.json') < firstWeight, 'config.json is read before any weight byte');
  assert.ok(order.includes('hub:/test-org/tiny-gpt2/resolve/main/tokenizer.json'));
  assert.match(page.url(), /model=hf%3Atest-org%2Ftiny-gpt2/);
  const facts = await root(page).locator('[data-role="model-facts"]').textContent();
  assert.match(facts, /test-org\/tiny-gpt2/, 'the model is named by its Hub id');
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('[data-slot="model"] [data-role="hub-kept"] li[data-model]').length > 0);
  assert.deepEqual(await keptIds(page), ['test-org/tiny-gpt2']);
  assert.match(await root(page).locator('[data-role="hub-kept"]').textContent(), /test-org\/tiny-gpt2 · 1\d\d(\.\d)? KiB/);
  assert.deepEqual(page.errors, []);

  // the same link again: opened from this browser's copy, with no request to the Hub
  hub.reset();
  const again = await b.open(query('&model=hf:test-org/tiny-gpt2'));
  const r2 = await settled(again);
  assert.equal(r2.opened, true);
  assert.deepEqual(hub.log, [], 'the kept model opens with no request');
  assert.match(await root(again).locator('[data-role="model-facts"]').textContent(), /opened from this browser's copy/);
  await shot(again, 'hub-opened-from-store');
  assert.deepEqual(again.errors, []);
  await again.close();
  await page.close();
});

test('a gated model asks for a login, an unknown one says so, and neither fetches a weight byte', async () => {
  hub.reset();
  const page = await b.open(query());
  await viewReady(page, 'model');
  await openById(page, 'test-org/gated-model');
  let r = await settled(page);
  assert.match(r.error, /needs a Hugging Face login \(HTTP 401\).*drop them here/);
  assert.equal(r.field, 'model');
  await openById(page, 'test-org/no-such-model');
  r = await settled(page);
  assert.match(r.error, /HTTP 404/);
  await openById(page, 'not an id!');
  r = await settled(page);
  assert.match(r.error, /is not a Hub model id/);
  assert.deepEqual(hub.weightRequests(), []);
  await page.close();
});

test('a model too big to open and one the loader cannot read are refused before any weight byte', async () => {
  hub.reset();
  const page = await b.open(query());
  await viewReady(page, 'model');
  await openById(page, 'test-org/too-big');
  let r = await settled(page);
  assert.match(r.error, /5\.00 GiB of weights, more than the .* a WebAssembly page can hold: nothing was downloaded/);
  await openById(page, 'test-org/tiny-mixtral');
  r = await settled(page);
  assert.match(r.error, /cannot be read: config\.model_type \('mixtral'\) is not supported/);
  assert.deepEqual(hub.weightRequests(), [], 'no weight byte was asked for');
  assert.deepEqual(await keptIds(page), ['test-org/tiny-gpt2'], 'nothing of a refused model is kept');
  await shot(page, 'hub-refused');
  await page.close();
});

test('a device that reports little memory refuses a model over half of it, before any weight byte', async () => {
  hub.reset();
  // navigator.deviceMemory in GiB: 0.0001 GiB is about 107 KB, and tiny-gpt2's weights are 116 KB
  const page = await b.open(query(), { init: () => Object.defineProperty(Navigator.prototype, 'deviceMemory', { get: () => 0.0001 }) });
  await viewReady(page, 'model');
  await openById(page, 'test-org/cut-gpt2');
  const r = await settled(page);
  assert.match(r.error, /more than half of this device's 0\.0001 GiB of memory: nothing was downloaded/);
  assert.deepEqual(hub.weightRequests(), []);
  await page.close();
});

test('where the browser refuses storage, the model still opens and the page says it will download again', async () => {
  hub.reset();
  const page = await b.open(query(), { init: () => { Object.defineProperty(window, 'caches', { get: () => undefined }); } });
  await viewReady(page, 'model');
  await openById(page, 'test-org/tiny-qwen3');
  const r = await settled(page);
  assert.equal(r.opened, true, JSON.stringify(r));
  assert.match(await root(page).locator('[data-role="not-kept"]').textContent(), /did not keep the files/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the weights go to the store as they download; where the disk refuses them, the model opens from its download and nothing is kept', async () => {
  hub.reset();
  // A full disk: Cache Storage refuses every .safetensors file (QuotaExceededError), and only those.
  const page = await b.open(query(), { init: () => {
    const put = Cache.prototype.put;
    Cache.prototype.put = function (request, response) {
      const url = typeof request === 'string' ? request : request.url;
      return url.endsWith('.safetensors') ? Promise.reject(new DOMException('the disk is full', 'QuotaExceededError')) : put.call(this, request, response);
    };
  } });
  await viewReady(page, 'model');
  await openById(page, 'test-org/tiny-qwen3');
  const r = await settled(page);
  assert.equal(r.opened, true, JSON.stringify(r));
  assert.match(await root(page).locator('[data-role="not-kept"]').textContent(), /did not keep the files/);
  const left = await page.evaluate(async () => (await (await caches.open('attention-playground-models-v1')).keys())
    .map((k) => k.url).filter((u) => u.includes('tiny-qwen3')));
  assert.deepEqual(left, [], 'nothing of the model is left in the store (no manifest, no small file)');
  const weightGets = hub.log.filter((e) => e.origin === 'cdn' && !e.range);
  assert.equal(weightGets.length, 1, 'the worker read the download itself: the store\'s refusal asked for nothing again');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a Hub model\'s weights are copied into the worker as they download, not after', async () => {
  hub.reset();
  // every call to the core's worker, when it was posted, and whether it carried a stream
  const page = await b.open(query(), { init: recordCorePosts });
  await viewReady(page, 'model');
  await openById(page, 'test-org/slow-stories');  // about 2.5 s of download
  const r = await settled(page);
  assert.equal(r.opened, true, JSON.stringify(r));
  const open = await corePost(page, 'pretrainedOpen');
  const download = hub.log.find((e) => e.origin === 'cdn' && /blobs/.test(e.path));
  assert.equal(open?.weights, 'stream', 'the worker was given the download\'s stream');
  assert.ok(download?.ended, 'the download ended');
  assert.ok(open.at < download.ended - 1000, `the load began ${download.ended - open.at} ms before the download's last byte`);
  await page.waitForFunction(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('[data-slot="model"] [data-role="hub-kept"] li[data-model]')].some((li) => li.dataset.model === 'test-org/slow-stories'));
  assert.deepEqual(page.errors, []);
  await page.evaluate(async () => { const c = await caches.open('attention-playground-models-v1');
    for (const k of await c.keys()) if (k.url.includes('slow-stories')) await c.delete(k); });
  await page.close();
});

test('where a stream cannot be moved to a worker (transferable streams missing), the weights are downloaded first and the model opens and is kept', async () => {
  hub.reset();
  const page = await b.open(query(), { init: [recordCorePosts, () => {
    // as in a browser without transferable streams: moving a ReadableStream fails to clone
    const clone = window.structuredClone;
    window.structuredClone = (value, options) => {
      if (options?.transfer?.some((x) => x instanceof ReadableStream)) throw new DOMException('ReadableStream could not be cloned', 'DataCloneError');
      return clone(value, options);
    };
  }] });
  await viewReady(page, 'model');
  await openById(page, 'test-org/tiny-qwen3');
  const r = await settled(page);
  assert.equal(r.opened, true, JSON.stringify(r));
  assert.equal((await corePost(page, 'pretrainedOpen'))?.weights, 'blob', 'the worker was given the downloaded file');
  await page.waitForFunction(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('[data-slot="model"] [data-role="hub-kept"] li[data-model]')].some((li) => li.dataset.model === 'test-org/tiny-qwen3'));
  await root(page).locator('[data-role="hub-kept"] li[data-model="test-org/tiny-qwen3"] [data-action="hub-delete"]').click();
  await page.waitForFunction(() => ![...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('[data-slot="model"] [data-role="hub-kept"] li[data-model]')].some((li) => li.dataset.model === 'test-org/tiny-qwen3'));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a download can be stopped, and a cut connection keeps nothing and can be retried', async () => {
  hub.reset();
  const page = await b.open(query());
  await viewReady(page, 'model');
  await openById(page, 'test-org/slow-stories');
  const stop = root(page).locator('[data-action="stop-model"]');
  await page.waitForFunction(() => /downloading model\.safetensors: [\d.]+ KiB of/.test(document.querySelector('attention-playground')
    .shadowRoot.querySelector('[data-slot="model"] .om-bar-text')?.textContent ?? ''), null, { timeout: 20000 });
  await stop.click();
  let r = await settled(page);
  assert.match(r.error, /Stopped: the model was not opened/);
  assert.ok(!(await keptIds(page)).includes('test-org/slow-stories'), 'a stopped download keeps nothing');

  await openById(page, 'test-org/cut-gpt2');
  r = await settled(page);
  assert.match(r.error, /connection was lost while model\.safetensors was downloading|ended after \d+ of its \d+ bytes/);
  assert.ok(!(await keptIds(page)).includes('test-org/cut-gpt2'), 'nothing of the cut download is kept');
  const stored = await page.evaluate(async () => (await (await caches.open('attention-playground-models-v1')).keys())
    .map((k) => k.url).filter((u) => u.includes('cut-gpt2')));
  assert.deepEqual(stored, [], 'no file of it is in the store');
  await root(page).locator('[data-action="retry-model"]').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="model"] [data-role="model-error"]').hidden);  // the cut's message goes when the retry starts
  r = await settled(page);
  assert.equal(r.opened, true, JSON.stringify(r));
  await page.waitForFunction(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('[data-slot="model"] [data-role="hub-kept"] li[data-model]')].some((li) => li.dataset.model === 'test-org/cut-gpt2'));
  // deleting a kept model removes it from the list and from the store
  await root(page).locator('[data-role="hub-kept"] li[data-model="test-org/cut-gpt2"] [data-action="hub-delete"]').click();
  await page.waitForFunction(() => ![...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('[data-slot="model"] [data-role="hub-kept"] li[data-model]')].some((li) => li.dataset.model === 'test-org/cut-gpt2'));
  const left = await page.evaluate(async () => (await (await caches.open('attention-playground-models-v1')).keys())
    .map((k) => k.url).filter((u) => u.includes('cut-gpt2')));
  assert.deepEqual(left, []);
  await page.close();
});

test('a real trained model without a tokenizer: BOS and its own words to start, heads that show on its probe, the learner\'s ids kept on reload', async () => {
  hub.reset();
  const page = await b.open(query('&model=hf:karpathy/stories260K'));
  const r = await settled(page);
  assert.equal(r.opened, true, JSON.stringify(r));
  const text = await page.evaluate(() => new URL(location.href).searchParams.get('text'));
  const ids = text.split(' ').map(Number);
  assert.equal(ids[0], 1, 'the sentence starts with the model\'s BOS (1)');
  assert.ok(ids.slice(1).every((id) => id > 2), `then ordinary tokens the model writes: ${text}`);
  const roles = await root(page).locator('[data-role="head-roles"]').evaluate((t) => Object.fromEntries([...t.querySelectorAll('tbody tr')]
    .map((tr) => [tr.dataset.roleKey, [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)])));
  const best = (s) => Math.max(...[...s.matchAll(/: ([\d.]+)/g)].map((m) => Number(m[1])));
  // (the old probe, 32 uniform ids of the whole vocabulary with BOS mid-sequence, scored every role at most 0.24)
  assert.ok(best(roles.firstToken[0]) > 0.3, `a first-token sink on the probes: ${roles.firstToken[0]}`);
  const N = 17, uniform = Array.from({ length: N - 1 }, (_, k) => 1 / (k + 2)).reduce((a, v) => a + v) / (N - 1);  // BOS + 2 · 8
  assert.ok(best(roles.previousToken[0]) > 1.5 * uniform, `a previous-token head above uniform (${uniform.toFixed(2)}) on the probes: ${roles.previousToken[0]}`);
  assert.ok(best(roles.previousToken[1]) > 0.4, `and clear on the model's own sentence: ${roles.previousToken[1]}`);
  assert.ok(best(roles.firstToken[1]) > 0.4, `a sink on the model's own sentence: ${roles.firstToken[1]}`);
  await shot(page, 'hub-stories260k');
  await page.close();

  const typed = '1 461 461 401 401 401 461 378';
  const again = await b.open(query(`&model=hf:karpathy/stories260K&text=${encodeURIComponent(typed)}`));
  assert.equal((await settled(again)).opened, true);
  assert.equal(await again.evaluate(() => new URL(location.href).searchParams.get('text')), typed, 'the learner\'s ids are kept');
  assert.equal((await viewResult(again, 'model')).tokens, 8);
  assert.deepEqual(again.errors, []);
  await again.close();
});

test('with the Hub gone, a kept model still opens', async () => {
  await hub.close();
  const page = await b.open(query('&model=hf:test-org/tiny-gpt2'));
  const r = await settled(page);
  assert.equal(r.opened, true, JSON.stringify(r));
  assert.deepEqual(page.errors, []);
  await page.close();
});
