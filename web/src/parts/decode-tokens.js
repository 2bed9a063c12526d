// decode-tokens.js — the decode view's list of the cached tokens, kept between appends: a step adds an
// item and moves the newest token's mark, and the list is built again only for a new session. Also
// the small helpers of the decode parts that are kept between appends (parts/decode-cache.js,
// parts/decode-facts.js): each step touches only the nodes whose words changed.
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/decode.js';  // the English words it speaks

/** True when the cached tokens begin with the ones drawn: those nodes can stay, the rest are appended. */
export const extendsDrawn = (drawn, cached) => drawn.length <= cached.length && drawn.every((tok, i) => tok === cached[i]);

/** Writes a node's text only when it changed (the same text written again is a new text node to lay out). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Moves a class from one node to another (the newest token's mark); nothing is touched when it stays. */
export function moveMark(from, to, className) {
  if (from === to) return;
  from?.classList.remove(className);
  to?.classList.add(className);
}

/**
 * The cached tokens as a list, one item per token (its position as the title), the newest marked;
 * an empty list says what to do (`update`'s emptyText).
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 * @returns {{ element: HTMLElement, update(cached: string[], emptyText: string): void }}
 */
export function createTokenList(i18n = EN) {
  const { t } = i18n;
  const element = el('ol', 'dec-tokens');
  const empty = el('li', 'dec-token-empty');
  let drawn = [], items = [];

  const item = (tok, i) => el('li', { className: 'dec-token', title: t('dec.position', { i }) }, el('span', { dataset: { text: 'input' } }, tok));

  function appendNew(cached) {
    if (!extendsDrawn(drawn, cached)) {  // a new session: start the list again
      element.replaceChildren();
      items = [];
      drawn = [];
    }
    const fresh = cached.slice(drawn.length).map((tok, k) => item(tok, drawn.length + k));
    element.append(...fresh);
    items.push(...fresh);
    drawn = cached.slice();
  }

  function showEmpty(emptyText) {
    if (drawn.length) {
      empty.remove();
      return;
    }
    setText(empty, emptyText);
    if (empty.parentNode !== element) element.append(empty);
  }

  return {
    element,
    update(cached, emptyText) {
      const newest = items[items.length - 1];
      appendNew(cached);
      moveMark(newest, items[items.length - 1], 'dec-token-newest');
      showEmpty(emptyText);
    },
  };
}
