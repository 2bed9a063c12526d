// format.js — how the page writes numbers: grouped integers, bytes in binary and decimal units,
// token counts (1.5K), large counts in words, percentages, changes and ratios. Pure (Node tests).

const EN = 'en-US';
const groupFmt = new Intl.NumberFormat(EN, { maximumFractionDigits: 2 });

/** 16384 -> "16,384"; 9.5 -> "9.5". */
export function fmtInt(n) {
  return Number.isFinite(n) ? groupFmt.format(n) : String(n);
}

/** At most `digits` significant digits, no trailing zeros: 6.4 -> "6.4", 8.0532 -> "8.053". */
function sig(x, digits = 4) {
  if (x === 0) return '0';
  if (Number.isInteger(x) && Math.abs(x) < 10 ** digits) return String(x);
  return String(Number(x.toPrecision(digits)));
}

const BIN_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
const DEC_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];

function scaled(bytes, base, units, digits) {
  let i = 0;
  let v = bytes;
  while (Math.abs(v) >= base && i < units.length - 1) { v /= base; i++; }
  return `${sig(v, digits)} ${units[i]}`;
}

/** Binary units (KiB = 1,024 B): 3221225472 -> "3 GiB", 10737418240 -> "10 GiB", 1.5 * 2^30 -> "1.5 GiB". */
export const fmtBinary = (bytes, digits = 4) => scaled(bytes, 1024, BIN_UNITS, digits);
/** Decimal units (kB = 1,000 B): 10737418240 -> "10.74 GB". */
export const fmtDecimal = (bytes, digits = 4) => scaled(bytes, 1000, DEC_UNITS, digits);

/** Sequence lengths: 128, 1536, 32768 -> "128", "1.5K", "32K", 1048576 -> "1M" (K = 1,024 tokens). */
export function fmtTokens(n) {
  if (n >= 1048576) return `${sig(n / 1048576, 3)}M`;
  if (n >= 1024) return `${sig(n / 1024, 3)}K`;
  return String(n);
}

/** Large counts in words: 5368709120 -> "5.369 billion"; small ones grouped. */
export function fmtCount(n) {
  const a = Math.abs(n);
  if (a < 1e6) return fmtInt(n);
  const [d, w] = a >= 1e15 ? [1e15, 'quadrillion'] : a >= 1e12 ? [1e12, 'trillion'] : a >= 1e9 ? [1e9, 'billion'] : [1e6, 'million'];
  return `${sig(n / d, 4)} ${w}`;
}

/** 0.4375 -> "43.75 %" (up to 2 decimals). */
export function fmtPct(x) {
  return `${new Intl.NumberFormat(EN, { maximumFractionDigits: 2 }).format(x * 100)} %`;
}

/** A signed change: -0.4375 -> "−43.75 %", 0 -> "±0 %". */
export function fmtChange(x) {
  if (x === 0) return '±0 %';
  return `${x > 0 ? '+' : '−'}${fmtPct(Math.abs(x))}`;
}

/** A ratio below 1 as a fraction when exact: 0.25 -> "1/4", 0.15625 -> "1/6.4", 2 -> "2×". */
export function fmtRatio(x) {
  if (!Number.isFinite(x) || x <= 0) return '—';
  if (x === 1) return '1×';
  if (x > 1) return `${sig(x, 3)}×`;
  const inv = 1 / x;
  return `1/${Number.isInteger(inv) ? inv : sig(inv, 3)}`;
}
