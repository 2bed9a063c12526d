// heads-zoo.js — Lab 1's bundled results (web/zoo/, trained natively by `npm run zoo` with the lab's own
// settings): the head-count sweep over five seeds, shown at once as the lab's table and verdict, and
// the trained one-head and two-head models' maps on an example, side by side (render/small-multiples.js),
// each head labelled with what its weight does. Nothing is fetched until the learner asks.
import { el } from '../kit.js';
import { legend } from '../render/colour.js';
import { createReadout } from '../render/heatmap.js';
import { createSmallMultiples } from '../render/small-multiples.js';
import { difference, meanSd, plusMinus, signedDiff } from './spread.js';
import { createLabTable, twoLines } from './table.js';
import { summariseHeads } from './verdicts.js';

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
  const table = createLabTable({ label: 'The bundled sweep', caption: '', columns: ['heads', ['d', el('sub', null, 'head')],
    twoLines('held-out loss', 'nats, mean ± sd'), twoLines('against h / 2', 'nats, ± standard error'), 'accuracy'] });
  const summary = el('p', 'lab-zoo-summary');
  const readout = createReadout('Hover or tap a cell, or focus a map and use the arrow keys.');
  const grid = el('div', 'lab-map-grid');
  const caption = el('p', 'lab-maps-caption');
  const tools = el('div', 'view-tools');
  const rows = [{ id: 'pairs-h1', heads: 1 }, { id: 'pairs-h2', heads: 2 }];
  let labels = [];
  const multiples = createSmallMultiples({
    element: grid, headClass: 'lab-map', roleClass: 'lab-map-role', blank: '\u00a0',
    groupsOf: (l) => [{ heads: Array.from({ length: rows[l].heads }, (_, h) => h) }],
    layerRow: (l, children) => el('div', 'lab-map-layer', el('p', 'lab-map-row-title', rows[l].heads === 1 ? 'One head (d_head = 64)' : 'Two heads (d_head = 32 each)'), ...children),
    mapOptions: (l, h) => ({ title: `${rows[l].heads === 1 ? 'one head' : `head ${h + 1} of 2`}`, colour: 'prob', masked: 'causal', readout, save: true,
      maxWidth: 200, dataset: { model: rows[l].id, head: String(h) }, name: { view: 'lab-heads', what: rows[l].id, head: h }, legendLabel: 'attention weight',
      describe: ({ i, j }, v) => `query ${i} “${labels[i]}” → key ${j} “${labels[j]}”: ${j > i ? 'masked (a later token)' : v.toFixed(3)}` }),
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
    const d = sweep.spec.model.dModel;
    table.setRows(sweep.heads.map((h, k) => [{ header: true, text: h }, d / h, plusMinus(meanSd(losses[k])),
      k ? signedDiff(difference(losses[k - 1], losses[k])) : '—',
      `${(meanSd(sweep.runs.filter((r) => r.heads === h).map((r) => r.accuracy)).mean * 100).toFixed(1)} %`]));
    const verdict = summariseHeads(sweep.heads, losses, sweep.steps);
    summary.textContent = `The bundled sweep, trained natively with this lab's settings. ${verdict.sentence}`;
    const n = PAIRS_EXAMPLE.length;
    labels = PAIRS_EXAMPLE.map(String);
    multiples.build(rows.length);
    const all = new Float32Array((1 + 2) * n * n);
    all.set(att[0].weights, 0);
    all.set(att[1].weights, n * n);
    const back = (w, h) => [1, 2].map((b) => weightBack(w, n, h, b));
    const roles = [back(att[0].weights, 0), back(att[1].weights, 0), back(att[1].weights, 1)]
      .map(([one, two]) => `${one.toFixed(2)} on the token before, ${two.toFixed(2)} on the one before it`);
    const range = multiples.draw(all, n, labels, roles);
    tools.replaceChildren(legend('prob', range, 'attention weight'));
    caption.textContent = `The trained heads on an example, [${PAIRS_EXAMPLE.join(' ')}] (rows: queries, columns: keys). To name the pair `
      + 'at position i, a model needs tokens i − 1 and i − 2. The single head has one softmax: it spreads its weight over both, and '
      + 'its output is one mix of the two; with two heads, each takes one position, and W_o keeps them apart.';
    element.hidden = false;
    return { heads: sweep.heads, losses, weightBack: roles.length, verdicts: verdict.verdicts,
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
