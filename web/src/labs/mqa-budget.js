// mqa-budget.js — Lab 2's numbers that need no training: each variant's attention weights (the
// core's paramCount) and KV cache per token and at N tokens (the core's kvCacheBytes, fp32), as a
// table and a sentence.
import { el } from '../kit.js';
import { fmtBinary, fmtChange, fmtInt, fmtRatio } from '../format.js';
import { createLabTable } from './table.js';

/**
 * @param {object} ctx the view ctx (client)
 * @param {{ D: number, H: number, N: number, BPE: number, variants: { id, name, nKvHeads, detail }[] }} g
 * @returns {{ element: HTMLElement, budget: Map<string, { params, perToken, atN }>, load(): Promise<void> }}
 */
export function createMqaBudget(ctx, { D, H, N, BPE, variants }) {
  const table = createLabTable({
    label: 'Weights and KV cache', bodyDataset: { role: 'budget-rows' }, dataset: { role: 'budget' },
    caption: el('span', 'note', `Attention weights of one block (no biases) and KV cache at fp32 (${BPE} bytes per element), `
      + `D = ${D}, H = ${H}, dh = ${D / H}.`),
    columns: ['Variant', 'Attention weights', 'vs MHA', 'KV cache / token / layer', `KV cache at N = ${N}`, 'cache vs MHA'],
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
        { text: fmtInt(b.params), dataset: { role: `params-${v.id}` } },
        { text: v.id === 'mha' ? '—' : fmtChange((b.params - base.params) / base.params), dataset: { role: `change-${v.id}` } },
        `${fmtInt(b.perToken)} B`, fmtBinary(b.atN), v.id === 'mha' ? '1×' : `${fmtRatio(base.atN / b.atN)} smaller`] };
    }));
    sentence.textContent = `MQA keeps one K/V head for all ${H} query heads: it removes ${fmtInt(base.params - mqa.params)} weights `
      + `(2 · D · (D − dh) = 2 · ${D} · ${D - D / H}), ${fmtInt(base.params)} → ${fmtInt(mqa.params)} `
      + `(${fmtChange((mqa.params - base.params) / base.params)}), and its cache is `
      + `${fmtRatio(base.atN / mqa.atN)} smaller at every N: ${fmtBinary(base.atN)} → ${fmtBinary(mqa.atN)} at N = ${N} per layer.`;
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
        sentence.textContent = `Core error: ${e.message}`;
      }
    },
  };
}
