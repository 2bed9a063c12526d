// compare.js — the same input through 2 or 3 attention variants, side by side: per column the
// variant (a select writes state.compare), its per-head maps on one shared 0..1 scale, its KV cache
// per token and its parameters, and how columns 2 and 3 differ from column 1 (parts/compare-column.js).
// The maps come from the view's source; a box above says what random weights can and cannot show,
// and lists the labs' trained models with their held-out scores (parts/compare-trained.js) and the
// zoo's trained variants measured over their seeds (parts/compare-zoo.js).
import compareCss from '../styles/compare.css?inline';
import { VARIANT_IDS, createLatest, el, setViewState, showCoreError, useStyles, variantLabel } from '../kit.js';
import { legend } from '../render/colour.js';
import { createReadout } from '../render/heatmap.js';
import { compareColumn, createHeadMaps } from '../parts/compare-column.js';
import { createTrainedBox } from '../parts/compare-trained.js';
import { createZooBox } from '../parts/compare-zoo.js';
import { shapeSpec } from '../state.js';
import '../i18n/catalogs/en/compare.js';  // the English words it speaks

/** state.compare ('mha,gqa,mla') -> 2 or 3 valid variants. */
export function parseCompare(text) {
  const list = String(text ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((v) => VARIANT_IDS.includes(v)).slice(0, 3);
  for (const v of ['mha', 'gqa', 'mla']) if (list.length < 2 && !list.includes(v)) list.push(v);
  return list;
}

/**
 * Makes `nodes` the children of `parent`, in order, without moving a node that stays (a column's maps:
 * moving their canvases would lay out and paint them again).
 */
function keepChildren(parent, nodes) {
  const wanted = new Set(nodes);
  for (const n of [...parent.childNodes]) if (!wanted.has(n)) n.remove();
  nodes.forEach((n, k) => { if (parent.childNodes[k] !== n) parent.insertBefore(n, parent.childNodes[k] ?? null); });
}

export function createCompareView(root, ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  useStyles(root, 'compare', compareCss);
  const latest = createLatest(root);
  const trained = createTrainedBox(ctx);
  const zoo = createZooBox(ctx);
  const note = el('p', 'cmp-note');
  const colButton = el('button', { type: 'button', className: 'cmp-colbutton', onclick: () => {
    if (variants.length < 3) setCompare([...variants, VARIANT_IDS.find((v) => !variants.includes(v)) ?? 'mqa']);
    else setCompare(variants.slice(0, 2));
  } });
  const status = el('span', { className: 'cmp-status note', role: 'status' });
  const readout = createReadout(t('cmp.hint'));
  const cols = el('div', 'cmp-cols');
  root.replaceChildren(trained.box, zoo.box, note, el('div', 'view-tools', legend('prob', [0, 1], t('cmp.legend')), colButton, status),
    readout, cols);
  let variants = [];
  let lastKey = '';
  const columns = [];  // { box, select, body, headMaps }: one persistent column per slot (its select keeps focus)
  const setCompare = (list) => ctx.setState({ compare: list.join(',') });

  function ensureColumns(n) {
    while (columns.length < n) {
      const idx = columns.length;
      const select = el('select', { className: 'cmp-select', dataset: { col: String(idx) }, onchange: () => {
        const list = variants.slice();
        list[idx] = select.value;
        setCompare(list);
      } }, ...VARIANT_IDS.map((v) => el('option', { value: v }, variantLabel(v, i18n))));
      const body = el('div', 'cmp-body');
      const box = el('section', 'cmp-col', el('label', 'cmp-pick', t('cmp.column', { n: idx + 1 }), ' ', select), body);
      cols.append(box);
      columns.push({ box, select, body, headMaps: createHeadMaps(i18n) });
    }
    while (columns.length > n) columns.pop().box.remove();
  }

  function describe(state, source, N) {
    trained.setRandom(source.id !== 'trained');
    const cut = source.note(state);
    if (source.id === 'trained') {
      note.textContent = [t('cmp.noteTrained', { count: N, source: source.title, table: t('cmp.zoo.table') }), cut].filter(Boolean).join(' ');
      return;
    }
    const mixed = state.rope && variants.includes('mla') && variants.some((v) => v !== 'mla');
    note.textContent = [t('cmp.noteSeeded', { count: N, seed: String(state.seed), source: source.title }),
      t(state.causal ? 'cmp.eachMapCausal' : 'cmp.eachMap'), mixed ? t('cmp.ropeMla') : '', cut].filter(Boolean).join(' ');
  }

  function recompute(state) {
    const source = ctx.sourceFor('compare', state);
    variants = parseCompare(state.compare);
    ensureColumns(variants.length);
    variants.forEach((v, i) => { columns[i].select.value = v; columns[i].box.dataset.variant = v; });
    colButton.textContent = t(variants.length < 3 ? 'cmp.addColumn' : 'cmp.removeColumn');
    colButton.dataset.action = variants.length < 3 ? 'add-column' : 'remove-column';
    const N = source.tokens(state).length;
    describe(state, source, N);
    if (N === 0) {
      latest.cancel();
      status.textContent = '';
      for (const c of columns) c.body.replaceChildren(el('p', 'cmp-empty', t('cmp.empty')));
      setViewState(root, 'ready', { variants, tokens: 0 });
      return;
    }
    status.textContent = t('cmp.computing');
    const list = variants.slice();
    latest.run(() => Promise.allSettled(list.map(async (v) => {
      const maps = await source.maps(state, { variant: v });
      // a trained model's own block (maps.paramSpec), else the state's shape for this variant
      return { maps, params: await ctx.client.call('paramCount', maps.paramSpec ?? shapeSpec(state, v)) };
    })), (results) => {
      status.textContent = '';
      list.forEach((v, i) => keepChildren(columns[i].body, compareColumn(i, results[i], results[0], readout, columns[i].headMaps, i18n)));
      const failed = results.filter((r) => r.status === 'rejected');
      ctx.reportError('compare', failed[0]?.reason ?? null);
      return { variants: list, tokens: N, failed: failed.length };
    }, (e) => { showCoreError(status, e, i18n); });
  }

  return {
    update(state) {
      trained.update();
      const key = JSON.stringify([ctx.sourceFor('compare', state).key(state, ''), state.compare]);
      if (key === lastKey) return;
      lastKey = key;
      recompute(state);
    },
    destroy() {
      latest.cancel();
      ctx.reportError('compare', null);
      root.replaceChildren();
    },
  };
}
