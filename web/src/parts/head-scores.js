// head-scores.js — a trained model's head scores as a table under its maps (the zoo's, measured by the
// core when it was trained: trainer.headScores, docs/api.md): one row per layer and head, the four
// scores, the highest of each column marked, the drawn layer's rows highlighted, and a button per
// layer that draws it. What the scores mean is said once, with what a head spreading its weight
// evenly would score, so that a small number is not read as a role.
import { el } from '../kit.js';
import { scrollRegion } from '../render/scroll-region.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

const COLUMNS = [['previousToken', 'scores.previous'], ['diagonal', 'scores.self'], ['firstToken', 'scores.first'],
  ['induction', 'scores.induction']];

/** The mean of 1/(i+1) over queries i = 1 … n-1: a uniform causal head's score on one fixed key per query. */
export const uniformScore = (n) => {
  let s = 0;
  for (let i = 1; i < n; i++) s += 1 / (i + 1);
  return s / (n - 1);
};

/**
 * @param {{ layer: number, head: number, previousToken: number, diagonal: number, firstToken: number, induction: number }[]} scores
 * @param {{ layer: number, seqLen: number, onLayer: (layer: number) => void, i18n: object }} o
 * @returns {HTMLElement}
 */
export function headScoresTable(scores, { layer, seqLen, onLayer, i18n }) {
  const { t } = i18n;
  const best = Object.fromEntries(COLUMNS.map(([k]) => [k, Math.max(...scores.map((s) => s[k]))]));
  const cell = (s, k) => el('td', null, s[k] === best[k] ? el('strong', null, s[k].toFixed(2)) : s[k].toFixed(2));
  const table = el('table', { className: 'head-scores', dataset: { role: 'head-scores' } },
    el('caption', null, t('scores.caption', { uniform: uniformScore(seqLen).toFixed(2), n: seqLen })),
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, t('scores.layer')), el('th', { scope: 'col' }, t('scores.head')),
      ...COLUMNS.map(([, key]) => el('th', { scope: 'col' }, t(key))))),
    el('tbody', null, ...scores.map((s) => el('tr', { className: s.layer === layer ? 'current' : '', dataset: { layer: String(s.layer), head: String(s.head) } },
      el('td', null, s.head === 0 && s.layer !== layer
        ? el('button', { type: 'button', dataset: { action: 'show-layer' }, onclick: () => onLayer(s.layer) }, t('scores.showLayer', { layer: s.layer }))
        : String(s.layer)),
      el('th', { scope: 'row' }, String(s.head)), ...COLUMNS.map(([k]) => cell(s, k))))));
  return el('details', { className: 'head-scores-box', dataset: { role: 'head-scores-box' } },
    el('summary', null, t('scores.summary', { count: scores.length })), scrollRegion(t('scores.summary', { count: scores.length }), table, '', i18n));
}
