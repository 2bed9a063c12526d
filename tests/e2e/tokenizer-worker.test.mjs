// Browser test of a checkpoint's tokenizer in its own worker (sources/tokenizer-client.js,
// worker-tokenizer.js): a tokenizer.json whose Split pre-tokenizer's regular expression backtracks
// (exponential in the sentence's length: "the cat sat on" takes 40 ms, the whole default sentence
// minutes) must not freeze the page. The page keeps answering while the worker is busy, the sentence is
// refused after the time cap with an error naming `text`, a short sentence then draws (the worker is
// started again), and closing the model gives the lesson back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, app, shot, startBrowser, viewReady, viewResult } from './browser.mjs';

const GPT2 = path.join(REPO, 'tests/fixtures/pretrained/gpt2');
let b;
before(async () => { b = await startBrowser(); });
after(async () => { await b?.close(); });

const heatmap = (page) => page.evaluate(() => {
  const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="heatmap"]');
  return { state: v?.dataset.state, result: v?.result ?? null };
});

test('a tokenizer whose regular expression backtracks cannot freeze the page: refused after the cap, naming text', async () => {
  const tokenizer = JSON.parse(fs.readFileSync(path.join(GPT2, 'tokenizer.json'), 'utf8'));
  tokenizer.pre_tokenizer = { type: 'Split', pattern: { Regex: '((((\\w+)*)*)*\\s?)*\\.' }, behavior: 'Isolated', invert: false };
  const page = await b.open('index.html?text=a');
  const el = app(page);
  await viewReady(page, 'model');
  await el.locator('[data-role="pick-files"]').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: fs.readFileSync(path.join(GPT2, 'config.json')) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: fs.readFileSync(path.join(GPT2, 'model.safetensors')) },
    { name: 'tokenizer.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(tokenizer)) },
  ]);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.result?.source === 'pretrained', null, { timeout: 30000 });
  assert.equal((await heatmap(page)).result.tokens, 1, '"a" is split at once');

  // A sentence the regular expression backtracks on for minutes.
  const t0 = Date.now();
  await el.locator('input[name="text"]').fill('the cat sat on the mat and the dog sat on the log');
  // The main thread answers at once while the tokenizer's worker is busy.
  const answers = [];
  for (let i = 0; i < 5; i++) {
    const s = Date.now();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    answers.push(Date.now() - s);
    await page.waitForTimeout(100);
  }
  assert.ok(Math.max(...answers) < 500, `a frame comes within 500 ms while the tokenizer works (took ${answers.join(', ')} ms)`);
  await page.waitForFunction(() => /took more than 1 s/.test(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.textContent ?? ''), null, { timeout: 20000 });
  const waited = Date.now() - t0;
  assert.ok(waited < 15000, `refused within the cap and the page's own delays (${waited} ms)`);
  const field = await page.evaluate(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('[data-field]')].map((n) => n.dataset.field));
  assert.ok(field.includes('text'), `the error is placed at the sentence field (fields marked: ${field.join(', ')})`);
  await shot(page, 'tokenizer-stopped');

  // A short sentence draws again: the worker was started again and read tokenizer.json again.
  await el.locator('input[name="text"]').fill('the cat');
  await page.waitForFunction(() => {
    const v = document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="heatmap"]');
    return v?.result?.source === 'pretrained' && v.result.tokens > 1 && v.dataset.state === 'ready';
  }, null, { timeout: 20000 });
  assert.doesNotMatch(await el.locator('[data-slot="heatmap"]').innerText(), /took more than/, 'the refusal went with its sentence');

  await el.locator('[data-slot="model"] [data-action="close-model"]').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="heatmap"]')?.result?.source === 'seeded');
  await viewReady(page, 'heatmap');
  assert.equal((await viewResult(page, 'heatmap')).source, 'seeded');
  assert.deepEqual(b.outside, []);
  await page.close();
});
