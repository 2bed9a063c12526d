// kit.js — what every view is built from (see web/ARCHITECTURE.md):
//   html`…`          an auto-escaping template tag (interpolations are text unless wrapped in raw())
//   el(tag, props, …children)   one element builder
//   field({...})     a form field: label, input, hint and an error slot, wired for screen readers
//   createLatest(root)          "latest request wins", with a busy indicator after 150 ms
//   setViewState(root, state)   THE signal that a view finished drawing (data-state + view-ready)
//   VARIANT_INFO / variantName / variantLabel    one table of variant names and labels
//   announce(root, text)        a polite aria-live read-out
//   useStyles(node, name, css)  a view's own stylesheet, added once to the root that shows it
// Pure helpers (no DOM at import time), so Node tests can import this module.

import { EN } from './i18n/index.js';

// ---- html ---------------------------------------------------------------------------------------
const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text -> HTML text (the five characters that matter, inside elements and quoted attributes). */
export const escapeHtml = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** Trusted HTML: what html`` and raw() return; interpolated into html`` unescaped. */
export class SafeHtml {
  constructor(text) { this.text = String(text); }
  toString() { return this.text; }
}
/** Marks a string as HTML (only for markup you wrote, never for user or core text). */
export const raw = (text) => new SafeHtml(text);

const part = (v) => {
  if (v == null || v === false) return '';
  if (v instanceof SafeHtml) return v.text;
  if (Array.isArray(v)) return v.map(part).join('');
  return escapeHtml(v);
};
/**
 * The auto-escaping template tag: html`<p title="${t}">${text}</p>` escapes t and text; arrays are
 * joined; null/undefined/false render nothing; nested html`` and raw() stay as they are.
 * `root.innerHTML = html`…`` works (the result's toString is the markup).
 */
export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

// ---- elements -------------------------------------------------------------------------------------
/**
 * el('button', { type: 'button', className: 'primary', dataset: { action: 'go' }, onclick: fn }, 'Go')
 * el('p', 'note', 'text')    (a string as props is the class name)
 * props: className, dataset, style (string or object), on<event> (listener), hidden/disabled/...
 * (properties), anything else an attribute (aria-*, role, for...). Children: nodes or text.
 */
export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  if (typeof props === 'string') props = { className: props };
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v == null) continue;
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'style' && typeof v === 'object') Object.assign(e.style, v);
    else if (k === 'style') e.style.cssText = v;
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (typeof v === 'boolean' && k in e) e[k] = v;            // hidden, disabled, checked…
    else if (k === 'className' || k === 'textContent' || k === 'value') e[k] = v;
    else if (v !== false) e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c != null && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}

let fieldCounter = 0;
/**
 * A form field: <div class="field"><label/><input/><small hint/><p error/></div>.
 * kind: 'number' | 'text' | 'select' | 'checkbox'; options for a select: [[value, text]...].
 * Returns { box, input, setError(message | '', detail?), error } (the error slot has role="alert" and is
 * referenced by aria-describedby, the input gets aria-invalid while an error shows; `detail`, the
 * core's own English words, follows the message in a span marked lang="en").
 * @param {{ name: string, label: string, kind?: string, hint?: string, options?: [string, string][],
 *           attrs?: Record<string, any>, wide?: boolean, id?: string, i18n?: object }} o
 */
