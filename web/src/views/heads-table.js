// heads-table.js — the lesson's rule of thumb for heads (125M, 350M, 1B, 70B: d_model, n_heads, d_head,
// KV heads) next to real models, each row with its KV cache per token and a "Load shape" button.
// Data: the core's size table (sizeTable(): the same table the configurator uses), its recommend() for
// the KV heads of a lesson row, its presets() for the real models, and kvCacheBytes for every cache figure
// (parts/heads-rows.js).
// "Load shape" loads the row's own H and G into the attention maps (parts/playground-shape.js says
// what it scales and why). The lesson's rules for d_head (64 or 128; below 32 the heads fight the
// sqrt(d_head) scale; above 256 the "many small specialists" gain fades) mark the rows that break them,
// the page's current shape among them (its first row, under the opened checkpoint's when one is open).
const sizeWords = (p) => (p >= 1e9 ? `~${p / 1e9}B` : `~${p / 1e6}M`);

import headsCss from '../styles/heads-table.css?inline';
import modelCss from '../styles/model.css?inline';
import { createLatest, el, showCoreError, useStyles, variantName } from '../kit.js';
import { playgroundShape, scaledNote } from '../parts/playground-shape.js';
import { scrollRegion } from '../render/scroll-region.js';
import { shapeKeyOf } from '../state.js';
import { BYTES, currentRow, dHeadRule, loadRows, modelRow } from '../parts/heads-rows.js';
import '../i18n/catalogs/en/heads.js';  // the English words it speaks

const COLUMNS = ['heads.col.model', 'd_model', 'n_heads', 'd_head', 'heads.col.kvHeads', 'heads.col.layers', 'heads.col.cache', 'heads.col.load'];

let uid = 0;

