// The page in each language of web/src/i18n: every text node and every read attribute (aria-label,
// title, placeholder, alt) of the shell and of every converted view comes from that language's
// catalog (what is left once the catalog's words are taken out is notation: numbers, symbols, the
// lesson's terms, or the core's data: model names, citations, marked data-text). Walked on the full
// page, with a checkpoint open (the tiny fixtures of tests/fixtures/pretrained, served beside the
// page), through every step of the walkthrough and its read-outs, and with the trained models of the
// compare view. The language follows lang= in the URL, the element's config and the browser; the
// picker switches it without a reload; <html lang> / dir and the host's are set; numbers are grouped
// in the locale. The labs are walked idle and again after a short run (tables, the verdict or the
// numbers so far, charts, maps) and a refused import.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO, app, labStatus, shot, startBrowser, viewReady, viewResult } from './browser.mjs';
import { LANGS, LANG_IDS } from '../../web/src/i18n/index.js';
import { CATALOGS } from '../node/i18n-kit.mjs';

/**
 * Views whose strings are not in the catalogs yet: the walk skips their slots. A test below keeps this
 * list honest (every view is here or in CONVERTED; every view here still shows English on the Hindi
 * page); README.md, "Languages", summarises it. A view leaves it when its text comes from the catalog.
 */
const NOT_YET = [];
const CONVERTED = ['walkthrough', 'heatmap', 'model', 'compare', 'decode', 'heads-table', 'params', 'kv-chart', 'reading', 'pytorch',
  'configurator', 'check', 'lab-heads', 'lab-mqa', 'lab-rank', 'lab-induction'];

/** Notation every language writes the same way (the lesson's symbols, units, variant names, data types). */
const NOTATION = new Set(['D', 'H', 'G', 'N', 'K', 'V', 'Q', 'B', 'l', 'r', 'dr', 'dh', 'h', 'g', 'c', 'kr', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'kB', 'MB', 'GB', 'TB', 'PB',
  'MHA', 'MQA', 'GQA', 'MLA', 'KV', 'fp16', 'bf16', 'fp32', 'fp8', 'int4', 'dModel', 'nHeads', 'nKvHeads', 'dHead', 'd_model', 'n_heads', 'd_head',
  'wq', 'wk', 'wv', 'wo', 'wDkv', 'wUk', 'wUv', 'wQr', 'wKr', 'WebAssembly', 'SIMD', 'PNG', 'SVG', 'CSV', 'JSON',
  'X', 'Y', 'S', 'P', 'q_R', 'k_R', 'float32', 's', 'ms']);
/** Short names of heads, layers and cache segments in small maps and strips: h3, kv1, L0, K0, V1. */
const isShortName = (w) => /^(h|kv|L|K|V)\d+$/.test(w);
/** The lesson's subscripted symbols: W_q, W_UK, Q_3, S_h, q̃_2. */
const isSubscripted = (w) => /^\p{L}{1,2}\p{M}?_[\p{L}\p{N}]+$/u.test(w);
const isSymbol = (w) => NOTATION.has(w) || /^[-+]?[\d.,%]+[KMB]?$/.test(w) || /^GQA-\d+$/.test(w) || isShortName(w) || isSubscripted(w)
  || /^-+$/.test(w);  // -- : a chart legend's empty value
/** A word of notation: a symbol, symbols over a slash (D/H, 64/4, 1/6.4), the slash alone (fp16 / bf16), a file name (twin.py, *.safetensors). */
const isNotation = (w) => w === '/' || w.split('/').every(isSymbol) || /^[\w-]+\.(py|safetensors)$/.test(w);

let b;
before(async () => {
  b = await startBrowser({ copy: { 'models/gpt2': 'tests/fixtures/pretrained/gpt2' } });
});
after(async () => { await b?.close(); });

/** The literal pieces of a catalog's messages (between parameters), longest first. */
function fragments(lang) {
  const pieces = Object.values(CATALOGS[lang]).flatMap((m) => (typeof m === 'string' ? [m] : Object.values(m)))
    .flatMap((m) => m.split(/\{\w+\}/)).map((p) => p.trim()).filter((p) => p.length > 1);
  return [...new Set(pieces)].sort((x, y) => y.length - x.length).map((text) => ({ text, pattern: fragPattern(text) }));
}

