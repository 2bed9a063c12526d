// i18n/index.js — the page's words in the learner's language: one catalog per language, `t(key, params)`
// with `{name}` parameters and plurals through Intl.PluralRules, numbers through Intl.NumberFormat in the
// language's locale (hi-IN groups 10,73,74,18,240), and a core error in the page's words (by error.field
// and kind, the core's English text kept as the detail).
// English comes in pieces (english.js: the shell's words in the main bundle, each view's with its chunk);
// every other language is one catalog fetched by dynamic import when it is chosen (loadI18n), so the
// English page never downloads it. Pure: Node tests import it. Views get an instance as ctx.i18n; code
// without one uses EN.
import { ENGLISH } from './english.js';
import { createFormat } from '../format.js';

/**
 * The languages with a complete catalog: the picker lists them in this order. `load` fetches the
 * catalog (English: the words loaded so far, which the view chunks extend).
 */
export const LANGS = Object.freeze({
  en: { name: 'English', locale: 'en-US', dir: 'ltr', load: async () => ENGLISH },
  hi: { name: 'हिन्दी', locale: 'hi-IN', dir: 'ltr', load: () => import('./catalogs/hi.js').then((m) => m.default) },
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

/** lang -> its catalog, once loadI18n has fetched it. */
const loaded = new Map([['en', ENGLISH]]);

/** Whether `lang`'s catalog has arrived (createI18n can make its instance now). */
export const hasCatalog = (lang) => loaded.has(lang);

/**
 * The instance for `lang`, once its catalog has arrived (English: at once, no fetch).
 * @param {string} lang  an id of LANGS
 */
export async function loadI18n(lang) {
  const id = LANGS[lang] ? lang : 'en';
  if (!loaded.has(id)) loaded.set(id, await LANGS[id].load());
  return createI18n(id);
}

/**
 * @param {string} lang  an id of LANGS whose catalog is loaded (loadI18n)
 * @returns {{ lang: string, locale: string, dir: string, t(key: string, params?: object): string,
 *   has(key: string): boolean, fmt: ReturnType<typeof createFormat>, coreError(error: Error): { text: string, detail: string } }}
 */
export function createI18n(lang) {
  const id = LANGS[lang] ? lang : 'en';
  const { locale, dir } = LANGS[id];
  const catalog = loaded.get(id);
  if (!catalog) throw new Error(`i18n: the ${id} catalog is not loaded (loadI18n)`);
  const plurals = new Intl.PluralRules(locale);
  const t = (key, params = {}) => {
    const m = catalog[key] ?? ENGLISH[key];
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
  return { lang: id, locale, dir, t, has: (key) => key in catalog, fmt, coreError };
}

/** English: for code that has no element's instance (the default of optional parameters). */
export const EN = createI18n('en');
