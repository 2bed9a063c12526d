// induction-maps.js — the induction lab's attention maps: every head of the trained model on one
// example sequence, one row of maps per layer, each through the render layer's heatmap (cursor,
// read-out, Save figure) on one shared scale, with the head's role from its scores under it.
import { el } from '../kit.js';
import { legend } from '../render/colour.js';
import { saveControl } from '../render/save-control.js';
import { createReadout, fileName } from '../render/heatmap.js';
import { createSmallMultiples } from '../render/small-multiples.js';
import { roleOf } from './verdicts.js';

const HINT = 'Hover or tap a cell, or focus a map and use the arrow keys (PageUp / PageDown: the next head).';

/** @returns {{ element: HTMLElement, update(att, tokens, scores): void }} */
export function createInductionMaps() {
  const caption = el('p', 'lab-maps-caption');
  const tools = el('div', 'view-tools');
  const readout = createReadout(HINT);
  const grid = el('div', 'lab-map-grid');
  const element = el('div', { className: 'lab-maps', hidden: true }, caption, tools, readout, grid);
  let heads = 0, wide = false, tokens = [], layout = '';
  const multiples = createSmallMultiples({
    element: grid, headClass: 'lab-map', roleClass: 'lab-map-role', blank: '\u00a0',
    groupsOf: () => [{ heads: Array.from({ length: heads }, (_, h) => h) }],
    layerRow: (l, children) => el('div', 'lab-map-layer', ...children),
    mapOptions: (l, h, roleOf) => {
      const title = `L${l + 1} H${h + 1}`;
      return {
        title, colour: 'prob', masked: 'causal', readout, save: true, maxWidth: wide ? 160 : 128,
        dataset: { layer: String(l), head: String(h) }, name: { view: 'lab-induction', layer: l, head: h }, legendLabel: 'attention weight',
        describe: ({ i, j }, v) => `${title}${roleOf() ? ` (${roleOf()})` : ''} · query ${i} “${tokens[i]}” → key ${j} “${tokens[j]}”: ` +
          (j > i ? 'masked (a later token)' : v.toFixed(3)),
      };
    },
  });

  return {
    element,
    /**
     * @param {{ weights: Float32Array, layers: number, heads: number, n: number }} att  trainer.attention: (layers, H, N, N)
     * @param {number[]} seq the example's token ids
     * @param {{ layer, head, previousToken, induction, firstToken, diagonal }[]} scores
     */
    update(att, seq, scores) {
      wide = element.parentElement?.clientWidth > 700;
      const key = JSON.stringify([att.layers, att.heads, att.n, wide]);
      if (key !== layout) { layout = key; heads = att.heads; multiples.build(att.layers); }
      tokens = seq.map(String);
      const roles = multiples.maps.map((_, k) => roleOf(scores.find((s) => s.layer * att.heads + s.head === k) ?? {}));
      const range = multiples.draw(att.weights, att.n, tokens, roles);
      tools.replaceChildren(legend('prob', range, 'attention weight'),
        saveControl(() => multiples.maps.map((m) => m.figure()), () => fileName({ view: 'lab-induction', head: 'all' }),
          { text: 'Save all maps', label: 'attention weight' }));
      caption.textContent = `Attention of the trained heads (rows: queries, columns: keys; upper triangle masked) ` +
        `on an example: ${seq.length / 2} random tokens, then the same ${seq.length / 2} again: ` +
        `[${seq.join(' ')}]. An induction head lights up the diagonal stripe one step right of the repeat's offset.`;
      element.hidden = false;
    },
  };
}
