// Browser test of "Open a model" (views/model.js, sources/pretrained.js): in Chromium, under the strict
// CSP and a sub-path (browser.mjs), the full page opens tiny checkpoints (tests/fixtures/pretrained,
// PyTorch's expected maps beside them) through the folder picker and through ?model= (a folder served
// beside the page); the attention maps it draws, read back through each map's keyboard read-out, are
// PyTorch's; the overview, the next tokens, the head roles and the decode view draw the model; a
// checkpoint the core refuses says why, with the field it names, and the page keeps working.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, app, corePost, recordCorePosts, shot, startBrowser, viewReady, viewResult } from './browser.mjs';

const FIXTURES = path.join(REPO, 'tests/fixtures/pretrained');
let b;
before(async () => { b = await startBrowser({ copy: { 'models/gpt2': 'tests/fixtures/pretrained/gpt2' } }); });
after(async () => { await b?.close(); });

/** expected.safetensors of a fixture: { ids, maps: (H, N, N) per layer }. */
function expected(name) {
  const buf = fs.readFileSync(path.join(FIXTURES, name, 'expected.safetensors'));
  const n = Number(buf.readBigUInt64LE(0));
  const h = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const raw = (k) => buf.buffer.slice(buf.byteOffset + 8 + n + h[k].data_offsets[0], buf.byteOffset + 8 + n + h[k].data_offsets[1]);
  const layers = Object.keys(h).filter((k) => k.startsWith('attentions.')).length;
  return { ids: [...new Int32Array(raw('ids'))], maps: Array.from({ length: layers }, (_, l) => new Float32Array(raw(`attentions.${l}`))) };
}

/** Every cell of every head's map in the heatmap view, as its read-out says it (3 decimals; null: masked). */
const readMaps = (page) => app(page).locator('[data-slot="heatmap"]').evaluate((root) => {
  const readout = root.querySelector('[data-role="readout"]');
  return [...root.querySelectorAll('canvas[data-head]')].map((canvas) => {
    const key = (k) => canvas.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
    canvas.focus();
    const n = Number(root.dataset.tokens), cells = [];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const m = /: (masked \(a later token\)|[\d.]+)$/.exec(readout.textContent);
        if (!m) return readout.textContent;  // the test then fails, saying what the read-out said
        cells.push(m[1].startsWith('masked') ? null : Number(m[1]));
        key('ArrowRight');
      }
      key('ArrowDown');
      key('Home');
    }
    canvas.blur();
    return cells;
  });
});

function assertMapsAre(drawn, want, N, what) {
  for (const cells of drawn) assert.ok(Array.isArray(cells), `${what}: the read-out said ${cells}`);
  assert.equal(drawn.length * N * N, want.length, `${what}: one map per head`);
  drawn.forEach((cells, h) => cells.forEach((v, k) => {
    const [i, j] = [Math.floor(k / N), k % N];
    if (j > i) assert.equal(v, null, `${what} head ${h} (${i}, ${j}) is masked`);
    else assert.ok(Math.abs(v - want[h * N * N + k]) <= 5e-4 + 1e-6, `${what} head ${h} (${i}, ${j}): ${v} against PyTorch's ${want[h * N * N + k]}`);
  }));
}

const opened = (page) => page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
  .querySelector('[data-slot="model"]')?.result?.opened === true, null, { timeout: 30000 });

