// models.js — a lab's trained models, kept after a run: the list, Export (a .safetensors file),
// "Inspect in the attention view", Import. A model is listed only once the worker holds it (a file
// the core refuses, or one trained on another lab's task, leaves nothing behind), and the page's
// compare view hears of the list whenever it changes (ctx.noteTrained).
import { downloadBlob, el, inPageWords } from '../kit.js';
import { trainerKey } from './keys.js';
import { checkImport } from './tasks.js';

/** Inspect tokens for any model: n / 2 tokens, then the same again (the induction pattern). */
function defaultInspectTokens(vocabSize, n = 16) {
  const half = n / 2;
  const first = Array.from({ length: half }, (_, i) => (i * 7 + 3) % vocabSize);
  const tokens = [...first, ...first];
  return { tokens, labels: tokens.map(String), title: `${half} token ids, then the same again` };
}

/** Thrown when a file is refused (its message is shown as it is). */
export class RefusedImport extends Error {}

/**
 * @param {object} ctx the view ctx
 * @param {{ id: string, inspectTokens?: (vocabSize: number) => { tokens, labels, title },
 *           onFile: (file: File) => void, onError: (text: string) => void }} o
 */
export function createModelTools(ctx, { id, inspectTokens = defaultInspectTokens, onFile, onError }) {
  const uid = Math.random().toString(36).slice(2, 8);
  const models = new Map();  // label -> { key, vocabSize }
  let busy = false;
  const select = el('select', { id: `${id}-model-${uid}`, name: 'model' });
  const chosen = () => models.get(select.value) ?? null;
  const exportBtn = el('button', { type: 'button', dataset: { act: 'export' }, onclick: exportChosen }, 'Export model');
  const inspectBtn = el('button', { type: 'button', dataset: { act: 'inspect' }, onclick: inspectChosen }, 'Inspect in the attention view');
  const input = el('input', { type: 'file', name: 'import', id: `${id}-import-${uid}`, accept: '.safetensors,.bin,application/octet-stream',
    onchange: () => { if (input.files?.[0]) onFile(input.files[0]); } });
  const label = el('label', { for: select.id }, 'Trained model ');
  const element = el('div', { className: 'lab-row lab-models' }, label, select, exportBtn, inspectBtn,
    el('label', { className: 'lab-import', for: input.id }, 'Import model '), input);
  const example = (m) => inspectTokens(m.vocabSize ?? 16);

  function render() {
    const keep = select.value;
    select.replaceChildren(...[...models.keys()].map((l) => el('option', { value: l }, l)));
    select.value = models.has(keep) ? keep : [...models.keys()].at(-1) ?? '';
    for (const e of [select, exportBtn, inspectBtn]) e.disabled = busy || models.size === 0;
    for (const e of [label, select, exportBtn]) e.hidden = models.size === 0;  // before any model: Import only
    inspectBtn.hidden = models.size === 0 || !ctx.canInspect?.();
    if (!busy) {  // finished models only: the compare view lists them with their held-out scores
      ctx.noteTrained?.(id, [...models].map(([l, m]) => ({ lab: id, label: l, key: m.key, inspect: example(m) })));
    }
  }

  async function exportChosen() {
    const m = chosen();
    if (!m) return;
    try {
      const { bytes } = await ctx.client.call('trainerExport', m.key);
      downloadBlob(new Blob([bytes], { type: 'application/octet-stream' }), `${id}-${select.value.replace(/\W+/g, '-')}.safetensors`, element);
    } catch (e) {
      onError(`Export failed: ${inPageWords(e.message)}`);
    }
  }

  function inspectChosen() {
    const m = chosen();
    if (!m) return;
    const ex = example(m);
    ctx.inspectModel({ key: m.key, tokens: ex.tokens, labels: ex.labels, title: `${select.value}: ${ex.title}` });
  }

  /** Drops one model (the worker's trainer too; the attention view lets go of it). */
  function drop(l) {
    const m = models.get(l);
    if (!m) return;
    if (ctx.inspected?.()?.key === m.key) ctx.inspectModel(null);
    ctx.client.call('trainerDispose', m.key).catch(() => {});
    models.delete(l);
  }

  return {
    element,
    /** Lists a model the worker holds under `key` (replacing one of the same label). */
    add(l, key, vocabSize) {
      drop(l);
      models.set(l, { key, vocabSize });
      select.value = l;
      render();
    },
    vocabOf: (key) => [...models.values()].find((m) => m.key === key)?.vocabSize,
    disposeAll() {
      for (const l of [...models.keys()]) drop(l);
      render();
    },
    setBusy(on) {
      busy = on;
      render();
    },
    /**
     * Loads a file into the worker and lists it, or refuses it (RefusedImport: the core's reason, or the
     * lab's task it was not trained on). check() throws when the import is no longer wanted.
     * @returns {Promise<{ key: string, label: string, loaded: { steps, vocabSize, spec } }>}
     */
    async load(file, check) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      check();
      const key = trainerKey(`${id}-import`);
      let listed = false;
      try {
        let loaded;
        try {
          loaded = await ctx.client.call('trainerLoad', key, bytes);
        } catch (e) {
          throw new RefusedImport(`“${file.name}” is not a model this page can load: ${inPageWords(e.message)}`);
        }
        check();
        const verdict = checkImport(id, loaded.spec);
        if (!verdict.ok) throw new RefusedImport(`“${file.name}” is not imported: ${verdict.message}`);
        const l = `imported: ${file.name}${verdict.note ? ` (${verdict.note})` : ''}`;
        this.add(l, key, loaded.vocabSize);
        listed = true;
        return { key, label: l, loaded };
      } finally {
        input.value = '';
        if (!listed) ctx.client.call('trainerDispose', key).catch(() => {});
      }
    },
  };
}
