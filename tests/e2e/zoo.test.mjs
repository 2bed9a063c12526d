// The trained source (web/src/sources/zoo.js): `source=trained` draws the zoo model of the variant
// (dist/zoo/<id>/, a Hugging Face checkpoint folder) opened as a dropped folder is (sources/pretrained.js):
// the sentence split by the model's own tokenizer.json, the maps the core's (the same as attn.loadPretrained
// gives in Node for that folder), a layer picker, each head labelled with the manifest's measured role,
// the notes on how the models were trained and which scores reach their floors. The compare view's
// columns, the walkthrough and the decode view run the same checkpoint. The first map of the default
// page fetches nothing of the zoo; the switch in the form fetches the manifest and the folders drawn.
// standalone.html carries the zoo and draws it from file:// with no request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, REPO, SHOTS, app, shot, startBrowser, startStandalone, viewReady, viewResult } from './browser.mjs';

const src = (f) => import(pathToFileURL(path.join(REPO, 'web/src', f)).href);
const { loadAttention } = await import(pathToFileURL(path.join(DIST, 'lib', 'attention.mjs')).href);
const { SETTLED_SEEDS, zooRows, zooLabel } = await src('sources/zoo-stats.js');
const { runsDiffer, verdictText, verdictWords } = await src('parts/compare-zoo.js');
const { roleField, roleLabel } = await src('sources/zoo-roles.js');
const { zooNotes } = await src('sources/zoo-notes.js');
const { EN } = await src('i18n/index.js');
await src('i18n/catalogs/en/zoo.js');
const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'web/zoo/manifest.json'), 'utf8'));
const H = manifest.geometry.nHeads;

let b, attn;
before(async () => { b = await startBrowser(); attn = await loadAttention({ simd: true }); });
after(async () => { await b?.close(); });

/** A zoo folder's file in the repository. */
const zooFile = (id, name) => fs.readFileSync(path.join(REPO, 'web/zoo', id, name));

/** The sentence as the model's tokenizer splits it (labels: each id's text, as the page shows it) and every layer's maps, in Node. */
async function nodeMaps(id, sentence) {
  const tok = await attn.loadTokenizer(zooFile(id, 'tokenizer.json').toString('utf8'));
  const ids = [...tok.encode(sentence, { addSpecialTokens: true }).ids];
  const model = await attn.loadPretrained({ config: JSON.parse(zooFile(id, 'config.json')), weights: [new Blob([zooFile(id, 'model.safetensors')])] });
  try {
    return { ids, n: ids.length, labels: ids.map((i) => tok.decode([i]).replaceAll(' ', '␣')), tokens: tok.encode(sentence).tokens,
      attentions: model.forward(ids, { attentions: true }).attentions };
  } finally {
    model.dispose();
  }
}

/** A head's label as the manifest's scores give it (sources/zoo-roles.js), over the manifest's seqLen. */
const roleOf = (h) => roleLabel(h, roleField(h, manifest.training.seqLen), EN.t);

const rowLabels = (el) => el.locator('[data-slot="heatmap"] figure.hm').first().locator('.hm-rows span').allTextContents();