test('a folder without tokenizer.json opens through the folder picker: token ids, PyTorch\'s maps of every layer, the overview and the decode view', async () => {
  const page = await b.open('index.html');
  const el = app(page);
  await viewReady(page, 'model');
  const t0 = Date.now();
  await el.locator('[data-role="pick-folder"]').setInputFiles(path.join(FIXTURES, 'qwen2'));
  await opened(page);
  const ms = Date.now() - t0;
  assert.match(await el.locator('[data-role="model-facts"]').innerText(), /qwen2[\s\S]*none in the folder/);
  const want = expected('qwen2');
  await el.locator('input[name="text"]').fill(want.ids.join(' '));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.result?.tokens === 10);
  await viewReady(page, 'heatmap');
  assert.equal((await viewResult(page, 'heatmap')).source, 'pretrained');
  assert.equal(await el.locator('[data-slot="heatmap"] canvas[data-head]').count(), 4, 'qwen2: 4 query heads');
  assert.equal(await el.locator('[data-slot="heatmap"] figure.kv-group').count(), 1, 'all 4 read one K/V head');
  assertMapsAre(await readMaps(page), want.maps[0], 10, 'layer 0');
  await el.locator('[data-slot="heatmap"] select[name="layer"]').selectOption('1');
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.result?.layer === 1);
  assertMapsAre(await readMaps(page), want.maps[1], 10, 'layer 1');

  await viewReady(page, 'model');
  const r = await viewResult(page, 'model');
  assert.deepEqual([r.model, r.layers, r.heads, r.tokens, r.next.length, r.roles], ['qwen2', 2, 4, 10, 10, 8]);
  assert.equal(await el.locator('[data-slot="model"] canvas[data-layer]').count(), 8, 'the overview: 2 layers × 4 heads');
  assert.equal(await el.locator('[data-role="head-roles"] tbody tr').count(), 4);

  const decode = el.locator('[data-slot="decode"]');
  await decode.scrollIntoViewIfNeeded();
  await viewReady(page, 'decode');
  await decode.locator('[data-action="step"]').click();
  await viewReady(page, 'decode', 2);
  const predict = decode.locator('[data-action="predict"]');
  assert.match(await predict.innerText(), /next token \(“\d+”\)/, 'the model says its next token');
  await predict.click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="decode"]')?.result?.length === 2);
  const d = await viewResult(page, 'decode');
  // qwen2 MQA: K and V of 1 head × dh 8 per layer, 2 layers, float32 in the session: 2 tokens × 64 × 4 bytes
  assert.equal(d.cacheBytes, 2 * 2 * 2 * 8 * 4);
  assert.ok(d.workerMs > 0 && Number.isFinite(d.workerMs), `the worker's time of the append: ${d.workerMs}`);
  assert.match(await decode.locator('.dec-facts').innerText(), /16 × 2 bytes \(16-bit, the file's\) = 32 bytes per layer; × 2 layers = 64 bytes/);
  const heads = el.locator('[data-slot="heads-table"]');
  await heads.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heads-table"]')?.result?.opened === 'Opened: qwen2');
  assert.match(await heads.locator('tr.opened-row').innerText(), /Opened: qwen2[\s\S]*qwen2, the checkpoint open in this page \(its file: 16-bit/);
  const kv = el.locator('[data-slot="kv-chart"]');
  await kv.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="kv-chart"]')?.result?.series?.some((x) => x.id === 'opened-model'));
  const series = (await viewResult(page, 'kv-chart')).series.find((x) => x.id === 'opened-model');
  assert.equal(series.label, 'Opened: qwen2 (MQA)');
  await shot(page, 'model-qwen2');
  assert.deepEqual(b.outside, [], 'nothing is fetched from anywhere else');
  assert.deepEqual(page.errors, []);
  console.log(`# qwen2 fixture opened through the folder picker in ${ms} ms`);
  await page.close();
});

test('?model= opens a folder served beside the page, with its tokenizer; the worker reads its weights as they download', async () => {
  const page = await b.open('index.html?model=models/gpt2/', { init: recordCorePosts });
  const el = app(page);
  await opened(page);
  assert.equal((await corePost(page, 'pretrainedOpen'))?.weights, 'stream', 'model.safetensors went to the worker as the download\'s stream, not as a downloaded file');
  await viewReady(page, 'heatmap');
  const e = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'gpt2/tokenizer_expected.json'), 'utf8'))[0];
  await el.locator('input[name="text"]').fill(e.text);
  await page.waitForFunction((n) => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.result?.tokens === n, e.tokens.length);
  await viewReady(page, 'heatmap');
  assert.equal((await viewResult(page, 'heatmap')).source, 'pretrained');
  assert.match(await el.locator('[data-role="model-facts"]').innerText(), /tokenizer\.json \(41 tokens\)/);
  // The shape form says which sections draw the model; its fields stay for the lesson's block of the others.
  const note = el.locator('[data-role="model-note"]');
  assert.match(await note.innerText(), /show gpt2 \(gpt2\) \(2 layers, dModel 32, 4 query heads, 4 K\/V heads, dHead 8\)/);
  assert.equal(await el.locator('input[name="dModel"]').isVisible(), true);
  // the sentence's hint gives the model's limit: its 32 positions (a pass takes 64 at most)
  const textHint = el.locator('[data-field="text"] small[id$="-help"]');
  assert.match(await textHint.innerText(), /the first 32 are used/);
  await viewReady(page, 'model');
  assert.equal(await el.locator('[data-slot="model"] canvas[data-layer]').count(), 8, 'gpt2 fixture: 2 layers × 4 heads');
  assert.ok(page.url().includes('model=models'), 'the link keeps the model');
  await shot(page, 'model-gpt2-url');
  await el.locator('[data-slot="model"] [data-action="close-model"]').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.result?.source === 'seeded');
  assert.ok(!page.url().includes('model='), 'closing the model drops it from the link');
  assert.equal(await el.locator('[data-role="model-note"]').isHidden(), true, 'no model, no note');
  assert.match(await textHint.innerText(), /the first 100 are used/, 'the seeded block takes 100 tokens');
  assert.deepEqual(b.outside, []);
  assert.deepEqual(page.errors, [], 'a folder with model.safetensors and its tokenizer asks for no file it lacks');
  await page.close();

  // An embed of the maps alone: the model's shape is the model's, so only the sentence stays in the form.
  const embed = await b.open('embed.html?view=heatmap&model=models/gpt2/');
  const em = app(embed);
  await embed.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.result?.source === 'pretrained');
  assert.match(await em.locator('[data-role="model-note"]').innerText(), /has its own shape: only the sentence applies/);
  assert.equal(await em.locator('input[name="dModel"]').isVisible(), false);
  assert.equal(await em.locator('input[name="text"]').isVisible(), true);
  assert.deepEqual(embed.errors, []);
  await embed.close();
});

