// open-model.js — "Open a model": a folder picker, a files picker and a drop zone for a Hugging Face
// checkpoint (config.json, *.safetensors, tokenizer.json), the progress of a large file with Stop, the
// reason a checkpoint cannot be opened (the core's refusal, with the field it names), and what is open.
// The element opens it (ctx.openModel); this part only asks and shows.
import { el } from '../kit.js';
import { fmtBinary, fmtCount, fmtInt } from '../format.js';

/** @returns {{ element: HTMLElement, show(job, source): void }} */
export function createOpenModel(ctx) {
  const open = (files) => { if (files.length) ctx.openModel({ files: [...files] }); };
  const folder = el('input', { type: 'file', webkitdirectory: true, multiple: true, className: 'om-input', dataset: { role: 'pick-folder' },
    onchange: () => open(folder.files) });
  const files = el('input', { type: 'file', multiple: true, accept: '.json,.safetensors', className: 'om-input', dataset: { role: 'pick-files' },
    onchange: () => open(files.files) });
  const drop = el('div', { className: 'om-drop', dataset: { role: 'drop' } },
    el('p', null, 'Drop a checkpoint\'s files here (config.json, the .safetensors files, tokenizer.json), or choose them:'),
    el('div', 'om-pickers', el('label', 'om-pick', 'Choose a folder… ', folder), el('label', 'om-pick', 'Choose files… ', files)));
  for (const type of ['dragenter', 'dragover']) drop.addEventListener(type, (e) => { e.preventDefault(); drop.classList.add('om-over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('om-over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('om-over');
    open(e.dataTransfer?.files ?? []);
  });
  const bar = el('progress', { className: 'om-bar', max: 1, value: 0, 'aria-label': 'Opening the model' });
  const barText = el('span', { className: 'om-bar-text', role: 'status' });
  const stop = el('button', { type: 'button', dataset: { action: 'stop-model' }, onclick: () => ctx.modelJob()?.controller.abort() }, 'Stop');
  const busy = el('div', { className: 'om-busy', hidden: true }, bar, barText, stop);
  const error = el('p', { className: 'field-error', role: 'alert', hidden: true, dataset: { role: 'model-error' } });
  const facts = el('dl', { className: 'om-facts', dataset: { role: 'model-facts' } });
  const close = el('button', { type: 'button', dataset: { action: 'close-model' }, onclick: () => ctx.closeModel() }, 'Close the model');
  const openedBox = el('div', { className: 'om-opened', hidden: true }, facts, close);
  const element = el('div', 'om', drop, busy, error, openedBox);

  function progress(p) {
    if (!p) return 'reading the files…';
    const what = p.phase === 'download' ? `downloading ${p.file ?? ''}` : 'copying the weights into the model';
    const total = p.total || p.fileTotal;
    bar.value = total ? p.loaded / total : 0;
    return `${what}: ${fmtBinary(p.loaded)}${total ? ` of ${fmtBinary(total)}` : ''}`;
  }

  function describe(source) {
    const { info, name, dtypeBytes, tokenizer, fileBytes, ms } = source.opened;
    const row = (k, v) => [el('dt', null, k), el('dd', null, v)];
    const heads = info.variant === 'mla' ? `${info.nHeads} heads reading a latent of ${info.latentRank} (+ RoPE key ${info.ropeDim})`
      : `${info.nHeads} query heads, ${info.nKvHeads} K/V head${info.nKvHeads === 1 ? '' : 's'}, head width ${info.dHead}`;
    facts.replaceChildren(
      ...row('Model', `${name} · ${info.modelType} · ${info.variant.toUpperCase()}`),
      ...row('Layers', `${info.nLayers} · dModel ${info.dModel} · ${heads}`),
      ...row('Parameters', `${fmtCount(info.params)} (${fmtBinary(info.weightBytes)} of weights, ${dtypeBytes * 8}-bit)`),
      ...row('KV cache per token', `${fmtInt(info.kvBytesPerToken)} bytes over all layers at the file's ${dtypeBytes * 8}-bit precision`),
      ...row('Tokenizer', tokenizer ? `tokenizer.json (${fmtInt(tokenizer.vocabSize)} tokens): the sentence is split by the model's own tokenizer`
        : 'none in the folder: type token ids separated by spaces in the sentence field'),
      ...row('Opened', `${fmtBinary(fileBytes)} in ${(ms / 1000).toFixed(2)} s`));
  }

  return {
    element,
    /** @param {object | null} job ctx.modelJob() @param {object | null} source the opened model's source */
    show(job, source) {
      busy.hidden = !job || Boolean(job.error);
      if (job && !job.error) barText.textContent = progress(job.progress);
      error.hidden = !job?.error;
      if (job?.error) {
        const e = job.error;
        error.textContent = e.name === 'AbortError' ? 'Stopped: the model was not opened.'
          : `This checkpoint cannot be opened: ${e.message}${e.field ? ` (${e.field})` : ''}`;
        error.dataset.field = e.field ?? '';
      }
      openedBox.hidden = !source;
      if (source) describe(source);
    },
  };
}
