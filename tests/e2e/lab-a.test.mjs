// Browser tests of lab experiments 1 (heads sweep, views/lab-heads.js) and 4 (induction heads,
// views/lab-induction.js): nothing trains before a click; a short run started by a click shows
// progress, plots, and ends with the table / computed summary (heads) or scores, accuracy and maps
// (induction); Stop stops a longer run; no console errors. Steps are set small through the URL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { app, labStatus, shot, startBrowser, viewResult } from './browser.mjs';

let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

const status = labStatus;

test('lab-heads: five head counts trained together, table and a summary from the measured losses', async () => {
  const page = await b.open('embed.html?view=lab-heads&labHSteps=30');
  const view = app(page).locator('[data-slot="lab-heads"]');
  const start = view.locator('[data-act="start"]');
  await start.waitFor();
  assert.equal(await view.locator('input[name="labHSteps"]').inputValue(), '30');
  assert.equal(await view.locator('.lab-result').isHidden(), true, 'no training before a click');
  const t0 = Date.now();
  await start.click();
  await page.waitForFunction(() => /h=\d+: step \d+ \/ 30/.test(document.querySelector('attention-playground')
    .shadowRoot.querySelector('[data-slot="lab-heads"] .lab-progress').textContent), null, { timeout: 20000 });
  await status(page, 'lab-heads', ['done'], 30000);
  const res = await viewResult(page, 'lab-heads');
  console.log(`lab-heads: 5 x 30 steps (seqLen 64) in ${Date.now() - t0} ms (view: ${res.trainingSeconds.toFixed(2)} s training)`);
  assert.equal(res.points, 6, 'six chunks of 5 steps plotted');
  const rows = view.locator('.lab-table tbody tr');
  assert.equal(await rows.count(), 5);
  const cells = await rows.evaluateAll((trs) => trs.map((t) => [...t.cells].map((c) => c.textContent)));
  assert.deepEqual(cells.map((c) => c[0]), ['1', '2', '4', '8', '16']);
  assert.deepEqual(cells.map((c) => c[1]), ['64', '32', '16', '8', '4']);
  // Known final train and held-out losses of these seeded 30-step runs for H = 1, 2, 4, 8, 16 (measured;
  // 1e-3 leaves room for a reordered sum in the training code, not for a different computation).
  const want = [[4.150, 4.137], [4.154, 4.141], [4.157, 4.143], [4.157, 4.144], [4.157, 4.144]];
  cells.forEach((c, i) => assert.ok(Math.abs(Number(c[3]) - want[i][0]) < 1e-3 && Math.abs(Number(c[5]) - want[i][1]) < 1e-3,
    `losses of H = ${c[0]}: ${c[3]}, ${c[5]}, want ${want[i]}`));
  const summary = await view.locator('.lab-summary').innerText();
  // 30 steps is a short run: the page gives the numbers and says they are too few for a verdict.
  assert.match(summary, /^Only 30 steps per model: too few for a verdict on whether more heads help/);
  assert.doesNotMatch(summary, /more heads (help|hurt|make no difference) from/i);
  for (const c of cells) assert.ok(summary.includes(c[3]), `the summary quotes the measured loss ${c[3]}`);
  assert.equal(await view.locator('.lab-chart canvas').count() > 0, true, 'the chart is drawn');
  await page.waitForTimeout(200);
  await shot(page, 'lab-heads');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('lab-induction: a short run plots loss and accuracy, scores every head and draws 2 x 4 maps', async () => {
  const page = await b.open('embed.html?view=lab-induction&labISteps=60');
  const view = app(page).locator('[data-slot="lab-induction"]');
  const start = view.locator('[data-act="start"]');
  await start.waitFor();
  assert.equal(await view.locator('input[name="labISteps"]').inputValue(), '60');
  assert.equal(await view.locator('.lab-maps').isHidden(), true, 'no training before a click');
  const t0 = Date.now();
  await start.click();
  await page.waitForFunction(() => /Step \d+ \/ 60/.test(document.querySelector('attention-playground')
    .shadowRoot.querySelector('[data-slot="lab-induction"] .lab-progress').textContent), null, { timeout: 20000 });
  await status(page, 'lab-induction', ['done'], 30000);
  const res = await viewResult(page, 'lab-induction');
  console.log(`lab-induction: 60 steps in ${Date.now() - t0} ms (view: ${res.seconds.toFixed(2)} s)`);
  assert.equal(res.points, 6);
  assert.equal(await view.locator('.lab-heads-scores tbody tr').count(), 8, '2 layers x 4 heads');
  assert.equal(await view.locator('.lab-map-grid canvas').count(), 8);
  assert.match(await view.locator('.lab-milestone').innerText(), /accuracy \d+\.\d % at step 60/);
  assert.equal(await view.locator('[data-act="export"]').isEnabled(), true);
  // Export, then import the file back: the same step count and maps.
  const [download] = await Promise.all([page.waitForEvent('download'), view.locator('[data-act="export"]').click()]);
  assert.match(download.suggestedFilename(), /\.safetensors$/, 'the export is saved as a .safetensors file');
  const file = await download.path();
  await view.locator('input[name="import"]').setInputFiles(file);
  await status(page, 'lab-induction', ['imported'], 10000);
  assert.match(await view.locator('.lab-milestone').innerText(), /trained 60 steps/);
  await page.waitForTimeout(200);
  await shot(page, 'lab-induction');
  // A phone: the page does not scroll sideways (tables scroll inside their own box).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 391), 'no horizontal scroll at 390 px');
  await shot(page, 'lab-induction-phone');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('lab-induction: Stop ends a longer run between chunks', async () => {
  const page = await b.open('embed.html?view=lab-induction&labISteps=2000');
  const view = app(page).locator('[data-slot="lab-induction"]');
  await view.locator('[data-act="start"]').click();
  await page.waitForFunction(() => (document.querySelector('attention-playground')
    .shadowRoot.querySelector('[data-slot="lab-induction"]').result?.step ?? 0) >= 30, null, { timeout: 20000 });
  await view.locator('[data-act="stop"]').click();
  await status(page, 'lab-induction', ['stopped'], 10000);
  const step = (await viewResult(page, 'lab-induction')).step;
  assert.ok(step < 2000, `stopped at ${step}`);
  assert.match(await view.locator('.lab-progress').innerText(), /Stopped at step \d+ \/ 2000/);
  await page.waitForTimeout(500);
  assert.equal((await viewResult(page, 'lab-induction')).step, step, 'no more steps after stopping');
  assert.equal(await view.locator('[data-act="start"]').isEnabled(), true);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the full page mounts both labs without training anything', async () => {
  const page = await b.open();
  const el = app(page);
  for (const slot of ['lab-heads', 'lab-induction']) {
    const view = el.locator(`[data-slot="${slot}"]`);
    await view.locator('[data-act="start"]').waitFor({ timeout: 20000 });
    assert.equal(await view.locator('[data-act="start"]').isEnabled(), true);
    assert.equal(await view.locator('[data-act="stop"]').isDisabled(), true);
  }
  await page.waitForTimeout(500);
  assert.deepEqual(await page.evaluate(() => ['lab-heads', 'lab-induction'].map((s) => document
    .querySelector('attention-playground').shadowRoot.querySelector(`[data-slot="${s}"]`).result?.status ?? null)), ['idle', 'idle']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a trained model can be inspected in the attention view, and back', async () => {
  const page = await b.open('?labISteps=30');
  const lab = app(page).locator('[data-slot="lab-induction"]');
  await lab.locator('[data-act="start"]').click();
  await status(page, 'lab-induction', ['done'], 60000);
  const inspect = lab.locator('[data-act="inspect"]');
  assert.equal(await inspect.isDisabled(), false);
  await inspect.click();
  const heat = app(page).locator('[data-slot="heatmap"]');
  await page.waitForFunction(() => /trained model: induction model/.test(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"] [data-role="summary"]').textContent));
  assert.match(await heat.locator('[data-role="summary"]').textContent(), /layer 0 of 2/);
  assert.equal(await heat.locator('.kv-group').count(), 4, 'MHA: one box per head, from the model\'s own shape');
  assert.equal(await heat.locator('canvas[data-head]').count(), 4, 'one layer at a time: 4 heads');
  const layer0 = await heat.locator('canvas[data-head="0"]').evaluate((c) => c.toDataURL());
  const draws = Number(await heat.getAttribute('data-draws'));
  await heat.locator('select[name="layer"]').selectOption('1');
  await page.waitForFunction(([d]) => Number(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]').dataset.draws) > d, [draws]);
  assert.match(await heat.locator('[data-role="summary"]').textContent(), /layer 1 of 2/);
  assert.notEqual(await heat.locator('canvas[data-head="0"]').evaluate((c) => c.toDataURL()), layer0, 'layer 1 has its own maps');
  await heat.locator('[data-action="uninspect"]').click();
  await page.waitForFunction(() => !/trained model/.test(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"] [data-role="summary"]').textContent));
  assert.equal(await heat.locator('canvas[data-head]').count(), 8, 'back to the 8-head GQA default');
  assert.deepEqual(page.errors, []);
  await page.close();
});
