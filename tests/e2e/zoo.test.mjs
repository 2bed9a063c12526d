// The trained source (web/src/sources/zoo.js): `source=trained` draws the zoo model of the variant
// (dist/zoo/) in the attention-maps and compare views — the same weights the core gives in Node for that file and
// the sentence's characters, a layer picker, each head labelled with its measured role. The first map
// of the default page fetches nothing of the zoo; the switch in the form fetches the manifest and one
// model. standalone.html carries the zoo and draws it from file:// with no request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, REPO, SHOTS, app, shot, startBrowser, startStandalone, viewReady, viewResult } from './browser.mjs';

const { loadAttention } = await import(pathToFileURL(path.join(DIST, 'lib', 'attention.mjs')).href);
const { charVocab, charTokens } = await import(pathToFileURL(path.join(REPO, 'web/src/sources/zoo.js')).href);
const { zooRows } = await import(pathToFileURL(path.join(REPO, 'web/src/sources/zoo-stats.js')).href);
const { verdictText, zooLabel: zooLabelOf } = await import(pathToFileURL(path.join(REPO, 'web/src/parts/compare-zoo.js')).href);
const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'web/zoo/manifest.json'), 'utf8'));
const corpus = fs.readFileSync(path.join(REPO, manifest.corpus.file), 'utf8');

let b, attn;
before(async () => { b = await startBrowser(); attn = await loadAttention({ simd: true }); });
after(async () => { await b?.close(); });

/** The core's maps (layers, H, N, N) for a zoo model and a sentence, in Node. */
function nodeMaps(id, sentence) {
  const m = manifest.models.find((x) => x.id === id);
  const trainer = attn.loadModel(new Uint8Array(fs.readFileSync(path.join(REPO, 'web/zoo', m.file))), { text: corpus });
  try {
    const { ids } = charTokens(sentence, charVocab(corpus), manifest.training.seqLen);
    return { ...trainer.attention(ids), ids };
  } finally {
    trainer.dispose();
  }
}

