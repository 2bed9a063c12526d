// hub-open.js — "Open a model from the Hugging Face Hub": a model-id field, a short list of public models
// the page reads (sources/hub-models.js: architecture, query and K/V heads, download size), and the
// models kept in this browser (sources/model-store.js) with their sizes, each to open or delete. The
// element opens the model (ctx.openModel({ url: 'hf:…', hub })); nothing is fetched until the learner
// asks. Part of "Open a model" (parts/open-model.js).
import { el } from '../kit.js';
import { messageNodes } from '../i18n/nodes.js';
import { HUB_MODELS } from '../sources/hub-models.js';
import '../i18n/catalogs/en/hub.js';  // the English words it speaks

/** @returns {{ element: HTMLElement, update(state): void, refresh(): Promise<void> }} */
export function createHubOpen(ctx) {
  const { t, fmt } = ctx.i18n;
  let hub = '';
  const open = (id) => {
    const value = id.trim().replace(/^hf:/, '');
    if (value) ctx.openModel({ url: `hf:${value}`, hub });
  };
  // a model id is data, as the Hub writes it (data-text: no catalog has it)
  const input = el('input', { type: 'text', className: 'hub-id', name: 'hub-id', placeholder: HUB_MODELS[0].id, autocomplete: 'off',
    spellcheck: false, lang: 'en', dataset: { role: 'hub-id', text: 'model' } });
  const data = (text) => el('span', { lang: 'en', dataset: { text: 'model' } }, text);
  const form = el('form', { className: 'hub-form', onsubmit: (e) => { e.preventDefault(); open(input.value); } },
    el('label', { className: 'hub-label' }, t('hub.idLabel'), ' ', input),
    el('button', { type: 'submit', dataset: { action: 'hub-open' } }, t('hub.open')));
  const from = el('p', { className: 'note hub-from', hidden: true });
  const picks = el('ul', { className: 'hub-picks', 'aria-label': t('hub.pickLabel'), dataset: { role: 'hub-suggestions' } },
    ...HUB_MODELS.map((m) => el('li', null, el('button', {
      type: 'button', className: 'hub-pick', dataset: { action: 'hub-pick', model: m.id },
      onclick: () => { input.value = m.id; open(m.id); },
    }, data(m.id), ' · ', data(m.modelType), ' · ',
    t('hub.suggestion', { H: m.nHeads, G: m.nKvHeads, variant: m.variant.toUpperCase(), size: fmt.binary(m.bytes, 3) })))));
  const keptList = el('ul', { className: 'hub-kept', dataset: { role: 'hub-kept' } });
  const element = el('fieldset', { className: 'hub' },
    el('legend', null, t('hub.title')), el('p', 'note', t('hub.intro')), form, from, picks,
    el('p', { className: 'hub-kept-title' }, t('hub.kept')), keptList);

  let listing = 0;
  async function refresh() {
    const mine = ++listing;
    const store = await import('../sources/model-store.js');  // the pretrained source's chunk has it too
    const kept = await store.listStored();
    if (mine !== listing) return;
    keptList.replaceChildren(...(kept.length ? kept.map((k) => {
      const id = `${k.repo}${k.revision === 'main' ? '' : `@${k.revision}`}`;
      return el('li', { dataset: { model: id, hub: k.hub } },
        ...messageNodes(t, 'hub.keptItem', { repo: data(id) }, { size: fmt.binary(k.bytes, 3) }), ' ',
        el('button', { type: 'button', dataset: { action: 'hub-open-kept' },
          onclick: () => ctx.openModel({ url: `hf:${id}`, hub: k.hub === 'https://huggingface.co' ? '' : k.hub }) }, t('hub.openKept')), ' ',
        el('button', { type: 'button', dataset: { action: 'hub-delete' }, 'aria-label': t('hub.deleteLabel', { repo: id }),
          onclick: async () => { await store.deleteStored(k.hub, k.repo, k.revision); refresh(); } }, t('hub.delete')));
    }) : [el('li', 'note', t('hub.keptNone'))]));
  }
  refresh();

  return {
    element,
    refresh,
    update(state) {
      hub = state.hub || '';
      from.hidden = !hub;
      from.replaceChildren(...(hub ? messageNodes(t, 'hub.from', { hub: data(hub) }) : []));
      if (state.model?.startsWith('hf:') && input.getRootNode().activeElement !== input && !input.value) input.value = state.model.slice(3);
    },
  };
}
