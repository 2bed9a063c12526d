// i18n-kit.mjs — every catalog whole, for the tests: English from all of web/src/i18n/catalogs/en/
// (the page loads those files one view chunk at a time) and every other language's catalog.
import fs from 'node:fs';
import { LANGS, LANG_IDS } from '../../web/src/i18n/index.js';
import { ENGLISH } from '../../web/src/i18n/english.js';

export const EN_DIR = new URL('../../web/src/i18n/catalogs/en/', import.meta.url);
/** The files of the English catalog: name -> their words (shell.js is the main bundle's). */
export const ENGLISH_FILES = Object.fromEntries(await Promise.all(fs.readdirSync(EN_DIR).filter((f) => f.endsWith('.js')).sort()
  .map(async (f) => [f, (await import(new URL(f, EN_DIR))).default])));

/** lang -> key -> message: English once every file of it is imported, the others as loaded. */
export const CATALOGS = Object.fromEntries(await Promise.all(LANG_IDS.map(async (lang) => [lang, lang === 'en' ? ENGLISH : await LANGS[lang].load()])));
