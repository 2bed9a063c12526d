// cfg-form.js — the configurator's form (views/configurator.js): the model's size (a parameter budget,
// or dModel and layers), the context, the batch, the deployment target (or a custom memory), the
// cache's data type, the priority, a forced variant and the MLA benchmarking switch. The form lives
// in the shared state (the cfg* keys of state.js), so a permalink reproduces it: typed numbers apply
// after a short pause, everything else at once. A core error goes next to the field it names.
import { DTYPES, dtypeLabel } from '../state.js';
import { VARIANT_IDS, el, field, variantLabel } from '../kit.js';
import { messageText } from './cfg-messages.js';
import '../i18n/catalogs/en/kv.js';  // the English words it speaks
import '../i18n/catalogs/en/cfg.js';  // the English words it speaks

export const DEBOUNCE_MS = 150;
const UNITS = { M: 1e6, B: 1e9 };
const INT = { min: '1', step: '1', inputmode: 'numeric' };
const DECIMAL = { min: '0', step: 'any', inputmode: 'decimal' };
const PRIORITIES = ['quality', 'balanced', 'memory'];
/** Which form field a core error belongs to: the request field (error.field) -> the state key. */
const ERROR_FIELDS = {
  paramBudget: 'cfgBudget', dModel: 'cfgDModel', nLayers: 'cfgLayers', seqLen: 'cfgSeqLen', batch: 'cfgBatch',
  memoryBytes: 'cfgMemoryGB', target: 'cfgTarget', bytesPerElement: 'cfgDtype', priority: 'cfgPriority',
  variant: 'cfgVariant', benchmark: 'cfgBenchmark',
};
const sig = (x, digits = 6) => String(Number(x.toPrecision(digits)));
const isDims = (s) => s.cfgDModel > 0 || s.cfgLayers > 0;

/** The budget: a number and its unit (M or B) in one field. */
function budgetField(id, i18n) {
  const { t } = i18n;
  const f = field({ id, name: 'cfgBudget', label: t('field.cfgBudget'), kind: 'number', hint: t('hint.cfgBudget'), attrs: DECIMAL, i18n });
  const unit = el('select', { name: 'cfgUnit', 'aria-label': t('cfg.budgetUnit') }, el('option', { value: 'M' }, t('cfg.unitM')),
    el('option', { value: 'B' }, t('cfg.unitB')));
  const pair = el('span', 'cfg-budget');
  f.input.before(pair);
  pair.append(f.input, unit);
  f.box.dataset.mode = 'budget';
  return { ...f, unit };
}

/**
 * @param {string} id  a prefix for the fields' ids
 * @param {(patch: object) => void} setState
 * @param {() => object | null} recommended  the recommendation shown (the dims mode starts from its shape)
 * @param {object} i18n  the element's words and formats
 */
