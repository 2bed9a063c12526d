// geometry.js — the words and formulas of one attention block's geometry, from the shape the core
// returns (forward, sessions, resolveShape: { variant, dModel, nHeads, nKvHeads, dHead, latentRank,
// ropeDim, kvHeadOf, cacheFloatsPerToken }). Nothing here computes a number the core gives: which K/V
// head a query head reads is shape.kvHeadOf[h], the cache per token is shape.cacheFloatsPerToken, the
// parameters are paramCount's. These functions only say them, with the lesson's symbols:
// D = dModel, H = query heads, G = K/V heads, dh = head width, r = latent rank, dr = RoPE width, l = layers.
// Numbers in a formula are written in the page's locale (i18n.fmt.int; English where none is given).
import { variantName } from '../kit.js';
import { fmtInt } from '../format.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

const n = (x) => fmtInt(x);
const isMla = (shape) => shape.variant === 'mla';

/**
 * Query heads grouped by the K/V head they read (MLA: one group, the shared latent).
 * @returns {{ kvHead: number | null, heads: number[] }[]}
 */
export function kvGroups(shape) {
  if (isMla(shape)) return [{ kvHead: null, heads: shape.kvHeadOf.map((_, h) => h) }];
  const groups = new Map();
  shape.kvHeadOf.forEach((g, h) => {
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(h);
  });
  return [...groups].map(([kvHead, heads]) => ({ kvHead, heads }));
}

/** "K/V head 1 · query heads 2–3", "K/V head 0", "all 4 heads read the latent c (r = 16)". */
export function groupLabel(shape, group, i18n = EN) {
  if (group.kvHead == null) return i18n.t('maps.groupLatent', { heads: shape.nHeads, r: shape.latentRank });
  const hs = group.heads;
  if (hs.length === 1) return i18n.t('maps.group', { g: group.kvHead });
  return i18n.t('maps.groupHeads', { g: group.kvHead, first: hs[0], last: hs[hs.length - 1] });
}

/** "head 3" or "head 3 → K/V 1" where heads share K/V heads. */
export function headLabel(shape, h, i18n = EN) {
  const shared = !isMla(shape) && shape.nKvHeads < shape.nHeads;
  return shared ? i18n.t('maps.headShared', { h, g: shape.kvHeadOf[h] }) : i18n.t('maps.head', { h });
}

/** The short form for small maps: "h3" or "h3→kv1". */
export function headShort(shape, h) {
  const shared = !isMla(shape) && shape.nKvHeads < shape.nHeads;
  return shared ? `h${h}→kv${shape.kvHeadOf[h]}` : `h${h}`;
}

/** "H = 8 query heads, G = 2 K/V heads, dh = 8" (MLA: the latent and RoPE widths instead of G). */
export function shapeLine(shape, i18n = EN) {
  const { dHead: dh, nHeads: H, nKvHeads: G, latentRank: r, ropeDim: dr } = shape;
  return i18n.t(isMla(shape) ? 'shape.lineMla' : 'shape.line', { count: isMla(shape) ? H : G, H, G, dh, r, dr });
}

/**
 * The KV-cache formula of the shape (DeepSeek-V2 Table 1), per token and layer or times l layers,
 * with the value the core gives (shape.cacheFloatsPerToken · l).
 * @returns {{ symbolic: string, filled: string, value: number }}
 */
export function cacheFormula(shape, layers = 0, i18n = EN) {
  const n = i18n.fmt.int;
  const L = layers ? ' · l' : '', lf = layers ? ` · ${n(layers)}` : '';
  const value = shape.cacheFloatsPerToken * (layers || 1);
  if (isMla(shape)) {
    return layers ? { symbolic: `(r + dr)${L}`, filled: `(${n(shape.latentRank)} + ${n(shape.ropeDim)})${lf}`, value }
      : { symbolic: 'r + dr', filled: `${n(shape.latentRank)} + ${n(shape.ropeDim)}`, value };
  }
  if (shape.variant === 'mha') return { symbolic: `2 · H · dh${L}`, filled: `2 · ${n(shape.nHeads)} · ${n(shape.dHead)}${lf}`, value };
  if (shape.variant === 'mqa') return { symbolic: `2 · dh${L}`, filled: `2 · ${n(shape.dHead)}${lf}`, value };
  return { symbolic: `2 · G · dh${L}`, filled: `2 · ${n(shape.nKvHeads)} · ${n(shape.dHead)}${lf}`, value };
}

