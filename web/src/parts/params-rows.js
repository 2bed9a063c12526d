// params-rows.js — the rows of the parameter table (views/params.js). A row is one variant measured
// by the core: { variant, shape, params, elements, bytes } (resolveShape, paramCount, kvCacheBytes
// at 1 byte and at the data type's bytes) or { variant, error }. Each cell shows the core's number
// and under it the formula that explains it (render/geometry.js), with the values filled in.
// Words from the catalog (i18n: the element's instance), numbers in its locale.
import { el, showCoreError, variantLong, variantName } from '../kit.js';
import { cacheFormula, kvDetail, paramTerms } from '../render/geometry.js';
import '../i18n/catalogs/en/params.js';  // the English words it speaks

/** Nodes joined by a separator: join([a, b], ' + ') -> a, ' + ', b. */
const join = (nodes, sep) => nodes.flatMap((x, i) => (i ? [sep, x] : [x]));
/** A formula of several lines (each a string or nodes). */
const formula = (className, lines) => el('div', `formula ${className}`, ...lines.flatMap((l, i) => (i ? [el('br'), l] : [l])).flat());
const nowrap = (s) => el('span', 'nowrap', s);
/** A number in bold and its formula under it (formula lines: strings or arrays of nodes). */
const cell = (value, lines, className = 'nowrap') => el('td', null, el('strong', null, value), formula(className, lines));
const none = () => el('td', 'note', '—');

/** The row header: "GQA" (+ a "current" badge), "grouped-query · G = 2". */
function variantCell(r, current, i18n) {
  const detail = r.shape ? ` · ${kvDetail(r.shape, i18n)}` : '';
  return el('th', { scope: 'row', className: 'params-variant' }, variantName(r.variant),
    current ? [' ', el('span', 'badge-current', i18n.t('params.current'))] : null, el('small', null, `${variantLong(r.variant, i18n)}${detail}`));
}

/** The weights of one block, term by term (hover: the core's count of each weight). */
function paramsCell(r, i18n) {
  const fmtInt = i18n.fmt.int;
  const terms = paramTerms(r.shape, r.params, i18n);
  const each = Object.entries(r.params).filter(([k, v]) => k !== 'total' && v).map(([k, v]) => `${k} ${fmtInt(v)}`).join(' · ');
  const td = cell(fmtInt(r.params.total), [join(terms.map((t) => nowrap(t.symbolic)), ' + '),
    ['= ', ...join(terms.map((t) => nowrap(t.filled)), ' + ')], `= ${fmtInt(r.params.total)}`], 'params-terms');
  td.lastChild.title = each;
  return td;
}

/**
 * One variant's row; `base` is MHA's row when it resolved (the comparisons), else null.
 * @returns {HTMLTableRowElement}
 */
export function paramsRow(r, base, current, bytesPerElement, i18n) {
  const { int: fmtInt, change: fmtChange, pct: fmtPct, ratio: fmtRatio } = i18n.fmt;
  const baseline = () => el('td', null, i18n.t('params.baseline'));
  const tr = el('tr', { dataset: { variant: r.variant }, className: current ? 'current' : null, 'aria-current': current ? 'true' : null });
  if (r.error) {
    tr.append(variantCell(r, current, i18n), showCoreError(el('td', { colspan: 5, className: 'error-text params-error' }), r.error, i18n));
    return tr;
  }
  const kf = cacheFormula(r.shape, 0, i18n);
  // The comparisons with MHA: '—' without a baseline, 'baseline' in MHA's own row.
  const vsMha = (make) => (!base ? none() : r.variant === 'mha' ? baseline() : make());
  const P = r.params.total, P0 = base?.params.total, ratio = r.elements / base?.elements;
  tr.append(variantCell(r, current, i18n), paramsCell(r, i18n),
    vsMha(() => cell(fmtChange((P - P0) / P0), [`(${fmtInt(P)} − ${fmtInt(P0)})`, `/ ${fmtInt(P0)}`])),
    cell(fmtInt(r.elements), [kf.symbolic, `= ${kf.filled} = ${fmtInt(r.elements)}`]),
    cell(`${fmtInt(r.bytes)} B`, [`${fmtInt(r.elements)} × ${bytesPerElement} B`, `= ${fmtInt(r.bytes)} B`]),
    vsMha(() => el('td', 'nowrap', el('strong', null, fmtRatio(ratio)), ` (${fmtPct(ratio)})`,
      formula('', [`${fmtInt(r.elements)} / ${fmtInt(base.elements)}`]))));
  return tr;
}

/** The row under the table when MHA's row failed: the comparisons need it. */
export const noBaselineRow = (i18n) => el('tr', null,
  el('td', { colspan: 6, className: 'note params-error' }, i18n.t('params.noBaseline')));

/** A row while the core answers. */
export const pendingRow = (variant) => el('tr', { dataset: { variant } },
  el('th', { scope: 'row', className: 'params-variant' }, variantName(variant)), el('td', { colspan: 5, className: 'note' }, '…'));

/**
 * "Current shape: D = 64, H = 4, dh = 16 (D / H), G = 2 (GQA), r = 16 and dr = 4 (MLA); …", from the
 * shapes the core resolved (the state's own values where a variant's shape was refused).
 */
export function shapeNote(rows, state, dtypeText, i18n) {
  const fmtInt = i18n.fmt.int;
  const shapeOf = (v) => rows.find((r) => r.variant === v)?.shape;
  const any = shapeOf(state.variant) ?? rows.find((r) => r.shape)?.shape;
  const dims = any ? `D = ${fmtInt(any.dModel)}, H = ${fmtInt(any.nHeads)}, dh = ${fmtInt(any.dHead)}${state.dHead ? '' : ' (D / H)'}`
    : `D = ${state.dModel}, H = ${state.nHeads}`;
  const g = shapeOf('gqa')?.nKvHeads ?? state.nKvHeads;
  const mla = shapeOf('mla') ?? state;
  return i18n.t('params.shapeNote', { dims, G: g, r: mla.latentRank, dr: mla.ropeDim, dtype: dtypeText });
}
