// Browser test of the decode view's bandwidth measurement (web/src/parts/decode-bandwidth.js) in
// Chromium: it loads the FMA build, runs on the button only, draws its chart and table, and its
// numbers are finite, the bytes each step reads are ordered by the variants' caches, and the
// orderings that bytes must give at this size (an 8K-token MHA step reads ~3.6x MQA's) hold.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { app, shot, startBrowser, viewReady } from './browser.mjs';

let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

test('the decode view measures time per token against context for MHA, GQA, MQA and MLA', { timeout: 300000 }, async (t) => {
  const page = await b.open('embed.html?view=decode&variant=gqa', { viewport: { width: 900, height: 900 } });
  await viewReady(page, 'decode');
  const box = app(page).locator('.dec-bandwidth');
  assert.equal(await box.getAttribute('data-state'), 'idle', 'nothing is measured before the button');
  assert.equal(await box.locator('canvas').count(), 0);
  await box.locator('button[data-action="bandwidth"]').click();
  await page.waitForFunction(() => {
    const s = document.querySelector('attention-playground').shadowRoot.querySelector('.dec-bandwidth');
    return s.dataset.state === 'ready' || s.dataset.state === 'error';
  }, null, { timeout: 280000, polling: 500 });
  assert.equal(await box.getAttribute('data-state'), 'ready', await box.locator('[role="status"]').innerText());
  const r = await box.evaluate((el) => el.result);

  assert.equal(r.build, 'fma', 'Chromium loads the FMA build');
  assert.equal(r.bandwidth.length, 2);
  for (const bw of r.bandwidth) assert.ok(Number.isFinite(bw) && bw > 1e8, `copy bandwidth ${bw} B/s`);
  const variants = ['mha', 'gqa', 'mqa', 'mla'];
  const contexts = [...new Set(r.rows.map((x) => x.context))];
  assert.deepEqual(contexts, [0, 1024, 2048, 4096, 6144, 8192]);
  const at = (v, c) => r.rows.find((x) => x.variant === v && x.context === c);
  for (const v of variants) {
    for (const c of contexts) {
      const x = at(v, c);
      for (const k of ['bytes', 'floorMs', 'median', 'min', 'max']) assert.ok(Number.isFinite(x[k]) && x[k] > 0, `${v} at ${c}: ${k} ${x[k]}`);
      assert.ok(x.min <= x.median && x.median <= x.max, `${v} at ${c}: min <= median <= max`);
    }
    for (let i = 1; i < contexts.length; i++) assert.ok(at(v, contexts[i]).bytes > at(v, contexts[i - 1]).bytes, `${v}: a longer cache is more bytes`);
  }
  for (const c of contexts.slice(1)) {
    assert.ok(at('mha', c).bytes > at('gqa', c).bytes && at('gqa', c).bytes > at('mqa', c).bytes, `bytes at ${c}: MHA > GQA > MQA`);
  }
  // Orderings with a wide margin in bytes (measured times are noisy; these are not close calls).
  const last = contexts[contexts.length - 1];
  assert.ok(at('mha', last).bytes > 3 * at('mqa', last).bytes);
  assert.ok(at('mha', last).median > at('mqa', last).median, `at ${last}: MHA's step is slower than MQA's`);
  assert.ok(at('mha', last).median > at('mha', 0).median, 'MHA: the step at 8K is slower than with an empty cache');
  for (const u of r.uncached) {
    assert.ok(Number.isFinite(u.ms) && u.ms > at(u.variant, u.context).median, `${u.variant}: recomputing ${u.context} keys and values costs more than the cached step`);
  }
  assert.equal(r.uncached.length, 4);

  assert.equal(await box.locator('.dec-bandwidth-chart canvas').count() > 0, true, 'the chart is drawn');
  assert.equal(await box.locator('.dec-bandwidth-results tbody tr').count(), 4, 'one table row per variant');
  t.diagnostic(await box.locator('[role="status"]').innerText());
  t.diagnostic(await box.locator('.dec-bandwidth-results').innerText());
  await shot(page, 'decode-bandwidth');
  assert.deepEqual(page.errors, []);
  await page.close();
});
