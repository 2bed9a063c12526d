// The page's languages (web/src/i18n/): every complete catalog has exactly the keys web/src uses, the
// same parameters in every language, every plural form its locale needs, the glossary's terms; numbers
// through Intl in the language's locale; core errors in the catalog's words with the core's text kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EN, LANGS, LANG_IDS, createI18n, hasCatalog, loadI18n, pickLang } from '../../web/src/i18n/index.js';
import { GLOSSARY } from '../../web/src/i18n/glossary.js';
import { CATALOGS, ENGLISH_FILES } from './i18n-kit.mjs';

const SRC = fileURLToPath(new URL('../../web/src/', import.meta.url));
const en = CATALOGS.en;
const NAMESPACES = new Set(Object.keys(en).map((k) => k.split('.')[0]));

/** Every .js file of web/src but the catalogs themselves. */
function sources(dir = SRC) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return p.endsWith(path.join('i18n', 'catalogs')) ? [] : sources(p);
    return d.name.endsWith('.js') ? [p] : [];
  });
}

/**
 * What the code asks the catalogs for: literal keys ('params.col.vsMha') and the patterns of keys
 * built from a template (`view.${id}.title` -> /^view\.[^.]+\.title$/), found in every source file.
 */
function usedKeys() {
  const literals = new Set(), patterns = [];
  const keyShape = /^[a-z][A-Za-z]*(\.[A-Za-z0-9-]+)+$/;
  for (const file of sources()) {
    const code = fs.readFileSync(file, 'utf8');
    for (const m of code.matchAll(/'([^'\n\\]*)'|"([^"\n\\]*)"/g)) {
      const s = m[1] ?? m[2];
      if (keyShape.test(s) && NAMESPACES.has(s.split('.')[0])) literals.add(s);
    }
    for (const m of code.matchAll(/`([a-z][A-Za-z]*\.[^`\s]*\$\{[^`]*)`/g)) {
      const parts = m[1].split(/\$\{[^}]*\}/);
      if (!NAMESPACES.has(parts[0].split('.')[0])) continue;
      patterns.push(new RegExp(`^${parts.map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^.]+')}$`));
    }
  }
  return { literals, patterns };
}

const placeholders = (m) => [...new Set((typeof m === 'string' ? [m] : Object.values(m)).join(' ').match(/\{\w+\}/g) ?? [])].sort();
const texts = (m) => (typeof m === 'string' ? [m] : Object.values(m));

test('every key the code uses is in every complete catalog, and every catalog key is used', () => {
  const { literals, patterns } = usedKeys();
  assert.ok(literals.size > 100, `keys found in web/src: ${literals.size}`);
  for (const lang of LANG_IDS) {
    const catalog = CATALOGS[lang];
    const missing = [...literals].filter((k) => !(k in catalog));
    assert.deepEqual(missing, [], `${lang}: keys used in web/src but missing from the catalog`);
    const unused = Object.keys(catalog).filter((k) => !literals.has(k) && !patterns.some((p) => p.test(k)));
    assert.deepEqual(unused, [], `${lang}: keys no code uses`);
  }
});

