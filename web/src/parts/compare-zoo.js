// compare-zoo.js — the compare view's measured table: the zoo's six trained models (docs/zoo.md), each
// variant's held-out bits per token over its seeds (mean ± sd), the difference from MHA with its
// standard error, in words that follow the numbers (labs/spread.js's rule; below three seeds no verdict),
// and a plot of quality against the KV cache (each variant's mean, a bar over its seeds). Nothing is
// fetched until the box is opened. "Show its maps" switches the attention-maps view to that trained model.
import { coreDetail, el } from '../kit.js';
import { EN } from '../i18n/index.js';
import { scrollRegion } from '../render/scroll-region.js';
import { plusMinus, signedDiff } from '../labs/spread.js';
import { FLOORS, SETTLED_SEEDS, zooLabel, zooRows } from '../sources/zoo-stats.js';
import '../i18n/catalogs/en/compare.js';  // the English words it speaks

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** The state that draws a zoo model in the attention-maps view. */
const stateFor = (r) => ({ source: 'trained', variant: r.variant,
  ...(r.kvHeads && r.variant === 'gqa' ? { nKvHeads: r.kvHeads } : {}), ...(r.latentRank ? { latentRank: r.latentRank } : {}) });

/** "+0.053 ± 0.009: worse", "no measurable difference (+0.005 ± 0.008)", or with too few seeds "+0.012, one seed: not settled". */
export function verdictText(vsMha, i18n = EN) {
  const { t } = i18n;
  if (!vsMha) return t('cmp.zoo.baseline');
  if (!vsMha.settled) {
    return t('cmp.zoo.fewSeeds', { count: vsMha.seeds ?? 1, diff: `${vsMha.diff >= 0 ? '+' : '−'}${Math.abs(vsMha.diff).toFixed(3)}` });
  }
  if (!vsMha.measurable) return t('cmp.zoo.none', { diff: signedDiff(vsMha) });
  return t(vsMha.diff > 0 ? 'cmp.zoo.worse' : 'cmp.zoo.better', { diff: signedDiff(vsMha) });
}

/**
 * The table's verdicts in words (every model settled): those with no measurable difference from MHA,
 * then those measurably worse and better, each a list; or that every difference is measurable.
 */
export function verdictWords(rows, i18n = EN) {
  const { t } = i18n;
  const named = (keep) => rows.filter((r) => r.vsMha && keep(r.vsMha)).map((r) => zooLabel(r, i18n)).join('; ');
  const none = named((v) => !v.measurable), worse = named((v) => v.measurable && v.diff > 0), better = named((v) => v.measurable && v.diff < 0);
  return [none ? t('cmp.zoo.noneOf', { list: none }) : t('cmp.zoo.allMeasurable'), worse ? t('cmp.zoo.worseOf', { list: worse }) : '',
    better ? t('cmp.zoo.betterOf', { list: better }) : ''].filter(Boolean).join(' ');
}

/**
 * What else differs between the runs, from the manifest: the steps of their synthetic starts where
 * they differ, and whether the induction circuit (a head at FLOORS.induction) formed on some seeds and not on
 * others; '' where neither.
 */
export function runsDiffer(rows, i18n = EN) {
  const out = [];
  const steps = rows.map((r) => r.copySteps).filter(Boolean);
  if (new Set(steps).size > 1) {
    const int = i18n.fmt.int, longest = Math.max(...steps);
    const rest = rows.filter((r) => r.copySteps && r.copySteps < longest).map((r) => r.copySteps);
    const lo = Math.min(...rest), hi = Math.max(...rest);
    out.push(i18n.t('cmp.zoo.starts', { longest: int(longest), list: rows.filter((r) => r.copySteps === longest).map((r) => zooLabel(r, i18n)).join('; '),
      others: lo === hi ? int(lo) : `${int(lo)}–${int(hi)}` }));
  }
  const formed = rows.flatMap((r) => r.seedInduction ?? []).filter((x) => x != null).map((x) => x >= FLOORS.induction);
  if (formed.includes(true) && formed.includes(false)) out.push(i18n.t('cmp.zoo.someSeeds'));
  return out.join(' ');
}

