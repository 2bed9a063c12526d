// kv-controls.js — the KV chart's own settings (views/kv-chart.js): the cache's data type, the batch,
// the layers of the current shape, and the real models to draw (a checkbox each, in a <details>).
// Numbers apply as they are typed (like the main form); the select and the checkboxes on change.
import { DTYPES, dtypeLabel } from '../state.js';
import { el, field, plural, variantName } from '../kit.js';

const INT = { min: '1', step: '1', inputmode: 'numeric' };

/** One real model's checkbox: "Falcon-7B  MQA · 32 layers, 71 heads, 1 KV head of 64". */
function presetBox(p) {
  const shape = p.variant === 'mla'
    ? `${p.nLayers} layers, r + dr = ${p.latentRank} + ${p.ropeDim ?? 0}`
    : `${p.nLayers} layers, ${p.nHeads} heads, ${plural(p.variant === 'mha' ? p.nHeads : p.nKvHeads, 'KV head')} of ${p.dHead}`;
  return el('label', { className: 'kv-preset', title: [p.source, p.notes].filter(Boolean).join('; ') },
    el('input', { type: 'checkbox', name: 'preset', value: p.id }),
    el('span', null, `${p.name} `, el('small', null, `${variantName(p.variant)} · ${shape}`)));
}

/**
 * @param {string} id  a prefix for the fields' ids
 * @param {object[]} presets  the core's presets()
 * @param {(patch: object) => void} setState
 * @returns {{ element: HTMLElement, sync(state): void, setError(name: 'batch' | 'nLayers', message: string): void }}
 */
export function createKvControls(id, presets, setState) {
  const fields = {
    dtype: field({ id: `${id}-dtype`, name: 'dtype', label: 'Cache data type', kind: 'select', hint: 'bytes per stored element',
      options: Object.entries(DTYPES).map(([k, bytes]) => [k, `${dtypeLabel(k)} (${bytes} B / element)`]) }),
    batch: field({ id: `${id}-batch`, name: 'batch', label: 'Batch', kind: 'number', hint: 'sequences cached at once', attrs: INT }),
    nLayers: field({ id: `${id}-nLayers`, name: 'nLayers', label: 'Layers (l)', kind: 'number', hint: 'of the current shape', attrs: INT }),
  };
  const boxes = presets.map(presetBox);
  const summary = el('span', { dataset: { role: 'preset-summary' } });
  const element = el('div', { className: 'controls', role: 'group', 'aria-label': 'KV-cache chart settings' },
    fields.dtype.box, fields.batch.box, fields.nLayers.box,
    el('details', 'field field-wide kv-presets', el('summary', null, 'Real models (dashed): ', summary),
      el('fieldset', null, el('legend', 'note', 'Draw the KV cache of these published configurations'),
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
      summary.textContent = names.length ? names.join(', ') : 'none';
    },
    setError: (name, message) => fields[name].setError(message),
  };
}
