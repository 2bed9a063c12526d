// Browser tests of the lesson views: the walkthrough draws the core's own stage tensors and
// walks by buttons, keys and URL; the PyTorch twin's downloaded file and copied code reproduce the page's
// output in python3-torch; the heads table's "Load shape" sets the playground's shape; the page opens
// on the lesson's example while version 1 links keep their meaning.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { DIST, REPO, SHOTS, app, labStatus, shot, startBrowser, viewReady, viewResult } from './browser.mjs';

// The page's worker loads the FMA build where Chromium has relaxed SIMD (it does); the reference pass
// runs the same build here, so the tensors can be compared bit for bit. Node 20 needs the flag for it.
v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
const { loadAttention } = await import(pathToFileURL(path.join(DIST, 'lib', 'attention.mjs')).href);
const { embed, tokenize } = await import(pathToFileURL(path.join(REPO, 'web/src/tokens.js')).href);

let b;
let attn;
before(async () => { b = await startBrowser(); attn = await loadAttention({ simd: true, fma: true }); });
after(async () => { await b?.close(); });

const same = (a, c) => a.length === c.length && a.every((v, k) => Object.is(v, c[k]));

test('the page opens on the lesson\'s example; a version 1 link keeps its meaning', async () => {
  const page = await b.open();
  await viewReady(page, 'walkthrough');
  const r = await viewResult(page, 'walkthrough');
  assert.deepEqual([r.shape.variant, r.shape.nHeads, r.shape.seqLen], ['mha', 4, 6], 'MHA, 4 heads, "the cat sat on the mat"');
  assert.equal(await app(page).locator('input[name="text"]').inputValue(), 'the cat sat on the mat');
  await page.close();
  const old = await b.open('embed.html?view=heatmap&nKvHeads=4');
  await viewReady(old, 'heatmap');
  assert.equal(await app(old).locator('select[name="variant"]').inputValue(), 'gqa', 'a v1 link without variant meant GQA');
  assert.equal(await app(old).locator('input[name="nHeads"]').inputValue(), '8');
  await old.close();
});

