// cfg-answer.js — the configurator's answer (views/configurator.js): the variant and why, whether
// weights + KV cache fit the device, the warnings, the tables (parts/cfg-tables.js), how to build
// and check the model, the reasons and the rules that fired. All of it is the core's recommend.
import { VARIANT_INFO, el, variantName } from '../kit.js';
import { fmtBinary, fmtDecimal, fmtInt } from '../format.js';
import { cfgTables } from './cfg-tables.js';

/** Memory the way devices are sold (GB = 10^9 B), binary and exact on hover. */
const gb = (b) => el('span', { title: `${fmtBinary(b)} · ${fmtInt(b)} bytes` }, fmtDecimal(b));

function kvHeadsText(r) {
  if (r.variant === 'mla') return `a latent of rank ${fmtInt(r.latentRank)} + a RoPE key of ${fmtInt(r.ropeDim ?? 0)}`;
  if (r.variant === 'mqa') return `${fmtInt(r.nHeads)} query heads sharing 1 K/V head`;
  if (r.variant === 'mha') return `${fmtInt(r.nHeads)} heads, each with its own K/V`;
  return `${fmtInt(r.nHeads)} query heads sharing ${fmtInt(r.nKvHeads)} K/V heads`;
}

/** "✓ Fits 24 GB GPU: weights 16 GB + KV cache 1.07 GB = 17.07 GB of 24 GB, 6.9 GB to spare." */
function fitLine(r, s, targets) {
  const sum = ['weights ', gb(r.weightBytes), ' + KV cache ', gb(r.kvBytesTotal), ' = ', gb(r.weightBytes + r.kvBytesTotal)];
  const p = (kind, ...children) => el('p', { className: `cfg-fit cfg-fit-${kind}`, dataset: { role: 'fit' } }, ...children);
  if (r.fits === null || r.fits === undefined) return p('none', el('strong', null, 'Fit not checked'), ': no deployment target. ', ...sum, '.');
  const target = targets.find((t) => t.id === s.cfgTarget)?.name ?? (s.cfgTarget === 'custom' ? 'custom memory' : s.cfgTarget);
  const margin = gb(Math.abs(r.marginBytes ?? 0));
  return r.fits
    ? p('yes', el('span', { 'aria-hidden': 'true' }, '✓'), ' ', el('strong', null, 'Fits'), ` ${target}: `, ...sum, ' of ', gb(r.memoryBytes), ', ', margin, ' to spare.')
    : p('no', el('span', { 'aria-hidden': 'true' }, '✗'), ' ', el('strong', null, 'Does not fit'), ` ${target}: `, ...sum, ' of ', gb(r.memoryBytes), ', ', margin, ' over.');
}

const list = (items, className, label) => el('ul', { className, 'aria-label': label }, ...items.map((x) => el('li', null, x)));

/**
 * @param {object} r  the core's recommendation
 * @param {object} s  the state (the form's values: target, batch, context, data type)
 * @param {object[]} targets  the core's deploymentTargets()
 * @returns {Node[]}
 */
export function cfgAnswer(r, s, targets) {
  return [
    el('div', 'cfg-headline',
      el('p', 'cfg-variant', el('strong', { dataset: { role: 'variant' } }, variantName(r.variant)), ' ',
        el('span', null, `(${VARIANT_INFO[r.variant]?.long ?? ''}): ${kvHeadsText(r)}`)),
      el('p', { className: 'cfg-justification', dataset: { role: 'justification' } }, r.justification),
      fitLine(r, s, targets)),
    r.warnings?.length ? el('div', { className: 'cfg-warnings', role: 'note' }, el('h4', null, 'Warnings'),
      list(r.warnings, 'cfg-warning-list', 'Warnings')) : null,
    cfgTables(r, s),
    el('dl', 'cfg-build',
      el('dt', null, 'Initialisation'), el('dd', { dataset: { role: 'init' } }, r.init),
      el('dt', null, 'Biases'), el('dd', { dataset: { role: 'bias' } }, r.bias),
      el('dt', null, 'Check the built model'), el('dd', { dataset: { role: 'check' } }, r.check)),
    ...(r.reasons?.length ? [el('h4', null, 'Why'), list(r.reasons, 'cfg-reasons', 'Reasons')] : []),
    r.rules?.length ? el('p', 'cfg-rules', el('span', 'note', 'Rules that fired:'), ...r.rules.map((x) => el('code', 'cfg-chip', x))) : null,
  ].filter(Boolean);
}