/**
 * The texts of the shell and of the converted views: [{ where, text }] for text nodes and read
 * attributes, skipping style elements, the NOT_YET slots, and subtrees marked data-text (the core's
 * data, its English error text, language names).
 */
async function shownTexts(page, notYet) {
  return page.evaluate((skip) => {
    const root = document.querySelector('attention-playground').shadowRoot;
    const out = [];
    const where = (e) => e.closest('[data-slot]')?.dataset.slot ?? 'shell';
    const walk = (node) => {
      if (node.nodeType === Node.TEXT_NODE) {
        if (node.textContent.trim()) out.push({ where: where(node.parentElement), text: node.textContent.trim() });
        return;
      }
      if (node.nodeType !== Node.ELEMENT_NODE && node !== root) return;
      if (node !== root) {
        if (['STYLE', 'SCRIPT', 'CANVAS'].includes(node.tagName) || node.dataset.text) return;
        if (node.dataset.slot && skip.includes(node.dataset.slot)) return;
        for (const a of ['aria-label', 'title', 'placeholder', 'alt']) {
          const v = node.getAttribute(a);
          if (v?.trim()) out.push({ where: `${where(node)} @${a}`, text: v.trim() });
        }
      }
      for (const c of node.childNodes) walk(c);
    };
    walk(root);
    return out;
  }, notYet);
}

