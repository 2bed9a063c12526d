// mqa-budget.js — Lab 2's numbers that need no training: each variant's attention weights (the
// core's paramCount) and KV cache per token and at N tokens (the core's kvCacheBytes, fp32), as a
// table and a sentence, in the element's language.
import { el, showCoreError } from '../kit.js';
import { createLabTable } from './table.js';
import '../i18n/catalogs/en/lab-mqa.js';  // the English words it speaks

/**
 * @param {object} ctx the view ctx (client, i18n)
 * @param {{ D: number, H: number, N: number, BPE: number, variants: { id, name, nKvHeads, detail }[] }} g
 * @returns {{ element: HTMLElement, budget: Map<string, { params, perToken, atN }>, load(): Promise<void> }}
 */
export function createMqaBudget(ctx, { D, H, N, BPE, variants }) {
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const table = createLabTable({
    label: t('labMqa.budget'), bodyDataset: { role: 'budget-rows' }, dataset: { role: 'budget' }, i18n,
    caption: el('span', 'note', t('labMqa.budgetCaption', { bpe: BPE, D, H, dh: D / H })),
    columns: [t('labMqa.col.variant'), t('labMqa.col.weights'), t('labMqa.budget.vsMha'), t('labMqa.budget.perToken'),
      t('labMqa.budget.atN', { N: String(N) }), t('labMqa.budget.cacheVsMha')],
  });
  table.setRows(variants.map((v) => ({ dataset: { variant: v.id }, cells: [{ header: true, text: v.name }, { text: '…', colSpan: 5, className: 'note' }] })));
  const sentence = el('p', { className: 'lab-summary', dataset: { role: 'budget-summary' }, 'aria-live': 'polite' });
  const budget = new Map();  // variant -> { params, perToken, atN }

  function render() {
    const base = budget.get('mha'), mqa = budget.get('mqa');
    table.setRows(variants.map((v) => {
      const b = budget.get(v.id);
      return { dataset: { variant: v.id }, cells: [
        { header: true, children: [v.name, el('small', null, ` · ${v.detail}`)] },
        { text: fmt.int(b.params), dataset: { role: `params-${v.id}` } },
        { text: v.id === 'mha' ? '—' : fmt.change((b.params - base.params) / base.params), dataset: { role: `change-${v.id}` } },
        `${fmt.int(b.perToken)} B`, fmt.binary(b.atN), v.id === 'mha' ? '1×' : t('labMqa.smaller', { ratio: fmt.ratio(base.atN / b.atN) })] };
    }));
    sentence.textContent = t('labMqa.budgetSentence', { H, removed: base.params - mqa.params, D, Ddh: D - D / H,
      from: base.params, to: mqa.params, change: fmt.change((mqa.params - base.params) / base.params),
      ratio: fmt.ratio(base.atN / mqa.atN), cacheFrom: fmt.binary(base.atN), cacheTo: fmt.binary(mqa.atN), N: String(N) });
  }

  return {
    element: el('div', null, table.element, sentence),
    budget,
    /** Asks the core for the numbers and draws them (a core error is shown instead). */
    async load() {
      try {
        const geometry = (v, seqLen) => ({ variant: v.id, nLayers: 1, nHeads: H, nKvHeads: v.nKvHeads, dHead: D / H, seqLen, bytesPerElement: BPE });
        const [params, bytes] = await Promise.all([
          Promise.all(variants.map((v) => ctx.client.call('paramCount', { variant: v.id, dModel: D, nHeads: H, nKvHeads: v.nKvHeads }))),
          ctx.client.call('kvCacheBytesMany', variants.flatMap((v) => [geometry(v, 1), geometry(v, N)])),
        ]);
        variants.forEach((v, i) => budget.set(v.id, { params: params[i].total, perToken: bytes[2 * i], atN: bytes[2 * i + 1] }));
        render();
      } catch (e) {
        showCoreError(sentence, e, i18n);
      }
    },
  };
}
