// fields.js — a form field's text -> its value, or the sentence that says what is allowed
// (shown next to the field; pure, tested in tests/node/web-kit.test.mjs).

/**
 * An integer field's value or the sentence that says what is allowed.
 * @returns {{ value: number } | { error: string }}
 */
export function parseIntegerField(text, { label, min, max }) {
  const t = String(text ?? '').trim();
  const n = Number(t);
  if (t === '' || !Number.isInteger(n) || n < min || n > max) {
    return { error: `${label}: enter a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}` +
      `${t === '' ? '' : ` (not “${t}”)`}.` };
  }
  return { value: n };
}

/**
 * A list of integers ("4, 16"), each in [min, max], at most `most`, duplicates removed, sorted.
 * @returns {{ value: number[] } | { error: string }}
 */
export function parseIntegerList(text, { label, min, max, most }) {
  const parts = String(text ?? '').split(/[\s,]+/).filter(Boolean);
  const bad = parts.filter((p) => !(Number.isInteger(Number(p)) && Number(p) >= min && Number(p) <= max));
  if (!parts.length || bad.length) {
    return { error: `${label}: whole numbers from ${min} to ${max}, separated by commas${bad.length ? ` (not ${bad.map((b) => `“${b}”`).join(', ')})` : ''}.` };
  }
  const value = [...new Set(parts.map(Number))].sort((a, b) => a - b);
  if (value.length > most) return { error: `${label}: at most ${most} values (you gave ${value.length}).` };
  return { value };
}

