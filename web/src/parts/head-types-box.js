// head-types-box.js — the <details> under the attention maps that holds the lesson's head types
// (parts/head-types.js). Only its summary is in the main bundle: the list and its words are a chunk,
// fetched when the box is first opened, so the first map does not carry them.
import { el } from '../kit.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

/**
 * @param {object} ctx  the view's context
 * @param {Element} node  an element of the view
 * @param {(target: object) => void} before  called with a target before the page goes there
 * @returns {HTMLDetailsElement}
 */
export function headTypesBox(ctx, node, before) {
  const { t } = ctx.i18n;
  const box = el('details', { className: 'head-types', dataset: { role: 'head-types' } }, el('summary', null, t('maps.headTypes')));
  box.addEventListener('toggle', () => {
    if (!box.open || box.dataset.loaded) return;
    box.dataset.loaded = 'loading';
    import('./head-types.js').then((m) => {
      box.append(...m.headTypes(ctx, node, before));
      box.dataset.loaded = 'yes';
    }, (e) => {
      box.append(el('p', 'error-text', t('shell.viewLoadFailed', { message: e.message })));
      delete box.dataset.loaded;
    });
  });
  return box;
}
