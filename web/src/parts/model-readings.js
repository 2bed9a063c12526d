// model-readings.js — what an opened checkpoint says beside its maps: its most likely next tokens after
// the sentence, and the heads that score highest for each role on its probe (sources/head-roles.js).
import { el } from '../kit.js';
import { fmtPct } from '../format.js';
import { scrollRegion } from '../render/scroll-region.js';

/** @param {{ token: string, p: number }[]} next */
export function nextTokens(next) {
  return el('ol', { className: 'mo-next', dataset: { role: 'next-tokens' } },
    ...next.map((n) => el('li', { className: 'mo-next-item', },
      el('code', null, n.token), ' ', el('span', 'mo-next-p', fmtPct(n.p)))));
}

const ROLES = [
  ['previousToken', 'previous token', 'weight on the token just before'],
  ['induction', 'induction', 'on the second copy, weight on the token that followed the first copy'],
  ['duplicateToken', 'duplicate token', 'on the second copy, weight on the same token\'s first copy'],
  ['firstToken', 'first-token sink', 'weight on position 0'],
];

/**
 * The three highest-scoring heads of each role.
 * @param {{ layer, head, previousToken, induction, duplicateToken, firstToken }[]} scores
 * @param {{ T: number }} probe
 */
export function rolesTable(scores, probe) {
  const top = (key) => [...scores].sort((a, b) => b[key] - a[key]).slice(0, 3);
  const table = el('table', { className: 'mo-roles', dataset: { role: 'head-roles' } },
    el('caption', null, `Head roles on a probe of ${probe.T} random tokens repeated once (${2 * probe.T} positions): the three highest-scoring heads of each role`),
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, 'role'), el('th', { scope: 'col' }, 'what is measured'),
      el('th', { scope: 'col' }, 'strongest heads (layer · head: mean weight)'))),
    el('tbody', null, ...ROLES.map(([key, name, what]) => el('tr', { dataset: { roleKey: key } },
      el('th', { scope: 'row' }, name), el('td', null, what),
      el('td', null, top(key).map((s) => `L${s.layer} · h${s.head}: ${s[key].toFixed(2)}`).join(', '))))));
  return scrollRegion('Head roles', table);
}
