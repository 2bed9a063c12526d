// scroll-region.js — a wide table that may scroll sideways on a narrow screen, and says so: a
// labelled, focusable region (keyboard users scroll it with the arrow keys), a fade on each side
// that has more columns, and a "scroll sideways" hint while the content is wider than the box.
// The box's data-more says where the hidden columns are: 'right', 'left', 'both' or '' (none);
// styles/tables.css draws the cue from it.
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';

/**
 * @param {string} label  the region's accessible name, e.g. 'Parameters and KV cache per variant'
 * @param {Node} content  the table (it may change size: the cue follows)
 * @param {string} [className]  extra classes for the outer box
 * @param {object} [i18n]  the element's words (the hint's language)
 * @returns {HTMLElement}
 */
export function scrollRegion(label, content, className = '', i18n = EN) {
  const inner = el('div', { className: 'scroll', tabindex: '0', role: 'region', 'aria-label': label }, content);
  const hint = el('p', { className: 'scroll-hint', 'aria-hidden': 'true' }, i18n.t('shell.scrollHint'));
  const box = el('div', { className: `scroll-region ${className}`.trim(), dataset: { more: '' } },
    hint, el('div', 'scroll-frame', inner));
  const sync = () => {
    const hidden = inner.scrollWidth - inner.clientWidth;
    const left = inner.scrollLeft > 1, right = inner.scrollLeft < hidden - 1;
    const more = hidden <= 1 ? '' : left && right ? 'both' : left ? 'left' : 'right';
    if (box.dataset.more !== more) box.dataset.more = more;
  };
  inner.addEventListener('scroll', sync, { passive: true });
  const ro = new ResizeObserver(sync);
  ro.observe(inner);
  ro.observe(content);
  return box;
}
