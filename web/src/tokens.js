// tokens.js — the simple tokenizer and the deterministic embedding of the attention view.
//
// Tokens: words and punctuation (`the cat, sat.` -> the | cat | , | sat | .); a word keeps its combining
// marks (Devanagari's vowel signs and virama: `बिल्ली` is one token).
// Embedding of token t at position p (dModel D):  x = 2 * (v(t) + pos(p))
//   v(t): D values uniform in [-sqrt(3), sqrt(3)) (unit variance) drawn from a hash of (seed, t),
//         so the same word gets the same vector wherever it appears;
//   pos(p): sinusoidal positions (Vaswani et al. 2017) when RoPE is off; zero when RoPE is on
//         (RoPE puts positions inside attention instead).
// The factor 2 makes the seeded random projections give scores of order 1 (visible structure).
import { rng } from './rng.js';

const TOKEN_RE = /[\p{L}\p{M}\p{N}'’]+|[^\s\p{L}\p{M}\p{N}]/gu;

/** The most tokens any view computes with; the views say so when a sentence is longer (tokenCount). */
export const MAX_TOKENS = 100;

/** The first MAX_TOKENS tokens of `text`. @param {string} text */
export function tokenize(text) {
  return (String(text).match(TOKEN_RE) ?? []).slice(0, MAX_TOKENS);
}

/** How many tokens `text` has in full (may exceed MAX_TOKENS). */
export function tokenCount(text) {
  return (String(text).match(TOKEN_RE) ?? []).length;
}

/** null, or how the text was cut to MAX_TOKENS tokens: { count (its tokens), max, left (left out) }. */
export function truncation(text) {
  const n = tokenCount(text);
  return n > MAX_TOKENS ? { count: n, max: MAX_TOKENS, left: n - MAX_TOKENS } : null;
}

// FNV-1a over the token, mixed with the seed, then a splitmix-style 32-bit generator.
function hashString(s, seed) {
  let h = (2166136261 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/**
 * @param {string[]} tokens
 * @param {number} dModel
 * @param {{ seed?: number, positions?: boolean }} options positions: add sinusoidal positions
 * @returns {Float32Array} (N, dModel) row-major
 */
export function embed(tokens, dModel, { seed = 0, positions = true } = {}) {
  const x = new Float32Array(tokens.length * dModel);
  const root3 = Math.sqrt(3);
  tokens.forEach((tok, p) => {
    const next = rng(hashString(tok.toLowerCase(), seed));
    for (let j = 0; j < dModel; j++) {
      let v = (2 * next() - 1) * root3;
      if (positions) {
        const i = Math.floor(j / 2);
        const angle = p / Math.pow(10000, (2 * i) / dModel);
        v += j % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
      }
      x[p * dModel + j] = 2 * v;
    }
  });
  return x;
}
