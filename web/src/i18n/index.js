// i18n/index.js — the page's words in the learner's language: one catalog per language (catalogs/),
// `t(key, params)` with `{name}` parameters and plurals through Intl.PluralRules, numbers through
// Intl.NumberFormat in the language's locale (hi-IN groups 10,73,74,18,240), and a core error in the
// page's words (by error.field and kind, the core's English text kept as the detail).
// Pure: Node tests import it. Views get an instance as ctx.i18n; code without one uses EN.
import en from './catalogs/en.js';
import hi from './catalogs/hi.js';
import { createFormat } from '../format.js';

/** The languages with a complete catalog: the picker lists them in this order. */
export const LANGS = Object.freeze({
  en: { name: 'English', locale: 'en-US', dir: 'ltr', catalog: en },
  hi: { name: 'हिन्दी', locale: 'hi-IN', dir: 'ltr', catalog: hi },
});
export const LANG_IDS = Object.keys(LANGS);

/**
 * The language to speak: the one asked for (URL `lang=`, the element's config) when a catalog has it,
 * else the first of the browser's languages that one has ('hi-IN' -> 'hi'), else English.
 * @param {string} asked
 * @param {readonly string[]} [preferred] navigator.languages
 */
export function pickLang(asked, preferred = []) {
  const base = (tag) => String(tag ?? '').toLowerCase().split('-')[0];
  if (LANGS[base(asked)]) return base(asked);
  return preferred.map(base).find((l) => LANGS[l]) ?? 'en';
}

/** `{name}` in a message -> params.name (numbers grouped in the locale, everything else as text). */
function fill(message, params, num) {
  return message.replace(/\{(\w+)\}/g, (m, name) => {
    if (!(name in params)) return m;
    const v = params[name];
    return typeof v === 'number' ? num(v) : String(v);
  });
}

/**
 * @param {string} lang  an id of LANGS
 * @returns {{ lang: string, locale: string, dir: string, t(key: string, params?: object): string,
 *   has(key: string): boolean, fmt: ReturnType<typeof createFormat>, coreError(error: Error): { text: string, detail: string } }}
 */
export function createI18n(lang) {
  const { locale, dir, catalog } = LANGS[lang] ?? LANGS.en;
  const plurals = new Intl.PluralRules(locale);
  const t = (key, params = {}) => {
    const m = catalog[key] ?? en[key];
    if (m === undefined) throw new Error(`i18n: no message "${key}"`);
    const text = typeof m === 'string' ? m : (m[plurals.select(params.count ?? 0)] ?? m.other);
    return fill(text, params, fmt.int);
  };
  const fmt = createFormat(locale);
  /**
   * A core error as the page shows it: the catalog's sentence for its kind (RangeError: a value out of
   * what the core accepts; TypeError: a value of the wrong kind; otherwise: the core refused), naming
   * the field as the form labels it (`fieldLabel` where a form names its fields otherwise than the
   * core's request does), and the core's own English message as the detail.
   */
  const coreError = (error, fieldLabel = '') => {
    const field = String(error?.field ?? '');
    const last = field.split('.').pop();
    const label = fieldLabel || (last && catalog[`field.${last}`] ? t(`field.${last}`) : last);
    const kind = error?.name === 'RangeError' ? 'range' : error?.name === 'TypeError' ? 'type' : 'other';
    const text = label ? t(`error.${kind}`, { field: label }) : t('error.plain');
    return { text, detail: String(error?.message ?? error ?? '') };
  };
  return { lang: LANGS[lang] ? lang : 'en', locale, dir, t, has: (key) => key in catalog, fmt, coreError };
}

/** English: for code that has no element's instance (the default of optional parameters). */
export const EN = createI18n('en');