test('source=trained: the variant\'s checkpoint, its tokenizer\'s word tokens, the core\'s maps, a layer picker, measured labels and notes', async () => {
  const sentence = 'the cat sat on the mat';
  const page = await b.open('embed.html?view=heatmap&source=trained&variant=gqa&nKvHeads=2&v=2');
  await viewReady(page, 'heatmap');
  const el = app(page);
  const want = await nodeMaps('gqa2', sentence);
  assert.deepEqual(want.tokens, ['the', 'Ġc', 'at', 'Ġsat', 'Ġon', 'Ġthe', 'Ġm', 'at'].slice(0, want.tokens.length), 'the shipped tokenizer\'s pieces');
  const result = await viewResult(page, 'heatmap');
  assert.equal(result.source, 'trained');
  assert.equal(result.tokens, want.n, 'one position per token of the model\'s tokenizer');
  assert.equal(result.heads, H);
  assert.deepEqual(await rowLabels(el), want.labels, 'the tokens\' labels are the tokenizer\'s ("␣sat", not characters)');
  assert.ok(want.labels.includes('␣sat'));
  assert.equal(await el.locator('.kv-group').count(), 2, 'GQA with 2 KV heads: two groups');
  const summary = await el.locator('[data-role="summary"]').innerText();
  assert.match(summary, new RegExp(`${want.n} tokens`));
  assert.match(summary, /trained on Shakespeare \(word-level tokens\)/);
  assert.match(summary, /GQA, 2 KV heads, seed 1, \d+\.\d\d bits per token/);

  // Layer 0's head 0, cell (1, 0) as the read-out gives it, against the core in Node.
  const N = want.n;
  const canvas = el.locator('canvas[data-head="0"]');
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  const readout = await el.locator('[data-slot="heatmap"] [data-role="readout"]').innerText();
  assert.ok(readout.includes(want.attentions[0][N].toFixed(3)), `read-out "${readout}" vs the core's ${want.attentions[0][N]}`);

  // Each map's title carries its head's strongest score from the manifest, where it clearly beats a uniform head's.
  const scores = manifest.models.find((m) => m.id === 'gqa2').headScores;
  const titlesOf = async (layer) => {
    const titles = await el.locator('[data-slot="heatmap"] figure.hm .hm-title').allTextContents();
    assert.deepEqual(titles, scores.filter((h) => h.layer === layer).map((h) => `head ${h.head} → K/V ${Math.floor(h.head / 4)} · ${roleOf(h)}`), titles.join(' | '));
  };
  await titlesOf(0);
  // Under the maps: how the models were trained, and each floor met or not, the manifest's words and numbers.
  assert.deepEqual(await el.locator('[data-role="zoo-note"]').allInnerTexts(), zooNotes(manifest, EN.t, 'gqa2'));

  // The layer picker: the last layer draws the core's last layer.
  const last = manifest.geometry.nLayers - 1;
  const draws = Number(await el.locator('[data-slot="heatmap"]').getAttribute('data-draws'));
  await el.locator('[data-slot="heatmap"] select[name="layer"]').selectOption(String(last));
  await viewReady(page, 'heatmap', draws + 1);
  assert.equal((await viewResult(page, 'heatmap')).layer, last);
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  const readoutLast = await el.locator('[data-slot="heatmap"] [data-role="readout"]').innerText();
  assert.ok(readoutLast.includes(want.attentions[last][N].toFixed(3)), `layer ${last} read-out "${readoutLast}"`);
  await titlesOf(last);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the default page fetches none of the zoo; the form\'s switch fetches the manifest and the folders drawn', async () => {
  const requests = [];
  const page = await b.open('index.html');
  page.on('request', (r) => requests.push(r.url()));
  await viewReady(page, 'heatmap');
  const el = app(page);
  assert.equal((await viewResult(page, 'heatmap')).source, 'seeded');
  assert.deepEqual(requests.filter((u) => u.includes('/zoo/')), [], 'the seeded first map loads none of the zoo');
  const draws = Number(await el.locator('[data-slot="heatmap"]').getAttribute('data-draws'));
  await el.locator('select[name="source"]').selectOption('trained');
  await viewReady(page, 'heatmap', draws + 1);
  assert.equal((await viewResult(page, 'heatmap')).source, 'trained');
  assert.match(page.url(), /source=trained/, 'the URL carries the switch');
  await viewReady(page, 'compare', 2);
  const zoo = [...new Set(requests.filter((u) => u.includes('/zoo/')).map((u) => u.split('/zoo/')[1]))];
  // the manifest and the folders drawn: MHA in the maps view; compare's default columns MHA, GQA (nKvHeads 2), MLA (latent 16)
  const folder = (id) => ['config.json', 'model.safetensors', 'tokenizer.json'].map((f) => `${id}/${f}`);
  assert.deepEqual(zoo.sort(), ['manifest.json', ...folder('gqa2'), ...folder('mha'), ...folder('mla16')].sort());
  await el.locator('[data-slot="heatmap"]').screenshot({ path: path.join(SHOTS, 'zoo-heatmap.png') });
  // Back to the lesson's example.
  await el.locator('select[name="source"]').selectOption('seeded');
  await viewReady(page, 'heatmap', draws + 2);
  assert.equal((await viewResult(page, 'heatmap')).source, 'seeded');
  assert.deepEqual(page.errors, []);
  await page.close();
});

/**
 * The scatter shows each model's seeds (a bar from the lowest to the highest, when it has several) and
 * no label over another (GQA-4's and MHA's means are close).
 */
function assertScatterHonest(drawn, rows, where) {
  const several = rows.filter((r) => r.seedBits.length > 1);
  assert.deepEqual(drawn.bars.map((x) => x.label).sort(), several.map((r) => zooLabel(r)).sort(), `${where}: a bar for each model with several seeds`);
  for (const r of several) {
    const bar = drawn.bars.find((x) => x.label === zooLabel(r));
    assert.deepEqual([bar.lo, bar.hi, bar.runs], [Math.min(...r.seedBits), Math.max(...r.seedBits), r.seedBits.length], `${where}: ${bar.label}'s bar`);
  }
  const boxes = drawn.labelBoxes;
  for (let i = 0; i < boxes.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = boxes[i], c = boxes[j];
      const apart = a.right <= c.left || a.left >= c.right || a.bottom <= c.top || a.top >= c.bottom;
      assert.ok(apart, `${where}: the labels ${a.label} and ${c.label} overlap (${JSON.stringify([a, c])})`);
    }
  }
}

