// cfg-tables.js — the configurator's tables (views/configurator.js): the recommended shape, the memory
// it needs, and the ladder of variants the core priced. Every number is the recommendation's
// (the core's recommend); binary units first, decimal under them, exact bytes on hover.
import { dtypeLabel } from '../state.js';
import { el, variantName } from '../kit.js';
import { fmtBinary, fmtCount, fmtDecimal, fmtInt, fmtTokens } from '../format.js';
import { scrollRegion } from '../render/scroll-region.js';

/** For table cells: binary units, decimal below (devices are sold in GB), the exact count on hover. */
export const bytesCell = (b) => [el('span', { title: `${fmtInt(b)} bytes` }, fmtBinary(b)), el('small', null, fmtDecimal(b))];
const given = (v) => v !== undefined && v !== null;

function shapeTable(r) {
  const mla = r.variant === 'mla';
  const rows = [
    ['dModel', 'model width', r.dModel],
    ['nLayers', 'layers', r.nLayers],
    ['nHeads', 'query heads', r.nHeads],
    ['nKvHeads', mla ? 'K/V heads cached: none, the latent replaces them' : 'K/V heads (cached)', mla ? null : r.nKvHeads],
    ['dHead', 'head width', r.dHead],
    ...(mla ? [['latentRank', 'cached latent per token (r)', r.latentRank], ['ropeDim', 'decoupled RoPE key (dr)', r.ropeDim]] : []),
  ];
  return el('table', 'cfg-shape', el('caption', null, 'Shape'), el('tbody', null,
    ...rows.map(([k, what, v]) => el('tr', { dataset: { key: k } },
      el('th', { scope: 'row' }, el('code', null, k), ' ', el('small', null, what)), el('td', null, given(v) ? fmtInt(v) : '—'))),
    el('tr', null, el('th', { scope: 'row' }, 'parameters ', el('small', null, 'estimated, whole model')),
      el('td', { title: fmtInt(r.params) }, fmtCount(r.params)))));
}

function memoryTable(r, s) {
  const batch = s.cfgBatch === 1 ? '' : ` × ${fmtInt(s.cfgBatch)} sequences`;
  const rows = [
    ['KV cache per token per layer', r.kvBytesPerTokenPerLayer],
    ['KV cache per token (all layers)', r.kvBytesPerToken],
    [`KV cache at ${fmtInt(s.cfgSeqLen)} tokens (${fmtTokens(s.cfgSeqLen)})${batch}`, r.kvBytesTotal],
    ['weights', r.weightBytes],
    ['weights + KV cache', r.weightBytes + r.kvBytesTotal],
    ...(given(r.memoryBytes) ? [['device memory', r.memoryBytes]] : []),
  ];
  return el('table', 'cfg-memory', el('caption', null, `Memory (${dtypeLabel(s.cfgDtype)} KV cache)`),
    el('tbody', null, ...rows.map(([k, b]) => el('tr', null, el('th', { scope: 'row' }, k), el('td', null, ...bytesCell(b))))));
}

function ladderTable(r, s) {
  const cache = (a) => (a.variant === 'mla' ? `r + dr = ${fmtInt(a.latentRank ?? 0)} + ${fmtInt(a.ropeDim ?? 0)}`
    : `${fmtInt(a.nKvHeads)} K/V head${a.nKvHeads === 1 ? '' : 's'}`);
  const chosen = (a) => a.variant === r.variant && (a.variant === 'mla'
    ? a.latentRank === r.latentRank && (a.ropeDim ?? 0) === (r.ropeDim ?? 0) : a.nKvHeads === r.nKvHeads);
  const fit = (x) => (x === true ? el('span', 'cfg-yes', '✓ fits') : x === false ? el('span', 'cfg-no', '✗ too big') : '—');
  return el('table', 'cfg-ladder', el('caption', null, `Variants priced (at ${fmtTokens(s.cfgSeqLen)} tokens)`),
    el('thead', null, el('tr', null, ...['variant', 'cache', 'KV cache', 'fits'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', null, ...r.alternatives.map((a) => el('tr', { className: chosen(a) ? 'current' : null, 'aria-current': chosen(a) ? 'true' : null },
      el('th', { scope: 'row' }, variantName(a.variant), chosen(a) ? el('small', null, `(${s.cfgVariant ? 'asked for' : 'recommended'})`) : null),
      el('td', null, cache(a)), el('td', null, ...bytesCell(a.kvBytesTotal)), el('td', null, fit(a.fits))))));
}

/** The three tables, each in a region that scrolls sideways on a phone (and says so). */
export function cfgTables(r, s) {
  return el('div', 'cfg-tables', scrollRegion('Shape', shapeTable(r)), scrollRegion('Memory', memoryTable(r, s)),
    r.alternatives?.length ? scrollRegion('Variants priced', ladderTable(r, s)) : null);
}
