// cfg-tables.js — the configurator's tables (views/configurator.js): the recommended shape, the memory
// it needs, and the ladder of variants the core priced. Every number is the recommendation's
// (the core's recommend); binary units first, decimal under them, exact bytes on hover.
import { dtypeLabel } from '../state.js';
import { el, variantName } from '../kit.js';
import { scrollRegion } from '../render/scroll-region.js';
import '../i18n/catalogs/en/cfg.js';  // the English words it speaks

/** For table cells: binary units, decimal below (devices are sold in GB), the exact count on hover. */
export const bytesCell = (b, i18n) => [el('span', { title: i18n.t('cfg.bytesExact', { bytes: i18n.fmt.int(b) }) }, i18n.fmt.binary(b)),
  el('small', null, i18n.fmt.decimal(b))];
const given = (v) => v !== undefined && v !== null;

function shapeTable(r, i18n) {
  const { t, fmt } = i18n;
  const mla = r.variant === 'mla';
  const rows = [
    ['dModel', t('cfg.row.dModel'), r.dModel],
    ['nLayers', t('cfg.row.nLayers'), r.nLayers],
    ['nHeads', t('cfg.row.nHeads'), r.nHeads],
    ['nKvHeads', t(mla ? 'cfg.row.nKvHeadsMla' : 'cfg.row.nKvHeads'), mla ? null : r.nKvHeads],
    ['dHead', t('cfg.row.dHead'), r.dHead],
    ...(mla ? [['latentRank', t('cfg.row.latentRank'), r.latentRank], ['ropeDim', t('cfg.row.ropeDim'), r.ropeDim]] : []),
  ];
  return el('table', 'cfg-shape', el('caption', null, t('cfg.shape')), el('tbody', null,
    ...rows.map(([k, what, v]) => el('tr', { dataset: { key: k } },
      el('th', { scope: 'row' }, el('code', { dataset: { text: 'code' } }, k), ' ', el('small', null, what)), el('td', null, given(v) ? fmt.int(v) : '—'))),
    el('tr', null, el('th', { scope: 'row' }, t('cfg.row.params'), ' ', el('small', null, t('cfg.row.paramsNote'))),
      el('td', { title: fmt.int(r.params) }, fmt.count(r.params)))));
}

function memoryTable(r, s, i18n) {
  const { t, fmt } = i18n;
  const rows = [
    [t('cfg.mem.perTokenLayer'), r.kvBytesPerTokenPerLayer],
    [t('cfg.mem.perToken'), r.kvBytesPerToken],
    [t('cfg.mem.atContext', { count: s.cfgBatch, n: fmt.int(s.cfgSeqLen), short: fmt.tokens(s.cfgSeqLen), batch: s.cfgBatch }), r.kvBytesTotal],
    [t('cfg.mem.weights'), r.weightBytes],
    [t('cfg.mem.total'), r.weightBytes + r.kvBytesTotal],
    ...(given(r.memoryBytes) ? [[t('cfg.mem.device'), r.memoryBytes]] : []),
  ];
  return el('table', 'cfg-memory', el('caption', null, t('cfg.memory', { dtype: dtypeLabel(s.cfgDtype) })),
    el('tbody', null, ...rows.map(([k, b]) => el('tr', null, el('th', { scope: 'row' }, k), el('td', null, ...bytesCell(b, i18n))))));
}

function ladderTable(r, s, i18n) {
  const { t, fmt } = i18n;
  const cache = (a) => (a.variant === 'mla' ? `r + dr = ${fmt.int(a.latentRank ?? 0)} + ${fmt.int(a.ropeDim ?? 0)}`
    : t('cfg.ladder.kvHeads', { count: a.nKvHeads }));
  const chosen = (a) => a.variant === r.variant && (a.variant === 'mla'
    ? a.latentRank === r.latentRank && (a.ropeDim ?? 0) === (r.ropeDim ?? 0) : a.nKvHeads === r.nKvHeads);
  const fit = (x) => (x === true ? el('span', 'cfg-yes', t('cfg.ladder.fits')) : x === false ? el('span', 'cfg-no', t('cfg.ladder.tooBig')) : '—');
  return el('table', 'cfg-ladder', el('caption', null, t('cfg.ladder.caption', { short: fmt.tokens(s.cfgSeqLen) })),
    el('thead', null, el('tr', null, ...['cfg.ladder.variant', 'cfg.ladder.cache', 'cfg.ladder.kvCache', 'cfg.ladder.fit'].map((h) => el('th', { scope: 'col' }, t(h))))),
    el('tbody', null, ...r.alternatives.map((a) => el('tr', { className: chosen(a) ? 'current' : null, 'aria-current': chosen(a) ? 'true' : null },
      el('th', { scope: 'row' }, variantName(a.variant), chosen(a) ? el('small', null, t(s.cfgVariant ? 'cfg.ladder.askedFor' : 'cfg.ladder.recommended')) : null),
      el('td', null, cache(a)), el('td', null, ...bytesCell(a.kvBytesTotal, i18n)), el('td', null, fit(a.fits))))));
}

/** The three tables, each in a region that scrolls sideways on a phone (and says so). */
export function cfgTables(r, s, i18n) {
  const { t } = i18n;
  return el('div', 'cfg-tables', scrollRegion(t('cfg.shape'), shapeTable(r, i18n), '', i18n),
    scrollRegion(t('cfg.memoryRegion'), memoryTable(r, s, i18n), '', i18n),
    r.alternatives?.length ? scrollRegion(t('cfg.ladder.region'), ladderTable(r, s, i18n), '', i18n) : null);
}
