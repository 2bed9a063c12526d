// compare-zoo.js — the compare view's measured table: the zoo's six trained models (docs/zoo.md), each
// variant's held-out bits/char over its seeds (mean ± sd), the difference from MHA with its standard
// error, in words that follow the numbers (labs/spread.js's rule), and a plot of quality against the
// KV cache. Nothing is fetched until the box is opened. "Show its maps" switches the attention-maps
// view to that trained model.
import { el } from '../kit.js';
import { scrollRegion } from '../render/scroll-region.js';
import { plusMinus, signedDiff } from '../labs/spread.js';
import { zooRows } from '../sources/zoo-stats.js';

const int = (n) => n.toLocaleString('en-US');
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** The state that draws a zoo model in the attention-maps view. */
const stateFor = (r) => ({ source: 'trained', variant: r.variant,
  ...(r.kvHeads && r.variant === 'gqa' ? { nKvHeads: r.kvHeads } : {}), ...(r.latentRank ? { latentRank: r.latentRank } : {}) });

/** "+0.053 ± 0.009 bits/char: worse" or "no measurable difference (+0.005 ± 0.008)". */
export function verdictText(vsMha) {
  if (!vsMha) return 'the baseline';
  if (!vsMha.measurable) return `no measurable difference (${signedDiff(vsMha)})`;
  return `${signedDiff(vsMha)}: ${vsMha.diff > 0 ? 'worse' : 'better'}`;
}

/** @param {object} ctx the view ctx (setState, canInspect) */
export function createZooBox(ctx) {
  const details = el('details', { className: 'cmp-zoo', dataset: { role: 'zoo' } });
  const body = el('div');
  details.append(el('summary', null, 'Measured on trained models: the zoo (each variant trained on Shakespeare with 5 seeds)'), body);
  let loaded = null;

  async function load() {
    body.replaceChildren(el('p', { className: 'note', role: 'status' }, 'Loading the zoo\'s manifest…'));
    // the chart library (uPlot) and the manifest only now: the compare view's first draw needs neither
    const [files, { createLineChart }] = await Promise.all([import('attn-zoo-files'), import('../render/line-chart.js')]);
    const manifest = await files.zooManifest();
    const rows = zooRows(manifest);
    const tr = manifest.training, g = manifest.geometry;
    const showMaps = (r) => {
      ctx.setState(stateFor(r));
      details.getRootNode().querySelector?.('[data-section="heatmap"]')?.scrollIntoView({ behavior: 'smooth', block: 'start' });
    };
    const table = el('table', null,
      el('caption', null, `Character-level models, ${g.nLayers} layers, dModel ${g.dModel}, ${g.nHeads} query heads, `
        + `${int(tr.steps)} steps of batch ${tr.batchSize}; held-out bits per character (lower is better) over seeds ${tr.seeds.join(', ')}.`),
      el('thead', null, el('tr', null, ...['Variant', 'KV heads', 'Parameters', 'KV cache / token', 'at 4K tokens',
        'bits/char (mean ± sd)', 'vs MHA (± standard error)', ''].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', null, ...rows.map((r) => el('tr', { dataset: { model: r.id } },
        el('th', { scope: 'row' }, r.label),
        el('td', null, r.kvHeads ? String(r.kvHeads) : `latent r = ${r.latentRank}`),
        el('td', null, int(r.params)),
        el('td', null, `${int(r.kvBytesPerToken)} B`),
        el('td', null, mib(r.kvBytesPerToken * 4096)),
        el('td', null, plusMinus(r.bits, 3)),
        el('td', { dataset: { role: 'verdict' } }, verdictText(r.vsMha)),
        el('td', null, ctx.canInspect?.() ? el('button', { type: 'button', dataset: { action: 'zoo-maps' },
          'aria-label': `Show its maps: ${r.label}`, onclick: () => showMaps(r) }, 'Show its maps') : '')))));
    const none = rows.filter((r) => r.vsMha && !r.vsMha.measurable).map((r) => r.label);
    const words = el('p', null, 'Every variant here has the same width and query heads, so the ones that cache less also have fewer '
      + 'parameters: part of each difference is size. ',
    none.length ? `No measurable difference from MHA: ${none.join(', ')}. ` : 'Every difference from MHA is larger than twice its standard error. ',
    'At far larger scale, controlled runs find smaller costs (a few thousandths of a bit for 4:1 GQA).');
    const chartBox = el('div');
    body.replaceChildren(scrollRegion('The zoo\'s variants, measured', table), words, chartBox);
    const chart = createLineChart(chartBox, { yLabel: 'bits / char (held out)', xLabel: 'KV cache bytes per token', logX: true,
      height: 240, styleOf: (label, i) => ({ colour: i, points: 'only' }) });
    const xs = [...new Set(rows.map((r) => r.kvBytesPerToken))].sort((a, b) => a - b);
    chart.setData(rows.map((r) => r.label), xs, rows.map((r) => xs.map((x) => (x === r.kvBytesPerToken ? r.bits.mean : null))));
    details.dataset.state = 'ready';
  }

  details.addEventListener('toggle', () => {
    if (!details.open || loaded) return;
    loaded = load().catch((e) => {
      loaded = null;
      details.dataset.state = 'error';
      body.replaceChildren(el('p', { role: 'alert' }, `The zoo could not be loaded: ${e.message}`));
    });
  });
  return { box: details };
}