/**
 * The segments of one cached token (the decode view's strip), bottom first: K and V per K/V head,
 * or the latent and the RoPE key. Sizes are floats; they sum to shape.cacheFloatsPerToken.
 */
export function cacheSegments(shape) {
  if (isMla(shape)) {
    return [{ kind: 'c', label: 'c', size: shape.latentRank }, ...(shape.ropeDim ? [{ kind: 'kr', label: 'kr', size: shape.ropeDim }] : [])];
  }
  const heads = Array.from({ length: shape.nKvHeads }, (_, g) => g);
  return [...heads.map((g) => ({ kind: 'k', label: `K${g}`, size: shape.dHead, head: g })),
    ...heads.map((g) => ({ kind: 'v', label: `V${g}`, size: shape.dHead, head: g }))];
}

/**
 * One block's attention weights term by term, each with its formula and the core's count
 * (paramCount's fields: wq, wk, wv, wo, wDkv, wUk, wUv, wQr, wKr).
 * @returns {{ name: string, symbolic: string, filled: string, value: number }[]}
 */
export function paramTerms(shape, counts, i18n = EN) {
  const n = i18n.fmt.int;
  const { dModel: D, nHeads: H, nKvHeads: G, dHead: dh, latentRank: r, ropeDim: dr } = shape;
  const t = (name, symbolic, filled, value) => ({ name, symbolic, filled, value });
  const terms = [t('wq', 'D·H·dh', `${n(D)}·${n(H)}·${n(dh)}`, counts.wq)];
  if (isMla(shape)) {
    terms.push(t('wDkv', 'D·r', `${n(D)}·${n(r)}`, counts.wDkv), t('wUk + wUv', '2·r·H·dh', `2·${n(r)}·${n(H)}·${n(dh)}`, counts.wUk + counts.wUv));
    if (dr > 0) terms.push(t('wQr', 'D·H·dr', `${n(D)}·${n(H)}·${n(dr)}`, counts.wQr), t('wKr', 'D·dr', `${n(D)}·${n(dr)}`, counts.wKr));
  } else {
    const [sym, filled] = shape.variant === 'mha' ? ['2·D·H·dh', `2·${n(D)}·${n(H)}·${n(dh)}`]
      : shape.variant === 'mqa' ? ['2·D·dh', `2·${n(D)}·${n(dh)}`] : ['2·D·G·dh', `2·${n(D)}·${n(G)}·${n(dh)}`];
    terms.push(t('wk + wv', sym, filled, counts.wk + counts.wv));
  }
  terms.push(t('wo', 'H·dh·D', `${n(H)}·${n(dh)}·${n(D)}`, counts.wo));
  return terms;
}

/** "GQA" and the shape's short description, e.g. for a file name or a caption. */
export const shapeTitle = (shape) => `${variantName(shape.variant)} · ${shapeLine(shape)}`;

/** What a variant keeps per query head, in symbols: "G = H = 4", "G = 1", "G = 2", "r = 16, dr = 4". */
export function kvDetail(shape, i18n = EN) {
  const n = i18n.fmt.int;
  if (isMla(shape)) return `r = ${n(shape.latentRank)}, dr = ${n(shape.ropeDim)}`;
  if (shape.variant === 'mha') return `G = H = ${n(shape.nHeads)}`;
  return `G = ${n(shape.nKvHeads)}`;
}
