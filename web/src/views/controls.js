// controls.js — the form that edits the state. Every control has a label; invalid combinations are
// explained next to the controls they involve, in the core's own words (never silently changed).
import { VARIANTS } from '../state.js';

const FIELDS = [
  // [field, label, kind, help]
  ['text', 'Sentence', 'text', 'words and punctuation become tokens'],
  ['variant', 'Variant', 'select', ''],
  ['dModel', 'dModel (D)', 'number', 'model width'],
  ['nHeads', 'nHeads (H)', 'number', 'query heads'],
  ['nKvHeads', 'nKvHeads (G)', 'number', 'K/V heads (GQA)'],
  ['dHead', 'dHead', 'number', '0 = dModel / nHeads'],
  ['latentRank', 'latent rank r', 'number', 'MLA: width of the cached latent'],
  ['ropeDim', 'RoPE width dr', 'number', 'MLA: decoupled RoPE key'],
  ['rope', 'RoPE', 'checkbox', 'rotary positions inside attention'],
  ['causal', 'Causal mask', 'checkbox', 'queries see only earlier keys'],
  ['seed', 'Seed', 'number', 'seeded weights and token vectors'],
];
const NAMES = { mha: 'MHA (multi-head)', mqa: 'MQA (multi-query)', gqa: 'GQA (grouped-query)', mla: 'MLA (latent)' };

export function createControlsView(root, ctx, { uid }) {
  root.innerHTML = `<form class="controls" novalidate>${FIELDS.map(([f, label, kind, help]) => {
    const id = `${uid}-${f}`;
    const err = `<p class="field-error" id="${id}-err" role="alert" hidden></p>`;
    const hint = help ? `<small id="${id}-help">${help}</small>` : '';
    const described = `aria-describedby="${id}-err${help ? ` ${id}-help` : ''}"`;
    if (kind === 'select') {
      return `<div class="field" data-field="${f}"><label for="${id}">${label}</label>
        <select id="${id}" name="${f}" ${described}>${VARIANTS.map((v) => `<option value="${v}">${NAMES[v]}</option>`).join('')}</select>${hint}${err}</div>`;
    }
    if (kind === 'checkbox') {
      return `<div class="field field-check" data-field="${f}"><input type="checkbox" id="${id}" name="${f}" ${described}>
        <label for="${id}">${label}</label>${hint}${err}</div>`;
    }
    const attrs = kind === 'number' ? 'inputmode="numeric" step="1"' : 'maxlength="400" spellcheck="false"';
    return `<div class="field${kind === 'text' ? ' field-wide' : ''}" data-field="${f}"><label for="${id}">${label}</label>
      <input type="${kind}" id="${id}" name="${f}" ${attrs} ${described}>${hint}${err}</div>`;
  }).join('')}</form>`;
  const form = root.querySelector('form');
  const input = (f) => form.elements.namedItem(f);
  let textTimer = 0;
  let pendingText = null; // typed but not yet applied (debounced): update() must not overwrite it
  const flushText = () => {
    clearTimeout(textTimer);
    if (pendingText !== null) {
      const text = pendingText;
      pendingText = null;
      ctx.setState({ text });
    }
  };

  form.addEventListener('input', (e) => {
    const el = e.target;
    const f = el.name;
    if (el.type === 'checkbox') return ctx.setState({ [f]: el.checked });
    if (el.type === 'number') {
      if (el.value === '') return;  // mid-edit: wait for a number
      return ctx.setState({ [f]: Number(el.value) });
    }
    if (f === 'text') {
      clearTimeout(textTimer);
      pendingText = el.value;
      textTimer = setTimeout(flushText, 150);
      return;
    }
    ctx.setState({ [f]: el.value });
  });
  form.addEventListener('submit', (e) => { e.preventDefault(); flushText(); });
  form.addEventListener('change', (e) => { if (e.target.name === 'text') flushText(); });

  return {
    update(state) {
      for (const [f, , kind] of FIELDS) {
        const el = input(f);
        if (el === root.getRootNode().activeElement || (f === 'text' && pendingText !== null)) continue;
        if (kind === 'checkbox') el.checked = Boolean(state[f]);
        else if (el.value !== String(state[f])) el.value = String(state[f]);  // untouched fields stay as they are
      }
      // Which fields apply to the variant: the others are disabled, with the value the variant implies.
      const v = state.variant;
      const show = (f, on) => { root.querySelector(`[data-field="${f}"]`).hidden = !on; };
      show('latentRank', v === 'mla');
      show('ropeDim', v === 'mla');
      show('rope', v !== 'mla');
      const kv = input('nKvHeads');
      kv.disabled = v !== 'gqa';
      if (v === 'mha') kv.value = String(state.nHeads);
      if (v === 'mqa') kv.value = '1';
      if (v === 'mla') { kv.value = ''; kv.placeholder = 'n/a'; }
    },
    /** @param {string[]} messages the core's current error messages */
    showErrors(messages) {
      for (const [f] of FIELDS) {
        const el = input(f);
        const box = root.querySelector(`#${CSS.escape(el.id)}-err`);
        const mine = messages.filter((m) => new RegExp(`\\b${f}\\b`).test(m));
        box.hidden = mine.length === 0;
        box.textContent = mine.join(' ');
        el.toggleAttribute('aria-invalid', mine.length > 0);
      }
    },
    destroy() { clearTimeout(textTimer); root.replaceChildren(); },
  };
}
