// head-types.js — the lesson's head types under the attention maps (views/heatmap.js, which imports
// this chunk when its list is first opened, so the first map's bundle does not carry it): positional,
// previous-token, copy, named-entity and induction heads, each with one sentence of what it does and
// where on this page a real head of that type can be seen, as buttons that go there through the
// element's state (parts/go-to.js). Where the page has none to show (named-entity heads), it says so.
import { el } from '../kit.js';
import { goTo } from './go-to.js';
import '../i18n/catalogs/en/head-types.js';  // the English words it speaks

/** Where induction heads are seen: Lab 4 trains a two-layer model that forms them. */
export const INDUCTION_TARGET = { section: 'lab-induction' };

/** The bundled models trained on Shakespeare (sources/zoo.js): layer 0 has previous-token heads (docs/zoo.md). */
const TRAINED = { section: 'heatmap', patch: { source: 'trained', layer: 0 } };
const MODEL = { section: 'model' };

/**
 * In the lesson's order: [type, [[button, target], ...]]; `scores` opens the trained models' table of scores.
 * Lab 1's button picks its copy task (its default is two tokens back).
 */
export const HEAD_TYPES = [
  ['positional', [['model', MODEL], ['scores', { ...TRAINED, scores: true }]]],
  ['previous', [['trained', TRAINED]]],
  ['copy', [['lab1', { section: 'lab-heads', patch: { labHTask: 'copy' } }], ['lab2', { section: 'lab-mqa' }]]],
  ['entity', [['model', MODEL]]],
  ['induction', [['lab4', INDUCTION_TARGET]]],
];

/**
 * The list's content (the view owns the <details> and its summary).
 * @param {object} ctx  the view's context
 * @param {Element} node  an element of the view
 * @param {(target: object) => void} before  called with a target before the page goes there (the view opens its table of scores)
 * @returns {HTMLElement[]}
 */
export function headTypes(ctx, node, before) {
  const { t } = ctx.i18n;
  const status = el('p', { className: 'note', role: 'status', dataset: { role: 'head-types-status' } });
  const press = (target) => {
    before(target);
    const how = goTo(ctx, node, target);
    status.textContent = how === 'opened' ? t('headTypes.opened') : how === null ? t('headTypes.elsewhere') : '';
  };
  return [
    el('p', 'note', t('headTypes.intro')),
    el('ul', null, ...HEAD_TYPES.map(([type, links]) => el('li', { dataset: { type } },
      el('strong', null, t(`headTypes.${type}.name`)), ' ', t(`headTypes.${type}.what`),
      el('p', 'note', t(`headTypes.${type}.where`)),
      el('div', 'head-types-go', ...links.map(([label, target]) => el('button', {
        type: 'button', dataset: { action: 'head-type', link: label }, onclick: () => press(target),
      }, t(`headTypes.go.${label}`))))))),
    status,
  ];
}
