// controls.js — the form that edits the shared shape state. Every control has a label; invalid
// combinations are explained next to the control the core's error names (error.field), in the
// core's own words (never silently changed); an error about no field of this form shows under it.
import { VARIANT_IDS, el, field, inPageWords, variantLabel } from '../kit.js';

/** The most characters the sentence box takes (the views use the first 100 tokens of it). */
export const MAX_TEXT = 4000;

const FIELDS = [
  // [field, label, kind, hint]
  ['text', 'Sentence', 'text', 'words and punctuation become tokens (the first 100 are used)'],
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

export function createControlsView(root, ctx, { uid }) {
  const fields = new Map();
  const form = el('form', { className: 'controls', novalidate: true });
  for (const [name, label, kind, hint] of FIELDS) {
    const attrs = kind === 'number' ? { inputmode: 'numeric', step: '1' }
      : kind === 'text' ? { spellcheck: 'false', maxlength: String(MAX_TEXT) } : {};
    const f = field({ id: `${uid}-${name}`, name, label, kind, hint, attrs, wide: kind === 'text',
      options: kind === 'select' ? VARIANT_IDS.map((v) => [v, variantLabel(v)]) : [] });
    fields.set(name, f);
    form.append(f.box);
  }
  const general = el('p', { className: 'field-error form-error', role: 'alert', hidden: true });
  // While a checkpoint is open: which sections draw it, and what the shape fields still shape.
  const modelNote = el('p', { className: 'landing-note model-note', role: 'status', dataset: { role: 'model-note' }, hidden: true });
  form.prepend(modelNote);
  let onlyModel = false;  // every section on the page draws the model: only the sentence applies
  // The sentence box stops taking characters at MAX_TEXT: say so when it does.
  const full = el('small', { className: 'field-note', role: 'status', dataset: { role: 'text-full' }, hidden: true },
    `The box holds at most ${MAX_TEXT.toLocaleString('en-US')} characters; typing more adds nothing.`);
  fields.get('text').box.append(full);
  const sayFull = (text) => { full.hidden = String(text).length < MAX_TEXT; };
  root.replaceChildren(form, general);
  const input = (f) => fields.get(f).input;
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
    const t = e.target;
    const f = t.name;
    if (t.type === 'checkbox') return ctx.setState({ [f]: t.checked });
    if (t.type === 'number') {
      const problem = fields.get(f).numberProblem();
      if (problem) {  // mid-edit: wait for a number, and say so (never an older value's message)
        fields.get(f).setError(problem);
        return undefined;
      }
      fields.get(f).setError('');
      return ctx.setState({ [f]: Number(t.value) });
    }
    if (f === 'text') {  // typing: redraw once the keys pause
      sayFull(t.value);
      clearTimeout(textTimer);
      pendingText = t.value;
      textTimer = setTimeout(flushText, 60);
      return;
    }
    ctx.setState({ [f]: t.value });
  });
  form.addEventListener('submit', (e) => { e.preventDefault(); flushText(); });
  form.addEventListener('change', (e) => { if (e.target.name === 'text') flushText(); });

  return {
    /**
     * @param {object} state
     * @param {object | null} [shape] the core's resolved shape of the state, when it is valid: the
     *   K/V heads a variant implies are shown from it (shape.nKvHeads), never derived here
     */
    update(state, shape = null) {
      sayFull(state.text);
      for (const [f, , kind] of FIELDS) {
        const i = input(f);
        if (i === root.getRootNode().activeElement || (f === 'text' && pendingText !== null)) continue;
        if (kind === 'checkbox') i.checked = Boolean(state[f]);
        else if (i.value !== String(state[f])) i.value = String(state[f]);  // untouched fields stay as they are
      }
      // Which fields apply to the variant: the others are hidden or disabled, with the value the variant implies.
      const v = state.variant;
      for (const [f] of FIELDS) if (f !== 'text') fields.get(f).box.hidden = onlyModel;
      if (onlyModel) return;
      fields.get('latentRank').box.hidden = v !== 'mla';
      fields.get('ropeDim').box.hidden = v !== 'mla';
      fields.get('rope').box.hidden = v === 'mla';
      const kv = input('nKvHeads');
      kv.disabled = v !== 'gqa';
      kv.placeholder = v === 'mla' ? 'n/a' : '';
      if (v !== 'gqa') kv.value = v !== 'mla' && shape?.variant === v ? String(shape.nKvHeads) : '';
    },
    /**
     * An opened checkpoint (null: none) and whether every section shown draws it. The sections that do
     * (attention maps, decode, the model view) take the model's own shape; the fields shape the lesson's
     * block of the others, so with only model sections on the page just the sentence stays.
     * @param {{ name: string, layers: number, shape: { dModel: number, nHeads: number, nKvHeads: number, dHead: number } } | null} model
     * @param {boolean} only
     */
    showModel(model, only) {
      onlyModel = Boolean(model) && only;
      modelNote.hidden = !model;
      if (!model) return;
      const s = model.shape;
      const facts = `${model.layers} layer${model.layers === 1 ? '' : 's'}, dModel ${s.dModel}, ${s.nHeads} query heads, ${s.nKvHeads} K/V heads, dHead ${s.dHead}`;
      modelNote.textContent = onlyModel
        ? `${model.name} (${facts}) has its own shape: only the sentence applies.`
        : `The attention maps, the decode view and the model view show ${model.name} (${facts}); the fields below the sentence `
          + 'shape the lesson\'s random-weight block of the other sections.';
    },
    /** @param {Error[]} errors the core's current errors; each goes next to error.field when the form has it */
    showErrors(errors) {
      const byField = new Map();
      const other = [];
      for (const e of errors) {
        const f = String(e.field ?? '').split('.')[0];
        const text = inPageWords(e.message);
        if (fields.has(f)) byField.set(f, [...new Set([...(byField.get(f) ?? []), text])]);
        else if (!other.includes(text)) other.push(text);
      }
      for (const [f, fl] of fields) fl.setError((byField.get(f) ?? []).join(' '));
      general.hidden = other.length === 0;
      general.textContent = other.join(' ');
    },
    destroy() { clearTimeout(textTimer); root.replaceChildren(); },
  };
}
