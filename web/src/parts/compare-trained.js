// compare-trained.js — the compare view's honest part: with random weights, output differences
// between variants measure nothing about quality; trained models do. This box says so, and lists the
// models the labs of this page have trained (lab 2's MHA / GQA / MQA, lab 4's induction model, ...)
// with their held-out loss and accuracy from the core (trainerEvaluate), each with "Show its maps".
import { el } from '../kit.js';
import { scrollRegion } from '../render/scroll-region.js';

/**
 * @param {object} ctx  the view ctx: trained() lists { lab, labTitle, label, key, inspect } kept by the labs
 * @returns {{ box: HTMLElement, update(): void }}
 */
export function createTrainedBox(ctx) {
  const box = el('div', { className: 'cmp-honest', role: 'note', dataset: { role: 'honest' } });
  const text = el('p', null, el('strong', null, 'These weights are random, not trained. '),
    'The columns show how the variants compute differently on the same input; how far their outputs or maps differ says '
    + 'nothing about which variant is better. Quality shows only after training, on held-out data.');
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
      list.replaceChildren(el('p', null, 'For a comparison that does measure quality, train MHA, GQA and MQA on the same task in ',
        el('button', { type: 'button', dataset: { action: 'go-lab-mqa' }, onclick: goToLab }, 'Lab 2'),
        ': their held-out loss and accuracy will be listed here.'));
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
      el('caption', null, 'Trained in this page\'s labs: a comparison that measures quality (held-out data).'),
      el('thead', null, el('tr', null, ...['Model', 'Lab', 'held-out loss', 'accuracy', ''].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', null, ...rows.map((r) => el('tr', { dataset: { model: r.label } },
        el('th', { scope: 'row' }, r.label), el('td', null, r.labTitle ?? r.lab),
        el('td', null, r.ev ? r.ev.loss.toFixed(3) : '—'), el('td', null, r.ev ? `${(r.ev.accuracy * 100).toFixed(1)} %` : '—'),
        el('td', null, ctx.canInspect?.() ? el('button', { type: 'button', dataset: { action: 'inspect-trained' },
          'aria-label': `Show its maps: ${r.label}`,
          onclick: () => ctx.inspectModel({ key: r.key, ...r.inspect, title: `${r.label}: ${r.inspect.title}` }) }, 'Show its maps') : '')))));
    list.replaceChildren(scrollRegion('Models trained in this page\'s labs', table));
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
      render(models).catch((e) => { status.textContent = `Cannot evaluate the trained models: ${e.message}`; });
    },
  };
}
