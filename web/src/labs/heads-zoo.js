// heads-zoo.js — Lab 1's bundled results (web/zoo/, trained natively by `npm run zoo` with the lab's own
// settings): the head-count sweep over five seeds, shown at once as the lab's table and verdict, and
// the trained one-head and two-head models' maps on an example, side by side (render/small-multiples.js),
// each head labelled with what its weight does. Nothing is fetched until the learner asks.
import { el } from '../kit.js';
import { legend } from '../render/colour.js';
import { createReadout } from '../render/heatmap.js';
import { createSmallMultiples } from '../render/small-multiples.js';
import { difference, meanSd, spreadFormat } from './spread.js';
import { createLabTable, twoLines } from './table.js';
import { summariseHeads } from './verdicts.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks: the maps' (main bundle)
import '../i18n/catalogs/en/lab-heads.js';  // and Lab 1's

/** px across a map: 16 cells of 18 px, so that its token labels are 12 px type, one per cell (never overlapping). */
export const MAP_WIDTH = 288;

/** An example for the maps: 16 tokens of the alphabet, fixed. */
export const PAIRS_EXAMPLE = [3, 1, 4, 1, 5, 7, 2, 6, 5, 3, 5, 0, 7, 2, 6, 4];

/** Mean weight of a map (H, N, N) head `h` puts on key i - `back` (queries i >= back). */
export function weightBack(weights, n, h, back) {
  let sum = 0;
  for (let i = back; i < n; i++) sum += weights[h * n * n + i * n + i - back];
  return sum / (n - back);
}

/**
 * @param {object} ctx the view ctx (client)
 * @returns {{ element: HTMLElement, show(): Promise<object> }}
 */
export function createHeadsZoo(ctx) {
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const { plusMinus, signedDiff } = spreadFormat(fmt);
  const table = createLabTable({ label: t('labHeads.zoo.table'), caption: '', i18n, columns: [t('labHeads.col.heads'), 'd_head',
    twoLines(t('labHeads.col.loss'), t('labHeads.col.lossNote', { count: 5 })), twoLines(t('labHeads.col.diff'), t('labHeads.col.diffNote')),
    t('labHeads.col.accuracy')],
    save: { name: () => 'lab-heads-bundled-results', meta: () => ({ lab: 'lab-heads', bundled: true, task: 'pairs', summary: summary.textContent }) } });
  const summary = el('p', 'lab-zoo-summary');
  const readout = createReadout(t('maps.hint'));
  const grid = el('div', 'lab-map-grid');
  const caption = el('p', 'lab-maps-caption');
  const tools = el('div', 'view-tools');
  const rows = [{ id: 'pairs-h1', heads: 1 }, { id: 'pairs-h2', heads: 2 }];
  let labels = [], dModel = 0;  // the bundled models' width (the manifest's)
  const multiples = createSmallMultiples({
    element: grid, headClass: 'lab-map', roleClass: 'lab-map-role', blank: '\u00a0',
    groupsOf: (l) => [{ heads: Array.from({ length: rows[l].heads }, (_, h) => h) }],
    layerRow: (l, children) => el('div', 'lab-map-layer', el('p', 'lab-map-row-title',
      t(rows[l].heads === 1 ? 'labHeads.zoo.one' : 'labHeads.zoo.two', { dHead: dModel / rows[l].heads })), ...children),
    mapOptions: (l, h) => {
      const title = rows[l].heads === 1 ? t('labHeads.zoo.oneHead') : t('labHeads.zoo.headOf', { h });
      return { title, colour: 'prob', masked: 'causal', readout, save: true, maxWidth: MAP_WIDTH, i18n, dataset: { model: rows[l].id, head: String(h) },
        name: { view: 'lab-heads', what: rows[l].id, head: h }, legendLabel: t('maps.weight'),
        describe: ({ i, j }, v) => t('labHeads.zoo.cell', { title, i, q: labels[i], j, k: labels[j], value: j > i ? t('maps.masked') : fmt.fixed(v, 3) }) };
    },
  });
  const element = el('div', { className: 'lab-zoo', hidden: true }, table.element, summary, caption, tools, readout, grid);
  let shown = null;

  async function load() {
    const files = await import('attn-zoo-files');
    const manifest = await files.zooManifest();
    const sweep = manifest.labs?.['lab-heads'];
    if (!sweep) throw new Error('the bundled models carry no Lab 1 sweep');
    const att = [];
    for (const r of rows) {
      const model = sweep.models.find((m) => m.id === r.id);
      if (!model) throw new Error(`the bundled models carry no '${r.id}'`);
      const key = `zoo:${r.id}`;
      await ctx.client.call('trainerLoad', key, await files.zooBytes(model.file));
      att.push(await ctx.client.call('trainerAttention', key, PAIRS_EXAMPLE));  // (1, H, N, N)
    }
    return { sweep, att };
  }

  function draw({ sweep, att }) {
    const losses = sweep.heads.map((h) => sweep.runs.filter((r) => r.heads === h).map((r) => r.loss));
    const d = (dModel = sweep.spec.model.dModel);
    table.setRows(sweep.heads.map((h, k) => [{ header: true, text: h }, d / h, plusMinus(meanSd(losses[k])),
      k ? signedDiff(difference(losses[k - 1], losses[k])) : '—',
      `${fmt.fixed(meanSd(sweep.runs.filter((r) => r.heads === h).map((r) => r.accuracy)).mean * 100, 1)} %`]));
    const verdict = summariseHeads(sweep.heads, losses, sweep.steps, NaN, i18n);
    summary.textContent = t('labHeads.zoo.summary', { verdict: verdict.sentence });
    const n = PAIRS_EXAMPLE.length;
    labels = PAIRS_EXAMPLE.map(String);
    multiples.build(rows.length);
    const all = new Float32Array((1 + 2) * n * n);
    all.set(att[0].weights, 0);
    all.set(att[1].weights, n * n);
    const back = (w, h) => [1, 2].map((b) => weightBack(w, n, h, b));
    const roles = [back(att[0].weights, 0), back(att[1].weights, 0), back(att[1].weights, 1)]
      .map(([one, two]) => t('labHeads.zoo.role', { one: fmt.fixed(one, 2), two: fmt.fixed(two, 2) }));
    const range = multiples.draw(all, n, labels, roles);
    tools.replaceChildren(legend('prob', range, t('maps.weight')));
    caption.textContent = t('labHeads.zoo.caption', { tokens: PAIRS_EXAMPLE.join(' ') });
    element.hidden = false;
    return { heads: sweep.heads, losses, verdicts: verdict.verdicts,
      maps: att.map((a) => ({ heads: a.heads, n: a.n })) };
  }

  return {
    element,
    /** Loads the bundled sweep and models (once) and draws them; resolves to what was drawn. */
    async show() {
      shown ??= load().catch((e) => { shown = null; throw e; });
      return draw(await shown);
    },
  };
}