export function field({ name, label, kind = 'text', hint = '', options = [], attrs = {}, wide = false, id, i18n = EN }) {
  const fid = id ?? `f${++fieldCounter}-${name}`;
  const hintEl = hint ? el('small', { id: `${fid}-help` }, hint) : null;
  const error = el('p', { className: 'field-error', id: `${fid}-err`, role: 'alert', hidden: true });
  const described = [`${fid}-err`, hint ? `${fid}-help` : null].filter(Boolean).join(' ');
  let input;
  if (kind === 'select') {
    input = el('select', { id: fid, name, 'aria-describedby': described, ...attrs },
      ...options.map(([v, t]) => el('option', { value: v }, t)));
  } else {
    input = el('input', { id: fid, name, type: kind, 'aria-describedby': described, ...attrs });
  }
  const labelEl = el('label', { for: fid }, label);
  const box = kind === 'checkbox'
    ? el('div', { className: 'field field-check', dataset: { field: name } }, input, labelEl, hintEl, error)
    : el('div', { className: `field${wide ? ' field-wide' : ''}`, dataset: { field: name } }, labelEl, input, hintEl, error);
  const setError = (message, detail = '') => {
    error.hidden = !message;
    error.replaceChildren(message || '', ...(message && detail ? [' ', coreDetail(detail, i18n)] : []));
    input.toggleAttribute('aria-invalid', Boolean(message));
  };
  /**
   * A number field that holds no number (empty, or text the browser cannot read as one): the sentence
   * that says so, shown instead of an older message that would quote an earlier value; '' otherwise.
   */
  const numberProblem = () => {
    if (kind !== 'number' || (input.value !== '' && Number.isFinite(Number(input.value)))) return '';
    return i18n.t(input.validity?.badInput ? 'form.notANumber' : 'form.empty', { label });
  };
  return { box, input, error, setError, numberProblem };
}

/**
 * Hands a Blob to the browser as a download named `name` (a figure, a model, the PyTorch twin's file).
 * @param {Blob} blob
 * @param {string} name
 * @param {Element} near  an element of the page: the link is attached next to it for the click
 */
export function downloadBlob(blob, name, near) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name, hidden: true });
  near.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// ---- the one "finished drawing" signal --------------------------------------------------------------
/**
 * Sets a view root's state: 'busy' while work for the latest request runs, 'ready' when it has
 * drawn, 'error' when it drew an error. 'ready' and 'error' also count up data-draws and fire a
 * bubbling, composed `view-ready` event with { state, view, draws, result }. `result` (optional) is
 * what the view drew (or, while busy, its progress), kept as root.result for tests and embedders.
 */
const FIRST_VIEW_MARK = 'attention-playground:first-view';
export function setViewState(root, state, result) {
  root.dataset.state = state;
  if (result !== undefined) root.result = result;  // 'busy' may carry progress (e.g. a lab's step)
  if (state === 'busy') {
    root.setAttribute('aria-busy', 'true');
    return;
  }
  root.removeAttribute('aria-busy');
  // For the page benchmark (scripts/bench-page.mjs): when the page first showed a drawn view.
  if (state === 'ready' && !performance.getEntriesByName(FIRST_VIEW_MARK).length) performance.mark(FIRST_VIEW_MARK);
  const draws = Number(root.dataset.draws || 0) + 1;
  root.dataset.draws = String(draws);
  root.dispatchEvent(new CustomEvent('view-ready', {
    bubbles: true, composed: true,
    detail: { state, view: root.dataset.slot ?? null, draws, result: root.result },
  }));
}

/**
 * "Latest request wins": run(work) calls work(isCurrent); the result of an older run that comes back
 * late is dropped (draw is not called). The root shows data-state="busy" at once and the class
 * "busy" (the visual indicator) only when the work takes longer than busyDelay ms.
 *   const latest = createLatest(root);
 *   latest.run(async () => ctx.client.call('forward', spec), (r) => draw(r), (e) => showError(e));
 * draw / fail return an optional result for setViewState.
 */
export function createLatest(root, { busyDelay = 150 } = {}) {
  let seq = 0;
  let timer = 0;
  const idle = () => { clearTimeout(timer); root.classList.remove('busy'); };
  return {
    async run(work, draw, fail) {
      const id = ++seq;
      const isCurrent = () => id === seq;
      clearTimeout(timer);
      setViewState(root, 'busy');
      timer = setTimeout(() => { if (isCurrent()) root.classList.add('busy'); }, busyDelay);
      let value;
      try {
        value = await work(isCurrent);
      } catch (e) {
        if (!isCurrent()) return;
        idle();
        const r = fail ? fail(e) : undefined;
        setViewState(root, 'error', r);
        return;
      }
      if (!isCurrent()) return;
      idle();
      let r;
      try {
        r = draw ? draw(value) : undefined;
      } catch (e) {
        setViewState(root, 'error', fail ? fail(e) : undefined);
        return;
      }
      setViewState(root, 'ready', r);
    },
    /** Drops whatever is in flight (destroy, or work that no longer applies). */
    cancel() { seq++; idle(); },
  };
}