test('source=trained: the zoo model of the variant, the core\'s weights, a layer picker and head roles', async () => {
  const page = await b.open('embed.html?view=heatmap&source=trained&variant=gqa&nKvHeads=2&v=2');
  await viewReady(page, 'heatmap');
  const el = app(page);
  const result = await viewResult(page, 'heatmap');
  const sentence = 'the cat sat on the mat';
  assert.equal(result.source, 'trained');
  assert.equal(result.tokens, sentence.length, 'one position per character');
  assert.equal(result.heads, manifest.geometry.nHeads);
  assert.equal(await el.locator('.kv-group').count(), 2, 'GQA with 2 KV heads: two groups');
  const summary = await el.locator('[data-role="summary"]').innerText();
  assert.match(summary, /trained on Shakespeare/);
  assert.match(summary, /GQA, 2 KV heads, seed 1, \d\.\d\d bits per character/);

  // Layer 0's head 0, cell (1, 0) as the read-out gives it, against the core in Node.
  const want = nodeMaps('gqa2', sentence);
  const N = want.n;
  const canvas = el.locator('canvas[data-head="0"]');
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  const readout = await el.locator('[data-slot="heatmap"] [data-role="readout"]').innerText();
  assert.ok(readout.includes(want.weights[(0 * N + 1) * N + 0].toFixed(3)), `read-out "${readout}" vs the core's ${want.weights[N]}`);

  // Each map's title carries its head's strongest score, from the manifest.
  const titles = await el.locator('[data-slot="heatmap"] figure.hm').evaluateAll((fs) => fs.map((f) => f.querySelector('figcaption, .hm-title')?.textContent ?? ''));
  assert.ok(titles.some((t) => /previous token 0\.\d\d/.test(t)), `titles: ${titles.join(' | ')}`);

  // The layer picker: layer 3 draws the core's layer 3.
  const draws = Number(await el.locator('[data-slot="heatmap"]').getAttribute('data-draws'));
  await el.locator('[data-slot="heatmap"] select[name="layer"]').selectOption('3');
  await viewReady(page, 'heatmap', draws + 1);
  assert.equal((await viewResult(page, 'heatmap')).layer, 3);
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  const size = manifest.geometry.nHeads * N * N;
  const readout3 = await el.locator('[data-slot="heatmap"] [data-role="readout"]').innerText();
  assert.ok(readout3.includes(want.weights[3 * size + N].toFixed(3)), `layer 3 read-out "${readout3}"`);
  // Layer 3's heads: a role only where a score clearly beats a uniform head's over 64 characters
  // (labs/role-baseline.js: 0.295 for the previous token and self); GQA-2's layer 3 has none.
  const titles3 = await el.locator('[data-slot="heatmap"] figure.hm .hm-title').allTextContents();
  const scores3 = manifest.models.find((m) => m.id === 'gqa2').headScores.filter((h) => h.layer === 3);
  assert.ok(scores3.every((h) => Math.max(h.previousToken, h.diagonal, h.firstToken) < 0.29));
  assert.deepEqual(titles3, scores3.map((h) => `head ${h.head} → K/V ${Math.floor(h.head / 4)} · no role stands out`), titles3.join(' | '));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the default page fetches none of the zoo; the form\'s switch fetches the manifest and the models drawn', async () => {
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
  // the manifest and the models drawn: MHA in the maps view; compare's default columns MHA, GQA (nKvHeads 2), MLA (latent 16)
  assert.deepEqual(zoo.sort(), ['gqa2.safetensors', 'manifest.json', 'mha.safetensors', 'mla16.safetensors']);
  await el.locator('[data-slot="heatmap"]').screenshot({ path: path.join(SHOTS, 'zoo-heatmap.png') });
  // Back to the lesson's example.
  await el.locator('select[name="source"]').selectOption('seeded');
  await viewReady(page, 'heatmap', draws + 2);
  assert.equal((await viewResult(page, 'heatmap')).source, 'seeded');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('compare: the zoo\'s table, fetched when opened, its words following the numbers; "Show its maps" draws that model', async () => {
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
  assert.ok(rows.slice(1).every((r) => got[rows.indexOf(r)].includes(r.vsMha.measurable ? 'worse' : 'no measurable')));
  // The scatter of bits/char against cache bytes: its x axis spans the data (not a decade beyond it), a
  // tick at each model's cache size, and each point labelled with its model.
  await box.locator('.lab-chart').scrollIntoViewIfNeeded();
  const drawn = await box.locator('.lab-chart').evaluate((e) => e.drawn());
  const xs = [...new Set(rows.map((r) => r.kvBytesPerToken))].sort((a, c) => a - c);
  assert.ok(drawn.x[0] >= xs[0] / 1.5 && drawn.x[1] <= xs.at(-1) * 1.5, `x domain ${drawn.x} for data ${xs}`);
  assert.deepEqual(drawn.ticks, xs.map((x) => `${x.toLocaleString('en-US')} B`), 'a tick at each cache size');
  assert.deepEqual([...drawn.pointLabels].sort(), rows.map((r) => zooLabelOf(r)).sort(), 'every point labelled with its model');
  await shot(page, 'zoo-scatter');
  // Click 2 of 3: the MQA row's "Show its maps" puts the trained MQA in the attention-maps view.
  const draws = Number(await el.locator('[data-slot="heatmap"]').getAttribute('data-draws'));
  await box.locator('tr[data-model="mqa"] button[data-action="zoo-maps"]').click();
  await viewReady(page, 'heatmap', draws + 1);
  const result = await viewResult(page, 'heatmap');
  assert.equal(result.source, 'trained');
  assert.match(await el.locator('[data-slot="heatmap"] [data-role="summary"]').innerText(), /Model: MQA, seed 1/);
  assert.ok(requests.some((u) => u.endsWith('/zoo/mqa.safetensors')));
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
  const titles = await el.locator('[data-slot="heatmap"] figure.hm').allInnerTexts();
  assert.ok(titles.some((x) => /previous token 0\.[1-9]/.test(x)), 'a previous-token head is labelled on its map');
  await el.locator('details[data-role="head-scores-box"] summary').click();
  const mha = manifest.models.find((m) => m.id === 'mha');
  const rows = el.locator('table[data-role="head-scores"] tbody tr');
  assert.equal(await rows.count(), mha.headScores.length);
  const l0h1 = await el.locator('table[data-role="head-scores"] tr[data-layer="0"][data-head="1"]').innerText();
  assert.ok(l0h1.includes(mha.headScores[1].previousToken.toFixed(2)), l0h1);
  await el.locator('button[data-action="show-layer"]', { hasText: '2' }).click();
  await viewReady(page, 'heatmap', 3);
  assert.equal((await viewResult(page, 'heatmap')).layer, 2);
  assert.equal(await el.locator('table[data-role="head-scores"] tr.current[data-layer="2"]').count(), 8);
  assert.ok(await el.locator('details[data-role="head-scores-box"]').evaluate((d) => d.open), 'the table stays open');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('compare with source=trained: each column the zoo model of its variant, never differenced head by head', async () => {
  const page = await b.open('embed.html?view=compare&source=trained&compare=mha,gqa,mla&nKvHeads=2&latentRank=16&v=2');
  await viewReady(page, 'compare');
  const el = app(page);
  const slot = el.locator('[data-slot="compare"]');
  assert.match(await slot.locator('.cmp-note').innerText(), /trained on its own/);
  assert.equal(await slot.locator('[data-role="honest"] > p').first().isHidden(), true, 'no "these weights are random" over trained models');
  assert.equal(await slot.locator('.cmp-col').count(), 3);
  for (let c = 0; c < 3; c++) assert.equal(await slot.locator('.cmp-col').nth(c).locator('canvas').count(), manifest.geometry.nHeads);
  const diffs = await slot.locator('.cmp-diff').allInnerTexts();
  assert.ok(diffs.slice(1).every((d) => /not differenced/.test(d)) && diffs.length === 3, diffs.join(' | '));
  // The GQA column's parameters are the trained model's block: dModel 64, 8 heads of 8, 2 KV heads.
  const g = manifest.geometry;
  const gqaBlock = 2 * g.dModel * g.nHeads * g.dHead + 2 * g.dModel * 2 * g.dHead;
  assert.ok((await slot.locator('.cmp-col').nth(1).innerText()).includes(gqaBlock.toLocaleString('en-US')), `GQA block ${gqaBlock}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('with source=trained, the walkthrough draws a trained layer\'s stages and decode runs its KV cache, both the core\'s', async () => {
  const sentence = 'to be or not';
  const page = await b.open(`index.html?source=trained&layer=1&v=2&text=${encodeURIComponent(sentence)}`);
  await viewReady(page, 'walkthrough');
  const el = app(page);
  const want = nodeMaps('mha', sentence);
  const N = want.n, H = manifest.geometry.nHeads;
  // The walkthrough's softmax step: its attention tensor is layer 1 of the trainer's maps.
  await el.locator('[data-slot="walkthrough"] button[data-step="softmax"]').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="walkthrough"]')?.result?.step === 'softmax');
  const wt = await viewResult(page, 'walkthrough');
  const drawn = wt.drawn.attention;
  assert.deepEqual(drawn.shape, [H, N, N]);
  const layer1 = want.weights.subarray(1 * H * N * N, 2 * H * N * N);
  const worst = Math.max(...Array.from(drawn.data, (v, i) => Math.abs(v - layer1[i])));
  assert.ok(worst < 1e-5, `walkthrough's attention vs the trainer's layer 1: ${worst}`);
  assert.equal(wt.shape.dModel, manifest.geometry.dModel);
  assert.match(await el.locator('[data-slot="walkthrough"] [data-role="summary"]').innerText(), /trained on Shakespeare \(MHA, seed 1\): its layer 1 of 4/);
  assert.equal(await el.locator('[data-slot="walkthrough"] [data-role="seeded-here"]').count(), 0);

  // Decode: three characters one by one through the core's session over layer 1; the newest token's
  // weights are its row of the maps, the cache grows by one layer's K and V in float32 per character.
  await viewReady(page, 'decode');
  const dec = el.locator('[data-slot="decode"]');
  for (let i = 0; i < 3; i++) {
    await dec.locator('button[data-action="step"]').click();
    await page.waitForFunction((k) => document.querySelector('attention-playground').shadowRoot
      .querySelector('[data-slot="decode"]')?.result?.length === k, i + 1);
  }
  const r = await viewResult(page, 'decode');
  assert.equal(r.cacheBytes, 3 * 2 * H * manifest.geometry.dHead * 4, 'K and V of 8 heads of 8, float32, per character');
  const predict = dec.locator('button[data-action="predict"]');
  assert.equal(await predict.isHidden(), false, 'the trained model says its next character');
  await predict.click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="decode"]')?.result?.length === 4);
  assert.equal(await el.locator('[data-slot="decode"] [data-role="seeded-here"]').count(), 0);
  await dec.screenshot({ path: path.join(SHOTS, 'zoo-decode.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('characters the corpus never uses are left out, and the view says which', async () => {
  const page = await b.open(`embed.html?view=heatmap&source=trained&v=2&text=${encodeURIComponent('café 42 ok')}`);
  await viewReady(page, 'heatmap');
  const summary = await app(page).locator('[data-role="summary"]').innerText();
  const { labels, unknown } = charTokens('café 42 ok', charVocab(corpus), 64);
  assert.ok(unknown.length > 0, 'the sentence has characters the corpus lacks');
  assert.equal((await viewResult(page, 'heatmap')).tokens, labels.length);
  for (const c of unknown) assert.ok(summary.includes(c), `the note names ${c}: ${summary}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('standalone.html draws a zoo model from file:// with no request', async () => {
  const standalone = await startStandalone();
  try {
    const page = await standalone.open('?source=trained&variant=mla&latentRank=16&v=2');
    await viewReady(page, 'heatmap', 1, 0, 60000);
    assert.equal((await viewResult(page, 'heatmap')).source, 'trained');
    assert.match(await page.locator('attention-playground [data-slot="heatmap"] [data-role="summary"]').innerText(), /MLA, latent 16/);
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.outside(), []);
  } finally {
    await standalone.close();
  }
});

test('a trained model\'s eight heads are small maps on one screen (desktop and phone); a click or Enter opens one large', async () => {
  const text = 'to be, or not to be, that is the question: whether tis nobler in the mind';
  for (const [width, height] of [[1280, 900], [390, 844]]) {
    const page = await b.open(`embed.html?view=heatmap&v=2&source=trained&text=${encodeURIComponent(text)}`, { viewport: { width, height } });
    await viewReady(page, 'heatmap', 1, 0, 30000);
    const el = app(page);
    const result = await viewResult(page, 'heatmap');
    assert.ok(result.smallMaps > 0, `${width}px: small maps (${JSON.stringify(result)})`);
    const boxes = await el.locator('[data-slot="heatmap"] canvas[data-head]').evaluateAll((cs) => cs.map((c) => c.getBoundingClientRect())
      .map((r) => ({ top: r.top, bottom: r.bottom })));
    assert.equal(boxes.length, manifest.geometry.nHeads);
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
  const text = 'to be, or not to be, that is the question';
  const page = await b.open(`embed.html?view=decode&v=2&source=trained&text=${encodeURIComponent(text)}`);
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
