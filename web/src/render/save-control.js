// save-control.js — the small "Save figure" control of every map: a disclosure with PNG and SVG
// buttons. The drawing of the files (export.js) is imported on the first click, so that the first
// map's bundle does not carry it.
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

/**
 * The small "Save figure" control: a disclosure with PNG and SVG buttons.
 * @param {() => object[]} figures  the figures at the time of the click
 * @param {() => string} name  the file name without extension
 * @param {{ label?: string, text?: string, what?: string, i18n?: object }} [options]  label: the legend's; text:
 *   the control's own (default 'Save figure'); what: the figure's name for screen readers and the tooltip;
 *   i18n: the element's language (default English)
 */
export function saveControl(figures, name, options = {}) {
  const i18n = options.i18n ?? EN;
  const text = options.text ?? i18n.t('maps.saveFigure');
  const said = options.what ? i18n.t('maps.saveWhatAs', { text, what: options.what }) : i18n.t('maps.saveAs', { text });  // starts with the visible text
  const box = el('details', { className: 'save-figure' }, el('summary', { title: said, 'aria-label': said }, text));
  for (const format of ['png', 'svg']) {
    box.append(el('button', {
      type: 'button', dataset: { save: format },
      onclick: async () => {
        const list = figures().filter((f) => f && f.data);
        if (list.length) {
          const { saveFigure } = await import('./export.js');
          await saveFigure(format, list, name(), box, options);
        }
        box.open = false;
      },
    }, format.toUpperCase()));
  }
  return box;
}