/** @param {object} ctx the view ctx (setState, canInspect, i18n) */
export function createZooBox(ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  const int = i18n.fmt.int;
  const details = el('details', { className: 'cmp-zoo', dataset: { role: 'zoo' } });
  const body = el('div');
  details.append(el('summary', null, t('cmp.zoo.summary')), body);
  let loaded = null;

  async function load() {
    body.replaceChildren(el('p', { className: 'note', role: 'status' }, t('cmp.zoo.loading')));
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
      el('caption', null, t('cmp.zoo.caption', { layers: g.nLayers, dModel: g.dModel, heads: g.nHeads, steps: tr.steps, batch: tr.batchSize,
        seqLen: tr.seqLen, vocab: manifest.corpus.tokenizer.vocabSize, count: tr.seeds.length, seeds: tr.seeds.join(', ') })),
      el('thead', null, el('tr', null, ...[t('cmp.zoo.col.variant'), t('cmp.zoo.col.kvHeads'), t('cmp.zoo.col.params'), t('cmp.zoo.col.cache'),
        t('cmp.zoo.col.at4k'), t(rows.every((r) => r.bits.n > 1) ? 'cmp.zoo.col.bits' : 'cmp.zoo.col.bitsOneSeed'), t('cmp.zoo.col.vsMha'), t('cmp.zoo.col.maps')].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', null, ...rows.map((r) => el('tr', { dataset: { model: r.id } },
        el('th', { scope: 'row' }, zooLabel(r, i18n)),
        el('td', null, r.kvHeads ? String(r.kvHeads) : t('cmp.zoo.latent', { r: r.latentRank })),
        el('td', null, int(r.params)),
        el('td', null, `${int(r.kvBytesPerToken)} B`),
        el('td', null, mib(r.kvBytesPerToken * 4096)),
        el('td', null, r.settled ? plusMinus(r.bits, 3)
          : t('cmp.zoo.fewSeedsBits', { count: r.bits.n, bits: r.bits.n > 1 ? plusMinus(r.bits, 3) : r.bits.mean.toFixed(3) })),
        el('td', { dataset: { role: 'verdict' } }, verdictText(r.vsMha, i18n)),
        el('td', null, ctx.canInspect?.() ? el('button', { type: 'button', dataset: { action: 'zoo-maps' },
          'aria-label': t('cmp.showMapsOf', { name: zooLabel(r, i18n) }), onclick: () => showMaps(r) }, t('cmp.showMaps')) : '')))));
    const settled = rows.every((r) => !r.vsMha || r.vsMha.settled);
    const fewest = Math.min(...rows.map((r) => r.bits.n));
    const verdict = !settled ? t('cmp.zoo.notSettled', { count: fewest, min: SETTLED_SEEDS }) : verdictWords(rows, i18n);
    const words = el('p', { dataset: { role: 'zoo-words' } }, [t('cmp.zoo.size'), verdict, runsDiffer(rows, i18n), t('cmp.zoo.scale')]
      .filter(Boolean).join(' '));
    const chartBox = el('div');
    const several = rows.some((r) => r.bits.n > 1);
    body.replaceChildren(scrollRegion(t('cmp.zoo.region'), table, '', i18n), words, chartBox,
      ...(several ? [el('p', { className: 'note', dataset: { role: 'zoo-bars' } }, t('cmp.zoo.bars'))] : []));
    // A scatter: ticks at the models' cache sizes, the domain just beyond them, each point labelled with its
    // model, a bar over its seeds.
    const chart = createLineChart(chartBox, { yLabel: t('cmp.zoo.yLabel'), xLabel: t('cmp.zoo.xLabel'), logX: true,
      height: 280, styleOf: (label, i) => ({ colour: i, points: 'only' }), xTicks: true, xTickText: (x) => `${int(x)} B`, labelPoints: true });
    const xs = [...new Set(rows.map((r) => r.kvBytesPerToken))].sort((a, b) => a - b);
    const at = (r, value) => xs.map((x) => (x === r.kvBytesPerToken ? value : null));
    chart.setData(rows.map((r) => zooLabel(r, i18n)), xs, rows.map((r) => at(r, r.bits.mean)),
      several ? rows.map((r) => at(r, r.seedBits.length > 1 ? r.seedBits : null)) : null);
    details.dataset.state = 'ready';
  }

  details.addEventListener('toggle', () => {
    if (!details.open || loaded) return;
    loaded = load().catch((e) => {
      loaded = null;
      details.dataset.state = 'error';
      body.replaceChildren(el('p', { role: 'alert' }, t('cmp.zoo.failed'), ' ', coreDetail(e.message, i18n)));
    });
  });
  return { box: details };
}
