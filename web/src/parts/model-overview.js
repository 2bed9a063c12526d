// model-overview.js — every layer of an opened checkpoint at a glance: one row per layer, in it the
// query heads grouped by the K/V head they read (render/geometry.js kvGroups), each a small map
// (render/heatmap.js) on one shared scale, with the head's role on the model's probe under it. A click
// on a map opens its layer in the large maps (state.layer).
import { el } from '../kit.js';
import { kvGroups, groupLabel, headShort } from '../render/geometry.js';
import { createHeatmap, groupMaps } from '../render/heatmap.js';
import { roleName } from '../sources/head-roles.js';

/** Pixels of one small map's side. */
const SIDE = 84;

/** @returns {{ element: HTMLElement, update(data, roles, readout, onLayer): void }} */
export function createModelOverview() {
  const grid = el('div', { className: 'mo-grid', dataset: { role: 'overview' } });
  let maps = [], roleLines = [], layout = '';

  function build(data, readout, onLayer) {
    const { shape, layers, tokens } = data;
    const N = tokens.length, cell = Math.max(1, Math.floor(SIDE / N));
    maps = [];
    roleLines = [];
    grid.replaceChildren(...Array.from({ length: layers }, (_, l) => el('div', { className: 'mo-layer', dataset: { layer: String(l) } },
      el('button', { type: 'button', className: 'mo-layer-name', title: `Show layer ${l} in the large maps`, onclick: () => onLayer(l) }, `L${l}`),
      ...kvGroups(shape).map((group) => el('figure', { className: 'mo-group', title: groupLabel(shape, group) },
        ...group.heads.map((h) => {
          const title = `L${l} ${headShort(shape, h)}`;
          const map = createHeatmap({ title, colour: 'prob', masked: 'causal', readout, cell, className: 'mo-map',
            dataset: { layer: String(l), head: String(h) }, name: { view: 'model', layer: l, head: h },
            describe: ({ i, j }, v) => `${title}${roleLines[l * shape.nHeads + h]?.textContent ? ` (${roleLines[l * shape.nHeads + h].textContent})` : ''}` +
              ` · query ${i} “${tokens[i]}” → key ${j} “${tokens[j]}”: ${j > i ? 'masked (a later token)' : v.toFixed(3)}`,
            onSelect: () => onLayer(l) });
          const role = el('p', 'mo-role');
          maps.push(map);
          roleLines.push(role);
          return el('div', 'mo-head', map.element, role);
        }))))));
    groupMaps(maps);
  }

  return {
    element: grid,
    /**
     * @param {{ tokens: string[], shape: object, layers: number, attentions: Float32Array }} data  (layers, H, N, N)
     * @param {{ layer, head, previousToken, induction, firstToken, duplicateToken }[] | null} roles
     */
    update(data, roles, readout, onLayer) {
      const key = JSON.stringify([data.tokens, data.layers, data.shape.kvHeadOf]);
      if (key !== layout) {
        layout = key;
        build(data, readout, onLayer);
      }
      const N = data.tokens.length, H = data.shape.nHeads;
      let hi = 0;
      for (const w of data.attentions) hi = Math.max(hi, w);
      maps.forEach((map, k) => map.update({ data: data.attentions, offset: k * N * N, rows: N, cols: N, rowLabels: data.tokens,
        colLabels: data.tokens, range: [0, hi || 1] }));
      roleLines.forEach((line, k) => {
        const s = roles?.[k];
        line.textContent = s && s.layer * H + s.head === k ? roleName(s) : '';
      });
    },
  };
}
