// query-rows.js — one query row in every head: the selected token's weights over the keys, one strip
// per head on the maps' scale (render/heatmap.js), and the same numbers as a table.
import { el } from '../kit.js';
import { createHeatmap, groupMaps } from './heatmap.js';
import { scrollRegion } from './scroll-region.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

/**
 * @param {{ weights: Float32Array, tokens: string[], shape: { nHeads: number }, row: number,
 *           range: [number, number], headLabel: (h: number) => string, readout: HTMLElement & { say(t: string): void },
 *           onClear: () => void, i18n?: object }} o   weights (H, N, N), head-major; i18n: the element's language
 * @returns {HTMLElement}
 */
export function queryRows({ weights, tokens, shape, row, range, headLabel, readout, onClear, i18n = EN }) {
  const { t } = i18n;
  const N = tokens.length, H = shape.nHeads;
  const strips = [], numbers = [];
  for (let h = 0; h < H; h++) {
    const map = createHeatmap({
      title: headLabel(h), colour: 'prob', cell: 'fill', readout, className: 'hm-strip', i18n,
      describe: ({ j }, v) => t('maps.queryCell', { head: headLabel(h), q: tokens[row], i: row, k: tokens[j], j, value: v.toFixed(3) }),
    });
    map.update({ data: weights, offset: h * N * N + row * N, rows: 1, cols: N, range });
    strips.push(map);
    numbers.push(el('tr', null, el('th', { scope: 'row' }, headLabel(h)),
      ...Array.from({ length: N }, (_, j) => el('td', null, weights[h * N * N + row * N + j].toFixed(2)))));
  }
  groupMaps(strips);
  const table = el('table', 'query-table',
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, t('maps.headColumn')),
      ...tokens.map((token) => el('th', { scope: 'col', dataset: { text: 'input' } }, token)))),
    el('tbody', null, ...numbers));
  return el('section', { className: 'query-rows', dataset: { role: 'selected' } },
    el('h3', null, ...queryTitle(t('maps.queryTitle', { token: '\u0000', row }), tokens[row])),
    el('div', 'query-strips', ...strips.map((m) => m.element)),
    el('details', null, el('summary', null, t('maps.asNumbers')),
      scrollRegion(t('maps.selectedLabel'), table, '', i18n)),
    el('button', { type: 'button', dataset: { action: 'clear-selection' }, onclick: onClear }, t('maps.clear')));
}

/** A title with the token in its place ('\u0000'), the token marked as the learner's input. */
function queryTitle(text, token) {
  const [before, after] = text.split('\u0000');
  return [before, el('span', { dataset: { text: 'input' } }, token), after];
}
