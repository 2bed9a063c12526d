// rank-results.js — Lab 3's results once models are evaluated over their seeds: the table (KV-cache
// bytes per token per layer, validation bits/char as mean ± sd, the difference from MHA with its
// standard error; an MLA row below 1/8 of MHA's cache gets class lab-pass when it stays within 1
// bit/char of MHA beyond its spread, lab-fail when it is more than 1 bit worse beyond it) and the chart
// of mean bits/char against cache bytes.
import { el } from '../kit.js';
import { createLineChart } from '../render/line-chart.js';
import { createLabTable, twoLines } from './table.js';
import { difference, meanSd, plusMinus, signedDiff } from './spread.js';
import { withinOf } from './verdicts.js';

const WORDS = { yes: 'yes', no: 'no', unsure: 'not settled' };
const yesNo = (r, v) => (r.variant === 'mha' || v == null ? '—' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : WORDS[v]);

/**
 * @param {{ runName: (r) => string, ropeDim: number, seeds: number }} o
 * @returns {{ table: HTMLElement, chart: HTMLElement, update(done: object[]): void, destroy(): void }}
 *   done: the evaluated models { variant: 'mha' | 'mla', rank, bytes, bits: number[] (one per seed) }, MHA first
 */
export function createRankResults({ runName, ropeDim, seeds }) {
  const table = createLabTable({ label: 'Results', dataset: { role: 'results' }, bodyDataset: { role: 'rows' }, hidden: true,
    columns: ['Model', twoLines('KV cache', 'bytes / token / layer'), 'vs MHA', twoLines('Validation', `bits / char, mean ± sd of ${seeds} seeds`),
      twoLines('vs MHA', 'bits / char, ± standard error'), 'cache < 1/8 of MHA?', 'within 1 bit?'] });
  const chartBox = el('div', { dataset: { role: 'scatter' }, role: 'img', 'aria-label': 'Validation bits per character against KV-cache bytes per token' });
  let mha = null;
  const chart = createLineChart(chartBox, { xLabel: 'KV cache, bytes / token / layer (log)', yLabel: 'validation bits / char (mean)', logX: true,
    styleOf: (label) => (label === 'MLA' ? { colour: 0, points: 'also' } : label === 'MHA' ? { colour: 1, points: 'only' } : { colour: 2, dash: [6, 4] }),
    marker: () => (mha ? { x: mha.bytes / 8, text: '← cache < 1/8 of MHA' } : null) });
  const mean = (r) => meanSd(r.bits).mean;

  function drawChart(done) {
    const xs = [...new Set(done.map((r) => r.bytes))].sort((a, b) => a - b);
    const at = (list) => xs.map((x) => { const r = list.find((m) => m.bytes === x); return r ? mean(r) : null; });
    chart.setData(['MLA', 'MHA', ...(mha ? ['MHA + 1 bit'] : [])], xs, [at(done.filter((r) => r.variant === 'mla')),
      at(mha ? [mha] : []), ...(mha ? [xs.map(() => mean(mha) + 1)] : [])]);
  }

  return {
    table: table.element,
    chart: chartBox,
    update(done) {
      mha = done.find((r) => r.variant === 'mha') ?? null;
      table.show(done.length > 0);
      if (done.length) drawChart(done);
      table.setRows(done.map((r) => {
        const d = mha && r !== mha ? difference(mha.bits, r.bits) : null;
        const small = mha ? r.bytes * 8 < mha.bytes : null, within = d ? withinOf(d, 1) : null;
        const stat = meanSd(r.bits);
        return { className: r.variant === 'mla' && small && within !== 'unsure' ? (within === 'yes' ? 'lab-pass' : 'lab-fail') : null,
          dataset: { rank: r.variant === 'mha' ? 'mha' : String(r.rank) }, cells: [
            { header: true, children: [runName(r), r.variant === 'mla' ? el('small', null, ` · r + dr = ${r.rank + ropeDim}`) : ''] },
            r.bytes.toLocaleString('en-US'), mha ? `${(r.bytes / mha.bytes * 100).toFixed(1)} %` : '…',
            { text: plusMinus(stat), dataset: { role: 'bits', mean: String(stat.mean) } },
            mha ? (r === mha ? '—' : signedDiff(d)) : '…', yesNo(r, small), yesNo(r, within)] };
      }));
    },
    destroy() { chart.destroy(); },
  };
}
