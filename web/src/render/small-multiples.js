// small-multiples.js — every head of a model at a glance: one row per layer, in it one small map per
// query head (render/heatmap.js), all on one shared scale, with a line under each map for the head's
// role. The induction lab's trained heads and an opened checkpoint's layers are drawn through it; a
// view says how a layer's row is wrapped and how its heads are grouped (by K/V head, or one group).
//
//   const grid = createSmallMultiples({ element, groupsOf, layerRow, mapOptions, headClass, roleClass });
//   grid.build(layers);                      // once per layout
//   grid.draw(attentions, n, tokens, roles);  // attentions: (layers, H, N, N); roles[k]: text under map k = l·H + h
import { el } from '../kit.js';
import { createHeatmap, groupMaps } from './heatmap.js';

/**
 * @param {{
 *   element: HTMLElement,   the grid the rows go into
 *   groupsOf: (layer: number) => { heads: number[], wrap?: (children: HTMLElement[]) => HTMLElement }[],
 *                           the layer's query heads in drawing order, grouped (wrap: the group's element;
 *                           without it, the group's maps go straight into the row)
 *   layerRow: (layer: number, children: HTMLElement[]) => HTMLElement,   a layer's row around its groups
 *   mapOptions: (layer: number, head: number, roleOf: () => string) => object,   createHeatmap's options
 *   headClass: string,      class of the element holding one map and its role line
 *   roleClass: string,      class of the role line
 *   blank?: string,         the role line's text when a head has none ('' or a no-break space)
 * }} o
 */
export function createSmallMultiples(o) {
  let maps = [], roleLines = [];

  return {
    /** The maps, in the order of `heads` within groups, layer by layer. */
    get maps() { return maps; },
    /** Builds one row per layer (the DOM of a layout: call again only when the shape changes). */
    build(layers) {
      maps = [];
      roleLines = [];
      o.element.replaceChildren(...Array.from({ length: layers }, (_, l) => o.layerRow(l, o.groupsOf(l).flatMap((group) => {
        const cells = group.heads.map((h) => {
          const role = el('p', o.roleClass);
          const map = createHeatmap(o.mapOptions(l, h, () => role.textContent.trim()));
          maps.push(map);
          roleLines.push(role);
          return el('div', o.headClass, map.element, role);
        });
        return group.wrap ? [group.wrap(cells)] : cells;
      }))));
      groupMaps(maps);
    },
    /**
     * Draws every map on one scale, [0, the largest weight], and the role lines.
     * @param {Float32Array} attentions  (layers, H, N, N), maps in the order build() made them
     * @param {number} n  tokens (N)
     * @param {string[]} tokens  the labels of both axes
     * @param {(string | undefined)[]} roles  the role of map k, or nothing
     * @returns {[number, number]} the shared range
     */
    draw(attentions, n, tokens, roles) {
      let hi = 0;
      for (const w of attentions) hi = Math.max(hi, w);
      const range = /** @type {[number, number]} */ ([0, hi || 1]);
      maps.forEach((map, k) => {
        map.update({ data: attentions, offset: k * n * n, rows: n, cols: n, rowLabels: tokens, colLabels: tokens, range });
        roleLines[k].textContent = roles[k] || (o.blank ?? '');
      });
      return range;
    },
  };
}
