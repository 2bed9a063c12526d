// formula.js — number formatting and the accounting formulas with their values filled in, shared by
// the parameter table (params.js) and the KV-cache chart (kv-chart.js). The numbers the views show
// come from the core; these strings only explain them.
//
// Symbols (the lesson's and DeepSeek-V2 Table 1's): D = dModel, H = query heads, G = K/V heads,
// dh = head width, r = MLA latent rank, dr = MLA decoupled RoPE key width, l = layers.
import { shapeSpec } from '../state.js';

import { VARIANT_INFO } from '../kit.js';
import { attentionParams, cacheElementsPerToken } from '../shape-math.js';

/** 'gqa' -> 'GQA' / 'grouped-query' (views of kit.js's one variant table). */
export const VARIANT_NAMES = Object.fromEntries(Object.entries(VARIANT_INFO).map(([k, v]) => [k, v.name]));
export const VARIANT_LONG = Object.fromEntries(Object.entries(VARIANT_INFO).map(([k, v]) => [k, v.long]));

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

/** The dimensions the formulas use, from a state (dh may be fractional for an invalid shape). */
export function dimsOf(state) {
  return {
    D: state.dModel,
    H: state.nHeads,
    G: state.nKvHeads,
    dh: state.dHead || state.dModel / state.nHeads,
    r: state.latentRank,
    dr: state.ropeDim,
    l: state.nLayers,
  };
}

const prod = (...xs) => xs.reduce((a, b) => a * b, 1);
const num = (x) => (Number.isInteger(x) ? fmtInt(x) : sig(x, 4));

/**
 * KV-cache elements per token per layer (DeepSeek-V2 Table 1), optionally times l layers.
 * @returns {{ symbolic: string, filled: string, value: number }}
 */
export function kvFormula(variant, { H, G, dh, r, dr, l }, { layers = false } = {}) {
  const L = layers ? ' · l' : '';
  const lv = layers ? l : 1;
  const lf = layers ? ` · ${num(l)}` : '';
  const perToken = () => cacheElementsPerToken(variant, { nHeads: H, nKvHeads: G, dHead: dh, latentRank: r, ropeDim: dr });
  switch (variant) {
    case 'mha': return { symbolic: `2 · H · dh${L}`, filled: `2 · ${num(H)} · ${num(dh)}${lf}`, value: perToken() * lv };
    case 'mqa': return { symbolic: `2 · dh${L}`, filled: `2 · ${num(dh)}${lf}`, value: perToken() * lv };
    case 'gqa': return { symbolic: `2 · G · dh${L}`, filled: `2 · ${num(G)} · ${num(dh)}${lf}`, value: perToken() * lv };
    case 'mla': return layers
      ? { symbolic: '(r + dr) · l', filled: `(${num(r)} + ${num(dr)})${lf}`, value: perToken() * lv }
      : { symbolic: 'r + dr', filled: `${num(r)} + ${num(dr)}`, value: perToken() };
    default: throw new TypeError(`unknown variant '${variant}'`);
  }
}

/**
 * Attention weights of one block without biases: wq + wk + wv + wo (MLA: wq + wDkv + wUk + wUv
 * [+ wQr + wKr] + wo), as the core's paramCount counts them.
 * @returns {{ symbolic: string, filled: string, value: number, terms: [string, string, string, number][] }}
 *   terms: [weight name, symbolic, filled in, value]
 */
export function paramFormula(variant, { D, H, G, dh, r, dr }) {
  /** [name, symbolic, filled, value] */
  let terms;
  if (variant === 'mla') {
    terms = [
      ['wq', 'D·H·dh', `${num(D)}·${num(H)}·${num(dh)}`, prod(D, H, dh)],
      ['wDkv', 'D·r', `${num(D)}·${num(r)}`, prod(D, r)],
      ['wUk + wUv', '2·r·H·dh', `2·${num(r)}·${num(H)}·${num(dh)}`, prod(2, r, H, dh)],
    ];
    if (dr > 0) {
      terms.push(['wQr', 'D·H·dr', `${num(D)}·${num(H)}·${num(dr)}`, prod(D, H, dr)]);
      terms.push(['wKr', 'D·dr', `${num(D)}·${num(dr)}`, prod(D, dr)]);
    }
  } else {
    const kv = variant === 'mha'
      ? ['wk + wv', '2·D·H·dh', `2·${num(D)}·${num(H)}·${num(dh)}`, prod(2, D, H, dh)]
      : variant === 'mqa'
        ? ['wk + wv', '2·D·dh', `2·${num(D)}·${num(dh)}`, prod(2, D, dh)]
        : ['wk + wv', '2·D·G·dh', `2·${num(D)}·${num(G)}·${num(dh)}`, prod(2, D, G, dh)];
    terms = [['wq', 'D·H·dh', `${num(D)}·${num(H)}·${num(dh)}`, prod(D, H, dh)], kv];
  }
  terms.push(['wo', 'H·dh·D', `${num(H)}·${num(dh)}·${num(D)}`, prod(H, dh, D)]);
  return {
    symbolic: terms.map((t) => t[1]).join(' + '),
    filled: terms.map((t) => t[2]).join(' + '),
    value: attentionParams(variant, { dModel: D, nHeads: H, nKvHeads: G, dHead: dh, latentRank: r, ropeDim: dr }).total,
    terms,
  };
}

/** The core's kvCacheBytes config for this shape (default: one token, one layer, one sequence, counted in elements). */
export function kvConfigOf(state, variant, { nLayers = 1, seqLen = 1, batch = 1, bytesPerElement = 1 } = {}) {
  const s = shapeSpec(state, variant);
  const cfg = { variant, nLayers, dModel: s.dModel, nHeads: s.nHeads, seqLen, batch, bytesPerElement };
  if (s.dHead) cfg.dHead = s.dHead;
  if (variant === 'gqa') cfg.nKvHeads = s.nKvHeads;
  if (variant === 'mla') {
    cfg.latentRank = s.latentRank;
    cfg.ropeDim = s.ropeDim;
  }
  return cfg;
}