test('compare on a phone: the zoo\'s scatter keeps every label apart and shows each model\'s seeds', async () => {
  const page = await b.open('embed.html?view=compare&v=2', { viewport: { width: 390, height: 844 } });
  await viewReady(page, 'compare', 1, 0, 30000);
  const box = app(page).locator('details[data-role="zoo"]');
  await box.locator('summary').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('details[data-role="zoo"]')?.dataset.state === 'ready', null, { timeout: 20000 });
  await box.locator('.lab-chart').scrollIntoViewIfNeeded();
  const rows = zooRows(manifest);
  const drawn = await box.locator('.lab-chart').evaluate((e) => e.drawn());
  assert.deepEqual([...drawn.pointLabels].sort(), rows.map((r) => zooLabel(r)).sort(), 'every point labelled');
  assertScatterHonest(drawn, rows, '390 px');
  if (rows.some((r) => r.seedBits.length > 1)) assert.match(await box.locator('[data-role="zoo-bars"]').innerText(), /lowest seed to its highest/);
  await box.locator('.lab-chart').screenshot({ path: path.join(SHOTS, 'zoo-scatter-390.png') });
  // dark: the chart draws again in the theme's colours, its labels still apart
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('details[data-role="zoo"] .lab-chart').drawn().labelBoxes.length > 0);
  assertScatterHonest(await box.locator('.lab-chart').evaluate((e) => e.drawn()), rows, '390 px, dark');
  await box.screenshot({ path: path.join(SHOTS, 'zoo-compare-390-dark.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('compare: the zoo\'s table in bits per token, fetched when opened, its words following the numbers; "Show its maps" draws that model', async () => {
  const requests = [];
  const page = await b.open('index.html?v=2');
  page.on('request', (r) => requests.push(r.url()));
  await viewReady(page, 'compare');
  const el = app(page);
  const box = el.locator('details[data-role="zoo"]');
  assert.deepEqual(requests.filter((u) => u.includes('/zoo/')), [], 'nothing of the zoo before the box opens');
  await box.locator('summary').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('details[data-role="zoo"]')?.dataset.state === 'ready', null, { timeout: 20000 });
  const rows = zooRows(manifest);
  const got = await box.locator('tr[data-model] [data-role="verdict"]').allInnerTexts();
  assert.deepEqual(got, rows.map((r) => verdictText(r.vsMha)));
  const seeds = manifest.training.seeds.length;
  const caption = await box.locator('caption').innerText();
  assert.ok(caption.includes(`${manifest.training.steps.toLocaleString('en-US')} steps`) && caption.includes('bits per token'), caption);
  const words = await box.locator('[data-role="zoo-words"]').innerText();
  if (seeds < 2) {
    // one seed: no spread to give, so no "± 0" and no verdict
    assert.ok(got.slice(1).every((v) => v.endsWith('one seed: not settled')), got.join(' | '));
    assert.ok(!(await box.locator('tr[data-model]').allInnerTexts()).join(' ').includes('±'), 'no ± 0 of a single seed');
    assert.match(words, /one seed, so no difference here is settled/);
  } else if (seeds < SETTLED_SEEDS) {
    // a spread too rough to judge by: shown, with the seeds' count, and no verdict
    assert.ok(got.slice(1).every((v) => v.endsWith(`${seeds} seeds: not settled`)), got.join(' | '));
    const cells = (await box.locator('tr[data-model]').allInnerTexts()).join(' ');
    assert.ok(cells.includes('±') && cells.includes(`(${seeds} seeds)`), cells);
    assert.match(words, new RegExp(`trained with ${seeds} seeds, fewer than the ${SETTLED_SEEDS} from which this table names a difference`));
  } else {
    assert.ok(rows.slice(1).every((r) => got[rows.indexOf(r)].includes(r.vsMha.measurable ? (r.vsMha.diff > 0 ? 'worse' : 'better') : 'no measurable')));
    // the words name each verdict's models, and what else differs between the runs (the manifest's starts and circuits)
    assert.ok(words.includes(verdictWords(rows)) && words.includes(runsDiffer(rows)), words);
  }
  // The scatter of bits/token against cache bytes: its x axis spans the data (not a decade beyond it), a
  // tick at each model's cache size, and each point labelled with its model.
  await box.locator('.lab-chart').scrollIntoViewIfNeeded();
  const drawn = await box.locator('.lab-chart').evaluate((e) => e.drawn());
  const xs = [...new Set(rows.map((r) => r.kvBytesPerToken))].sort((a, c) => a - c);
  assert.ok(drawn.x[0] >= xs[0] / 1.5 && drawn.x[1] <= xs.at(-1) * 1.5, `x domain ${drawn.x} for data ${xs}`);
  assert.deepEqual(drawn.ticks, xs.map((x) => `${x.toLocaleString('en-US')} B`), 'a tick at each cache size');
  assert.deepEqual([...drawn.pointLabels].sort(), rows.map((r) => zooLabel(r)).sort(), 'every point labelled with its model');
  assertScatterHonest(drawn, rows, '1280 px');
  await box.locator('.lab-chart').screenshot({ path: path.join(SHOTS, 'zoo-scatter-1280.png') });
  await shot(page, 'zoo-scatter');
  // The MQA row's "Show its maps" puts the trained MQA in the attention-maps view.
  const draws = Number(await el.locator('[data-slot="heatmap"]').getAttribute('data-draws'));
  await box.locator('tr[data-model="mqa"] button[data-action="zoo-maps"]').click();
  await viewReady(page, 'heatmap', draws + 1);
  assert.equal((await viewResult(page, 'heatmap')).source, 'trained');
  assert.match(await el.locator('[data-slot="heatmap"] [data-role="summary"]').innerText(), /Model: MQA, seed 1/);
  assert.ok(requests.some((u) => u.endsWith('/zoo/mqa/model.safetensors')));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('one click from the lesson\'s example to trained heads; every head\'s scores as a table, a layer a click away', async () => {
  const page = await b.open('embed.html?view=heatmap&v=2');
  await viewReady(page, 'heatmap');
  const el = app(page);
  await el.locator('button[data-action="see-trained"]').click();
  await viewReady(page, 'heatmap', 2);
  assert.equal((await viewResult(page, 'heatmap')).source, 'trained');
  const mha = manifest.models.find((m) => m.id === 'mha');
  const titles = await el.locator('[data-slot="heatmap"] figure.hm .hm-title').allTextContents();
  assert.deepEqual(titles, mha.headScores.filter((h) => h.layer === 0).map((h) => `head ${h.head} · ${roleOf(h)}`));
  await el.locator('details[data-role="head-scores-box"] summary').click();
  const rows = el.locator('table[data-role="head-scores"] tbody tr');
  assert.equal(await rows.count(), mha.headScores.length);
  const l0h1 = await el.locator('table[data-role="head-scores"] tr[data-layer="0"][data-head="1"]').innerText();
  assert.ok(l0h1.includes(mha.headScores[1].previousToken.toFixed(2)), l0h1);
  const last = manifest.geometry.nLayers - 1;
  await el.locator('button[data-action="show-layer"]', { hasText: String(last) }).click();
  await viewReady(page, 'heatmap', 3);
  assert.equal((await viewResult(page, 'heatmap')).layer, last);
  assert.equal(await el.locator(`table[data-role="head-scores"] tr.current[data-layer="${last}"]`).count(), H);
  assert.ok(await el.locator('details[data-role="head-scores-box"]').evaluate((d) => d.open), 'the table stays open');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('compare with source=trained: each column the zoo model of its variant, never differenced head by head', async () => {
  // every Worker the page starts, by its script's URL
  const countWorkers = () => {
    const W = window.Worker;
    window.startedWorkers = [];
    window.Worker = class extends W { constructor(url, options) { super(url, options); window.startedWorkers.push(String(url)); } };
  };
  const page = await b.open('embed.html?view=compare&source=trained&compare=mha,gqa,mla&nKvHeads=2&latentRank=16&v=2', { init: countWorkers });
  await viewReady(page, 'compare');
  const el = app(page);
  const slot = el.locator('[data-slot="compare"]');
  const note = await slot.locator('.cmp-note').innerText();
  assert.match(note, /trained on its own/);
  assert.match(note, /Same input \(8 tokens\)/, note);
  assert.equal(await slot.locator('[data-role="honest"] > p').first().isHidden(), true, 'no "these weights are random" over trained models');
  assert.equal(await slot.locator('.cmp-col').count(), 3);
  for (let c = 0; c < 3; c++) assert.equal(await slot.locator('.cmp-col').nth(c).locator('canvas').count(), H);
  const diffs = await slot.locator('.cmp-diff').allInnerTexts();
  assert.ok(diffs.slice(1).every((d) => /not differenced/.test(d)) && diffs.length === 3, diffs.join(' | '));
  // The GQA column's parameters are the trained model's block: 8 query heads, 2 KV heads of dHead each.
  const g = manifest.geometry;
  const gqaBlock = 2 * g.dModel * g.nHeads * g.dHead + 2 * g.dModel * 2 * g.dHead;
  assert.ok((await slot.locator('.cmp-col').nth(1).innerText()).includes(gqaBlock.toLocaleString('en-US')), `GQA block ${gqaBlock}`);
  // The MLA column draws the DeepSeek-V2 checkpoint's layer 0, as the core computes it in Node.
  const want = await nodeMaps('mla16', 'the cat sat on the mat');
  const mla = slot.locator('.cmp-col').nth(2).locator('canvas').first();
  await mla.focus();
  await page.keyboard.press('ArrowDown');
  const readout = await slot.locator('[data-role="readout"]').first().innerText();
  assert.ok(readout.includes(want.attentions[0][want.n].toFixed(3)), `MLA read-out "${readout}" vs ${want.attentions[0][want.n]}`);
  // three models, one tokenizer.json: one tokenizer worker
  const workers = await page.evaluate(() => window.startedWorkers);
  assert.equal(workers.filter((u) => /worker-tokenizer/.test(u)).length, 1, workers.join(' '));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('with source=trained, the walkthrough draws the checkpoint\'s layer and decode runs its KV cache, both the pretrained source\'s', async () => {
  const sentence = 'to be or not';
  const page = await b.open(`index.html?source=trained&layer=1&v=2&text=${encodeURIComponent(sentence)}`);
  await viewReady(page, 'walkthrough');
  const el = app(page);
  const want = await nodeMaps('mha', sentence);
  const N = want.n;
  // The walkthrough's softmax step: its attention tensor is layer 1 of the checkpoint's maps.
  await el.locator('[data-slot="walkthrough"] button[data-step="softmax"]').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="walkthrough"]')?.result?.step === 'softmax');
  const wt = await viewResult(page, 'walkthrough');
  const drawn = wt.drawn.attention;
  assert.deepEqual(drawn.shape, [H, N, N]);
  const worst = Math.max(...Array.from(drawn.data, (v, i) => Math.abs(v - want.attentions[1][i])));
  assert.ok(worst < 1e-5, `walkthrough's attention vs the checkpoint's layer 1: ${worst}`);
  assert.equal(wt.shape.dModel, manifest.geometry.dModel);
  const summary = await el.locator('[data-slot="walkthrough"] [data-role="summary"]').innerText();
  assert.match(summary, new RegExp(`Layer 1 of llama \\(${manifest.geometry.nLayers} layers\\)`), 'a checkpoint layer\'s steps (lesson/stages.js)');
  assert.match(summary, /a bundled model trained on Shakespeare \(MHA, seed 1\)\./);
  assert.equal(await el.locator('[data-slot="walkthrough"] [data-role="seeded-here"]').count(), 0);

  // Decode: the sentence's tokens one by one through the checkpoint's KV-cache session, the model naming its next token.
  await viewReady(page, 'decode');
  const dec = el.locator('[data-slot="decode"]');
  assert.match(await dec.locator('button[data-action="step"]').textContent(), /to/, 'the first step appends the tokenizer\'s first token');
  for (let i = 0; i < 3; i++) {
    await dec.locator('button[data-action="step"]').click();
    await page.waitForFunction((k) => document.querySelector('attention-playground').shadowRoot
      .querySelector('[data-slot="decode"]')?.result?.length === k, i + 1);
  }
  const r = await viewResult(page, 'decode');
  const mha = manifest.models.find((m) => m.id === 'mha');
  assert.equal(r.cacheBytes, 3 * mha.kvBytesPerToken, 'K and V of every layer, float32, per token');
  const predict = dec.locator('button[data-action="predict"]');
  assert.equal(await predict.isHidden(), false, 'the trained model says its next token');
  await predict.click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="decode"]')?.result?.length === 4);
  assert.equal(await el.locator('[data-slot="decode"] [data-role="seeded-here"]').count(), 0);
  await dec.screenshot({ path: path.join(SHOTS, 'zoo-decode.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('standalone.html draws a zoo model from file:// with no request', async () => {
  const standalone = await startStandalone();
  try {
    const page = await standalone.open('?source=trained&variant=mla&latentRank=16&v=2');
    await viewReady(page, 'heatmap', 1, 0, 60000);
    assert.equal((await viewResult(page, 'heatmap')).source, 'trained');
    const el = page.locator('attention-playground');
    assert.match(await el.locator('[data-slot="heatmap"] [data-role="summary"]').innerText(), /MLA, latent 16/);
    assert.deepEqual(await rowLabels(el), (await nodeMaps('mla16', 'the cat sat on the mat')).labels);
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.outside(), []);
  } finally {
    await standalone.close();
  }
});

const LONG = 'First Citizen: Before we proceed any further, hear me speak. All: Speak, speak. First Citizen: You are all resolved rather to die than to famish? All: Resolved. resolved.';

test('a trained model\'s eight heads are small maps on one screen (desktop and phone); a click or Enter opens one large', async () => {
  for (const [width, height] of [[1280, 900], [390, 844]]) {
    const page = await b.open(`embed.html?view=heatmap&v=2&source=trained&text=${encodeURIComponent(LONG)}`, { viewport: { width, height } });
    await viewReady(page, 'heatmap', 1, 0, 30000);
    const el = app(page);
    const result = await viewResult(page, 'heatmap');
    assert.ok(result.smallMaps > 0, `${width}px: small maps (${JSON.stringify(result)})`);
    const boxes = await el.locator('[data-slot="heatmap"] canvas[data-head]').evaluateAll((cs) => cs.map((c) => c.getBoundingClientRect())
      .map((r) => ({ top: r.top, bottom: r.bottom })));
    assert.equal(boxes.length, H);
    const span = Math.max(...boxes.map((r) => r.bottom)) - Math.min(...boxes.map((r) => r.top));
    assert.ok(span <= height, `${width}px: every head within one screen (${Math.round(span)} px of ${height})`);
    await shot(page, `zoo-heatmap-small-${width}`);
    // Click the third map: it opens large, rows selectable there; Close returns.
    const large = el.locator('[data-slot="heatmap"] [data-fit="large"]');
    assert.equal(await large.isHidden(), true);
    await el.locator('[data-slot="heatmap"] canvas[data-head="2"]').click();
    await large.waitFor({ state: 'visible' });
    assert.equal(await large.locator('canvas[data-large="2"]').count(), 1);
    const bigWidth = await large.locator('canvas').evaluate((c) => c.getBoundingClientRect().width);
    const smallWidth = await el.locator('[data-slot="heatmap"] canvas[data-head="2"]').evaluate((c) => c.getBoundingClientRect().width);
    assert.ok(bigWidth > 1.5 * smallWidth, `large ${bigWidth} px against small ${smallWidth} px`);
    if (width > 700) await shot(page, 'zoo-heatmap-large');
    await large.locator('button[data-action="close-large"]').click();
    await large.waitFor({ state: 'hidden' });
    // By keyboard: Enter on a small map opens it; Escape closes it and gives the focus back.
    await el.locator('[data-slot="heatmap"] canvas[data-head="5"]').focus();
    await page.keyboard.press('Enter');
    await large.waitFor({ state: 'visible' });
    assert.equal(await large.locator('canvas[data-large="5"]').count(), 1);
    assert.equal(await page.evaluate(() => document.querySelector('attention-playground').shadowRoot.activeElement?.dataset.large), '5');
    await page.keyboard.press('Escape');
    await large.waitFor({ state: 'hidden' });
    assert.equal(await page.evaluate(() => document.querySelector('attention-playground').shadowRoot.activeElement?.dataset.head), '5');
    assert.deepEqual(page.errors, []);
    await page.close();
  }
  // The lesson's example keeps its usual maps.
  const page = await b.open('embed.html?view=heatmap&v=2');
  await viewReady(page, 'heatmap');
  assert.equal((await viewResult(page, 'heatmap')).smallMaps, 0);
  await page.close();
});

test('decode: the newest token\'s strips have their keys under them, none overlapping another', async () => {
  const page = await b.open(`embed.html?view=decode&v=2&source=trained&text=${encodeURIComponent(LONG)}`);
  await viewReady(page, 'decode', 1, 0, 30000);
  const dec = app(page).locator('[data-slot="decode"]');
  await dec.locator('button[data-action="all"]').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="decode"]')?.result?.length > 30, null, { timeout: 30000 });
  await viewReady(page, 'decode', 1, 0, 30000);
  const { length } = await viewResult(page, 'decode');
  const keys = dec.locator('[data-role="keys"] span');
  assert.equal(await keys.count(), length, 'one place per cached token');
  const shown = await keys.evaluateAll((spans) => spans.filter((s) => s.textContent.trim()).map((s) => {
    const r = s.getBoundingClientRect();
    return { text: s.textContent, left: r.left, right: r.right };
  }));
  assert.ok(shown.length >= Math.min(length, 16), `labels shown: ${shown.length} of ${length}`);
  for (let k = 1; k < shown.length; k++) assert.ok(shown[k].left >= shown[k - 1].right - 0.5, `labels ${k - 1} and ${k} overlap`);
  await dec.screenshot({ path: path.join(SHOTS, 'zoo-decode-keys.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a change of language keeps the zoo\'s opened model (nothing fetched again) and its words follow the language', async () => {
  const requests = [];
  const page = await b.open('embed.html?view=heatmap&source=trained&v=2');
  page.on('request', (r) => requests.push(r.url()));
  await viewReady(page, 'heatmap');
  const fetched = requests.filter((u) => u.includes('/zoo/')).length;
  await page.evaluate(() => document.querySelector('attention-playground').setLang('hi'));
  await page.waitForFunction(() => document.querySelector('attention-playground').getAttribute('lang') === 'hi');
  await viewReady(page, 'heatmap');
  const el = app(page);
  const hi = (await import(pathToFileURL(path.join(REPO, 'web/src/i18n/catalogs/hi.js')).href)).default;
  await page.waitForFunction((want) => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"] [data-role="summary"]')?.textContent.includes(want), hi['source.zoo']);
  assert.equal((await viewResult(page, 'heatmap')).source, 'trained');
  assert.equal(requests.filter((u) => u.includes('/zoo/')).length, fetched, 'the opened model is kept');
  const notes = await el.locator('[data-role="zoo-note"]').allInnerTexts();
  assert.ok(notes.length > 0 && notes[0].startsWith(hi['zoo.trainedHow'].other.split(':')[0]), notes.join(' | '));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a zoo file that cannot be fetched: the maps say so (once, no loop), and the next ask tries again', async () => {
  const page = await b.context.newPage();
  page.errors = [];
  let refuse = true, asked = 0;
  await page.route('**/zoo/mha/model.safetensors', (route) => {
    asked++;
    return refuse ? route.fulfill({ status: 503, body: 'busy' }) : route.fallback();
  });
  await page.goto(`${b.base}embed.html?view=heatmap&source=trained&v=2`);
  const slot = () => page.evaluate(() => document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="heatmap"]')?.textContent ?? '');
  await page.waitForFunction(() => /HTTP 503/.test(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"] [data-role="summary"]')?.textContent ?? ''), null, { timeout: 20000 });
  await new Promise((r) => setTimeout(r, 500));
  assert.ok(asked <= 2, `asked ${asked} times: no loop of retries`);
  assert.match(await slot(), /HTTP 503/);
  // the next change asks again, and draws
  refuse = false;
  await page.evaluate(() => document.querySelector('attention-playground').setState({ text: 'to be or not' }));
  await viewReady(page, 'heatmap');
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.result?.source === 'trained', null, { timeout: 20000 });
  await page.close();
});
