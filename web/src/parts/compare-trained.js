// compare-trained.js — the compare view's honest part: with random weights, output differences
// between variants measure nothing about quality; trained models do. This box says so, and lists the
// models the labs of this page have trained (lab 2's MHA / GQA / MQA, lab 4's induction model, ...)
// with their held-out loss and accuracy from the core (trainerEvaluate), each with "Show its maps".
import { coreDetail, el } from '../kit.js';
import { messageNodes } from '../i18n/nodes.js';
import { scrollRegion } from '../render/scroll-region.js';
import '../i18n/catalogs/en/compare.js';  // the English words it speaks

/**
 * @param {object} ctx  the view ctx: trained() lists { lab, labTitle, label, key, inspect } kept by the labs; i18n
 * @returns {{ box: HTMLElement, update(): void }}
 */
export function createTrainedBox(ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  const box = el('div', { className: 'cmp-honest', role: 'note', dataset: { role: 'honest' } });
  const text = el('p', null, el('strong', null, t('cmp.random')), ' ', t('cmp.randomWhy'));
  const list = el('div', { dataset: { role: 'trained' } });
  const status = el('p', { className: 'note', 'aria-live': 'polite' });
  box.append(text, list, status);
  let shown = null;
  let seq = 0;

  const goToLab = () => {
    const section = box.getRootNode().querySelector?.('[data-section="lab-mqa"]');
    if (section) section.scrollIntoView({ behavior: 'smooth', block: 'start' });
    else ctx.openPlayground?.({ view: 'all' });
  };

  async function render(models) {
    const id = ++seq;
    if (!models.length) {
      const lab = el('button', { type: 'button', dataset: { action: 'go-lab-mqa' }, onclick: goToLab }, t('cmp.lab2'));
      list.replaceChildren(el('p', null, ...messageNodes(t, 'cmp.trainIn', { lab })));
      return;
    }
    const rows = await Promise.all(models.map(async (m) => {
      try {
        return { ...m, ev: await ctx.client.call('trainerEvaluate', m.key) };
      } catch (e) {
        return { ...m, error: e };
      }
    }));
    if (id !== seq) return;
    const table = el('table', null,
      el('caption', null, t('cmp.trainedCaption')),
      el('thead', null, el('tr', null, ...[t('cmp.col.model'), t('cmp.col.lab'), t('cmp.col.loss'), t('cmp.col.accuracy'), '']
        .map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', null, ...rows.map((r) => el('tr', { dataset: { model: r.label } },
        el('th', { scope: 'row' }, r.label), el('td', null, r.labTitle ?? r.lab),
        el('td', null, r.ev ? r.ev.loss.toFixed(3) : '—'), el('td', null, r.ev ? `${(r.ev.accuracy * 100).toFixed(1)} %` : '—'),
        el('td', null, ctx.canInspect?.() ? el('button', { type: 'button', dataset: { action: 'inspect-trained' },
          'aria-label': t('cmp.showMapsOf', { name: r.label }),
          onclick: () => ctx.inspectModel({ key: r.key, ...r.inspect, title: `${r.label}: ${r.inspect.title}` }) }, t('cmp.showMaps')) : '')))));
    list.replaceChildren(scrollRegion(t('cmp.trainedRegion'), table, '', i18n));
  }

  return {
    box,
    /** Whether the columns show random weights (the sentence above says so only then). */
    setRandom(random) { text.hidden = !random; },
    update() {
      const models = ctx.trained?.() ?? [];
      const key = models.map((m) => `${m.key}:${m.steps ?? ''}`).join('|');
      if (key === shown) return;
      shown = key;
      render(models).catch((e) => { status.replaceChildren(t('cmp.cannotEvaluate'), ' ', coreDetail(e.message, i18n)); });
    },
  };
}
