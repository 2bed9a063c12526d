// query-rows.js — one query row in every head: the selected token's weights over the keys, one strip
// per head on the maps' scale (render/heatmap.js), and the same numbers as a table.
import { el } from '../kit.js';
import { createHeatmap, groupMaps } from './heatmap.js';
import { scrollRegion } from './scroll-region.js';

/**
 * @param {{ weights: Float32Array, tokens: string[], shape: { nHeads: number }, row: number,
 *           range: [number, number], headLabel: (h: number) => string, readout: HTMLElement & { say(t: string): void },
 *           onClear: () => void }} o   weights (H, N, N), head-major
 * @returns {HTMLElement}
 */
export function queryRows({ weights, tokens, shape, row, range, headLabel, readout, onClear }) {
  const N = tokens.length, H = shape.nHeads;
  const strips = [], numbers = [];
  for (let h = 0; h < H; h++) {
    const map = createHeatmap({
      title: headLabel(h), colour: 'prob', cell: 'fill', readout, className: 'hm-strip',
      describe: ({ j }, v) => `${headLabel(h)}: query “${tokens[row]}” (${row}) → key “${tokens[j]}” (${j}): ${v.toFixed(3)}`,
    });
    map.update({ data: weights, offset: h * N * N + row * N, rows: 1, cols: N, range });
    strips.push(map);
    numbers.push(el('tr', null, el('th', { scope: 'row' }, headLabel(h)),
      ...Array.from({ length: N }, (_, j) => el('td', null, weights[h * N * N + row * N + j].toFixed(2)))));
  }
  groupMaps(strips);
  const table = el('table', 'query-table',
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, 'head'), ...tokens.map((t) => el('th', { scope: 'col' }, t)))),
    el('tbody', null, ...numbers));
  return el('section', { className: 'query-rows', dataset: { role: 'selected' } },
    el('h3', null, `Query “${tokens[row]}” (${row}) in every head`),
    el('div', 'query-strips', ...strips.map((m) => m.element)),
    el('details', null, el('summary', null, 'The weights as numbers'),
      scrollRegion('The selected query in every head', table)),
    el('button', { type: 'button', dataset: { action: 'clear-selection' }, onclick: onClear }, 'Clear selection'));
}
