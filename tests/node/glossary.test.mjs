// The glossary (web/src/i18n/glossary.js) against the catalogs: one word for each term. No message of
// a language writes a variant the glossary avoids for it (another spelling, the English word left in
// Latin letters), outside its parameters' names; and the avoided variants do occur in the words they
// are meant to catch (so a check that finds nothing is a clean catalog, not a broken pattern).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LANG_IDS } from '../../web/src/i18n/index.js';
import { GLOSSARY } from '../../web/src/i18n/glossary.js';
import { CATALOGS } from './i18n-kit.mjs';

const texts = (m) => (typeof m === 'string' ? [m] : Object.values(m));
/** A message's words: its text without the {names} of its parameters. */
const wordsOf = (m) => texts(m).join(' ').replace(/\{\w+\}/g, '');

/** Every message of `catalog` that writes a variant `GLOSSARY` avoids for `lang`: ["key: variant (term)"]. */
export function avoidedIn(catalog, lang) {
  const found = [];
  for (const [key, m] of Object.entries(catalog)) {
    const words = wordsOf(m);
    for (const g of GLOSSARY) {
      for (const bad of g.avoid?.[lang] ?? []) if (bad.test(words)) found.push(`${key}: ${bad} (${g.en})`);
    }
  }
  return found;
}

test('every language writes one word for each term: no message has a variant the glossary avoids', () => {
  for (const lang of LANG_IDS.filter((l) => l !== 'en')) assert.deepEqual(avoidedIn(CATALOGS[lang], lang), [], lang);
});

test('the Hindi glossary picks a term for key, value, column, billion and million, and avoids the others', () => {
  const hindi = (en) => GLOSSARY.find((g) => g.en.test(en));
  for (const [en, want] of [['keys', 'कुंजी'], ['values', 'वैल्यू'], ['column', 'कॉलम'], ['billion', 'अरब'], ['million', 'दस लाख'], ['queries', 'क्वेरी']]) {
    const g = hindi(en);
    assert.ok(g, `${en} is in the glossary`);
    assert.ok([g.hi].flat().includes(want), `${en}: ${want}`);
    assert.ok(g.avoid?.hi?.length, `${en}: its avoided variants`);
  }
});

test('the check finds an avoided variant (Latin keys, स्तंभ, बिलियन) in a message', () => {
  const bad = { 'a.one': 'पंक्तियाँ क्वेरी हैं, स्तंभ keys।', 'a.two': 'B (बिलियन)', 'a.three': '{value} अरब', 'a.four': { one: 'values', other: 'कुंजियाँ' } };
  assert.deepEqual(avoidedIn(bad, 'hi').map((x) => x.split(':')[0]).sort(), ['a.four', 'a.one', 'a.one', 'a.two']);
});
