// model-overview.js — every layer of an opened checkpoint at a glance: one row per layer, in it the
// query heads grouped by the K/V head they read (render/geometry.js kvGroups), each a small map
// (render/heatmap.js) on one shared scale, with the head's role on the model's probe under it. A click
// on a map opens its layer in the large maps (state.layer).
import { el } from '../kit.js';
import { EN } from '../i18n/index.js';
import { kvGroups, groupLabel, headShort } from '../render/geometry.js';
import { createSmallMultiples } from '../render/small-multiples.js';
import { roleKey } from '../sources/head-roles.js';
import { ROLE_NAME } from './model-readings.js';
import '../i18n/catalogs/en/model.js';  // the English words it speaks

/** Pixels of one small map's side. */
const SIDE = 84;

/**
 * @param {object} [i18n]  the element's language (ctx.i18n; default English)
 * @returns {{ element: HTMLElement, update(data, roles, readout, onLayer): void }}
 */
export function createModelOverview(i18n = EN) {
  const { t } = i18n;
  const grid = el('div', { className: 'mo-grid', dataset: { role: 'overview' } });
  let data = null, readout = null, onLayer = () => {}, layout = '';
  const multiples = createSmallMultiples({
    element: grid, headClass: 'mo-head', roleClass: 'mo-role',
    groupsOf: () => kvGroups(data.shape).map((group) => ({
      heads: group.heads,
      wrap: (cells) => el('figure', { className: 'mo-group', title: groupLabel(data.shape, group, i18n) }, ...cells),
    })),
    layerRow: (l, children) => el('div', { className: 'mo-layer', dataset: { layer: String(l) } },
      el('button', { type: 'button', className: 'mo-layer-name', title: t('mo.showLayer', { layer: l }), onclick: () => onLayer(l) }, `L${l}`),
      ...children),
    mapOptions: (l, h, roleOf) => {
      const { shape, tokens } = data;
      const title = `L${l} ${headShort(shape, h)}`;
      return {
        title, colour: 'prob', masked: 'causal', readout, cell: Math.max(1, Math.floor(SIDE / tokens.length)), className: 'mo-map', i18n,
        dataset: { layer: String(l), head: String(h) }, name: { view: 'model', layer: l, head: h },
        describe: ({ i, j }, v) => t(roleOf() ? 'mo.cellRole' : 'mo.cell', { title, role: roleOf(), i, q: tokens[i], j, k: tokens[j],
          value: j > i ? t('mo.masked') : v.toFixed(3) }),
        onSelect: () => onLayer(l),
      };
    },
  });

  return {
    element: grid,
    /**
     * @param {{ tokens: string[], shape: object, layers: number, attentions: Float32Array }} next  (layers, H, N, N)
     * @param {{ layer, head, previousToken, induction, firstToken, duplicateToken }[] | null} roles
     * @param {{ T: number } | null} probe  the probe the roles were measured on (T tokens, then the same T)
     */
    update(next, roles, readoutLine, onLayerPicked, probe = null) {
      data = next;
      readout = readoutLine;
      onLayer = onLayerPicked;
      const key = JSON.stringify([next.tokens, next.layers, next.shape.kvHeadOf]);
      if (key !== layout) {
        layout = key;
        multiples.build(next.layers);
      }
      const H = next.shape.nHeads;
      // a role only where its score clearly beats a uniform head's on the probe (roleKey, labs/role-baseline.js)
      multiples.draw(next.attentions, next.tokens.length, next.tokens,
        multiples.maps.map((_, k) => {
          const s = roles?.[k], key = s && s.layer * H + s.head === k ? roleKey(s, probe) : '';
          return key ? t(ROLE_NAME[key]) : '';
        }));
    },
  };
}
