// "Check yourself" (web/src/views/check.js) and the lesson's head types under the attention maps
// (web/src/parts/head-types.js). Every question answered right, wrong and not at all, with the mouse and
// the keyboard, in English and in Hindi: the verdict and its explanation are the catalog's sentence with
// the core's numbers (measured here in Node on the same core). Every "Show me" on index.html loads its
// state in the section that shows it and scrolls there; in a single embed it opens the full playground
// in a new tab with that state. Every head type's button goes where it says. axe-core on both, light and
// dark; screenshots of both in English and Hindi, desktop and phone, light and dark.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { DIST, REPO, app, shot, startBrowser, viewReady, viewResult } from './browser.mjs';
import { QUESTIONS } from '../../web/src/lesson/questions.js';
import { INDUCTION_TARGET } from '../../web/src/parts/head-types.js';
import { roleField, roleLabel } from '../../web/src/sources/zoo-roles.js';
import { methods } from '../../web/src/worker-methods.js';
import { createI18n, loadI18n } from '../../web/src/i18n/index.js';
import '../node/i18n-kit.mjs';  // every English file of the catalog, so that createI18n('en') has the views' words

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const { loadAttention } = await import(pathToFileURL(path.join(DIST, 'lib', 'attention.mjs')).href);
await loadI18n('hi');
const I18N = { en: createI18n('en'), hi: createI18n('hi') };

/** The lesson's answers, as it states them: a number to type, or the right choice. */
const RIGHT = { headWidth: '64', headOutput: 'nd', wo: 'mix', sameCost: '16384', kvHeadOf: '1', kvRatio: '8', mlaCache: 'latent',
  cacheBound: 'fewerKv', badWidth: 'refused' };
const WRONG = { headWidth: '63', headOutput: 'nD', wo: 'split', sameCost: '2048', kvHeadOf: '5', kvRatio: '64.0', mlaCache: 'kv',
  cacheBound: 'moreHeads', badWidth: 'round' };

let b, measured;
before(async () => {
  b = await startBrowser();
  const attn = await loadAttention();
  const client = { call: async (m, ...args) => methods[m](attn, ...args) };
  measured = Object.fromEntries(await Promise.all(QUESTIONS.map(async (q) => [q.id, await q.measure(client)])));
});
after(async () => { await b?.close(); });

const squash = (s) => s.replace(/\s+/g, ' ').trim();
const question = (page, id) => app(page).locator(`[data-question="${id}"]`);
const verdictOf = async (page, id) => {
  const v = question(page, id).locator('[data-role="verdict"]');
  await v.waitFor({ state: 'visible' });
  return { verdict: await v.getAttribute('data-verdict'), text: squash(await v.innerText()) };
};
/** Answers question `id` with `answer` (typed, or the choice's id; null: nothing) and presses Check. */
async function answer(page, id, given) {
  const q = question(page, id);
  const box = q.locator('[data-role="answer"]');
  if (await box.count()) await box.fill(given ?? '');
  else if (given !== null) await q.locator(`input[data-choice="${given}"]`).check();
  const before = await q.locator('[data-role="verdict"]').innerText();
  await q.locator('[data-action="check"]').click();
  await page.waitForFunction(([qid, was]) => {
    const v = document.querySelector('attention-playground').shadowRoot.querySelector(`[data-question="${qid}"] [data-role="verdict"]`);
    return v.textContent !== '' && v.textContent !== was;
  }, [id, before]);
  return verdictOf(page, id);
}