// ---- variants ---------------------------------------------------------------------------------------
export const VARIANT_IDS = ['mha', 'mqa', 'gqa', 'mla'];
export const VARIANT_INFO = Object.freeze({
  mha: { name: 'MHA', long: 'multi-head' },
  mqa: { name: 'MQA', long: 'multi-query' },
  gqa: { name: 'GQA', long: 'grouped-query' },
  mla: { name: 'MLA', long: 'multi-head latent' },
});
/**
 * The core's own words (an error's English message) where the page shows them as a detail: marked
 * lang="en" (read as English, and not text of the catalog), in the page's words (inPageWords).
 */
export const coreDetail = (message, i18n = EN) => el('span', { className: 'core-detail', lang: 'en', dataset: { text: 'core' } },
  i18n.t('error.detail', { message: inPageWords(message) }));

/**
 * A core error shown in an element (a table cell, a status line): the catalog's sentence and the
 * core's message as the detail.
 */
export function showCoreError(target, error, i18n = EN) {
  const { text, detail } = i18n.coreError(error);
  target.replaceChildren(text, ' ', coreDetail(detail, i18n));
  return target;
}

/** 'gqa' -> 'GQA' */
export const variantName = (v) => VARIANT_INFO[v]?.name ?? String(v).toUpperCase();
/** 'gqa' -> 'GQA (grouped-query)', the long name in the page's language. */
export const variantLabel = (v, i18n = EN) => (VARIANT_INFO[v] ? `${VARIANT_INFO[v].name} (${variantLong(v, i18n)})` : String(v));
/** 'gqa' -> 'grouped-query' in the page's language. */
export const variantLong = (v, i18n = EN) => i18n.t(`variant.${v}.long`);

/** Which WebAssembly build of the core runs (attn.info.build), in words. */
export const buildName = (build, i18n = EN) => (['fma', 'simd', 'scalar'].includes(build) ? i18n.t(`shell.build.${build}`)
  : `WebAssembly ${build ?? ''}`);

// ---- words ------------------------------------------------------------------------------------------
/** The core's API words -> the page's words, for messages the page shows (the API names stay in the core). */
const PAGE_WORDS = [
  [', or do not ask for returnWeights', ', or use a shorter sentence (the maps need N × N weights per head)'],
  [' or do not ask for returnWeights', ' or add fewer tokens at once (the maps need their weights)'],
  ['returnWeights', 'the attention maps'],
  ['reduce seqLen', 'reduce the number of tokens'],
];
/** A core error message in the page's words (the field names of the form, e.g. nKvHeads, stay). */
export function inPageWords(message) {
  let m = String(message ?? '');
  for (const [api, page] of PAGE_WORDS) m = m.split(api).join(page);
  return m;
}

// ---- more words ---------------------------------------------------------------------------------------
/** 1, 'KV head' -> '1 KV head'; 2 -> '2 KV heads'. */
export const plural = (n, word, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/**
 * A polite live region in the view root (created once): screen readers announce `text`
 * (hover and keyboard read-outs, progress).
 */
export function announce(root, text) {
  let live = root.querySelector(':scope > .sr-live');
  if (!live) {
    live = el('p', { className: 'sr-live', 'aria-live': 'polite', role: 'status' });
    root.append(live);
  }
  live.textContent = text;
}

// ---- styles -------------------------------------------------------------------------------------
/**
 * Adds a view's own stylesheet (a `?inline` CSS import) to the shadow root, or the document, that
 * holds `node`, once per `name`. The element's shared sheets (styles/base, render, views, tables) are
 * in its bundle; the sheets of views that are chunks of their own (labs, configurator, KV chart)
 * come with them, so the first map's bundle does not carry them.
 */
export function useStyles(node, name, css) {
  const root = node.getRootNode();
  const holder = root instanceof ShadowRoot ? root : document.head;
  if (holder.querySelector(`style[data-styles="${name}"]`)) return;
  const style = document.createElement('style');
  style.dataset.styles = name;
  style.textContent = css;
  holder.append(style);
}
