// cfg-answer.js — the configurator's answer (views/configurator.js): the variant and why, whether
// weights + KV cache fit the device, the warnings, the tables (parts/cfg-tables.js), how to build
// and check the model, the reasons and the rules that fired. All of it is the core's recommend: the
// page's words come from the catalog, the core's sentences (justification, warnings, init, bias, check,
// reasons) too, from the messages it returns with them (parts/cfg-messages.js).
import { el, variantLong, variantName } from '../kit.js';
import { cfgTables } from './cfg-tables.js';
import { messageNodes, messageText } from './cfg-messages.js';
import '../i18n/catalogs/en/cfg.js';  // the English words it speaks

function kvHeadsText(r, { t }) {
  if (r.variant === 'mla') return t('cfg.kvMla', { r: r.latentRank, dr: r.ropeDim ?? 0 });
  if (r.variant === 'mqa') return t('cfg.kvMqa', { count: r.nHeads });
  if (r.variant === 'mha') return t('cfg.kvMha', { count: r.nHeads });
  return t('cfg.kvGqa', { count: r.nKvHeads, H: r.nHeads });
}

/** A catalog message whose `{name}`s are nodes (memory figures with their hover): text around them, the nodes in place. */
function withNodes(message, nodes) {
  return message.split(/(\{\w+\})/).map((part) => {
    const m = /^\{(\w+)\}$/.exec(part);
    return m && m[1] in nodes ? nodes[m[1]] : part;
  }).filter((x) => x !== '');
}

/** "✓ Fits 24 GB GPU: weights 16 GB + KV cache 1.07 GB = 17.07 GB of 24 GB, 6.9 GB to spare." */
function fitLine(r, s, targets, i18n) {
  const { t, fmt } = i18n;
  /** Memory the way devices are sold (GB = 10^9 B), binary and exact on hover. */
  const gb = (b) => el('span', { title: t('cfg.bytesTitle', { binary: fmt.binary(b), bytes: fmt.int(b) }) }, fmt.decimal(b));
  const nodes = { weights: gb(r.weightBytes), cache: gb(r.kvBytesTotal), total: gb(r.weightBytes + r.kvBytesTotal) };
  const p = (kind, ...children) => el('p', { className: `cfg-fit cfg-fit-${kind}`, dataset: { role: 'fit' } }, ...children);
  const message = (key) => t(key);  // its {names} stay in (no parameters given): withNodes fills them
  if (r.fits === null || r.fits === undefined) return p('none', el('strong', null, t('cfg.fitNone')), ' ', ...withNodes(message('cfg.fitNoneSum'), nodes));
  const target = targets.find((x) => x.id === s.cfgTarget);
  nodes.target = target ? messageText(target.message, i18n) : s.cfgTarget === 'custom' ? t('cfg.customMemory') : s.cfgTarget;
  Object.assign(nodes, { memory: gb(r.memoryBytes), margin: gb(Math.abs(r.marginBytes ?? 0)) });
  return r.fits
    ? p('yes', el('span', { 'aria-hidden': 'true' }, '✓'), ' ', el('strong', null, t('cfg.fits')), ' ', ...withNodes(message('cfg.fitsSum'), nodes))
    : p('no', el('span', { 'aria-hidden': 'true' }, '✗'), ' ', el('strong', null, t('cfg.fitsNot')), ' ', ...withNodes(message('cfg.fitsNotSum'), nodes));
}

const list = (messages, className, label, i18n) => el('ul', { className, 'aria-label': label },
  ...messages.map((m) => el('li', null, ...messageNodes(m, i18n))));

/**
 * @param {object} r  the core's recommendation
 * @param {object} s  the state (the form's values: target, batch, context, data type)
 * @param {object[]} targets  the core's deploymentTargets()
 * @param {object} i18n  the element's words and formats
 * @returns {Node[]}
 */
export function cfgAnswer(r, s, targets, i18n) {
  const { t } = i18n;
  const m = r.messages;
  const say = (message) => messageNodes(message, i18n);
  return [
    el('div', 'cfg-headline',
      el('p', 'cfg-variant', el('strong', { dataset: { role: 'variant' } }, variantName(r.variant)), ' ',
        el('span', null, `(${variantLong(r.variant, i18n)}): ${kvHeadsText(r, i18n)}`)),
      el('p', { className: 'cfg-justification', dataset: { role: 'justification' } }, ...say(m.justification)),
      fitLine(r, s, targets, i18n)),
    m.warnings.length ? el('div', { className: 'cfg-warnings', role: 'note' }, el('h3', null, t('cfg.warnings')),
      list(m.warnings, 'cfg-warning-list', t('cfg.warnings'), i18n)) : null,
    cfgTables(r, s, i18n),
    el('dl', 'cfg-build',
      el('dt', null, t('cfg.init')), el('dd', { dataset: { role: 'init' } }, ...say(m.init)),
      el('dt', null, t('cfg.bias')), el('dd', { dataset: { role: 'bias' } }, ...say(m.bias)),
      el('dt', null, t('cfg.check')), el('dd', { dataset: { role: 'check' } }, ...say(m.check))),
    ...(m.reasons.length ? [el('h3', null, t('cfg.why')), list(m.reasons, 'cfg-reasons', t('cfg.reasons'), i18n)] : []),
    r.rules?.length ? el('p', 'cfg-rules', el('span', 'note', t('cfg.rulesFired')), ...r.rules.map((x) => el('code', { className: 'cfg-chip', dataset: { text: 'code' } }, x))) : null,
  ].filter(Boolean);
}