/** How the test cuts a text into words: at spaces and punctuation, not inside names such as GPT-2, d_model or meta-llama/Llama-2-7b-hf. */
const words = (text) => text.split(/[\s,;:()[\]·×−±+=~—…–'"‘’“”→←≈≤≥<>|!?।*^√²³⁰⁹ᵀ✓✗]+/).map((w) => w.replace(/\.$/, '')).filter(Boolean);

/** The words Intl writes for large counts in a locale ("million", "अरब"): numbers, not text of the page. */
const countWords = (locale) => new Set([1e3, 1e5, 1e6, 1e7, 1e9, 1e11, 1e12, 1e15].flatMap((n) => words(
  new Intl.NumberFormat(locale, { notation: 'compact', compactDisplay: 'long' }).format(n * 1.5))).filter((w) => !/^[\d.,]+$/.test(w)));

/**
 * The data words the views show as they are: the core's (model names and ids, an opened checkpoint's
 * name, type and the tokens of its vocabulary, which its decoding appends; not the deployment targets'
 * names, which the page writes in its language from the core's messages) and the
 * learner's sentence, whose tokens label the maps (in a map's accessible name too).
 */
async function dataWords(page) {
  const data = await page.evaluate(async () => {
    const element = document.querySelector('attention-playground');
    const { ctx } = element;
    const root = element.shadowRoot;
    const model = ctx.model();
    const vocabulary = model ? Array.from({ length: Math.min(model.opened.info.vocabSize, 5000) }, (_, id) => model.label(id)) : [];
    const opened = model ? [model.opened.name, model.opened.info.modelType, ...vocabulary] : [];
    // the sentence as each view's source splits it (words, a tokenizer's pieces: a checkpoint's or a zoo model's)
    const tokens = [...root.querySelectorAll('[data-slot]')].flatMap((v) => ctx.sourceFor(v.dataset.slot, element.state).tokens?.(element.state) ?? []);
    return [...ctx.presets.flatMap((p) => [p.name, p.id, p.source ?? '']), element.state.text, ...opened, ...tokens]
      .join(' ');
  });
  return new Set(words(data));
}

/**
 * A fragment as a pattern that matches whole words only at its edges that are letters or digits ('head'
 * is not in d_head); a fragment that ends in a subscript's '_' goes on with its parameter (O_{h}: O_3).
 */
const edge = /[\p{L}\p{N}_]/u;
const fragPattern = (f) => new RegExp(`${edge.test(f[0]) ? '(?<![\\p{L}\\p{N}_])' : ''}${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${edge.test(f.at(-1)) && f.at(-1) !== '_' ? '(?![\\p{L}\\p{N}_])' : ''}`, 'gu');

/** What of `text` is not from the catalog: the words left once its fragments are taken out. */
function leftover(text, frags, data, counted) {
  let rest = ` ${text} `;
  for (const f of frags) if (rest.includes(f.text)) rest = rest.replace(f.pattern, ' ');
  return words(rest).filter((w) => !isNotation(w) && !data.has(w) && !counted.has(w));
}

async function openAll(rel) {
  const page = await b.open(rel);
  for (const v of CONVERTED) await viewReady(page, v, 1, 0, 30000);
  // Sections below the fold are laid out as they come near; their text is in the DOM either way.
  return page;
}

/** The texts of the page in `lang` that are not from its catalog: ["where: \"text\" -> the words left"]. */
async function notFromCatalog(page, lang) {
  const texts = await shownTexts(page, NOT_YET);
  const frags = fragments(lang);
  const data = await dataWords(page);
  const counted = countWords(LANGS[lang].locale);
  const bad = texts.map((x) => ({ ...x, left: leftover(x.text, frags, data, counted) })).filter((x) => x.left.length)
    .map((x) => `${x.where}: "${x.text}" -> ${x.left.join(' ')}`);
  return { texts, bad };
}

/** Clicks a view's button (data-action) and waits for the view's next draw. */
async function press(page, view, action) {
  const slot = app(page).locator(`[data-slot="${view}"]`);
  const seen = Number(await slot.getAttribute('data-draws'));
  await slot.locator(`[data-action="${action}"]`).click();
  await viewReady(page, view, seen + 1, 0, 30000);
}

for (const lang of LANG_IDS) {
  test(`${lang}: every text of the shell and of the converted views comes from the ${lang} catalog`, async () => {
    const page = await openAll(`?lang=${lang}`);
    await press(page, 'decode', 'all');  // the cache filled: its strip, its facts, the newest token's weights
    const { texts, bad } = await notFromCatalog(page, lang);
    assert.ok(texts.length > 200, `texts walked: ${texts.length}`);
    for (const v of ['shell', ...CONVERTED]) assert.ok(texts.some((x) => x.where.startsWith(v)), `${v} was walked`);
    assert.ok(texts.some((x) => x.where === 'decode @title' && /\d.*\d/.test(x.text)), 'the cache strip\'s blocks were walked');
    assert.deepEqual(bad, []);
    assert.deepEqual(page.errors, []);
    await page.close();
    if (lang === 'en') return;
    // For a person to look at: the heatmap embed in this language (test-results/e2e/).
    const embed = await b.open(`embed.html?view=heatmap&lang=${lang}`);
    await viewReady(embed, 'heatmap', 1, 0, 30000);
    await shot(embed, `embed-heatmap-${lang}`);
    await embed.close();
  });
}

/**
 * What the read-outs of the maps `mapSelector` finds in a slot say at four corners: the first cell, the
 * last column of the first row, the last row's last and first columns (masked and unmasked cells where
 * a map is causal; the RoPE or latent part of a row where it has one).
 */
async function readOuts(page, slot, mapSelector) {
  const said = [];
  const readout = app(page).locator(`[data-slot="${slot}"] [data-role="readout"]`);
  for (const canvas of await app(page).locator(`[data-slot="${slot}"] ${mapSelector}`).all()) {
    await canvas.scrollIntoViewIfNeeded();
    await canvas.focus();
    said.push(await readout.innerText());
    for (const keys of [['End'], Array(16).fill('ArrowDown'), ['Home']]) {
      for (const key of keys) await page.keyboard.press(key);
      said.push(await readout.innerText());
    }
  }
  return said.filter(Boolean);
}

/** The words of `texts` that are not from `lang`'s catalog (notation, numbers and the page's data aside). */
async function leftOf(page, lang, texts) {
  const frags = fragments(lang), data = await dataWords(page), counted = countWords(LANGS[lang].locale);
  return texts.map((text) => ({ text, left: leftover(text, frags, data, counted) })).filter((x) => x.left.length)
    .map((x) => `"${x.text}" -> ${x.left.join(' ')}`);
}

for (const lang of LANG_IDS) {
  test(`${lang}: with a checkpoint open (gpt2 with its tokenizer, qwen2 without), the model, maps and decode views speak the ${lang} catalog`, async () => {
    for (const model of ['gpt2', 'qwen2']) {
      // gpt2 served beside the page (?model=), qwen2 through the folder picker (it has no tokenizer.json to ask for)
      const page = await b.open(model === 'gpt2' ? `?lang=${lang}&model=models/gpt2/` : `?lang=${lang}`);
      const el = app(page);
      if (model === 'qwen2') {
        await viewReady(page, 'model', 1, 0, 30000);
        await el.locator('[data-role="pick-folder"]').setInputFiles(path.join(REPO, 'tests/fixtures/pretrained/qwen2'));
      }
      await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
        .querySelector('[data-slot="model"]')?.result?.opened === true, null, { timeout: 60000 });
      await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
        .querySelector('[data-slot="heatmap"]')?.result?.source === 'pretrained', null, { timeout: 30000 });
      for (const v of CONVERTED) await viewReady(page, v, 1, 0, 30000);
      // decode the model: a token of the sentence, then the model's own next token
      await el.locator('[data-slot="decode"] [data-action="predict"]').waitFor({ state: 'visible' });
      await viewReady(page, 'decode', 1, 0, 30000);
      await press(page, 'decode', 'step');
      await press(page, 'decode', 'predict');
      const { texts, bad } = await notFromCatalog(page, lang);
      for (const role of ['model-facts', 'model-summary', 'next-tokens', 'head-roles', 'overview']) {
        assert.ok(await el.locator(`[data-slot="model"] [data-role="${role}"]`).count(), `${model}: the model view shows ${role}`);
      }
      assert.ok(texts.some((x) => x.where === 'model' && x.text === CATALOGS[lang]['mo.fact.tokenizer']), `${model}: the facts were walked`);
      assert.deepEqual(bad, [], `${model} open`);
      const said = [...await readOuts(page, 'model', '.mo-layer:first-child canvas'), ...await readOuts(page, 'decode', 'canvas')];
      assert.ok(said.length >= 10, `read-outs: ${said.length}`);
      assert.deepEqual(await leftOf(page, lang, said), [], `${model}: the maps' read-outs`);
      // a checkpoint the page refuses: its reason in the page's words
      await el.locator('[data-slot="model"] [data-role="pick-files"]').setInputFiles({ name: 'model.safetensors', mimeType: 'application/octet-stream',
        buffer: Buffer.from([0]) });
      await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
        .querySelector('[data-role="model-error"]')?.dataset.field === 'config.json');
      const refused = await notFromCatalog(page, lang);
      assert.ok(refused.texts.some((x) => x.where === 'model' && x.text.startsWith(CATALOGS[lang]['mo.cannotOpen'])), 'the refusal was walked');
      assert.deepEqual(refused.bad, [], 'the refusal of files without config.json');
      if (lang !== 'en') await shot(page, `i18n-model-${model}-${lang}`);
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });

  test(`${lang}: every step of the walkthrough, its formulas and what its cells were made from come from the ${lang} catalog`, async () => {
    for (const query of ['variant=mha&causal=1', 'variant=gqa&nHeads=8&nKvHeads=2&rope=1', 'variant=mla&nHeads=4&latentRank=12&ropeDim=4']) {
      const page = await b.open(`embed.html?view=walkthrough&v=2&lang=${lang}&${query}`);
      await viewReady(page, 'walkthrough', 1, 0, 30000);
      const { steps } = await viewResult(page, 'walkthrough');
      const bad = [], said = [];
      for (let k = 0; k < steps.length; k++) {
        if (k) await press(page, 'walkthrough', 'next');
        assert.equal((await viewResult(page, 'walkthrough')).step, steps[k]);
        bad.push(...(await notFromCatalog(page, lang)).bad.map((x) => `${steps[k]}: ${x}`));
        said.push(...await readOuts(page, 'walkthrough', 'figure.tf .tf-grid > figure:first-child canvas'));
      }
      assert.deepEqual(bad, [], query);
      assert.ok(said.length >= 6 * steps.length, `${query}: read-outs ${said.length}`);
      assert.deepEqual(await leftOf(page, lang, said), [], `${query}: the cells' read-outs`);
      if (lang !== 'en' && query.startsWith('variant=mla')) await shot(page, `i18n-walkthrough-mla-${lang}`);
      assert.deepEqual(page.errors, []);
      await page.close();
    }
  });

  test(`${lang}: the compare view with the zoo's trained models and their measured table comes from the ${lang} catalog`, async () => {
    const page = await b.open(`embed.html?view=compare&lang=${lang}&source=trained&compare=mha,gqa,mla&nKvHeads=2&latentRank=16&v=2`);
    await viewReady(page, 'compare', 1, 0, 30000);
    const el = app(page);
    await el.locator('details[data-role="zoo"] summary').click();
    await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
      .querySelector('details[data-role="zoo"]')?.dataset.state === 'ready', null, { timeout: 30000 });
    const { texts, bad } = await notFromCatalog(page, lang);
    assert.ok(texts.some((x) => x.where === 'compare' && x.text === CATALOGS[lang]['cmp.zoo.col.vsMha']), 'the zoo\'s table was walked');
    assert.deepEqual(bad, []);
    assert.deepEqual(await leftOf(page, lang, await readOuts(page, 'compare', '.cmp-col:first-child canvas')), [], 'the maps\' read-outs');
    if (lang !== 'en') await shot(page, `i18n-compare-trained-${lang}`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

/**
 * The configurator's requests that make the core say each of its sentences: every rule, warning, fit
 * and the three induction checks (core/src/configurator.cpp).
 */
const CFG_CASES = [
  '',                                                                      // balanced GQA, fits a 24 GB GPU
  'cfgBudget=125000000&cfgSeqLen=2048',                                    // balanced, small: MHA; the size table scaled
  'cfgPriority=quality&cfgSeqLen=65536',                                   // quality MHA refused beyond 32K: GQA
  'cfgVariant=mha&cfgSeqLen=65536',                                        // forced: priced, warned
  'cfgVariant=mla&cfgBudget=350000000',                                    // MLA under 1B: warned; its check
  'cfgPriority=memory&cfgBudget=350000000&cfgTarget=none',                 // memory: MQA; no target
  'cfgPriority=memory&cfgTarget=gpu-80gb',                                 // memory: MLA
  'cfgTarget=phone',                                                       // the weights alone exceed the memory
  'cfgDModel=4096&cfgLayers=32&cfgSeqLen=131072&cfgBatch=8',               // a shape given; nothing fits
  'cfgSeqLen=131072',                                                      // down the ladder to the first that fits
  'cfgSeqLen=49152',                                                       // fits with little headroom
];

for (const lang of LANG_IDS) {
  test(`${lang}: the configurator's sentences (the core's messages) and the devices' names come from the ${lang} catalog`, async () => {
    const frags = fragments(lang);
    const counted = countWords(LANGS[lang].locale);
    const said = new Set();
    for (const query of CFG_CASES) {
      const page = await b.open(`embed.html?view=configurator&lang=${lang}&${query}`);
      await viewReady(page, 'configurator', 1, 0, 30000);
      const { recommendation: r } = await viewResult(page, 'configurator');
      assert.ok(r, `${query}: a recommendation`);
      for (const rule of r.rules) said.add(rule);
      const slot = app(page).locator('[data-slot="configurator"]');
      // Nothing of the answer is the core's English (data-text="core" is for an error's detail only).
      assert.equal(await slot.locator('[data-role="answer"] [data-text="core"]').count(), 0, `${query}: the core's English shown`);
      if (lang !== 'en') {
        const shown = await slot.evaluate((e) => e.textContent);
        const english = [r.justification, ...r.reasons, ...r.warnings, r.init, r.bias, r.check];
        assert.deepEqual(english.filter((x) => shown.includes(x.slice(0, 40))), [], `${query}: an English sentence of the core`);
      }
      const data = await dataWords(page);
      const bad = (await shownTexts(page, [])).filter((x) => x.where.startsWith('configurator'))
        .map((x) => ({ ...x, left: leftover(x.text, frags, data, counted) })).filter((x) => x.left.length)
        .map((x) => `${x.where}: "${x.text}" -> ${x.left.join(' ')}`);
      assert.deepEqual(bad, [], `${lang} ${query}`);
      if (lang !== 'en' && query === '') await shot(page, `i18n-configurator-${lang}`);
      assert.deepEqual(page.errors, []);
      await page.close();
    }
    for (const rule of ['size-table', 'direct-shape', 'forced-variant', 'quality-mha', 'memory-mla', 'memory-mqa', 'balanced-small-mha',
      'balanced-gqa', 'refuse-mha-long-context', 'refuse-mla-small', 'fit-ladder', 'weights-exceed-memory', 'does-not-fit', 'little-headroom']) {
      assert.ok(said.has(rule), `the cases reach ${rule}`);
    }
  });
}

/**
 * Labs 2, 3 and 4 after a short run started by a click: [view, the URL's short run, what the run draws
 * (each must be there and walked)]. Short runs give Labs 2 and 3's "too few steps" sentence with the numbers;
 * every branch of the verdicts is checked in each language by tests/node/web-lab-verdicts.test.mjs.
 */
const LAB_RUNS = [
  ['lab-heads', 'labHSteps=5', ['.lab-table tbody tr', '.lab-summary', '.lab-what', '.u-legend']],
  ['lab-mqa', 'labMSteps=5', ['[data-role="result-rows"] tr', '[data-role="summary"]', '[data-role="budget-summary"]', '.u-legend']],
  ['lab-rank', 'labRSteps=5&labRRanks=4', ['[data-role="rows"] tr', '[data-role="summary"]', '[data-role="chart"] .u-legend']],
  // Its default 600 steps: induction heads have formed (their role in the scores table and under their maps) and 95 % is reached.
  ['lab-induction', 'labISteps=600', ['.lab-heads-scores tbody tr', 'tr[data-role="induction"] td:last-child', '.lab-milestone', '.lab-maps-caption', '.u-legend']],
];

for (const lang of LANG_IDS) {
  test(`${lang}: the labs idle, after a short run and after a refused import: every text comes from the ${lang} catalog`, async () => {
    const frags = fragments(lang);
    const counted = countWords(LANGS[lang].locale);
    for (const [lab, run, drawn] of LAB_RUNS) {
      const page = await b.open(`embed.html?view=${lab}&lang=${lang}&${run}`);
      const view = app(page).locator(`[data-slot="${lab}"]`);
      await labStatus(page, lab, ['idle'], 20000);
      const data = await dataWords(page);
      /** Walks the page; `parts` (selectors in the lab) must be drawn and their text walked; nothing may be left over. */
      const walk = async (when, parts) => {
        const texts = await shownTexts(page, []);
        const mine = texts.filter((x) => x.where.startsWith(lab));
        for (const sel of parts) {
          const shown = await view.locator(sel).first().evaluate((e) => {  // its first text
            const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT, { acceptNode: (n) => (n.textContent.trim() ? 1 : 3) });
            return walker.nextNode()?.textContent.trim() ?? '';
          });
          assert.ok(shown && mine.some((x) => x.text === shown), `${lab} ${when}: ${sel} ("${shown}") is drawn and walked`);
        }
        const bad = texts.map((x) => ({ ...x, left: leftover(x.text, frags, data, counted) })).filter((x) => x.left.length)
          .map((x) => `${x.where}: "${x.text}" -> ${x.left.join(' ')}`);
        assert.deepEqual(bad, [], `${lab} ${when}`);
      };
      await walk('idle', ['[data-role="progress"]', '[data-act="start"]', '[data-act="stop"]', '.lab-import']);
      await view.locator('[data-act="start"]').click();
      await labStatus(page, lab, ['done'], 90000);
      await walk('after a run', [...drawn, '[data-role="progress"]', '[data-act="start"]', '[data-act="export"]', 'select[name="model"]']);
      if (lab === 'lab-heads') {  // and its bundled sweep and trained heads
        await view.locator('button[data-act="zoo"]').click();
        await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
          .querySelector('[data-slot="lab-heads"]')?.result?.zoo, null, { timeout: 20000 });
        await walk('with the bundled results', ['.lab-zoo-summary', '.lab-zoo .lab-table tbody tr', '.lab-map-row-title', '.lab-map-role', '.lab-maps-caption']);
      }
      if (lang !== 'en') await labShots(page, `${lab}-${lang}`);
      // A file that is not a model: the page's sentence, the core's reason after it (marked as the core's: data-text).
      await view.locator('input[name="import"]').setInputFiles({ name: 'notes.safetensors', mimeType: 'application/octet-stream',
        buffer: Buffer.from('these are not the weights you are looking for') });
      await labStatus(page, lab, ['error'], 20000);
      assert.equal(await view.locator('[data-role="error"] [data-text="core"]').getAttribute('lang'), 'en');
      assert.equal(await view.locator('[data-role="progress"]').textContent(), '', 'no "Loading …" left after the refusal');
      await walk('after a refused import', ['[data-role="error"]']);
      assert.deepEqual(page.errors, [], lab);
      await page.close();
    }
  });
}

/** For a person to look at: a lab after its run, desktop (1280 px) and phone (390 px), light and dark (test-results/e2e/); back to desktop light. */
async function labShots(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [size, width] of [['desktop', 1280], ['phone', 390]]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(300);
      await shot(page, `${name}-${size}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

test('NOT_YET is honest: with CONVERTED it names every view, and every view it names still shows text not from the catalog', async () => {
  const page = await openAll('?lang=hi');
  const sections = await page.evaluate(() => [...document.querySelector('attention-playground').shadowRoot.querySelectorAll('[data-section]')]
    .map((s) => s.dataset.section));
  assert.deepEqual([...sections].sort(), [...NOT_YET, ...CONVERTED].sort(), 'every view is in NOT_YET or CONVERTED');
  for (const v of NOT_YET) {
    await page.waitForFunction((s) => {
      const slot = document.querySelector('attention-playground').shadowRoot.querySelector(`[data-slot="${s}"]`);
      return slot.dataset.state !== 'busy' && slot.textContent.trim().length > 0;
    }, v, { timeout: 60000 });
  }
  const frags = fragments('hi');
  const data = await dataWords(page);
  const left = new Map();
  for (const x of await shownTexts(page, CONVERTED)) {
    const slot = x.where.split(' ')[0];
    if (NOT_YET.includes(slot)) left.set(slot, [...(left.get(slot) ?? []), ...leftover(x.text, frags, data, countWords('hi-IN'))]);
  }
  for (const v of NOT_YET) assert.ok(left.get(v)?.length, `${v} shows no English: it belongs in CONVERTED`);
  await page.close();
});

test('the walk finds text that is not from the catalog (an English sentence on the Hindi page)', async () => {
  const page = await openAll('?lang=hi');
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.textContent = 'Parameters and KV cache per variant';
    document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="params"]').append(p);
  });
  const texts = await shownTexts(page, NOT_YET);
  const frags = fragments('hi');
  const data = await dataWords(page);
  const bad = texts.filter((x) => leftover(x.text, frags, data, countWords('hi-IN')).length);
  assert.deepEqual(bad.map((x) => x.text), ['Parameters and KV cache per variant']);
  await page.close();
});

test('lang= in the URL and in config, the browser\'s language, <html lang> and the host\'s lang and dir', async () => {
  const page = await openAll('?lang=hi');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'hi');
  assert.equal(await page.evaluate(() => document.documentElement.dir), 'ltr');
  assert.equal(await app(page).getAttribute('lang'), 'hi');
  assert.equal(await app(page).getAttribute('dir'), 'ltr');
  assert.equal(await app(page).locator('h1').textContent(), CATALOGS.hi['shell.title']);
  assert.equal(await app(page).locator('[data-section="params"] h2').textContent(), CATALOGS.hi['view.params.title']);
  await page.close();
  // The element's config (a course page): each element speaks its own language; the page's <html> is the page's.
  const course = await b.open('test-pages/two-languages.html');
  await viewReady(course, 'params', 1, 0, 30000);
  await viewReady(course, 'params', 1, 1, 30000);
  assert.equal(await app(course, 0).getAttribute('lang'), 'hi');
  assert.equal(await app(course, 1).getAttribute('lang'), 'en');
  assert.equal(await course.evaluate(() => document.documentElement.lang), 'en', 'an element without sync-url leaves <html> alone');
  assert.match(await app(course, 0).locator('[data-role="same-cost-formula"]').textContent(), /= 41,94,304$/);
  assert.match(await app(course, 1).locator('[data-role="same-cost-formula"]').textContent(), /= 4,194,304$/);
  await course.close();
  // The browser's language when neither says: Hindi for a browser that prefers it, English otherwise.
  for (const [languages, want] of [[['hi-IN', 'en'], 'hi'], [['fr-FR', 'de'], 'en']]) {
    const p = await b.context.newPage();
    await p.addInitScript((l) => Object.defineProperty(Navigator.prototype, 'languages', { get: () => l }), languages);
    await p.goto(`${b.base}embed.html?view=params`);
    await viewReady(p, 'params', 1, 0, 30000);
    assert.equal(await app(p).getAttribute('lang'), want, `navigator.languages ${languages}`);
    await p.close();
  }
});

test('the picker switches to Hindi and back without a reload; the URL keeps lang; numbers follow hi-IN', async () => {
  const page = await openAll('?v=2&dModel=1024&nHeads=16');
  await page.evaluate(() => { window.notReloaded = true; });
  const el = app(page);
  assert.equal(await el.getAttribute('lang'), 'en');
  const formula = el.locator('[data-slot="params"] [data-role="same-cost-formula"]');
  assert.equal(await formula.textContent(), '4·D² = 4·1,024² = 4,194,304');
  await el.locator('select[data-action="lang"]').selectOption('hi');
  await page.waitForFunction(() => document.querySelector('attention-playground').getAttribute('lang') === 'hi');
  await viewReady(page, 'params', 1, 0, 30000);
  assert.equal(await formula.textContent(), '4·D² = 4·1,024² = 41,94,304', 'hi-IN groups lakhs');
  assert.match(await page.evaluate(() => location.search), /lang=hi/);
  assert.equal(await el.locator('input[name="dModel"]').inputValue(), '1024', 'the state is kept');
  assert.equal(await el.locator('h1').textContent(), CATALOGS.hi['shell.title']);
  assert.equal(await el.locator('[data-action="copy-link"]').textContent(), CATALOGS.hi['shell.copyLink']);
  await el.locator('select[data-action="lang"]').selectOption('en');
  await page.waitForFunction(() => document.querySelector('attention-playground').getAttribute('lang') === 'en');
  assert.equal(await el.locator('[data-action="copy-link"]').textContent(), 'Copy link');
  assert.equal(await page.evaluate(() => window.notReloaded), true, 'no reload');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a core error shows in the catalog\'s words next to the field to fix, the core\'s English text as the detail', async () => {
  // the core names nHeads ("must be divisible by nKvHeads"); nKvHeads = 3 is what breaks the shape
  const page = await openAll('?lang=hi&v=2&variant=gqa&nHeads=8&nKvHeads=3');
  const err = app(page).locator('[data-field="nKvHeads"] .field-error');
  await err.waitFor({ state: 'visible' });
  assert.match(await err.innerText(), /^nHeads \(H\): core यह मान स्वीकार नहीं करता।/);
  assert.match(await err.locator('[data-text="core"]').innerText(), /nHeads \(8\) must be divisible by nKvHeads \(3\)/);
  assert.equal(await err.locator('[data-text="core"]').getAttribute('lang'), 'en');
  await page.close();
});