export function createHeadsTableView(root, ctx) {
  useStyles(root, 'heads-table', headsCss);
  const { i18n } = ctx;
  const { t, fmt } = i18n;
  const latest = createLatest(root);
  let rows = null, shapeKey = '', shownModel = null;
  const status = el('p', { className: 'note', dataset: { role: 'status' }, 'aria-live': 'polite' });
  // The opened checkpoint's and the page's own rows change with the page; the others are drawn once (so a
  // "Load shape" button keeps its focus when the page's shape changes under it).
  const own = el('tbody', { dataset: { role: 'own-rows' } });
  const body = el('tbody', { dataset: { role: 'rows' } });
  // What the cache column counts: above the table, not its caption (a caption is as wide as the table and scrolls with it).
  const what = el('p', { className: 'note', id: `heads-table-${++uid}` }, t('heads.what', { bytes: BYTES }));
  const table = el('table', { className: 'heads-table', 'aria-describedby': what.id },
    el('thead', null, el('tr', null, ...COLUMNS.map((h) => el('th', { scope: 'col' }, h.startsWith('heads.') ? t(h) : h)))), own, body);
  root.replaceChildren(
    el('p', { className: 'note' }, t('heads.intro')),
    el('ul', { className: 'note dhead-rules', dataset: { role: 'rules' } },
      el('li', null, t('heads.rules.usual')), el('li', null, t('heads.rules.low')), el('li', null, t('heads.rules.high'))),
    what, scrollRegion(t('heads.tableLabel'), table, '', i18n), status);

  const nameOf = (r) => (r.current ? t('heads.currentRow') : r.lesson
    ? t('heads.lessonRow', { size: i18n.has(`heads.size.${r.size}`) ? t(`heads.size.${r.size}`) : r.size, params: sizeWords(r.params ?? 0) })
    : r.name);

  async function load(r) {
    const name = nameOf(r);
    try {
      const { patch, notes, what: shape } = await playgroundShape(ctx.client, r, i18n);
      const note = scaledNote(notes, i18n);
      const done = ctx.openPlayground(patch, { note: `${name}: ${shape}. ${note}`.trim() });
      status.textContent = t(done === 'applied' ? 'heads.loaded' : done === 'opened' ? 'heads.opened' : 'heads.notLinked', { name, shape, note }).trim();
    } catch (e) {
      showCoreError(status, e, i18n).prepend(t('heads.cannotLoad', { name }), ' ');
    }
  }

  /** The d_head cell: the width, and the rule it follows or breaks. */
  const dHeadCell = (dh) => {
    const rule = dHeadRule(dh);
    return el('td', { dataset: { rule } }, fmt.int(dh), el('small', null, t(`heads.rule.${rule}`)));
  };

  function row(r) {
    const kv = r.variant === 'mla' ? t('heads.latent', { r: r.latentRank, dr: r.ropeDim }) : fmt.int(r.nKvHeads);
    const name = nameOf(r);
    const button = r.opened ? t('heads.openInPage') : r.current ? null : el('button', { type: 'button', dataset: { action: 'load-shape', row: r.id },
      'aria-label': t('heads.loadLabel', { name }), onclick: () => load(r) }, t('heads.load'));
    const sub = r.current ? `${variantName(r.variant)} · ${t('heads.currentNote')}`
      : r.lesson ? t('heads.ruleOfThumb', { size: sizeWords(r.params ?? 0) })
      : r.opened ? `${variantName(r.variant)} · ${t('heads.openedSource', { type: r.opened.info.modelType, bits: r.opened.dtypeBytes * 8,
        bytes: fmt.binary(r.opened.info.kvBytesPerToken) })}` : null;
    const broken = ['low', 'high'].includes(dHeadRule(r.dHead));
    const kind = r.lesson ? 'lesson-row' : r.current ? 'current-row' : r.opened ? 'opened-row' : '';
    return el('tr', { className: [kind, broken ? 'rule-broken' : ''].join(' ').trim() || null, dataset: { row: r.id } },
      // A real model's name and its source are the core's data (English citations), a checkpoint's name its file's: marked so.
      el('th', { scope: 'row' }, r.lesson || r.current ? name : r.opened ? t('heads.openedRow', { name }) : el('span', { lang: 'en', dataset: { text: 'data' } }, name),
        el('small', null, sub ?? [`${variantName(r.variant)} · `, el('span', { lang: 'en', dataset: { text: 'data' } }, r.source ?? '')])),
      el('td', null, fmt.int(r.dModel)), el('td', null, fmt.int(r.nHeads)), dHeadCell(r.dHead),
      el('td', null, `${kv}${r.lesson ? ` (${variantName(r.variant)})` : ''}`), el('td', null, fmt.int(r.nLayers)),
      el('td', null, fmt.binary(r.kvBytes)), el('td', null, button));
  }

  return {
    update(state) {
      const model = ctx.model?.()?.opened ?? null;
      if (model) useStyles(root, 'model', modelCss);
      const key = JSON.stringify([shapeKeyOf(state), state.nLayers]);
      if (rows && key === shapeKey && model === shownModel) return undefined;
      shapeKey = key;
      shownModel = model;
      return latest.run(async () => {
        if (!rows) {
          rows = await loadRows(ctx.client);
          body.replaceChildren(...rows.map(row));
        }
        const [opened, current] = await Promise.all([model && modelRow(ctx.client, model),
          currentRow(ctx.client, state).catch(() => null)]);  // a refused shape: the form says why
        return [opened, current].filter(Boolean);
      }, (mine) => {
        own.replaceChildren(...mine.map(row));
        const all = [...mine, ...rows];
        return { rows: rows.length, lessonRows: rows.filter((x) => x.lesson).length, opened: model ? t('heads.openedRow', { name: model.name }) : null,
          broken: all.filter((x) => ['low', 'high'].includes(dHeadRule(x.dHead))).map((x) => x.id) };
      }, (e) => { showCoreError(status, e, i18n).prepend(t('heads.cannotLoadTable'), ' '); });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
