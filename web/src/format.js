// format.js — how the page writes numbers: grouped integers, bytes in binary and decimal units,
// token counts (1.5K), large counts in words, percentages, changes and ratios, in a locale
// (createFormat; the fmt* exports are en-US). Pure (Node tests).

/**
 * The formatters of one locale ('en-US', 'hi-IN'): digits grouped as the locale groups them
 * (hi-IN: 10,73,74,18,240), decimals as it writes them; units stay symbols (B, KiB, GB).
 * @param {string} locale
 */
export function createFormat(locale) {
  const known = FORMATS.get(locale);
  if (known) return known;
  const made = makeFormat(locale);
  FORMATS.set(locale, made);
  return made;
}

/** An integer with en-US's thousands separators: -1234567 -> "-1,234,567". */
const groupedEnglish = (n) => `${n < 0 ? '-' : ''}${String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;

/** One set of formatters per locale: the page's instances and EN share them. */
const FORMATS = new Map();

/** An Intl.NumberFormat made on its first use: making one costs up to ~20 ms (the compact one), at start-up. */
const lazyFormat = (locale, options) => {
  let f = null;
  return { format: (x) => (f ??= new Intl.NumberFormat(locale, options)).format(x) };
};

function makeFormat(locale) {
  const groupFmt = lazyFormat(locale, { maximumFractionDigits: 2 });
  const pctFmt = groupFmt;  // the same options
  const countFmt = lazyFormat(locale, { notation: 'compact', compactDisplay: 'long', maximumSignificantDigits: 4 });
  const sigFmts = new Map();
  /** At most `digits` significant digits, no trailing zeros: 6.4 -> "6.4", 8.0532 -> "8.053". */
  const sig = (x, digits = 4) => {
    if (!sigFmts.has(digits)) sigFmts.set(digits, new Intl.NumberFormat(locale, { maximumSignificantDigits: digits, useGrouping: false }));
    return sigFmts.get(digits).format(x);
  };
  const scaled = (bytes, base, units, digits) => {
    let i = 0;
    let v = bytes;
    while (Math.abs(v) >= base && i < units.length - 1) { v /= base; i++; }
    return `${sig(v, digits)} ${units[i]}`;
  };
  /** 16384 -> "16,384"; 9.5 -> "9.5". Integers below 1,000 (every locale of LANGS: Latin digits, nothing
   *  to group) and en-US's integers are written without Intl, whose first formatter costs ~20 ms of the
   *  first map (tests/node/i18n.test.mjs checks they read as Intl writes them). */
  const int = (n) => (!Number.isSafeInteger(n) ? (Number.isFinite(n) ? groupFmt.format(n) : String(n))
    : Math.abs(n) < 1000 ? String(n) : locale === 'en-US' ? groupedEnglish(n) : groupFmt.format(n));
  const fixedFmts = new Map();
  /** Exactly `digits` decimals, grouped as the locale groups: fixed(0.05, 3) -> "0.050". */
  const fixed = (x, digits) => {
    if (!Number.isFinite(x)) return String(x);
    if (!fixedFmts.has(digits)) fixedFmts.set(digits, new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
    return fixedFmts.get(digits).format(x);
  };
  /** 0.4375 -> "43.75 %" (up to 2 decimals). */
  const pct = (x) => `${pctFmt.format(x * 100)} %`;
  return {
    int,
    sig,
    fixed,
    /** Binary units (KiB = 1,024 B): 3221225472 -> "3 GiB", 1.5 * 2^30 -> "1.5 GiB". */
    binary: (bytes, digits = 4) => scaled(bytes, 1024, BIN_UNITS, digits),
    /** Decimal units (kB = 1,000 B): 10737418240 -> "10.74 GB". */
    decimal: (bytes, digits = 4) => scaled(bytes, 1000, DEC_UNITS, digits),
    /** Sequence lengths: 128, 1536, 32768 -> "128", "1.5K", "32K", 1048576 -> "1M" (K = 1,024 tokens). */
    tokens: (n) => (n >= 1048576 ? `${sig(n / 1048576, 3)}M` : n >= 1024 ? `${sig(n / 1024, 3)}K` : String(n)),
    /** Large counts in the locale's words: 5368709120 -> "5.369 billion" (hi-IN: "5.369 अरब"); small ones grouped. */
    count: (n) => (Math.abs(n) < 1e6 ? int(n) : countFmt.format(n)),
    pct,
    /** A signed change: -0.4375 -> "−43.75 %", 0 -> "±0 %". */
    change: (x) => (x === 0 ? '±0 %' : `${x > 0 ? '+' : '−'}${pct(Math.abs(x))}`),
    /** A ratio below 1 as a fraction when exact: 0.25 -> "1/4", 0.15625 -> "1/6.4", 2 -> "2×". */
    ratio: (x) => {
      if (!Number.isFinite(x) || x <= 0) return '—';
      if (x === 1) return '1×';
      if (x > 1) return `${sig(x, 3)}×`;
      const inv = 1 / x;
      return `1/${Number.isInteger(inv) ? inv : sig(inv, 3)}`;
    },
  };
}

const BIN_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
const DEC_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];

/** English (en-US), for code that is not given a locale's formatters. */
const EN = createFormat('en-US');
export const fmtInt = EN.int;
export const fmtBinary = EN.binary;
export const fmtDecimal = EN.decimal;
export const fmtTokens = EN.tokens;
export const fmtCount = EN.count;
export const fmtPct = EN.pct;
export const fmtChange = EN.change;
export const fmtRatio = EN.ratio;