export function createCfgForm(id, setState, recommended, i18n) {
  const { t } = i18n;
  // Labels and hints: the catalog's field.<key> and hint.<key>.
  const hint = (k) => (i18n.has(`hint.${k}`) ? t(`hint.${k}`) : '');
  const num = (k, attrs = INT) => field({ id: `${id}-${k}`, name: k, label: t(`field.${k}`), kind: 'number', hint: hint(k), attrs, i18n });
  const sel = (k, options) => field({ id: `${id}-${k}`, name: k, label: t(`field.${k}`), kind: 'select', hint: hint(k), options, i18n });
  const f = {
    cfgBudget: budgetField(`${id}-cfgBudget`, i18n),
    cfgDModel: num('cfgDModel'),
    cfgLayers: num('cfgLayers'),
    cfgSeqLen: num('cfgSeqLen'),
    cfgBatch: num('cfgBatch'),
    cfgTarget: sel('cfgTarget', []),
    cfgMemoryGB: num('cfgMemoryGB', DECIMAL),
    cfgDtype: sel('cfgDtype', Object.entries(DTYPES).map(([k, bytes]) => [k, t('kv.dtypeOption', { dtype: dtypeLabel(k), bytes: i18n.fmt.int(bytes) })])),
    cfgPriority: sel('cfgPriority', PRIORITIES.map((p) => [p, t(`cfg.priority.${p}`)])),
    cfgVariant: sel('cfgVariant', [['', t('cfg.variantAuto')], ...VARIANT_IDS.map((v) => [v, variantLabel(v, i18n)])]),
    cfgBenchmark: field({ id: `${id}-cfgBenchmark`, name: 'cfgBenchmark', label: t('field.cfgBenchmark'), kind: 'checkbox', hint: hint('cfgBenchmark'), i18n }),
  };
  f.cfgDModel.box.dataset.mode = f.cfgLayers.box.dataset.mode = 'dims';
  const mode = (value, text) => el('label', null, el('input', { type: 'radio', name: 'cfgMode', value }), ` ${text}`);
  const element = el('form', { className: 'controls cfg-form', novalidate: true, 'aria-label': t('cfg.formLabel') },
    el('fieldset', 'field field-wide cfg-mode', el('legend', null, t('cfg.modelSize')), mode('budget', t('cfg.modeBudget')), mode('dims', t('cfg.modeDims'))),
    ...Object.values(f).map((x) => x.box));
  const input = (k) => element.elements.namedItem(k);
  let unit = null;              // the budget's unit as the learner chose it ('M' | 'B')
  let targetsKey = '';
  const pending = new Map();    // numbers typed but not applied yet: state key -> value
  let timer = 0;

  const budget = () => (f.cfgBudget.input.value === '' ? null : Math.round(Number(f.cfgBudget.input.value) * UNITS[unit]));
  function flush() {
    clearTimeout(timer);
    if (pending.size === 0) return;
    const patch = Object.fromEntries(pending);
    pending.clear();
    setState(patch);
  }
  element.addEventListener('input', (e) => {
    const { name: k, type, value, checked } = e.target;
    if (type === 'number') {
      const v = k === 'cfgBudget' ? budget() : value === '' ? null : Number(value);
      if (v === null || !Number.isFinite(v)) {  // mid-edit: wait for a number, and say so (not an older value's message)
        pending.delete(k);
        f[k]?.setError(f[k].numberProblem() || t(unit === 'B' ? 'cfg.tooBigB' : 'cfg.tooBigM', { value }));
        return;
      }
      f[k]?.setError('');
      pending.set(k, v);
      clearTimeout(timer);
      timer = setTimeout(flush, DEBOUNCE_MS);
    } else if (type === 'checkbox') setState({ [k]: checked });
    else if (k === 'cfgMode') {
      const rec = recommended();
      setState(value === 'budget' ? { cfgDModel: 0, cfgLayers: 0 } : { cfgDModel: rec?.dModel || 4096, cfgLayers: rec?.nLayers || 32 });
    } else if (k === 'cfgUnit') {
      unit = value;
      const b = budget();
      if (b !== null && Number.isFinite(b)) setState({ cfgBudget: b });
    } else if (k in f) setState({ [k]: value });
  });
  element.addEventListener('change', (e) => { if (e.target.type === 'number') flush(); });
  element.addEventListener('submit', (e) => { e.preventDefault(); flush(); });

  /** The targets' options (kept while they do not change: re-filling them would lose the selection). */
  function syncTargets(s, targets) {
    const known = ['custom', 'none', ...targets.map((t) => t.id)];
    // The core's targets by their names (its messages, in the page's words), then the catalog's two.
    const options = [...targets.map((x) => [x.id, messageText(x.message, i18n)]),
      ...(known.includes(s.cfgTarget) ? [] : [[s.cfgTarget, s.cfgTarget]]),  // an unknown id from a URL: the core explains
      ['custom', t('cfg.targetCustom')], ['none', t('cfg.targetNone')]];
    const key = JSON.stringify(options);
    if (key === targetsKey) return;
    targetsKey = key;
    f.cfgTarget.input.replaceChildren(...options.map(([v, t]) => el('option', { value: v }, t)));
    f.cfgTarget.input.value = s.cfgTarget;
  }

  const focused = (x) => x === x.getRootNode().activeElement;
  return {
    element,
    flush,
    /** The form from the state (never over what is being typed). */
    sync(s, targets) {
      syncTargets(s, targets);
      for (const r of element.querySelectorAll('input[name="cfgMode"]')) r.checked = r.value === (isDims(s) ? 'dims' : 'budget');
      for (const x of element.querySelectorAll('[data-mode]')) x.hidden = x.dataset.mode !== (isDims(s) ? 'dims' : 'budget');
      f.cfgMemoryGB.box.hidden = s.cfgTarget !== 'custom';
      unit ??= s.cfgBudget >= 1e9 ? 'B' : 'M';
      f.cfgBudget.unit.value = unit;
      const set = (k, text) => { if (!focused(input(k)) && !pending.has(k) && input(k).value !== text) input(k).value = text; };
      set('cfgBudget', sig(s.cfgBudget / UNITS[unit]));
      for (const k of ['cfgDModel', 'cfgLayers', 'cfgSeqLen', 'cfgBatch', 'cfgMemoryGB']) set(k, String(s[k]));
      for (const k of ['cfgTarget', 'cfgDtype', 'cfgPriority', 'cfgVariant']) if (!focused(input(k))) input(k).value = s[k];
      input('cfgBenchmark').checked = Boolean(s.cfgBenchmark);
    },
    /** Shows a core error next to the field it names (error.field); returns whether a field took it. */
    showError(error, s) {
      let key = error ? ERROR_FIELDS[String(error.field ?? '').split('.')[0]] : null;
      if (key === 'cfgMemoryGB' && s.cfgTarget !== 'custom') key = 'cfgTarget';  // a named target's memory
      if (key && f[key].box.dataset.mode && f[key].box.dataset.mode !== (isDims(s) ? 'dims' : 'budget')) key = null;  // hidden
      const shown = key ? i18n.coreError(error, t(`field.${key}`)) : null;
      for (const [k, x] of Object.entries(f)) x.setError(k === key ? shown.text : '', k === key ? shown.detail : '');
      f.cfgBudget.unit.toggleAttribute('aria-invalid', key === 'cfgBudget');
      return Boolean(key);
    },
    destroy() { clearTimeout(timer); },
  };
}
