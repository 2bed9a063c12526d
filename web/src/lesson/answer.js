// answer.js — "Check yourself" (views/check.js): a learner's answer against the core's. Pure (no DOM),
// tested in tests/node/web-check.test.mjs.

const DEVANAGARI = /[०-९]/g;
/** A plain decimal number: digits, one optional point, an optional exponent (no hex, no "Infinity"). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
/** Digits grouped with commas, as en-US (16,384) or hi-IN (10,73,74,18,240) write them. */
const GROUPED = /^[+-]?\d{1,3}(,\d{2,3})+(\.\d+)?$/;

/**
 * A typed number: trimmed, Devanagari digits read as digits, grouping commas dropped, a trailing ×
 * ("8×", "8x") allowed for a ratio.
 * @param {string} text
 * @returns {{ value: number } | { problem: 'empty' | 'notNumber', text: string }}
 */
export function readNumber(text) {
  const typed = String(text ?? '').trim();
  if (typed === '') return { problem: 'empty', text: typed };
  let s = typed.replace(DEVANAGARI, (d) => String(d.charCodeAt(0) - 0x966)).replace(/\s*[×x]$/i, '');
  if (GROUPED.test(s)) s = s.replaceAll(',', '');
  if (!DECIMAL.test(s)) return { problem: 'notNumber', text: typed };
  return { value: Number(s) };
}

/**
 * Whether an answer is right.
 * @param {{ kind: 'number' | 'choice', right?: string }} question  (lesson/questions.js)
 * @param {string | null} given  the typed text, or the chosen choice's id (null: none chosen)
 * @param {{ answer?: number }} measured  the core's answer (number questions)
 * @returns {{ verdict: 'right' | 'wrong' } | { verdict: 'invalid', problem: 'empty' | 'notNumber' | 'noChoice', text?: string }}
 */
export function checkAnswer(question, given, measured) {
  if (question.kind === 'choice') {
    if (given == null || given === '') return { verdict: 'invalid', problem: 'noChoice' };
    return { verdict: given === question.right ? 'right' : 'wrong' };
  }
  const read = readNumber(given);
  if ('problem' in read) return { verdict: 'invalid', ...read };
  const want = measured.answer;
  const close = Math.abs(read.value - want) <= 1e-9 * Math.max(1, Math.abs(want));
  return { verdict: close ? 'right' : 'wrong' };
}
