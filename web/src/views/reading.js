// reading.js — further reading: the lesson's five papers as plain citations (lesson/papers.js), each
// with what this page takes from it and the views that show it (on the full page, links to their
// sections; nothing is fetched from outside).
import { el, setViewState } from '../kit.js';
import { PAPERS } from '../lesson/papers.js';
import '../i18n/catalogs/en/reading.js';  // the English words it speaks

export function createReadingView(root, ctx) {
  const { t } = ctx.i18n;
  /** A view's name: a link to its section where the element shows it, else the name alone. */
  const viewName = (id) => {
    const name = t(`view.${id}.short`);
    const section = root.getRootNode().querySelector?.(`[data-section="${id}"]`);
    return section ? el('a', { href: `#${section.id}` }, name) : el('span', null, name);
  };
  const list = el('ol', { className: 'reading', dataset: { role: 'papers' } });
  root.replaceChildren(el('p', 'note', t('reading.intro')), list);
  let built = false;  // the list depends on nothing in the state: built once, at the first update (the sections exist then)
  return {
    update() {
      if (built) return;
      built = true;
      list.replaceChildren(...PAPERS.map((p) => el('li', { dataset: { paper: p.id } },
        el('cite', { lang: 'en', dataset: { text: 'data' } }, p.cite),
        el('p', null, t(`reading.${p.id}`)),
        el('p', 'note', t('reading.shownIn'), ' ', ...p.views.flatMap((id, i) => (i ? [', ', viewName(id)] : [viewName(id)]))))));
      setViewState(root, 'ready', { papers: PAPERS.map((p) => p.id) });
    },
    destroy() { root.replaceChildren(); },
  };
}
