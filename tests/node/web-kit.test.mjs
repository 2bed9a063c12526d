// The page's pure modules: kit.js (escaping, page words, names), core-errors.js (error.field across
// postMessage), labs/fields.js (lab fields), tokens.js (the 100-token cut is said).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeHtml, html, inPageWords, plural, raw, variantLabel, variantName, VARIANT_IDS } from '../../web/src/kit.js';
import { rebuildError, serializeError } from '../../web/src/core-errors.js';
import { parseIntegerField, parseIntegerList } from '../../web/src/labs/fields.js';
import { loadI18n } from '../../web/src/i18n/index.js';
import { MAX_TOKENS, tokenize, tokenCount, truncation } from '../../web/src/tokens.js';
import { seededSource } from '../../web/src/sources/seeded.js';

test('html escapes every interpolation unless it is html or raw', () => {
  const evil = '<img src=x onerror="alert(1)">&\'';
  assert.equal(String(html`<p title="${evil}">${evil}</p>`),
    '<p title="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;">&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;</p>');
  assert.equal(String(html`<ul>${['a<', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`), '<ul><li>a&lt;</li><li>b</li></ul>');
  assert.equal(String(html`${raw('<b>ok</b>')}${null}${undefined}${false}${0}`), '<b>ok</b>0');
  assert.equal(escapeHtml('"<>&\''), '&quot;&lt;&gt;&amp;&#39;');
});

test('page words: no API field names such as returnWeights in what the page shows (regression)', () => {
  const core = 'this forward pass needs about 2048 MiB of working memory, above the cap of 1024 MiB: '
    + 'reduce seqLen (100), dModel or the head sizes, or do not ask for returnWeights';
  const shown = inPageWords(core);
  assert.doesNotMatch(shown, /returnWeights|seqLen/);
  assert.match(shown, /reduce the number of tokens \(100\), dModel or the head sizes, or use a shorter sentence/);
  assert.equal(inPageWords('nHeads (6) must be divisible by nKvHeads (4)'), 'nHeads (6) must be divisible by nKvHeads (4)');
});

test('one variant table; "1 KV head", "2 KV heads" (regression: "1 KV heads")', () => {
  assert.deepEqual(VARIANT_IDS, ['mha', 'mqa', 'gqa', 'mla']);
  assert.equal(variantName('gqa'), 'GQA');
  assert.equal(variantLabel('mla'), 'MLA (multi-head latent)');
  assert.equal(plural(1, 'KV head'), '1 KV head');
  assert.equal(plural(2, 'KV head'), '2 KV heads');
});

test('error.field survives the worker boundary (structured clone) with the error class', () => {
  const e = new RangeError('nHeads (8) must be divisible by nKvHeads (3)');
  e.field = 'nKvHeads';
  const back = rebuildError(structuredClone(serializeError(e)));
  assert.ok(back instanceof RangeError);
  assert.equal(back.message, e.message);
  assert.equal(back.field, 'nKvHeads');
  const plain = rebuildError(structuredClone(serializeError(new TypeError('x is required'))));
  assert.ok(plain instanceof TypeError);
  assert.equal('field' in plain, false, 'no field when the core named none');
  assert.equal(rebuildError(serializeError('a string')).message, 'a string');
});

test('a lab steps value out of range is refused with what is allowed (regression: 20020 became the default)', async () => {
  const range = { label: 'Steps', min: 1, max: 5000 };
  assert.deepEqual(parseIntegerField('150', range), { value: 150 });
  assert.match(parseIntegerField('20020', range).error, /Steps: enter a whole number from 1 to 5,000 \(not “20020”\)/);
  for (const bad of ['', '0', '2.5', 'abc', '-3']) assert.ok('error' in parseIntegerField(bad, range), bad);
  const ranks = { label: 'ranks', min: 1, max: 256, most: 8 };
  assert.deepEqual(parseIntegerList('16, 4,4', ranks), { value: [4, 16] });
  assert.match(parseIntegerList('4, 999, x', ranks).error, /not “999”, “x”/);
  assert.match(parseIntegerList('1,2,3,4,5,6,7,8,9', ranks).error, /at most 8/);
  assert.ok('error' in parseIntegerList('', ranks));
  // In the page's language: the field's label as the page shows it, the numbers in the locale.
  const hi = await loadI18n('hi');
  assert.equal(parseIntegerField('20020', { label: 'स्टेप', min: 1, max: 20000 }, hi).error,
    'स्टेप: 1 से 20,000 तक की कोई पूर्ण संख्या लिखें (“20020” नहीं)।');
  assert.equal(parseIntegerField('', { label: 'स्टेप', min: 1, max: 200000 }, hi).error, 'स्टेप: 1 से 2,00,000 तक की कोई पूर्ण संख्या लिखें।');
  assert.match(parseIntegerList('4, 999, x', { ...ranks, label: 'r' }, hi).error, /^r: 1 से 256 तक .*\(“999”, “x” नहीं\)।$/);
  assert.equal(parseIntegerList('1,2,3,4,5,6,7,8,9', { ...ranks, label: 'r' }, hi).error, 'r: अधिकतम 8 मान (आपने 9 दिए)।');
});

test('a word keeps its combining marks: a Hindi sentence is words, not letters and vowel signs', () => {
  assert.deepEqual(tokenize('बिल्ली चटाई पर बैठी।'), ['बिल्ली', 'चटाई', 'पर', 'बैठी', '।']);
  assert.deepEqual(tokenize('cafe\u0301, ok'), ['cafe\u0301', ',', 'ok']);
  assert.deepEqual(tokenize('the cat, sat.'), ['the', 'cat', ',', 'sat', '.']);
});

test('a long sentence is cut to 100 tokens and the page can say so (regression: cut without a word)', () => {
  const long = Array.from({ length: 130 }, (_, i) => `w${i}`).join(' ');
  assert.equal(MAX_TOKENS, 100);
  assert.equal(tokenize(long).length, 100);
  assert.equal(tokenCount(long), 130);
  assert.deepEqual(truncation(long), { count: 130, max: 100, left: 30 });
  assert.match(seededSource({}).note({ text: long }), /130 tokens: only the first 100 are used \(30 left out\)/);
  assert.equal(truncation('the cat sat'), null);
  assert.equal(seededSource({}).note({ text: 'the cat sat' }), '');
});
