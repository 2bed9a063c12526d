// tensor-figure.js — one tensor of the walkthrough: a matrix (rows, cols) or a stack of heads
// (heads, rows, cols), each drawn by the one heatmap (render/heatmap.js) on one shared scale:
// blue–white–red around 0 for signed values, viridis for probabilities. Rows are tokens; square
// per-head maps (scores, weights) have tokens on both axes. A matrix of heads side by side (Q, K, V, the
// concatenation) has its column bands drawn and named (h0, h1, ...).
import { el } from '../kit.js';
import { legend, rangeOf } from './colour.js';
import { saveControl } from './save-control.js';
import { createHeatmap, fileName, groupMaps } from './heatmap.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/walkthrough.js';  // the English words it speaks

/**
 * @param {{ key: string, label: string, kind: 'matrix' | 'heads', colour: 'signed' | 'prob', bands?: number,
 *           masked?: boolean, headLabel?: (h: number) => string }} spec   (lesson/stages.js)
 * @param {{ shape: number[], data: Float32Array }} tensor
 * @param {{ tokens: string[], readout: HTMLElement & { say(t: string): void },
 *           describe: (at: { h: number, i: number, j: number }, value: number) => string,
 *           name: object, i18n?: object }} o   (i18n: the element's language; default English)
 * @returns {HTMLElement}
 */
export function tensorFigure(spec, tensor, { tokens, readout, describe, name, i18n = EN }) {
  const stacked = spec.kind === 'heads';
  const heads = stacked ? tensor.shape[0] : 1;
  const rows = tensor.shape[stacked ? 1 : 0], cols = tensor.shape[stacked ? 2 : 1];
  const range = spec.colour === 'prob' ? [0, 1] : rangeOf('signed', tensor.data);
  const square = rows === cols && rows === tokens.length;
  const maps = Array.from({ length: heads }, (_, h) => {
    const label = stacked ? (spec.headLabel ? spec.headLabel(h) : i18n.t('walk.head', { h })) : spec.label;
    const map = createHeatmap({
      title: label, colour: spec.colour, masked: spec.masked ? 'causal' : null, bands: spec.bands ?? 0,
      cell: 'fill', readout, className: stacked ? 'tf-head' : 'tf-matrix', caption: stacked, i18n,
      describe: ({ i, j }, v) => describe({ h, i, j }, v),
    });
    map.update({ data: tensor.data, offset: h * rows * cols, rows, cols, range,
      rowLabels: tokens, colLabels: square ? tokens : undefined });
    return map;
  });
  groupMaps(maps);
  // Column bands (heads side by side: Q, K, V, the concatenation): a name over each band, its edges drawn by the map.
  const bands = !stacked && spec.bands && spec.bands < cols ? Math.ceil(cols / spec.bands) : 0;
  if (bands) {
    const names = el('div', { className: 'tf-bands', 'aria-hidden': 'true', dataset: { role: 'band-names' } },
      ...Array.from({ length: bands }, (_, b) => el('span', null, `h${b}`)));
    names.style.setProperty('--bands', bands);
    maps[0].element.querySelector('.hm-plot').prepend(names);
    maps[0].element.classList.add('tf-banded');
  }
  const figureName = () => fileName({ ...name, head: stacked ? 'all' : undefined });
  return el('figure', { className: `tf tf-${spec.kind}`, dataset: { tensor: spec.key } },
    el('figcaption', null, el('strong', null, spec.label), ` (${tensor.shape.join(' × ')}) `, legend(spec.colour, range),
      saveControl(() => maps.map((m) => m.figure()), figureName, { label: i18n.t(spec.colour === 'prob' ? 'walk.weight' : 'walk.value'), i18n })),
    el('div', 'tf-grid', ...maps.map((m) => m.element)));
}
