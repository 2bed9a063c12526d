// model-readings.js — what an opened checkpoint says beside its maps: its most likely next tokens after
// the sentence, and the heads that score highest for each role on its probe (sources/head-roles.js).
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';
import { scrollRegion } from '../render/scroll-region.js';
import '../i18n/catalogs/en/model.js';  // the English words it speaks

/**
 * The head roles of sources/head-roles.js, in the page's words: [score key, its name, what is measured].
 * (roleKey names a head's role by its score key; ROLE_NAME[key] is its catalog key.)
 */
export const ROLE_NAME = {
  previousToken: 'mo.role.previousToken',
  induction: 'mo.role.induction',
  duplicateToken: 'mo.role.duplicateToken',
  firstToken: 'mo.role.firstToken',
};
const ROLES = [
  ['previousToken', 'mo.roleWhat.previousToken'],
  ['induction', 'mo.roleWhat.induction'],
  ['duplicateToken', 'mo.roleWhat.duplicateToken'],
  ['firstToken', 'mo.roleWhat.firstToken'],
];

/**
 * @param {{ token: string, p: number }[]} next
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 */
export function nextTokens(next, i18n = EN) {
  return el('ol', { className: 'mo-next', dataset: { role: 'next-tokens' } },
    ...next.map((n) => el('li', { className: 'mo-next-item' },
      el('code', { dataset: { text: 'token' } }, n.token), ' ', el('span', 'mo-next-p', i18n.fmt.pct(n.p)))));
}

/** The caption's figures of the probes: T tokens, how many probes, their gaps and positions (17-20). */
function probeFacts(probe, i18n) {
  const gaps = probe.gaps ?? [0], base = 2 * probe.T + (probe.offset || 0);
  const lo = Math.min(...gaps), hi = Math.max(...gaps);
  const range = (a, b) => (a === b ? i18n.fmt.int(a) : `${i18n.fmt.int(a)}–${i18n.fmt.int(b)}`);
  return { count: probe.T, probes: probe.probes?.length ?? gaps.length, gaps: range(lo, hi), positions: range(base + lo, base + hi) };
}

/**
 * The three highest-scoring heads of each role, on the probe and on the learner's sentence.
 * @param {{ layer, head, previousToken, induction, duplicateToken, firstToken }[]} scores  on the probe
 * @param {{ T: number, offset: number, gaps?: number[], probes?: number[][] }} probe  (offset 1: the probe starts with the model's BOS)
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 * @param {typeof scores | null} [own]  the same scores on the learner's sentence (a role without a
 *   score there, duplicate and induction in a sentence with no repeated token, reads "—")
 */
export function rolesTable(scores, probe, i18n = EN, own = null) {
  const { t } = i18n;
  const top = (list, key) => list.filter((s) => s[key] != null).sort((a, b) => b[key] - a[key]).slice(0, 3);
  const cell = (list, key) => {
    const best = list ? top(list, key) : [];
    return best.length ? best.map((s) => `L${s.layer} · h${s.head}: ${s[key].toFixed(2)}`).join(', ') : '—';
  };
  const table = el('table', { className: 'mo-roles', dataset: { role: 'head-roles' } },
    el('caption', null, t(probe.offset ? 'mo.rolesCaptionBos' : 'mo.rolesCaption', probeFacts(probe, i18n))),
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, t('mo.col.role')), el('th', { scope: 'col' }, t('mo.col.what')),
      el('th', { scope: 'col' }, t('mo.col.strongest')), el('th', { scope: 'col' }, t('mo.col.sentence')))),
    el('tbody', null, ...ROLES.map(([key, what]) => el('tr', { dataset: { roleKey: key } },
      el('th', { scope: 'row' }, t(ROLE_NAME[key])), el('td', null, t(what)),
      el('td', null, cell(scores, key)), el('td', { dataset: { role: 'sentence-score' } }, cell(own, key))))));
  return scrollRegion(t('mo.roles'), table, '', i18n);
}
