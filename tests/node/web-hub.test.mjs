// The page's Hub and checkpoint-folder checks that run without a browser: what names a Hub model
// (web/src/sources/hub-id.js), which shard names an index may give (web/src/sources/model-files.js
// shardNames: plain file names in the same folder only), the name of a model opened from files, and
// the split of a download between the store and the worker (streamed-weights.js teeInStep).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_HUB, hubBase, isHubModel, parseHubModel } from '../../web/src/sources/hub-id.js';
import { savedName, shardNames } from '../../web/src/sources/model-files.js';
import { HUB_MODELS } from '../../web/src/sources/hub-models.js';
import { teeInStep } from '../../web/src/sources/streamed-weights.js';

test('a Hub model id: hf:<org>/<name>[@<revision>], the Hub\'s characters only', () => {
  assert.deepEqual(parseHubModel('hf:HuggingFaceTB/SmolLM2-135M'), { repo: 'HuggingFaceTB/SmolLM2-135M', revision: 'main' });
  assert.deepEqual(parseHubModel('hf:Qwen/Qwen2.5-0.5B@refs/pr/1'), { repo: 'Qwen/Qwen2.5-0.5B', revision: 'refs/pr/1' });
  assert.deepEqual(parseHubModel('gpt2'), { repo: 'gpt2', revision: 'main' });
  assert.ok(isHubModel('hf:gpt2') && !isHubModel('models/gpt2/'));
  for (const bad of ['hf:', 'hf:a/b/c', 'hf:../x', 'hf:org/na me', 'hf:https://evil.example/x', 'hf:org/--x', 'hf:a..b/c']) {
    assert.throws(() => parseHubModel(bad), (e) => e.field === 'model' && e.key === 'hub.badId' && e instanceof RangeError, bad);
  }
  assert.throws(() => parseHubModel('hf:org/name@../../etc'), (e) => e.field === 'model' && e.key === 'hub.badRevision');
  for (const m of HUB_MODELS) assert.equal(parseHubModel(`hf:${m.id}`).repo, m.id);
});

test('the Hub\'s base URL: the Hugging Face Hub by default, a mirror\'s http(s) URL otherwise', () => {
  assert.equal(hubBase(''), DEFAULT_HUB);
  assert.equal(hubBase('https://hf-mirror.example/'), 'https://hf-mirror.example');
  assert.equal(hubBase('http://127.0.0.1:9000/hub//'), 'http://127.0.0.1:9000/hub');
  for (const bad of ['javascript:alert(1)', 'not a url', 'file:///etc/passwd', 'data:text/plain,x']) {
    assert.throws(() => hubBase(bad), (e) => e.field === 'hub' && e.key === 'hub.badHub', bad);
  }
});

test('shards an index may name: plain .safetensors file names in the folder, never a path or another site', () => {
  const index = (files) => ({ weight_map: Object.fromEntries(files.map((f, i) => [`t${i}`, f])) });
  assert.deepEqual(shardNames(index(['model-00002-of-00002.safetensors', 'model-00001-of-00002.safetensors', 'model-00001-of-00002.safetensors'])),
    ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
  for (const bad of ['https://evil.example/model.safetensors', '../other/model.safetensors', 'sub/model.safetensors',
    '/abs.safetensors', '.hidden.safetensors', 'model.bin', 'a\\b.safetensors', 7]) {
    assert.throws(() => shardNames(index([bad])), (e) => e.field === 'model.safetensors.index.json' && e.key === 'sources.badShard', String(bad));
  }
  for (const bad of [{}, { weight_map: [] }, { weight_map: null }, { weight_map: {} }, null]) {
    assert.throws(() => shardNames(bad), (e) => e.key === 'sources.badIndex', JSON.stringify(bad));
  }
});

test('a model opened from files is named by the name it was saved under, not by its model_type', () => {
  assert.equal(savedName({ _name_or_path: 'HuggingFaceTB/SmolLM2-135M' }), 'HuggingFaceTB/SmolLM2-135M');
  assert.equal(savedName({ _name_or_path: '/home/me/models/stories260K' }), 'stories260K');
  assert.equal(savedName({ _name_or_path: 'C:\\models\\tiny\\' }), 'tiny');
  assert.equal(savedName({ model_type: 'llama' }), '');
});

test('a download split between the store and the worker: both get every byte, neither runs far ahead, an error reaches both', async () => {
  const CHUNK = 1000, COUNT = 50;
  /** A source of COUNT chunks of CHUNK bytes (chunk k filled with k), noting how many were read and a cancel. */
  const source = (notes, failAt = -1) => {
    let k = 0;
    return new ReadableStream({
      pull(controller) {
        if (k === failAt) { controller.error(new Error('the connection was lost')); return; }
        if (k === COUNT) { controller.close(); return; }
        controller.enqueue(new Uint8Array(CHUNK).fill(k++ % 256));
        notes.read = k;
      },
      cancel() { notes.cancelled = true; },
    }, { highWaterMark: 0 });
  };
  const all = async (stream) => {
    const out = [];
    for await (const c of stream) out.push(...c);
    return Uint8Array.from(out);
  };
  const want = Uint8Array.from({ length: CHUNK * COUNT }, (_, i) => Math.floor(i / CHUNK) % 256);

  // both branches read whole: the same bytes in order
  let notes = {};
  let [a, b] = teeInStep(source(notes), 4 * CHUNK);
  const [x, y] = await Promise.all([all(a), all(b)]);
  assert.deepEqual(x, want);
  assert.deepEqual(y, want);

  // one branch idle: the other gets `ahead` bytes past it and waits (a tee would read the whole source)
  notes = {};
  [a, b] = teeInStep(source(notes), 4 * CHUNK);
  const ra = a.getReader();
  const got = [];
  const reading = (async () => { for (;;) { const r = await ra.read(); if (r.done) return; got.push(r.value); } })();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(got.length, 4, 'the reading branch stopped 4 chunks (its allowance) ahead of the idle one');
  assert.ok(notes.read <= 5, `the source was read ${notes.read} chunks, not ahead of the branches`);
  // the idle branch reads: both go on to the end
  assert.deepEqual(await all(b), want);
  await reading;
  assert.equal(got.length, COUNT);

  // one branch cancelled (the worker has every tensor): the other goes on alone to the end
  notes = {};
  [a, b] = teeInStep(source(notes), 4 * CHUNK);
  await a.cancel(new Error('done'));
  assert.deepEqual(await all(b), want);
  assert.ok(!notes.cancelled, 'the source is not cancelled while a branch reads it');
  // both cancelled: the source is
  notes = {};
  [a, b] = teeInStep(source(notes), 4 * CHUNK);
  await a.cancel();
  await b.cancel();
  assert.ok(notes.cancelled);

  // an error part-way reaches both branches
  [a, b] = teeInStep(source({}, 10), 4 * CHUNK);
  const errors = await Promise.all([all(a), all(b)].map((p) => p.then(() => null, (e) => e.message)));
  assert.deepEqual(errors, ['the connection was lost', 'the connection was lost']);
});