for (const lang of ['en', 'hi']) {
  test(`${lang}: every question answered right, wrong and not at all; the explanations carry the core's numbers`, async () => {
    const { t } = I18N[lang];
    const page = await b.open(`embed.html?view=check&lang=${lang}`);
    await viewReady(page, 'check', 1, 0, 30000);
    const result = await viewResult(page, 'check');
    assert.deepEqual(result.questions.map((q) => q.id), QUESTIONS.map((q) => q.id));
    assert.ok(result.questions.every((q) => q.measured), 'the core measured every question');
    for (const q of QUESTIONS) {
      const why = squash(t(`check.q.${q.id}.why`, measured[q.id].params));
      assert.equal(squash(await question(page, q.id).locator('legend').innerText()), `${QUESTIONS.indexOf(q) + 1}. ${t(`check.q.${q.id}.text`)}`);
      // Nothing given: said so, never a crash.
      const none = q.kind === 'number' ? await answer(page, q.id, '') : await answer(page, q.id, null);
      assert.equal(none.verdict, 'invalid', q.id);
      assert.equal(none.text, t(q.kind === 'number' ? 'check.problem.empty' : 'check.problem.noChoice'));
      if (q.kind === 'number') {
        const bad = await answer(page, q.id, 'abc');
        assert.deepEqual(bad, { verdict: 'invalid', text: t('check.problem.notNumber', { text: 'abc' }) });
        assert.equal(await question(page, q.id).locator('[data-role="answer"]').getAttribute('aria-invalid'), '');
      }
      const wrong = await answer(page, q.id, WRONG[q.id]);
      assert.equal(wrong.verdict, 'wrong', q.id);
      assert.ok(wrong.text.startsWith(`${t('check.wrong')} ${why}`), `${q.id}: "${wrong.text}"`);
      const right = await answer(page, q.id, RIGHT[q.id]);
      assert.equal(right.verdict, 'right', q.id);
      assert.ok(right.text.startsWith(`${t('check.right')} ${why}`), `${q.id}: "${right.text}"`);
      if (q.kind === 'number') assert.equal(await question(page, q.id).locator('[data-role="answer"]').getAttribute('aria-invalid'), null);
    }
    // The numbers of the explanations, in the locale: 4,096 weights of W_o; d_model 510 refused on its field.
    assert.match((await verdictOf(page, 'wo')).text, /4,096/);
    const refused = question(page, 'badWidth').locator('[data-role="verdict"]');
    assert.match(await refused.innerText(), new RegExp(`^${t('check.right')} .*${t('field.dModel').replace(/[()]/g, '\\$&')}`));
    assert.match(await refused.locator('[data-text="core"]').innerText(), /dModel \(510\) must be divisible by nHeads \(8\)/);
    assert.equal(await refused.locator('[data-text="core"]').getAttribute('lang'), 'en');
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('the keyboard alone: type and Enter, Tab to a choice, Space, Tab to Check, Enter', async () => {
  const page = await b.open('embed.html?view=check');
  await viewReady(page, 'check', 1, 0, 30000);
  const input = question(page, 'headWidth').locator('[data-role="answer"]');
  await input.focus();
  await page.keyboard.type(' 64.0 ');
  await page.keyboard.press('Enter');
  assert.equal((await verdictOf(page, 'headWidth')).verdict, 'right');
  await question(page, 'headOutput').locator('input[type="radio"]').first().focus();
  await page.keyboard.press('ArrowDown');  // the second choice: (N, d_head)
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.querySelector('attention-playground').shadowRoot.activeElement?.dataset.action), 'check');
  await page.keyboard.press('Enter');
  assert.equal((await verdictOf(page, 'headOutput')).verdict, 'right');
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** The element's state (index.html: the element owns the page). */
const stateOf = (page) => page.evaluate(() => document.querySelector('attention-playground').state);
/** Waits until the section's top is at the top of the window (the contents list's scrolling settled) and its heading has focus. */
const landedOn = (page, section) => page.waitForFunction((s) => {
  const root = document.querySelector('attention-playground').shadowRoot;
  const box = root.querySelector(`[data-section="${s}"]`);
  return Math.abs(box.getBoundingClientRect().top) <= 2 && root.activeElement === box.querySelector('h2');
}, section, { timeout: 20000 });
/** Polls view `slot`'s result (root.result) until it is drawn and `ok(result)`; returns it. */
async function resultWhen(page, slot, ok, timeout = 30000) {
  const end = Date.now() + timeout;
  for (;;) {
    const now = await page.evaluate((sl) => {
      const v = document.querySelector('attention-playground').shadowRoot.querySelector(`[data-slot="${sl}"]`);
      return { busy: v.dataset.state === 'busy', result: v.result ?? null };
    }, slot);
    if (!now.busy && now.result && ok(now.result)) return now.result;
    if (Date.now() > end) throw new Error(`${slot}: not as expected: ${JSON.stringify(now.result)?.slice(0, 300)}`);
    await page.waitForTimeout(100);
  }
}

test('index.html: every "Show me" loads its state in the section that shows it, and scrolls there', async () => {
  const page = await b.open('');
  await viewReady(page, 'check', 1, 0, 30000);
  const show = async (id) => {
    await question(page, id).locator('[data-action="show-me"]').click();
    await question(page, id).locator('[data-role="shown"]').waitFor({ state: 'visible' });
    assert.equal(await question(page, id).locator('[data-role="shown"]').getAttribute('data-how'), 'applied');
  };
  const walk = async (id, step, dModel, variant) => {
    await show(id);
    await landedOn(page, 'walkthrough');
    return resultWhen(page, 'walkthrough', (x) => x.step === step && x.shape.dModel === dModel && x.shape.variant === variant);
  };
  let r = await walk('headWidth', 'split', 512, 'mha');
  assert.equal(r.shape.dHead, 64);
  assert.equal(r.shape.nHeads, 8);
  r = await walk('headOutput', 'weighted', 64, 'mha');
  assert.deepEqual(r.drawn.heads.shape.slice(-1), [16], 'each head returns (N, d_head = 16)');
  r = await walk('wo', 'output', 64, 'mha');
  assert.equal(r.tensors[0], 'output');
  r = await walk('mlaCache', 'cache', 64, 'mla');
  assert.deepEqual([r.shape.latentRank, r.shape.ropeDim], [16, 4]);

  await show('sameCost');
  await landedOn(page, 'params');
  await resultWhen(page, 'params', (rows) => rows.find((x) => x.variant === 'mha')?.params === 16384);
  assert.deepEqual(await page.evaluate(() => document.querySelector('attention-playground').state.nHeads), 8);
  assert.match(await app(page).locator('[data-slot="params"] [data-role="same-cost-formula"]').innerText(), /4·64² = 16,384$/);

  await show('kvHeadOf');
  await landedOn(page, 'heatmap');
  await resultWhen(page, 'heatmap', (x) => x.heads === 8);
  const groupOf5 = await app(page).locator('[data-slot="heatmap"] .kv-group').evaluateAll((gs) => gs.findIndex((g) => g.querySelector('[data-head="5"]')));
  assert.equal(groupOf5, 1, 'query head 5 is boxed with K/V head 1');

  await show('kvRatio');
  await landedOn(page, 'kv-chart');
  const chart = await resultWhen(page, 'kv-chart', (x) => x.series.some((c) => c.id === 'gqa') && x.series.some((c) => c.id === 'mha')
    && x.series.length === 2 + 3);  // this shape's MHA and GQA, and the three real models
  const bytes = (id) => chart.series.find((s) => s.id === id).bytes;
  assert.ok(bytes('mha').every((v, i) => v === 8 * bytes('gqa')[i]), 'MHA\'s cache is 8 times GQA\'s at every length');
  const caption = await app(page).locator('[data-slot="kv-chart"] [data-role="caption"]').innerText();
  assert.match(caption, /H = 64\b/);
  assert.match(caption, /G = 8\b/);
  const s = await stateOf(page);
  assert.deepEqual([s.variant, s.nHeads, s.nKvHeads, s.kvVariants], ['gqa', 64, 8, 'mha,gqa']);

  await show('cacheBound');
  await landedOn(page, 'params');
  await resultWhen(page, 'params', (rows) => rows.find((x) => x.variant === 'gqa')?.elements === 256 && rows.find((x) => x.variant === 'mla')?.elements === 80);

  // d_model = 510 with 8 heads: the form, the core's refusal next to dModel.
  await show('badWidth');
  const err = app(page).locator('[data-field="dModel"] .field-error');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.locator('[data-text="core"]').innerText(), /dModel \(510\) must be divisible by nHeads \(8\)/);
  assert.equal(await app(page).locator('input[name="dModel"]').inputValue(), '510');
  await page.waitForFunction(() => {
    const box = document.querySelector('attention-playground').shadowRoot.querySelector('[data-field="dModel"]').getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  });
  assert.deepEqual(page.errors.filter((e) => !/dModel \(510\)/.test(e)), []);
  await page.close();
});

test('a single embed: "Show me" opens the full playground in a new tab with that state', async () => {
  const page = await b.open('embed.html?view=check');
  await viewReady(page, 'check', 1, 0, 30000);
  const [tab] = await Promise.all([b.context.waitForEvent('page'), question(page, 'badWidth').locator('[data-action="show-me"]').click()]);
  await tab.waitForLoadState();
  const url = new URL(tab.url());
  assert.equal(url.pathname, new URL(b.base).pathname, 'the playground beside embed.html');
  assert.deepEqual(['dModel', 'nHeads', 'view'].map((k) => url.searchParams.get(k)), ['510', '8', null]);
  await app(tab).locator('[data-field="dModel"] .field-error [data-text="core"]').waitFor({ state: 'visible', timeout: 30000 });
  assert.equal(await question(page, 'badWidth').locator('[data-role="shown"]').getAttribute('data-how'), 'opened');
  await tab.close();
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** Opens the head types under the maps and presses one type's button. */
async function pressType(page, type, link) {
  const box = app(page).locator('[data-role="head-types"]');
  if (!(await box.evaluate((d) => d.open))) await box.locator('summary').click();
  await box.locator('li').first().waitFor();  // the list is a chunk, fetched when first opened
  await box.locator(`[data-type="${type}"] button[data-link="${link}"]`).click();
}

for (const lang of ['en', 'hi']) {
  test(`${lang}: index.html, each head type's button goes where a real head of that type can be seen`, async () => {
    const page = await b.open(`?lang=${lang}`);
    await viewReady(page, 'heatmap', 1, 0, 30000);
    const { t } = I18N[lang];
    const box = app(page).locator('[data-role="head-types"]');
    assert.equal(await box.locator('summary').innerText(), t('maps.headTypes'));
    await box.locator('summary').click();
    await box.locator('li').first().waitFor();  // the list is a chunk, fetched when first opened
    // Each type: its name, what it does, where to see one and its buttons, all the catalog's words.
    const items = await box.locator('li').evaluateAll((ls) => ls.map((l) => [l.dataset.type, l.textContent]));
    const links = { positional: ['model', 'scores'], previous: ['trained'], copy: ['lab1', 'lab2'], entity: ['model'], induction: ['lab4'] };
    assert.deepEqual(items.map(([type]) => type), ['positional', 'previous', 'copy', 'entity', 'induction']);
    for (const [type, text] of items) {
      assert.equal(text, `${t(`headTypes.${type}.name`)} ${t(`headTypes.${type}.what`)}${t(`headTypes.${type}.where`)}${links[type].map((l) => t(`headTypes.go.${l}`)).join('')}`);
    }
    // previous-token: the models trained on Shakespeare, layer 0, each map titled with its measured score.
    await pressType(page, 'previous', 'trained');
    await landedOn(page, 'heatmap');
    await resultWhen(page, 'heatmap', (x) => x.source === 'trained' && x.layer === 0);
    const titles = await app(page).locator('[data-slot="heatmap"] figure.hm').evaluateAll((fs) => fs.map((f) => f.textContent));
    const zoo = JSON.parse(fs.readFileSync(path.join(REPO, 'web/zoo/manifest.json'), 'utf8'));
    const labels = zoo.models.find((m) => m.id === 'mha').headScores.filter((h) => h.layer === 0)
      .map((h) => roleLabel(h, roleField(h, zoo.training.seqLen), t));
    assert.ok(labels.every((l, h) => titles[h].includes(l)), `${titles.join(' | ')} against ${labels.join(' | ')}`);
    // first token: the same models' table of scores, opened.
    await pressType(page, 'positional', 'scores');
    await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('[data-role="head-scores-box"]')?.open === true);
    assert.equal(await app(page).locator('[data-role="head-scores"] thead').innerText().then((x) => x.includes(t('scores.first'))), true);
    for (const [type, link, section] of [['positional', 'model', 'model'], ['entity', 'model', 'model'], ['copy', 'lab1', 'lab-heads'],
      ['copy', 'lab2', 'lab-mqa'], ['induction', 'lab4', INDUCTION_TARGET.section]]) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await pressType(page, type, link);
      await landedOn(page, section);
    }
    assert.equal((await stateOf(page)).source, 'trained', 'the labs and the model view leave the maps as they were');
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('the heatmap embed: the trained models in place, the other sections in the full playground (a new tab)', async () => {
  const page = await b.open('embed.html?view=heatmap&v=2');
  await viewReady(page, 'heatmap');
  await pressType(page, 'previous', 'trained');
  await resultWhen(page, 'heatmap', (x) => x.source === 'trained');
  const [tab] = await Promise.all([b.context.waitForEvent('page'), pressType(page, 'induction', 'lab4')]);
  await tab.waitForLoadState();
  assert.equal(new URL(tab.url()).searchParams.get('view'), null, 'the full playground');
  await viewReady(tab, INDUCTION_TARGET.section, 1, 0, 30000);
  assert.match(await app(page).locator('[data-role="head-types-status"]').innerText(), /new tab/);
  await tab.close();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Lab 4, the induction target, is a section of the page', () => {
  const ids = [...fs.readFileSync(path.join(REPO, 'web/src/registry.js'), 'utf8').matchAll(/\{ id: '([a-z-]+)'/g)].map((m) => m[1]);
  assert.ok(ids.includes(INDUCTION_TARGET.section), INDUCTION_TARGET.section);
});

/** Serious and critical axe violations on the page. */
async function violations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' > ')).join(' | ')}`));
}

for (const lang of ['en', 'hi']) {
  for (const scheme of ['light', 'dark']) {
    test(`${lang}, ${scheme}: axe finds nothing serious on the answered questions and the open head types; screenshots`, async () => {
      for (const [width, tag] of [[1280, 'desktop'], [390, 'phone']]) {
        const check = await b.open(`embed.html?view=check&lang=${lang}`, { viewport: { width, height: 900 } });
        await check.emulateMedia({ colorScheme: scheme });
        await viewReady(check, 'check', 1, 0, 30000);
        await answer(check, 'headWidth', '64');
        await answer(check, 'headOutput', 'nn');
        await answer(check, 'sameCost', 'abc');
        await answer(check, 'badWidth', 'refused');
        assert.deepEqual(await violations(check), [], `check ${tag}`);
        const overflow = await check.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the check view scrolls sideways by ${overflow}px (${tag})`);
        await shot(check, `check-${lang}-${tag}-${scheme}`);
        await check.close();
        const maps = await b.open(`embed.html?view=heatmap&v=2&lang=${lang}`, { viewport: { width, height: 900 } });
        await maps.emulateMedia({ colorScheme: scheme });
        await viewReady(maps, 'heatmap', 1, 0, 30000);
        await app(maps).locator('[data-role="head-types"] summary').click();
        await app(maps).locator('[data-role="head-types"] li').first().waitFor();
        assert.deepEqual(await violations(maps), [], `head types ${tag}`);
        await shot(maps, `head-types-${lang}-${tag}-${scheme}`);
        await maps.close();
      }
    });
  }
}
