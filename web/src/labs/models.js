// models.js — a lab's trained models, kept after a run: the list, Export (a .safetensors file),
// "Inspect in the attention view", "Open in the model view" (a model the core writes as a Hugging Face
// checkpoint: llama, deepseek_v2, and the GPT-style block's MHA as gpt2 and MQA as gpt_bigcode: every
// lab's own models; the real-model view opens it as a dropped folder), Import. A model is listed only once the worker holds it (a file
// the core refuses, or one trained on another lab's task, leaves nothing behind), and the page's
// compare view hears of the list whenever it changes (ctx.noteTrained).
import { coreDetail, downloadBlob, el } from '../kit.js';
import { EN } from '../i18n/index.js';
import { trainerKey } from './keys.js';
import { checkImport } from './tasks.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks

/** Inspect tokens for any model: n / 2 tokens, then the same again (the induction pattern). */
function defaultInspectTokens(vocabSize, i18n, n = 16) {
  const half = n / 2;
  const first = Array.from({ length: half }, (_, i) => (i * 7 + 3) % vocabSize);
  const tokens = [...first, ...first];
  return { tokens, labels: tokens.map(String), title: i18n.t('labs.models.example', { count: half }) };
}

/**
 * Thrown when a file is refused: its message is the page's sentence, shown as it is; `detail`, when
 * there is one, is the core's own English reason (shown after it, marked as the core's: kit.coreDetail).
 */
export class RefusedImport extends Error {
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }

  /** The nodes that show it: the sentence, and the core's reason. */
  nodes(i18n = EN) { return this.detail ? [this.message, ' ', coreDetail(this.detail, i18n)] : [this.message]; }
}

/**
 * @param {object} ctx the view ctx (its i18n: the words of the buttons and messages)
 * @param {{ id: string, inspectTokens?: (vocabSize: number) => { tokens, labels, title },
 *           onFile: (file: File) => void, onError: (nodes: (string | Node)[]) => void }} o
 */
export function createModelTools(ctx, { id, inspectTokens, onFile, onError }) {
  const i18n = ctx.i18n ?? EN;
  const { t } = i18n;
  const uid = Math.random().toString(36).slice(2, 8);
  const models = new Map();  // label -> { key, vocabSize, fileName, checkpointType ('' where no architecture computes it), spec }
  let busy = false;
  const select = el('select', { id: `${id}-model-${uid}`, name: 'model', onchange: () => render() });
  const chosen = () => models.get(select.value) ?? null;
  const exportBtn = el('button', { type: 'button', dataset: { act: 'export' }, onclick: exportChosen }, t('labs.models.export'));
  const inspectBtn = el('button', { type: 'button', dataset: { act: 'inspect' }, onclick: inspectChosen }, t('labs.models.inspect'));
  const openBtn = el('button', { type: 'button', dataset: { act: 'open-model' }, onclick: openChosen }, t('labs.models.openInModel'));
  const input = el('input', { type: 'file', name: 'import', id: `${id}-import-${uid}`, accept: '.safetensors,.bin,application/octet-stream',
    onchange: () => { if (input.files?.[0]) onFile(input.files[0]); } });
  const label = el('label', { for: select.id }, t('labs.models.trained'), ' ');
  const element = el('div', { className: 'lab-row lab-models' }, label, select, exportBtn, inspectBtn, openBtn,
    el('label', { className: 'lab-import', for: input.id }, t('labs.models.import'), ' '), input);
  const example = (m) => inspectTokens?.(m.vocabSize ?? 16, m.spec) ?? defaultInspectTokens(m.vocabSize ?? 16, i18n);

  function render() {
    const keep = select.value;
    select.replaceChildren(...[...models.keys()].map((l) => el('option', { value: l }, l)));
    select.value = models.has(keep) ? keep : [...models.keys()].at(-1) ?? '';
    for (const e of [select, exportBtn, inspectBtn, openBtn]) e.disabled = busy || models.size === 0;
    for (const e of [label, select, exportBtn]) e.hidden = models.size === 0;  // before any model: Import only
    inspectBtn.hidden = models.size === 0 || !ctx.canInspect?.();
    // where the element shows the model view, for the models a Hugging Face architecture computes (the core's trainer.checkpointType)
    openBtn.hidden = !chosen()?.checkpointType || !ctx.canOpenModel?.();
    if (!busy) {  // finished models only: the compare view lists them with their held-out scores
      ctx.noteTrained?.(id, [...models].map(([l, m]) => ({ lab: id, label: l, key: m.key, inspect: example(m) })));
    }
  }

  async function exportChosen() {
    const m = chosen();
    if (!m) return;
    try {
      const { bytes } = await ctx.client.call('trainerExport', m.key);
      downloadBlob(new Blob([bytes], { type: 'application/octet-stream' }), `${id}-${m.fileName.replace(/\W+/g, '-')}.safetensors`, element);
    } catch (e) {
      onError([t('labs.models.exportFailed'), ' ', coreDetail(e.message, i18n)]);
    }
  }

  function inspectChosen() {
    const m = chosen();
    if (!m) return;
    const ex = example(m);
    ctx.inspectModel({ key: m.key, tokens: ex.tokens, labels: ex.labels, title: `${select.value}: ${ex.title}` });
  }

  /** The chosen model in the model view: its checkpoint, named as listed, on the lab's example ids. */
  async function openChosen() {
    const m = chosen();
    if (!m) return;
    try {
      const { config, safetensors, tokenizer } = await ctx.client.call('trainerCheckpoint', m.key);
      const files = [new File([config], 'config.json', { type: 'application/json' }), new File([safetensors], 'model.safetensors')];
      // a 'chars' model comes with its characters as a tokenizer: the model view then reads the learner's sentence
      if (tokenizer) files.push(new File([tokenizer], 'tokenizer.json', { type: 'application/json' }));
      const lab = t(`view.${id}.title`).split(' · ')[0];  // 'Lab 4'
      ctx.openModel({ files, name: `${lab} · ${select.value}`, text: example(m).tokens.join(' ') }, { show: true });
    } catch (e) {
      onError([t('labs.models.openFailed'), ' ', coreDetail(e.message, i18n)]);
    }
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
    /**
     * Lists a model the worker holds under `key` (replacing one of the same label); `fileName` names
     * its exported file (the label in the page's language by default).
     */
    add(l, key, vocabSize, fileName = l, checkpointType = '', spec = null) {
      drop(l);
      models.set(l, { key, vocabSize, fileName, checkpointType, spec });
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
          throw new RefusedImport(t('labs.models.notLoadable', { file: file.name }), e.message);
        }
        check();
        const verdict = checkImport(id, loaded.spec, i18n);
        if (!verdict.ok) throw new RefusedImport(t('labs.models.notImported', { file: file.name, reason: verdict.message }));
        const l = verdict.note ? t('labs.models.importedNote', { file: file.name, note: verdict.note }) : t('labs.models.imported', { file: file.name });
        this.add(l, key, loaded.vocabSize, `imported-${file.name.replace(/\.[^.]*$/, '')}`, loaded.checkpointType, loaded.spec);
        listed = true;
        return { key, label: l, loaded };
      } finally {
        input.value = '';
        if (!listed) ctx.client.call('trainerDispose', key).catch(() => {});
      }
    },
  };
}
