// controls.js — the form that edits the shared shape state. Every control has a label; invalid
// combinations are explained next to the control the learner can fix (parts/error-field.js, imported
// with the first error: the one just edited, or the one whose default would make the shape valid; the
// core's error.field otherwise),
// in the catalog's words with the core's own as the detail (never silently changed); an error about no
// field of this form shows under it, each of its sentences apart.
import { VARIANT_IDS, coreDetail, el, field, variantLabel } from '../kit.js';
import { SOURCES } from '../state.js';
import { MAX_TOKENS } from '../tokens.js';

/** The fields that still apply while every section draws a bundled trained model: they pick which one (sources/zoo.js zooModelId). */
const PICKS_TRAINED = ['source', 'variant', 'nKvHeads', 'latentRank'];

/** The most characters the sentence box takes (the views use the first 100 tokens of it). */
export const MAX_TEXT = 4000;

/** [field, kind]: the label is the catalog's `field.<name>`, the hint `hint.<name>` (when it has one). */
const FIELDS = [
  ['text', 'text'], ['source', 'select'], ['variant', 'select'], ['dModel', 'number'], ['nHeads', 'number'], ['nKvHeads', 'number'],
  ['dHead', 'number'], ['latentRank', 'number'], ['ropeDim', 'number'], ['rope', 'checkbox'], ['causal', 'checkbox'],
  ['seed', 'number'],
];

export function createControlsView(root, ctx, { uid }) {
  const { i18n } = ctx;
  const { t } = i18n;
  const fields = new Map();
  const form = el('form', { className: 'controls', novalidate: true });
  for (const [name, kind] of FIELDS) {
    const attrs = kind === 'number' ? { inputmode: 'numeric', step: '1' }
      : kind === 'text' ? { spellcheck: 'false', maxlength: String(MAX_TEXT) } : {};
    const hint = i18n.has(`hint.${name}`) ? t(`hint.${name}`, { max: MAX_TOKENS }) : '';
    const f = field({ id: `${uid}-${name}`, name, label: t(`field.${name}`), kind, hint, attrs, wide: kind === 'text', i18n,
      options: name === 'variant' ? VARIANT_IDS.map((v) => [v, variantLabel(v, i18n)])
        : name === 'source' ? SOURCES.map((v) => [v, t(`field.source.${v}`)]) : [] });
    fields.set(name, f);
    form.append(f.box);
  }
  const general = el('p', { className: 'field-error form-error', role: 'alert', hidden: true });
  // While a checkpoint is open: which sections draw it, and what the shape fields still shape.
  const modelNote = el('p', { className: 'landing-note model-note', role: 'status', dataset: { role: 'model-note' }, hidden: true });
  form.prepend(modelNote);
  let onlyModel = false;  // every section on the page draws the model: only the sentence applies
  let onlyTrained = false;  // every section draws a zoo model: the sentence and what picks the model apply
  // The sentence box stops taking characters at MAX_TEXT: say so when it does.
  const full = el('small', { className: 'field-note', role: 'status', dataset: { role: 'text-full' }, hidden: true },
    t('form.textFull', { max: MAX_TEXT }));
  fields.get('text').box.append(full);
  const textHint = fields.get('text').box.querySelector(`[id="${uid}-text-help"]`);
  const sayFull = (text) => { full.hidden = String(text).length < MAX_TEXT; };
  root.replaceChildren(form, general);
  const input = (f) => fields.get(f).input;
  let current = null;  // the state the form shows
  let edited = '';     // the field the learner changed last
  let placing = 0;     // the latest showErrors (an older one's placement is dropped)
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
    if (f !== 'text') edited = f;
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
      current = state;
      sayFull(state.text);
      for (const [f, kind] of FIELDS) {
        const i = input(f);
        if (i === root.getRootNode().activeElement || (f === 'text' && pendingText !== null)) continue;
        if (kind === 'checkbox') i.checked = Boolean(state[f]);
        else if (i.value !== String(state[f])) i.value = String(state[f]);  // untouched fields stay as they are
      }
      // Which fields apply to the variant: the others are hidden or disabled, with the value the variant implies.
      const v = state.variant;
      for (const [f] of FIELDS) if (f !== 'text') fields.get(f).box.hidden = onlyModel || (onlyTrained && !PICKS_TRAINED.includes(f));
      if (onlyModel) return;
      fields.get('latentRank').box.hidden = v !== 'mla';
      fields.get('ropeDim').box.hidden = v !== 'mla' || onlyTrained;
      fields.get('rope').box.hidden = v === 'mla' || onlyTrained;
      const kv = input('nKvHeads');
      kv.disabled = v !== 'gqa';
      kv.placeholder = v === 'mla' ? t('form.notApplicable') : '';
      if (v !== 'gqa') kv.value = v !== 'mla' && shape?.variant === v ? String(shape.nKvHeads) : '';
    },
    /**
     * An opened checkpoint (null: none) and whether every section shown draws it. The sections that do
     * (attention maps, decode, the model view) take the model's own shape; the fields shape the lesson's
     * block of the others, so with only model sections on the page just the sentence stays.
     * @param {{ name: string, layers: number, shape: { dModel: number, nHeads: number, nKvHeads: number, dHead: number },
     *   maxTokens?: number, trained?: boolean } | null} model  trained: a bundled zoo model (source=trained), which the variant picks;
     *   maxTokens: the most tokens of the sentence its pass takes
     * @param {boolean} only
     */
    showModel(model, only) {
      onlyModel = Boolean(model) && only && !model.trained;
      onlyTrained = Boolean(model?.trained) && only;
      modelNote.hidden = !model;
      // how many of the sentence's tokens are drawn: the model's pass takes fewer than the seeded block's
      textHint.textContent = t('hint.text', { max: model?.maxTokens ?? MAX_TOKENS });
      if (!model) return;
      const s = model.shape;
      const facts = t('form.modelFacts', { count: model.layers, dModel: s.dModel, H: s.nHeads, G: s.nKvHeads, dh: s.dHead });
      // The checkpoint's name is its file's: shown as it is.
      // a trained (zoo) model: the variant and its K/V heads or latent still pick which one is drawn
      const key = model.trained ? (onlyTrained ? 'form.zooOnly' : 'form.zooOthers') : onlyModel ? 'form.modelOnly' : 'form.modelOthers';
      const [before, after] = t(key, { name: '\u0000', facts }).split('\u0000');
      modelNote.replaceChildren(before, el('span', { dataset: { text: 'data' } }, model.name), after);
    },
    /** @param {Error[]} errors the core's current errors; each goes next to the field to fix (parts/error-field.js) when the form has it */
    async showErrors(errors) {
      const my = ++placing;
      const placed = errors.length ? await (await import('../parts/error-field.js'))
        .placeErrors(errors, current, { client: ctx.client, edited, fields: [...fields.keys()], i18n }) : { byField: new Map(), other: ['', ''] };
      if (my !== placing) return;
      for (const [f, fl] of fields) fl.setError(...(placed.byField.get(f) ?? ['', '']));
      const [text, detail] = placed.other;
      general.hidden = !text;
      general.replaceChildren(...(text ? [text, ' ', coreDetail(detail, i18n)] : []));
    },
    destroy() { clearTimeout(textTimer); root.replaceChildren(); },
  };
}