test('an embed of the decode view alone says why its model could not be opened, not that it is still opening', async () => {
  const page = await b.open('embed.html?view=decode&model=models/no-such-model/');
  await page.waitForFunction(() => /config\.json/.test(document.querySelector('attention-playground')?.shadowRoot
    ?.querySelector('[data-slot="decode"] [role="alert"]')?.textContent ?? ''), null, { timeout: 20000 });
  const text = await app(page).locator('[data-slot="decode"] [role="alert"]').textContent();
  assert.doesNotMatch(text, /being opened/);
  await page.close();
});

test('a model\'s maps are drawn before its head roles are measured (the probes are more forwards): the roles fill in after', async () => {
  // At the moment the model view marks its first drawn maps, what does it show? (The mark is made
  // right after the maps are drawn, in the same task.)
  const page = await b.open('embed.html?view=model&model=models/gpt2/', { init: () => {
    const mark = performance.mark.bind(performance);
    performance.mark = (name, ...rest) => {
      if (name === 'attention-playground:model-maps') {
        const view = document.querySelector('attention-playground')?.shadowRoot?.querySelector('[data-slot="model"]');
        window.atFirstMaps = { maps: view?.querySelectorAll('[data-role="overview"] canvas[data-layer]').length ?? 0,
          pending: Boolean(view?.querySelector('[data-role="roles-pending"]')), rolesTable: Boolean(view?.querySelector('[data-role="head-roles"]')),
          state: view?.dataset.state };
      }
      return mark(name, ...rest);
    };
  } });
  const el = app(page);
  await opened(page);
  const first = await page.evaluate(() => window.atFirstMaps ?? null);
  assert.deepEqual(first, { maps: 8, pending: true, rolesTable: false, state: 'busy' },
    'the first maps are drawn (2 layers × 4 heads) while the roles are still pending and the view busy');
  assert.equal(await el.locator('[data-role="head-roles"] tbody tr').count(), 4, 'then the roles table');
  assert.equal(await el.locator('[data-role="roles-pending"]').count(), 0, 'and no pending note');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a checkpoint the core refuses says why, naming the field; a drop without config.json and another site are refused; the page keeps working', async () => {
  const page = await b.open('index.html');
  const el = app(page);
  await viewReady(page, 'model');
  const dir = path.join(FIXTURES, 'deepseek_v2');
  const config = { ...JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')), first_k_dense_replace: 1 };
  await el.locator('[data-role="pick-files"]').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(config)) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: fs.readFileSync(path.join(dir, 'model.safetensors')) },
  ]);
  const error = el.locator('[data-role="model-error"]');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.innerText(), /cannot be opened: layer 1 is a mixture-of-experts layer.*\(config\.first_k_dense_replace\)/);
  assert.equal(await error.getAttribute('data-field'), 'config.first_k_dense_replace');
  // dropped on the drop zone: the weights without their config.json
  await el.locator('[data-role="drop"]').evaluate((zone, b64) => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'model.safetensors'));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, fs.readFileSync(path.join(dir, 'model.safetensors')).toString('base64'));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-role="model-error"]')?.dataset.field === 'config.json');
  await viewReady(page, 'heatmap');
  assert.equal((await viewResult(page, 'heatmap')).source, 'seeded', 'a refused checkpoint leaves the lesson\'s maps');
  await page.close();

  const other = await b.open('index.html?model=https://example.com/models/gpt2/');
  await app(other).locator('[data-role="model-error"]').waitFor({ state: 'visible' });
  assert.match(await app(other).locator('[data-role="model-error"]').innerText(), /another site.*\(model\)/);
  assert.deepEqual(b.outside, [], 'nothing was fetched from the other site');
  await other.close();
});
