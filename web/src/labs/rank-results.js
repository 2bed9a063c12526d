// rank-results.js — Lab 3's results once models are evaluated over their seeds: the table (KV-cache
// bytes per token per layer, validation bits/char as mean ± sd, the difference from MHA with its
// standard error; an MLA row below 1/8 of MHA's cache gets class lab-pass when it stays within 1
// bit/char of MHA beyond its spread, lab-fail when it is more than 1 bit worse beyond it) and the chart
// of mean bits/char against cache bytes, in the element's language.
import { el } from '../kit.js';
import { createLineChart } from '../render/line-chart.js';
import { createLabTable, twoLines } from './table.js';
import { difference, meanSd, spreadFormat } from './spread.js';
import { withinOf } from './verdicts.js';
import '../i18n/catalogs/en/lab-rank.js';  // the English words it speaks

const WORDS = { yes: 'labRank.yes', no: 'labRank.no', unsure: 'labRank.unsettled' };

/**
 * @param {{ runName: (r) => string, ropeDim: number, seeds: number, i18n: object, save?: object }} o  i18n: the element's words;
 *   save: the table's "Save results" (labs/table.js)
 * @returns {{ table: HTMLElement, chart: HTMLElement, update(done: object[]): void, destroy(): void }}
 *   done: the evaluated models { variant: 'mha' | 'mla', rank, bytes, bits: number[] (one per seed) }, MHA first
 */
export function createRankResults({ runName, ropeDim, seeds, i18n, save = null }) {
  const { t, fmt } = i18n;
  const { plusMinus, signedDiff } = spreadFormat(fmt);
  const yesNo = (r, v) => (r.variant === 'mha' || v == null ? '—' : t(typeof v === 'boolean' ? (v ? WORDS.yes : WORDS.no) : WORDS[v]));
  const table = createLabTable({ label: t('labRank.results'), dataset: { role: 'results' }, bodyDataset: { role: 'rows' }, hidden: true, i18n,
    columns: [t('labRank.col.model'), twoLines(t('labRank.col.cache'), t('labRank.col.cacheNote')), t('labRank.col.vsMha'),
      twoLines(t('labRank.col.bits'), t('labRank.col.bitsNote', { count: seeds })), twoLines(t('labRank.col.vsMha'), t('labRank.col.diffNote')),
      t('labRank.col.small'), t('labRank.col.within')], save });
  const chartBox = el('div', { dataset: { role: 'scatter' }, role: 'img', 'aria-label': t('labRank.scatter') });
  let mha = null;
  // The series: MLA's ranks (a line with points), MHA (a point), MHA + 1 bit (dashed): styled by their place.
  const series = ['MLA', 'MHA', t('labRank.mhaPlusBit')];
  const styles = [{ colour: 0, points: 'also' }, { colour: 1, points: 'only' }, { colour: 2, dash: [6, 4] }];
  const chart = createLineChart(chartBox, { xLabel: t('labRank.scatterX'), yLabel: t('labRank.scatterY'), logX: true,
    styleOf: (label) => styles[Math.max(0, series.indexOf(label))],
    marker: () => (mha ? { x: mha.bytes / 8, text: t('labRank.marker') } : null) });
  const mean = (r) => meanSd(r.bits).mean;

  function drawChart(done) {
    const xs = [...new Set(done.map((r) => r.bytes))].sort((a, b) => a - b);
    const at = (list) => xs.map((x) => { const r = list.find((m) => m.bytes === x); return r ? mean(r) : null; });
    chart.setData(mha ? series : series.slice(0, 2), xs, [at(done.filter((r) => r.variant === 'mla')),
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
            fmt.int(r.bytes), mha ? `${fmt.fixed(r.bytes / mha.bytes * 100, 1)} %` : '…',
            { text: plusMinus(stat), dataset: { role: 'bits', mean: String(stat.mean) } },
            mha ? (r === mha ? '—' : signedDiff(d)) : '…', yesNo(r, small), yesNo(r, within)] };
      }));
    },
    destroy() { chart.destroy(); },
  };
}
