// induction-maps.js — the induction lab's attention maps: every head of the trained model on one
// example sequence, one row of maps per layer, each through the render layer's heatmap (cursor,
// read-out, Save figure) on one shared scale, with the head's role from its scores under it, in the
// element's language.
import { el } from '../kit.js';
import { legend } from '../render/colour.js';
import { saveControl } from '../render/save-control.js';
import { createReadout, fileName } from '../render/heatmap.js';
import { createSmallMultiples } from '../render/small-multiples.js';
import { roleOf } from './verdicts.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks: the maps' shared ones
import '../i18n/catalogs/en/lab-induction.js';  // and Lab 4's

/**
 * @param {object} i18n  the element's words (ctx.i18n)
 * @returns {{ element: HTMLElement, update(att, tokens, scores): void }}
 */
export function createInductionMaps(i18n) {
  const { t } = i18n;
  const caption = el('p', 'lab-maps-caption');
  const tools = el('div', 'view-tools');
  const readout = createReadout(t('labInd.mapsHint'));
  const grid = el('div', 'lab-map-grid');
  const element = el('div', { className: 'lab-maps', hidden: true }, caption, tools, readout, grid);
  let heads = 0, wide = false, tokens = [], layout = '';
  const multiples = createSmallMultiples({
    element: grid, headClass: 'lab-map', roleClass: 'lab-map-role', blank: '\u00a0',
    groupsOf: () => [{ heads: Array.from({ length: heads }, (_, h) => h) }],
    layerRow: (l, children) => el('div', 'lab-map-layer', ...children),
    mapOptions: (l, h, roleOfMap) => {
      const title = t('labInd.mapTitle', { layer: l, head: h });
      return {
        title, colour: 'prob', masked: 'causal', readout, save: true, maxWidth: wide ? 160 : 128, i18n,
        dataset: { layer: String(l), head: String(h) }, name: { view: 'lab-induction', layer: l, head: h }, legendLabel: t('maps.weight'),
        describe: ({ i, j }, v) => {
          const words = { title, role: roleOfMap(), i, q: tokens[i], j, k: tokens[j], value: j > i ? t('maps.masked') : v.toFixed(3) };
          return t(words.role ? 'labInd.cellRole' : 'labInd.cell', words);
        },
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
      const roles = multiples.maps.map((_, k) => roleOf(scores.find((s) => s.layer * att.heads + s.head === k) ?? {}, i18n));
      const range = multiples.draw(att.weights, att.n, tokens, roles);
      tools.replaceChildren(legend('prob', range, t('maps.weight')),
        saveControl(() => multiples.maps.map((m) => m.figure()), () => fileName({ view: 'lab-induction', head: 'all' }),
          { text: t('labInd.saveAll'), label: t('maps.weight'), i18n }));
      caption.textContent = t('labInd.mapsCaption', { half: seq.length / 2, tokens: seq.join(' ') });
      element.hidden = false;
    },
  };
}
