// rank-results.js — Lab 3's results once models are evaluated: the table (KV-cache bytes per token per
// layer, validation bits/char, against MHA; an MLA row below 1/8 of MHA's cache gets class lab-pass
// when within 1 bit/char of MHA, lab-fail otherwise) and the chart of bits/char against cache bytes.
import { el } from '../kit.js';
import { createLineChart } from '../render/line-chart.js';
import { createLabTable, twoLines } from './table.js';

const yesNo = (r, v) => (r.variant === 'mha' || v == null ? '—' : v ? 'yes' : 'no');

/**
 * @param {{ runName: (r) => string, ropeDim: number }} o
 * @returns {{ table: HTMLElement, chart: HTMLElement, update(done: object[]): void, destroy(): void }}
 *   done: the evaluated runs { variant: 'mha' | 'mla', rank, bytes, result: { bitsPerToken } }, MHA first
 */
export function createRankResults({ runName, ropeDim }) {
  const table = createLabTable({ label: 'Results', dataset: { role: 'results' }, bodyDataset: { role: 'rows' }, hidden: true,
    columns: ['Model', twoLines('KV cache', 'bytes / token / layer'), 'vs MHA', twoLines('Validation', 'bits / char'),
      twoLines('vs MHA', 'bits / char'), 'cache < 1/8 of MHA?', 'within 1 bit?'] });
  const chartBox = el('div', { dataset: { role: 'scatter' }, role: 'img', 'aria-label': 'Validation bits per character against KV-cache bytes per token' });
  let mha = null;
  const chart = createLineChart(chartBox, { xLabel: 'KV cache, bytes / token / layer (log)', yLabel: 'validation bits / char', logX: true,
    styleOf: (label) => (label === 'MLA' ? { colour: 0, points: 'also' } : label === 'MHA' ? { colour: 1, points: 'only' } : { colour: 2, dash: [6, 4] }),
    marker: () => (mha ? { x: mha.bytes / 8, text: '← cache < 1/8 of MHA' } : null) });

  function drawChart(done) {
    const xs = [...new Set(done.map((r) => r.bytes))].sort((a, b) => a - b);
    const at = (list) => xs.map((x) => list.find((r) => r.bytes === x)?.result.bitsPerToken ?? null);
    chart.setData(['MLA', 'MHA', ...(mha ? ['MHA + 1 bit'] : [])], xs, [at(done.filter((r) => r.variant === 'mla')),
      at(mha ? [mha] : []), ...(mha ? [xs.map(() => mha.result.bitsPerToken + 1)] : [])]);
  }

  return {
    table: table.element,
    chart: chartBox,
    update(done) {
      mha = done.find((r) => r.variant === 'mha') ?? null;
      table.show(done.length > 0);
      if (done.length) drawChart(done);
      table.setRows(done.map((r) => {
        const bits = r.result.bitsPerToken, diff = mha ? bits - mha.result.bitsPerToken : null;
        const small = mha ? r.bytes * 8 < mha.bytes : null, within = mha ? diff <= 1 : null;
        return { className: r.variant === 'mla' && small ? (within ? 'lab-pass' : 'lab-fail') : null,
          dataset: { rank: r.variant === 'mha' ? 'mha' : String(r.rank) }, cells: [
            { header: true, children: [runName(r), r.variant === 'mla' ? el('small', null, ` · r + dr = ${r.rank + ropeDim}`) : ''] },
            r.bytes.toLocaleString('en-US'), mha ? `${(r.bytes / mha.bytes * 100).toFixed(1)} %` : '…',
            { text: bits.toFixed(3), dataset: { role: 'bits' } },
            mha ? (r === mha ? '—' : `${diff >= 0 ? '+' : '−'}${Math.abs(diff).toFixed(3)}`) : '…', yesNo(r, small), yesNo(r, within)] };
      }));
    },
    destroy() { chart.destroy(); },
  };
}
