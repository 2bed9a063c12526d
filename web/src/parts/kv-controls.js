// kv-controls.js — the KV chart's own settings (views/kv-chart.js): the cache's data type, the batch,
// the layers of the current shape, and the real models to draw (a checkbox each, in a <details>).
// Numbers apply as they are typed (like the main form); the select and the checkboxes on change.
import { DTYPES, dtypeLabel } from '../state.js';
import { el, field, variantName } from '../kit.js';
import '../i18n/catalogs/en/kv.js';  // the English words it speaks

const INT = { min: '1', step: '1', inputmode: 'numeric' };

/** One real model's checkbox: "Falcon-7B  MQA · 32 layers, 71 heads, 1 KV head of 64" (its name and source are the core's data). */
function presetBox(p, i18n) {
  const { t } = i18n;
  const shape = p.variant === 'mla'
    ? t('kv.presetMla', { layers: p.nLayers, r: p.latentRank, dr: p.ropeDim ?? 0 })
    : t('kv.presetShape', { layers: p.nLayers, heads: p.nHeads, count: p.variant === 'mha' ? p.nHeads : p.nKvHeads, dh: p.dHead });
  return el('label', { className: 'kv-preset' },
    el('input', { type: 'checkbox', name: 'preset', value: p.id }),
    el('span', null, el('span', { lang: 'en', dataset: { text: 'data' }, title: [p.source, p.notes].filter(Boolean).join('; ') }, p.name), ' ', el('small', null, `${variantName(p.variant)} · ${shape}`)));
}

/**
 * @param {string} id  a prefix for the fields' ids
 * @param {object[]} presets  the core's presets()
 * @param {(patch: object) => void} setState
 * @param {object} i18n  the element's words and formats
 * @returns {{ element: HTMLElement, sync(state): void, setError(name: 'batch' | 'nLayers', message: string): void }}
 */
export function createKvControls(id, presets, setState, i18n) {
  const { t } = i18n;
  const fields = {
    dtype: field({ id: `${id}-dtype`, name: 'dtype', label: t('field.dtype'), kind: 'select', hint: t('hint.dtype'), i18n,
      options: Object.entries(DTYPES).map(([k, bytes]) => [k, t('kv.dtypeOption', { dtype: dtypeLabel(k), bytes: i18n.fmt.int(bytes) })]) }),
    batch: field({ id: `${id}-batch`, name: 'batch', label: t('field.batch'), kind: 'number', hint: t('hint.batch'), attrs: INT, i18n }),
    nLayers: field({ id: `${id}-nLayers`, name: 'nLayers', label: t('field.nLayers'), kind: 'number', hint: t('hint.nLayers'), attrs: INT, i18n }),
  };
  const boxes = presets.map((p) => presetBox(p, i18n));
  const summary = el('span', { dataset: { role: 'preset-summary' } });
  const element = el('div', { className: 'controls', role: 'group', 'aria-label': t('kv.settings') },
    fields.dtype.box, fields.batch.box, fields.nLayers.box,
    el('details', 'field field-wide kv-presets', el('summary', null, t('kv.realModels'), ' ', summary),
      el('fieldset', null, el('legend', 'note', t('kv.realModelsLegend')),
        el('div', { className: 'kv-preset-list', dataset: { role: 'preset-list' } }, ...boxes))));
  const checks = () => boxes.map((b) => b.querySelector('input'));

  element.addEventListener('input', (e) => {
    const { name, value, type } = e.target;
    if (type === 'number' && value !== '') setState({ [name]: Number(value) });  // '' : mid-edit
  });
  element.addEventListener('change', (e) => {
    if (e.target.name === 'dtype') setState({ dtype: e.target.value });
    if (e.target.name === 'preset') setState({ presets: checks().filter((c) => c.checked).map((c) => c.value).join(',') });
  });

  const focused = (input) => input === input.getRootNode().activeElement;
  return {
    element,
    sync(s) {
      for (const k of ['dtype', 'batch', 'nLayers']) if (!focused(fields[k].input)) fields[k].input.value = String(s[k]);
      const chosen = new Set(String(s.presets || '').split(',').map((x) => x.trim()));
      for (const c of checks()) c.checked = chosen.has(c.value);
      const names = presets.filter((p) => chosen.has(p.id)).map((p) => p.name);
      summary.textContent = names.length ? names.join(', ') : t('kv.none');
    },
    setError: (name, message, detail) => fields[name].setError(message, detail),
  };
}
