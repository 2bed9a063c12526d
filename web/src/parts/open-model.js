// open-model.js — "Open a model": a folder picker, a files picker and a drop zone for a Hugging Face
// checkpoint (config.json, *.safetensors, tokenizer.json), the progress of a large file with Stop, the
// reason a checkpoint cannot be opened (the core's refusal, with the field it names), and what is open.
// The element opens it (ctx.openModel); this part only asks and shows.
import { el, inPageWords } from '../kit.js';
import { createHubOpen } from './hub-open.js';
import '../i18n/catalogs/en/hub.js';  // the English words it speaks
import '../i18n/catalogs/en/model.js';  // the English words it speaks

/** @returns {{ element: HTMLElement, show(job, source): void }} */
export function createOpenModel(ctx) {
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const open = (files) => { if (files.length) ctx.openModel({ files: [...files] }); };
  const folder = el('input', { type: 'file', webkitdirectory: true, multiple: true, className: 'om-input', dataset: { role: 'pick-folder' },
    onchange: () => open(folder.files) });
  const files = el('input', { type: 'file', multiple: true, accept: '.json,.safetensors', className: 'om-input', dataset: { role: 'pick-files' },
    onchange: () => open(files.files) });
  const drop = el('div', { className: 'om-drop', dataset: { role: 'drop' } },
    el('p', null, t('mo.drop')),
    el('div', 'om-pickers', el('label', 'om-pick', t('mo.pickFolder'), ' ', folder), el('label', 'om-pick', t('mo.pickFiles'), ' ', files)));
  for (const type of ['dragenter', 'dragover']) drop.addEventListener(type, (e) => { e.preventDefault(); drop.classList.add('om-over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('om-over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('om-over');
    open(e.dataTransfer?.files ?? []);
  });
  const bar = el('progress', { className: 'om-bar', max: 1, value: 0, 'aria-label': t('mo.opening') });
  const barText = el('span', { className: 'om-bar-text', role: 'status' });
  const stop = el('button', { type: 'button', dataset: { action: 'stop-model' }, onclick: () => ctx.modelJob()?.controller.abort() }, t('mo.stop'));
  const busy = el('div', { className: 'om-busy', hidden: true }, bar, barText, stop);
  const error = el('p', { className: 'field-error', role: 'alert', hidden: true, dataset: { role: 'model-error' } });
  // after a failure (a lost connection, a refusal): the same model again, from the start
  const retry = el('button', { type: 'button', hidden: true, dataset: { action: 'retry-model' },
    onclick: () => { const input = ctx.modelJob()?.input; if (input) ctx.openModel(input); } }, t('hub.retry'));
  const hub = createHubOpen(ctx);
  const facts = el('dl', { className: 'om-facts', dataset: { role: 'model-facts' } });
  const close = el('button', { type: 'button', dataset: { action: 'close-model' }, onclick: () => ctx.closeModel() }, t('mo.close'));
  const openedBox = el('div', { className: 'om-opened', hidden: true }, facts, close);
  const element = el('div', 'om', hub.element, drop, busy, error, retry, openedBox);

  function progress(p) {
    if (!p) return t('mo.reading');
    const what = p.phase === 'download' ? t('mo.downloading', { file: p.file ?? '' }) : t('mo.copying');
    const total = p.total || p.fileTotal;
    bar.value = total ? p.loaded / total : 0;
    return total ? t('mo.progressOf', { what, loaded: fmt.binary(p.loaded), total: fmt.binary(total) })
      : t('mo.progress', { what, loaded: fmt.binary(p.loaded) });
  }

  let shown = null;  // the source whose facts are shown
  function describe(source) {
    const { info, name, dtypeBytes, tokenizer, fileBytes, ms } = source.opened;
    const row = (k, ...v) => [el('dt', null, k), el('dd', null, ...v)];
    const n = fmt.int, bits = dtypeBytes * 8;
    const heads = info.variant === 'mla' ? t('mo.headsLatent', { count: info.nHeads, r: info.latentRank, dr: info.ropeDim })
      : t('mo.headsKv', { H: info.nHeads, count: info.nKvHeads, dh: info.dHead });
    facts.replaceChildren(
      // the checkpoint's own name and type: its data, as the files say them
      ...row(t('mo.fact.model'), el('span', { lang: 'en', dataset: { text: 'model' } }, name === info.modelType ? name : `${name} · ${info.modelType}`),
        ` · ${info.variant.toUpperCase()}`),
      ...row(t('mo.fact.layers'), `${n(info.nLayers)} · dModel ${n(info.dModel)} · ${heads}`),
      ...row(t('mo.fact.params'), t('mo.paramsLine', { params: fmt.count(info.params), bytes: fmt.binary(info.weightBytes), bits })),
      ...row(t('mo.fact.cache'), t('mo.cacheLine', { bytes: info.kvBytesPerToken, bits })),
      ...row(t('mo.fact.tokenizer'), tokenizer ? t('mo.tokenizer', { count: tokenizer.vocabSize }) : t('mo.noTokenizer')),
      ...row(t('mo.fact.opened'), t('mo.openedIn', { bytes: fmt.binary(fileBytes), seconds: (ms / 1000).toFixed(2) }),
        ...(source.opened.hub?.fromStore ? [' · ', t('hub.fromStore')] : [])),
      ...(source.opened.hub?.stored === false ? [el('dd', { className: 'note', dataset: { role: 'not-kept' } }, t('hub.notKept'))] : []));
    // a Hub model still being written to the store: say whether it was kept, and list it, when it is done
    const { hub: h } = source.opened;
    if (h?.stored === null && h.storing && !h.described) {
      h.described = true;
      h.storing.then(() => { if (shown === source) describe(source); hub.refresh(); });
    }
  }

  /**
   * Why a checkpoint was not opened: the page's own reason in the page's language (error.key, from
   * sources/model-files.js), or the core's English message (marked lang="en"), and the field it names.
   */
  function refusal(e) {
    if (e.name === 'AbortError') return [t('mo.stopped')];
    const reason = e.key ? t(e.key, e.params) : el('span', { className: 'core-detail', lang: 'en', dataset: { text: 'core' } }, inPageWords(e.message));
    const field = e.field ? [' (', el('code', { lang: 'en', dataset: { text: 'field' } }, e.field), ')'] : [];
    return [t('mo.cannotOpen'), ' ', reason, ...field];
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
        error.replaceChildren(...refusal(e));
        error.dataset.field = e.field ?? '';
      }
      retry.hidden = !job?.error || !job.input?.url;
      openedBox.hidden = !source;
      shown = source;
      if (source) describe(source);
      if (!job) hub.refresh();
    },
    /** The state's Hub (a mirror) and model id. */
    update(state) { hub.update(state); },
  };
}
