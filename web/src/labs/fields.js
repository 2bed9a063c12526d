// fields.js — a form field's text -> its value, or the sentence that says what is allowed, in the
// page's language (shown next to the field; pure, tested in tests/node/web-kit.test.mjs).
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks

/**
 * An integer field's value or the sentence that says what is allowed.
 * @param {string} text  what the field holds
 * @param {{ label: string, min: number, max: number }} range  label: the field's name as the page shows it
 * @param {object} [i18n]  the element's words (ctx.i18n)
 * @returns {{ value: number } | { error: string }}
 */
export function parseIntegerField(text, { label, min, max }, i18n = EN) {
  const t = String(text ?? '').trim();
  const n = Number(t);
  if (t === '' || !Number.isInteger(n) || n < min || n > max) {
    return { error: i18n.t(t === '' ? 'labs.field.whole' : 'labs.field.wholeNot', { label, min, max, text: t }) };
  }
  return { value: n };
}

/**
 * A list of integers ("4, 16"), each in [min, max], at most `most`, duplicates removed, sorted.
 * @param {object} [i18n]  the element's words (ctx.i18n)
 * @returns {{ value: number[] } | { error: string }}
 */
export function parseIntegerList(text, { label, min, max, most }, i18n = EN) {
  const parts = String(text ?? '').split(/[\s,]+/).filter(Boolean);
  const bad = parts.filter((p) => !(Number.isInteger(Number(p)) && Number(p) >= min && Number(p) <= max));
  if (!parts.length || bad.length) {
    return { error: bad.length ? i18n.t('labs.field.listNot', { label, min, max, bad: bad.map((b) => `“${b}”`).join(', ') })
      : i18n.t('labs.field.list', { label, min, max }) };
  }
  const value = [...new Set(parts.map(Number))].sort((a, b) => a - b);
  if (value.length > most) return { error: i18n.t('labs.field.most', { label, most, count: value.length }) };
  return { value };
}