for (const [name, query, stepsWanted] of [
  ['MHA', 'variant=mha&nHeads=4&causal=1', 8],
  ['GQA with RoPE', 'variant=gqa&nHeads=8&nKvHeads=2&rope=1', 8],
  ['MLA', 'variant=mla&nHeads=4&latentRank=12&ropeDim=4', 11],
]) {
  test(`walkthrough (${name}): every step draws the core's own tensors`, async () => {
    const page = await b.open(`embed.html?view=walkthrough&v=2&text=the+cat+sat+on+the+mat&${query}`);
    await viewReady(page, 'walkthrough');
    const first = await viewResult(page, 'walkthrough');
    assert.equal(first.steps.length, stepsWanted);
    // The same pass in Node through the public API, on the same embedding of the same tokens.
    const s = first.shape;
    const tokens = tokenize('the cat sat on the mat');
    const x = embed(tokens, s.dModel, { seed: 0, positions: !(s.variant !== 'mla' && s.rope) });
    const spec = { variant: s.variant, seqLen: s.seqLen, dModel: s.dModel, nHeads: s.nHeads, causal: s.causal,
      returnIntermediates: true, x, seed: 0 };
    if (s.variant === 'gqa') spec.nKvHeads = s.nKvHeads;
    if (s.variant === 'mla') Object.assign(spec, { latentRank: s.latentRank, ropeDim: s.ropeDim });
    else if (s.rope) spec.rope = true;
    const want = attn.forward(spec);
    const seen = new Set();
    for (let k = 0; k < first.steps.length; k++) {
      const r = await viewResult(page, 'walkthrough');
      assert.equal(r.step, first.steps[k]);
      for (const [key, t] of Object.entries(r.drawn)) {
        const ref = key === 'x' ? { data: x } : key === 'output' ? { data: want.output } : want.intermediates[key];
        assert.ok(same(Array.from(t.data), Array.from(ref.data)), `${name} step ${r.step}: ${key} differs from the core's`);
        seen.add(key);
      }
      if (k + 1 < first.steps.length) {
        const draws = Number(await app(page).locator('[data-slot="walkthrough"]').getAttribute('data-draws'));
        await app(page).locator('button[data-action="next"]').click();
        await viewReady(page, 'walkthrough', draws + 1);
      }
    }
    for (const key of Object.keys(want.intermediates)) assert.ok(seen.has(key), `stage ${key} is never shown`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('walkthrough: arrow keys walk the steps, the step is in the URL, cells say what they were made from', async () => {
  const page = await b.open('index.html?v=2&step=weighted');
  await viewReady(page, 'walkthrough');
  const el = app(page);
  const slot = el.locator('[data-slot="walkthrough"]');
  assert.equal(await slot.getAttribute('data-step'), 'weighted', 'the URL\'s step opens');
  // hover a cell of head 2's output: the read-out says how it was made
  const canvas = slot.locator('canvas').nth(2);
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + box.width * 0.05, box.y + box.height * (3.5 / 6));
  assert.match(await slot.locator('[data-role="readout"]').innerText(), /^row 3 of head 2's output: O_2\[3, 0\] = Σ_k P_2\[3, k\] · V_2\[k, 0\] = -?\d/);
  // keyboard: focus a plot and move with the arrows; the read-out follows
  await canvas.focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await slot.locator('[data-role="readout"]').innerText(), /O_2\[3, 1\]/);
  // arrows outside a plot change the step, and the URL follows
  await slot.locator('button[data-action="next"]').focus();
  const d = Number(await slot.getAttribute('data-draws'));
  await page.keyboard.press('ArrowRight');
  await viewReady(page, 'walkthrough', d + 1);
  assert.equal(await slot.getAttribute('data-step'), 'concat');
  assert.match(page.url(), /step=concat/);
  // "one band of columns each": the concatenation's head bands are drawn (a line in the text colour
  // between bands, visible on the white of a signed map) and named.
  const H = (await viewResult(page, 'walkthrough')).shape.nHeads;
  const concat = slot.locator('[data-tensor="concat"]');
  const lines = await concat.locator('.hm-bands span').evaluateAll((spans) => spans.map((s) => {
    const cs = getComputedStyle(s);
    return { colour: cs.backgroundColor, width: s.getBoundingClientRect().width, bg: getComputedStyle(s.closest('.app')).backgroundColor };
  }));
  assert.equal(lines.length, H - 1, 'a boundary between each two heads');
  assert.ok(lines.every((x) => x.width >= 1 && x.colour !== x.bg && x.colour !== 'rgb(255, 255, 255)'), JSON.stringify(lines[0]));
  assert.deepEqual(await concat.locator('[data-role="band-names"] span').allInnerTexts(), Array.from({ length: H }, (_, h) => `h${h}`));
  await concat.screenshot({ path: path.join(SHOTS, 'lesson-concat-bands.png') });
  await page.keyboard.press('ArrowLeft');
  await viewReady(page, 'walkthrough', d + 2);
  assert.match(page.url(), /step=weighted/);
  await shot(page, 'lesson-walkthrough-full');
  await page.close();
});

test('PyTorch twin: the downloaded file and the shown code reproduce the page\'s output in python3-torch', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-twin-e2e-'));
  for (const [name, query] of [['gqa', 'variant=gqa&nHeads=8&nKvHeads=2&rope=1'], ['mla', 'variant=mla&latentRank=8&ropeDim=4'],
    ['mha', 'variant=mha&nHeads=4']]) {
    const page = await b.open(`embed.html?view=pytorch&v=2&${query}`);
    await viewReady(page, 'pytorch');
    const el = app(page);
    const [download] = await Promise.all([page.waitForEvent('download'), el.locator('button[data-action="download"]').click()]);
    const sub = fs.mkdtempSync(path.join(dir, `${name}-`));
    await download.saveAs(path.join(sub, download.suggestedFilename()));
    fs.writeFileSync(path.join(sub, 'twin.py'), await el.locator('[data-role="code"]').textContent());
    const run = spawnSync('/usr/bin/python3', ['twin.py'], { cwd: sub, encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    const m = /^max abs diff vs the page: (\S+)\n$/.exec(run.stdout);
    assert.ok(m, `unexpected output: ${run.stdout}`);
    assert.ok(Number(m[1]) < 1e-4, `${name}: diff ${m[1]}`);
    if (name === 'gqa') await shot(page, 'lesson-pytorch');
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('heads table: the lesson rows beside real models; "Load shape" sets the playground\'s shape', async () => {
  const page = await b.open('index.html?v=2');
  await viewReady(page, 'heads-table');
  const el = app(page);
  const table = el.locator('[data-slot="heads-table"]');
  assert.equal((await viewResult(page, 'heads-table')).lessonRows, 4);
  const llama = table.locator('tr[data-row="llama-3-70b"]');
  const cells = (await llama.locator('td').allTextContents()).join(' | ');
  assert.equal(cells, '8,192 | 64 | 128as usual (64 or 128) | 8 | 80 | 320 KiB | Load shape');
  await llama.locator('button[data-action="load-shape"]').click();
  await page.waitForFunction(() => /nHeads=64/.test(location.search) && /variant=gqa/.test(location.search));
  assert.equal(await el.locator('select[name="variant"]').inputValue(), 'gqa');
  assert.equal(await el.locator('input[name="nHeads"]').inputValue(), '64', 'the model\'s 64 query heads');
  assert.equal(await el.locator('input[name="nKvHeads"]').inputValue(), '8', 'on its 8 K/V heads');
  assert.match(await table.locator('[data-role="status"]').innerText(), /Scaled so that .*dModel 8,192 → 128; dh 128 → 32/);
  await page.close();
});

test('compare: random weights are said to measure nothing; lab 2\'s trained models are listed with held-out scores', async () => {
  const page = await b.open('index.html?v=2&labMSteps=20');
  const el = app(page);
  await viewReady(page, 'compare');
  const compare = el.locator('[data-slot="compare"]');
  assert.match(await compare.locator('[data-role="honest"]').textContent(),
    /These weights are random, not trained\..*says nothing about which variant is better/);
  assert.equal(await compare.locator('[data-role="trained"] table').count(), 0, 'nothing trained yet');
  await compare.locator('button[data-action="go-lab-mqa"]').click();  // goes to lab 2
  const lab = el.locator('[data-slot="lab-mqa"]');
  await lab.locator('[data-role="start"]').click();
  await labStatus(page, 'lab-mqa', ['done'], 60000);
  const rows = compare.locator('[data-role="trained"] tbody tr');
  await rows.nth(8).waitFor({ state: 'attached', timeout: 20000 });  // 3 variants × 3 seeds
  const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  const names = ['MHA', 'GQA', 'MQA'].flatMap((v) => [0, 1, 2].map((seed) => `${v} seed ${seed}`));
  assert.deepEqual(cells.map((c) => c[0]).sort(), names.sort(), JSON.stringify(cells));
  for (const c of cells) {
    assert.equal(c[1], 'Lab 2');
    assert.ok(Number(c[2]) > 0, `held-out loss ${c[2]}`);
    assert.match(c[3], /^\d+\.\d %$/);
  }
  // the lab's own table shows the mean of the same held-out losses
  for (const v of ['mha', 'gqa', 'mqa']) {
    const labMean = Number(await lab.locator(`[data-role="loss-${v}"]`).getAttribute('data-mean'));
    const mine = cells.filter((c) => c[0].startsWith(`${v.toUpperCase()} seed`)).map((c) => Number(c[2]));
    const mean = mine.reduce((a, x) => a + x, 0) / mine.length;
    assert.ok(Math.abs(mean - labMean) < 1e-3, `${v}: compare's seeds ${mine} vs the lab's mean ${labMean}`);
  }
  // "Show its maps" puts a trained model in the attention maps
  const draws = Number(await el.locator('[data-slot="heatmap"]').getAttribute('data-draws'));
  await rows.filter({ hasText: 'MQA seed 0' }).locator('button[data-action="inspect-trained"]').click();
  await viewReady(page, 'heatmap', draws + 1);
  assert.match(await el.locator('[data-slot="heatmap"] [data-role="summary"]').textContent(), /trained model: MQA seed 0/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the parameter view: H heads of width D/H cost what one head of width D costs (4·D², the core\'s counts), beside the variants\' savings', async () => {
  for (const [D, H] of [[64, 4], [512, 8], [1024, 16]]) {
    const page = await b.open(`embed.html?view=params&v=2&dModel=${D}&nHeads=${H}`);
    await viewReady(page, 'params');
    const box = app(page).locator('[data-slot="params"] [data-role="same-cost"]');
    const items = await box.locator('li').allTextContents();
    const grouped = (4 * D * D).toLocaleString('en-US');
    assert.match(items[0], new RegExp(`H = ${H} heads of width dh = D/H = ${D.toLocaleString('en-US')}/${H}: ${grouped} weights`));
    assert.match(items[1], new RegExp(`one head of width D = ${D.toLocaleString('en-US')}: ${grouped} weights`));
    assert.equal(items[2], `4·D² = 4·${D.toLocaleString('en-US')}² = ${grouped}`);
    // The savings beside it are the table's own rows against MHA.
    const rows = await viewResult(page, 'params');
    const mha = rows.find((r) => r.variant === 'mha').params;
    assert.equal(mha, 4 * D * D, 'the table\'s MHA row is the same 4·D²');
    const savings = await box.locator('[data-role="savings"]').textContent();
    for (const v of ['mqa', 'gqa', 'mla']) assert.match(savings, new RegExp(v.toUpperCase()));
    const mqa = rows.find((r) => r.variant === 'mqa').params;
    assert.match(savings, new RegExp(`MQA −${((1 - mqa / mha) * 100).toFixed(2).replace(/\.?0+$/, '')} %`));
    await page.close();
  }
});

test('the heads table gives the lesson\'s d_head rules and marks the rows that break them, the page\'s own shape among them', async () => {
  const page = await b.open('embed.html?view=heads-table&v=2');  // the lesson's example: D = 64, H = 4, dh = 16
  await viewReady(page, 'heads-table');
  const table = app(page).locator('[data-slot="heads-table"]');
  assert.match(await table.locator('[data-role="rules"]').textContent(), /64 or 128.*Below 32.*sqrt\(d_head\).*Above 256/);
  assert.deepEqual((await viewResult(page, 'heads-table')).broken, ['current'], 'dh = 16 breaks the rule; no lesson row or real model does');
  assert.match(await table.locator('tr[data-row="current"]').textContent(), /16breaks the rule: below 32/);
  assert.equal(await table.locator('tr.rule-broken').count(), 1);
  assert.match(await table.locator('tr[data-row="palm-540b"] td[data-rule]').textContent(), /256within 32–256/);
  await page.close();
  const wide = await b.open('embed.html?view=heads-table&v=2&dModel=1024&nHeads=2');  // dh = 512
  await viewReady(wide, 'heads-table');
  await wide.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heads-table"] tr[data-row="current"] td[data-rule="high"]'));
  assert.match(await app(wide).locator('tr[data-row="current"]').textContent(), /512breaks the rule: above 256/);
  await wide.close();
});

test('further reading: the lesson\'s five papers as plain citations, what each part of the page takes from them, nothing fetched', async () => {
  const page = await b.open('index.html?v=2');
  await viewReady(page, 'reading', 1, 0, 30000);
  const list = app(page).locator('[data-slot="reading"] [data-role="papers"] > li');
  assert.equal(await list.count(), 5);
  const text = (await list.allTextContents()).join('\n');
  for (const re of [/Vaswani.*2017.*Attention Is All You Need.*§3\.2\.2/, /Shazeer.*2019.*One Write-Head is All You Need/,
    /Ainslie.*2023.*GQA/, /DeepSeek-AI.*2024.*DeepSeek-V2/, /Olsson.*2022.*In-context Learning and Induction Heads/]) assert.match(text, re);
  // On the full page each view it names links to its section.
  const link = app(page).locator('[data-slot="reading"] li[data-paper="shazeer"] a', { hasText: 'KV-cache size' });
  assert.equal(await link.count(), 1);
  assert.match(await link.getAttribute('href'), /^#ap\d+-section-kv-chart$/);
  assert.equal(await app(page).locator('[data-slot="reading"] a[href^="http"]').count(), 0, 'no outside link');
  assert.deepEqual(b.outside, []);
  await page.close();
});
