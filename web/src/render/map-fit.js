// map-fit.js — small multiples that fit one screen, with a larger map on demand: where a view's maps at
// their usual size would take more than a screen (a trained model's characters, a checkpoint's pieces:
// 8 heads of 64 tokens, two per row, were four screens), every map is drawn small enough that all of
// them fit, and a click on one, or Enter, opens it large in a panel after them (its rows selectable
// there as usual); Close or Escape returns to the small map. Loaded by views/heatmap.js on first use
// (not with the first map).
import { el, useStyles } from '../kit.js';
import { createHeatmap } from './heatmap.js';
import mapFitCss from '../styles/map-fit.css?inline';
import '../i18n/catalogs/en/map-fit.js';  // the English words it speaks

/**
 * px per cell (1 at least, fractions allowed) so that `heads` maps of n × n cells fit a `width` × `height`
 * box, or 0 when maps `usual` px across already do.
 */
export function fitCell(width, height, n, heads, usual) {
  const usualCell = Math.max(4, Math.min(28, Math.floor(usual / n)));  // as render/heatmap.js sizes a map
  // around each map: its group's frame and the gap (28 px across), its caption and its group's (90 px down);
  // token labels where the cells are tall enough to show them
  const tall = (c) => {
    const side = c * n + (c >= 11 ? 64 : 0);
    return Math.ceil(heads / Math.max(1, Math.floor(width / (side + 28)))) * (side + 90);
  };
  if (tall(usualCell) <= height) return 0;
  let c = usualCell;
  while (c > 1 && tall(c) > height) c = Math.max(1, c - 0.25);
  return c;
}

/**
 * Small maps in `root` for a view's maps, or null where the usual size fits one screen.
 * @param {HTMLElement} root  the view (its width)
 * @param {HTMLElement} after  the maps' container: the large map's panel goes after it
 * @param {number} n  tokens
 * @param {number} heads  maps
 * @param {number} usual  px across a map at its usual size
 * @param {(h: number) => object} matrixOf  the matrix of map h now (createHeatmap's update)
 * @param {object} i18n
 * @returns {null | ((options: object, h: number) => object) & { update(row: number): void, open: number }}
 */
export function fitMaps(root, after, n, heads, usual, matrixOf, i18n) {
  const cell = fitCell(root.clientWidth || 600, (globalThis.innerHeight || 800) * 0.85, n, heads, usual);
  // a new layout: the note and the large map of the old one go
  for (const x of [after.previousElementSibling, after.nextElementSibling]) if (x?.dataset.fit) x.remove();
  after.classList.toggle('map-fit', Boolean(cell));
  if (!cell) return null;
  const { t } = i18n;
  useStyles(root, 'map-fit', mapFitCss);
  const panel = el('section', { className: 'map-large', dataset: { fit: 'large' }, hidden: true, 'aria-label': t('mapFit.region') });
  after.before(el('p', { className: 'note', dataset: { fit: 'note' } }, t('mapFit.note')));
  after.after(panel);
  let large = null, from = null, shown = -1;
  const close = () => {
    panel.hidden = true;
    large?.destroy();
    large = null;
    shown = fit.open = -1;
    from?.focus();
  };
  const open = (options, h) => {
    from = root.getRootNode().activeElement;
    large?.destroy();
    large = createHeatmap({ ...options, dataset: { large: String(h) }, title: t('mapFit.large', { title: options.title }), maxWidth: Math.min(640, (root.clientWidth || 600) - 90) });
    panel.replaceChildren(el('button', { type: 'button', dataset: { action: 'close-large' }, onclick: close }, t('mapFit.close')), large.element);
    panel.hidden = false;
    shown = fit.open = h;
    large.update(matrixOf(h));
    large.element.addEventListener('keydown', (e) => { if (e.key === 'Escape') close(); });
    panel.scrollIntoView?.({ block: 'nearest' });
    large.focus();
  };
  /** A small map's options: its size, and click / Enter opening it large. */
  const fit = (options, h) => ({ ...options, cell, save: false, keys: 'mapFit.keys', onSelect: () => open(options, h) });
  fit.open = -1;
  fit.cell = cell;
  /** New weights (or a selected row): the large map follows. */
  fit.update = (row) => {
    if (!large) return;
    large.update(matrixOf(shown));
    large.select(row);
  };
  return fit;
}