test('English in pieces: no key in two files, and a module that speaks a key imports the file that has it', () => {
  const fileOf = new Map();
  for (const [file, words] of Object.entries(ENGLISH_FILES)) {
    for (const key of Object.keys(words)) {
      assert.ok(!fileOf.has(key), `${key}: in ${fileOf.get(key)} and ${file}`);
      fileOf.set(key, file);
    }
  }
  assert.ok(Object.keys(ENGLISH_FILES).length > 2 && 'shell.js' in ENGLISH_FILES, Object.keys(ENGLISH_FILES).join(', '));
  // Literal keys only: a key built from a template is checked by the browser tests (the views in English).
  const problems = [];
  for (const file of sources()) {
    const code = fs.readFileSync(file, 'utf8');
    for (const m of code.matchAll(/'([^'\n\\]*)'|"([^"\n\\]*)"/g)) {
      const owner = fileOf.get(m[1] ?? m[2]);
      if (owner && owner !== 'shell.js' && !code.includes(`i18n/catalogs/en/${owner}'`)) {
        problems.push(`${path.relative(SRC, file)}: ${m[1] ?? m[2]} (import '…/i18n/catalogs/en/${owner}')`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('another language\'s catalog is fetched when it is chosen, not imported with the page', async () => {
  const index = fs.readFileSync(path.join(SRC, 'i18n/index.js'), 'utf8');
  assert.doesNotMatch(index, /^import[^;]*catalogs\/hi/m, 'i18n/index.js imports the Hindi catalog statically');
  assert.ok(hasCatalog('en'));
  const hi = await loadI18n('hi');
  assert.equal(hi.lang, 'hi');
  assert.equal(hi.t('shell.title'), CATALOGS.hi['shell.title']);
  assert.equal((await loadI18n('xx')).lang, 'en');
});

test('every language has the same keys and parameters, and the plural forms its locale needs', () => {
  for (const lang of LANG_IDS) {
    const catalog = CATALOGS[lang];
    const { locale } = LANGS[lang];
    assert.deepEqual(Object.keys(catalog).sort(), Object.keys(en).sort(), `${lang}: the same keys as English`);
    const needed = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
    for (const [key, m] of Object.entries(catalog)) {
      assert.deepEqual(placeholders(m), placeholders(en[key]), `${lang} ${key}: the parameters of the English message`);
      assert.equal(typeof m, typeof en[key], `${lang} ${key}: a plural where English has one`);
      if (typeof m === 'object') for (const c of needed) assert.ok(c in m, `${lang} ${key}: plural form "${c}" for ${locale}`);
      if (lang !== 'en') for (const t of texts(m)) assert.ok(t.trim(), `${lang} ${key}: not empty`);
    }
  }
});

test('the glossary: a message whose English has a term has the language\'s rendering of it', () => {
  const problems = [];
  for (const lang of LANG_IDS.filter((l) => l !== 'en')) {
    for (const [key, m] of Object.entries(CATALOGS[lang])) {
      const english = texts(en[key]).join(' ').replace(/\{\w+\}/g, '');  // the words, not the parameters' names
      for (const g of GLOSSARY) {
        const want = g.same ?? g[lang];
        if (want && g.en.test(english) && ![want].flat().some((w) => texts(m).some((t) => t.includes(w)))) problems.push(`${lang} ${key}: "${want}" (${g.en})`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('numbers through Intl in the language\'s locale: Hindi groups 10,73,74,18,240', () => {
  const hi = createI18n('hi');
  assert.equal(hi.fmt.int(10737418240), '10,73,74,18,240');
  assert.equal(EN.fmt.int(10737418240), '10,737,418,240');
  assert.equal(hi.fmt.count(5368709120), '5.369 अरब');
  assert.equal(EN.fmt.count(5368709120), '5.369 billion');
  assert.equal(hi.fmt.binary(10737418240), '10 GiB');
  assert.equal(hi.fmt.pct(0.4375), '43.75 %');
  // A number given to a message is grouped in the locale.
  assert.equal(hi.t('form.textFull', { max: 1234567 }), 'इस बॉक्स में अधिकतम 12,34,567 अक्षर आते हैं; और टाइप करने से कुछ नहीं जुड़ता।');
});

test('plurals through Intl.PluralRules: English 1 head / 2 heads; Hindi one for 0 and 1', () => {
  assert.equal(EN.t('shape.line', { count: 1, H: 4, G: 1, dh: 16 }), 'H = 4 query heads, G = 1 K/V head, dh = 16');
  assert.equal(EN.t('shape.line', { count: 2, H: 4, G: 2, dh: 16 }), 'H = 4 query heads, G = 2 K/V heads, dh = 16');
  assert.equal(EN.t('kv.captionShape', { count: 1, dims: 'x', perToken: 'y', bpe: 2, dtype: 'bf16' }).includes('× 1 sequence ×'), true);
  assert.equal(EN.t('kv.captionShape', { count: 3, dims: 'x', perToken: 'y', bpe: 2, dtype: 'bf16' }).includes('× 3 sequences ×'), true);
  assert.equal(createI18n('hi').t('kv.presetShape', { count: 1, layers: 32, heads: 71, dh: 64 }), '32 लेयर, 71 हेड, 64 चौड़ाई का 1 KV हेड');
  assert.equal(createI18n('hi').t('kv.presetShape', { count: 8, layers: 80, heads: 64, dh: 128 }), '80 लेयर, 64 हेड, 128 चौड़ाई के 8 KV हेड');
});

test('the language: asked for, else the browser\'s when a catalog has it, else English', () => {
  assert.equal(pickLang('hi', ['en-US']), 'hi');
  assert.equal(pickLang('hi-IN', []), 'hi');
  assert.equal(pickLang('', ['hi-IN', 'en']), 'hi');
  assert.equal(pickLang('', ['fr-FR', 'hi']), 'hi');
  assert.equal(pickLang('xx', ['fr-FR']), 'en');
  assert.equal(pickLang('', []), 'en');
  assert.equal(createI18n('hi').lang, 'hi');
  assert.equal(createI18n('xx').lang, 'en');
  assert.throws(() => EN.t('no.such.key'), /no message "no\.such\.key"/);
});

test('a core error on the page: the catalog\'s sentence by field and kind, the core\'s English text as the detail', () => {
  const e = Object.assign(new RangeError('nHeads (8) must be divisible by nKvHeads (3)'), { field: 'nHeads' });
  assert.deepEqual(createI18n('hi').coreError(e), { text: 'nHeads (H): core यह मान स्वीकार नहीं करता।', detail: e.message });
  assert.deepEqual(EN.coreError(e), { text: 'nHeads (H): the core does not accept this value.', detail: e.message });
  const typed = Object.assign(new TypeError('model.nHeads must be a number'), { field: 'model.nHeads' });
  assert.equal(EN.coreError(typed).text, 'nHeads (H): the core expects a value of another kind.');
  assert.equal(EN.coreError(new Error('out of memory')).text, 'The core refused this shape.');
  const unknownField = Object.assign(new RangeError('x'), { field: 'cfgWeird' });
  assert.equal(EN.coreError(unknownField).text, 'cfgWeird: the core does not accept this value.');
});

test('integers written without Intl (below 1,000; en-US grouping) read as Intl writes them, in every language', async () => {
  const { createFormat } = await import('../../web/src/format.js');
  for (const id of LANG_IDS) {
    const { locale } = LANGS[id];
    const f = createFormat(locale), intl = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
    for (let n = -999; n <= 999; n++) if (n !== 0) assert.equal(f.int(n), intl.format(n), `${locale}: ${n}`);
    assert.equal(f.int(0), '0');
    assert.equal(f.int(1000), intl.format(1000), 'from 1,000 on, grouped as Intl groups');
    let x = 7;
    for (let k = 0; k < 2000; k++) {  // integers of every length up to 2^53, both signs
      x = (x * 48271) % 2147483647;
      const n = Math.round((x / 2147483647) ** 3 * Number.MAX_SAFE_INTEGER) * (k % 2 ? -1 : 1);
      assert.equal(f.int(n), intl.format(n), `${locale}: ${n}`);
    }
    assert.equal(f.int(Number.MAX_SAFE_INTEGER), intl.format(Number.MAX_SAFE_INTEGER));
    assert.equal(f.int(1234.5), intl.format(1234.5), 'fractions through Intl');
  }
});
