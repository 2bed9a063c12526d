// heatmap.js — attention maps, one per head (query rows × key columns, tokens on both axes), query
// heads grouped by the K/V head they read, on one shared scale; a selected query row compared across
// all heads. The maps come from the view's source (sources/: seeded random weights, a trained model),
// one layer at a time; every group and label is read off the core's shape (render/geometry.js).
import { buildName, coreDetail, createLatest, el, setViewState } from '../kit.js';
import { legend } from '../render/colour.js';
import { saveControl } from '../render/save-control.js';
import { kvGroups, groupLabel, headLabel } from '../render/geometry.js';
import { createHeatmap, createReadout, fileName, groupMaps } from '../render/heatmap.js';
import { queryRows } from '../render/query-rows.js';
import { headScoresTable } from '../parts/head-scores.js';
import { headTypesBox } from '../parts/head-types-box.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

export function createHeatmapView(root, ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  const latest = createLatest(root);
  const summary = el('p', { className: 'note', dataset: { role: 'summary' } }, t('maps.loading'));
  const tools = el('div', 'view-tools');
  const readout = createReadout(t('maps.hint'));
  const heads = el('div', { className: 'heads', dataset: { role: 'heads' } });
  const selected = el('div');
  const scoresBox = el('div');  // a trained model's head scores (parts/head-scores.js)
  let openScores = false;       // the head types' "scores of the trained models": open the table once drawn
  const openScoresFor = (target) => {
    if (!target.scores) return;
    const box = scoresBox.querySelector('details');
    if (box) box.open = true;
    else openScores = true;
  };
  const types = headTypesBox(ctx, root, openScoresFor);  // the lesson's head types, where the page shows a real one
  root.replaceChildren(summary, tools, readout, heads, selected, scoresBox, types);
  let last = null;    // { key, source, data: { tokens, shape, weights, layer, layers, ... }, range, maps, layout, matrix, fit }
  let fitMaps = null;  // render/map-fit.js, once a source with long inputs asked for it

  const name = (h) => ({ view: 'attention', variant: last.data.shape.variant, layer: last.data.layer, head: h });

  function drawMaps(state) {
    const { data } = last;
    const { tokens, shape, weights } = data;
    const N = tokens.length;
    // What the maps' DOM, titles, read-outs and file names depend on; new weights alone (a seed) redraw the same maps.
    const layout = JSON.stringify([tokens, shape.variant, shape.kvHeadOf, data.causal, data.layer, data.layers, data.roles, root.clientWidth > 700]);
    // A trained model's heads carry their measured role (data.roles[h], sources/zoo.js).
    const title = (h) => (data.roles?.[h] ? `${headLabel(shape, h, i18n)} · ${data.roles[h]}` : headLabel(shape, h, i18n));
    if (layout !== last.layout) {
      last.layout = layout;
      last.maps = [];
      const usual = root.clientWidth > 700 ? 420 : Math.max(160, root.clientWidth - 90);
      // Long inputs (a trained or opened model): small maps that fit one screen, each opening large (render/map-fit.js).
      last.fit = fitMaps?.(root, heads, N, shape.nHeads, usual, (h) => ({ ...last.matrix, offset: h * N * N }), i18n);
      heads.replaceChildren(...kvGroups(shape).map((group) => el('figure', 'kv-group',
        el('figcaption', null, groupLabel(shape, group, i18n)),
        el('div', 'kv-group-heads', ...group.heads.map((h) => {
          const options = {
            title: title(h), colour: 'prob', masked: data.causal ? 'causal' : null, readout, save: true, i18n,
            maxWidth: usual, dataset: { head: String(h) },
            name: name(h), legendLabel: t('maps.weight'),
            describe: ({ i, j }, v) => t('maps.cell', { head: headLabel(shape, h, i18n), q: tokens[i], i, k: tokens[j], j,
              value: data.causal && j > i ? t('maps.masked') : v.toFixed(3) }),
            onSelect: (row) => ctx.setState({ sel: row == null ? '' : String(row) }),
          };
          const map = createHeatmap(last.fit ? last.fit(options, h) : options);
          last.maps[h] = map;
          return map.element;
        })))));
      groupMaps(last.maps);
    }
    const sel = state.sel === '' ? -1 : Number(state.sel);
    last.matrix = { data: weights, rows: N, cols: N, rowLabels: tokens, colLabels: tokens, range: last.range };
    last.maps.forEach((map, h) => {
      map.update({ ...last.matrix, offset: h * N * N });
      map.select(sel);
    });
    last.fit?.update(sel);
    tools.replaceChildren(...layerPicker(data), legend('prob', last.range, t('maps.weight')),
      saveControl(() => last.maps.map((m) => m.figure()), () => fileName({ ...name(null), head: 'all' }),
        { text: t('maps.saveAll'), label: t('maps.weight'), i18n }));
    selected.replaceChildren(sel >= 0 && sel < N ? queryRows({ weights, tokens, shape, row: sel, range: last.range, readout,
      headLabel: (h) => headLabel(shape, h, i18n), onClear: () => ctx.setState({ sel: '' }), i18n }) : '');
    root.dataset.heads = String(shape.nHeads);
    root.dataset.tokens = String(N);
    if (!performance.getEntriesByName('attention-playground:first-heatmap').length) {
      performance.mark('attention-playground:first-heatmap');  // for npm run bench:page
    }
  }

  /** The head scores of a trained model under its maps (kept open across redraws), after its notes (how it was trained, which scores reach what). */
  function drawScores(data) {
    if (!data.headScores) return scoresBox.replaceChildren();
    const open = scoresBox.querySelector('details')?.open ?? false;
    const box = headScoresTable(data.headScores, { layer: data.layer, seqLen: data.seqLen, i18n,
      onLayer: (layer) => ctx.setState({ layer }) });
    box.open = open || openScores;
    openScores = false;
    return scoresBox.replaceChildren(...(data.scoresNotes ?? []).map((n) => el('p', { className: 'note', dataset: { role: 'zoo-note' } }, n)), box);
  }

  /** A layer picker where the source has several layers (state.layer). */
  function layerPicker(data) {
    if (data.layers <= 1) return [];
    const id = `${root.dataset.slot}-layer-${Math.random().toString(36).slice(2, 7)}`;
    const select = el('select', { id, name: 'layer', onchange: () => ctx.setState({ layer: Number(select.value) }) },
      ...Array.from({ length: data.layers }, (_, l) => el('option', { value: String(l) }, t('maps.layerOption', { layer: l }))));
    select.value = String(data.layer);
    return [el('label', { for: id }, t('maps.layer'), ' '), select];
  }

  /** "6 tokens · 8 query heads · seeded random weights · causal · computed in 1.2 ms by the … core. Rows are …" */
  function describe(data, source, ms) {
    const n = data.tokens.length, H = data.shape.nHeads;
    return [t('maps.tokens', { count: n }), t('maps.queryHeads', { count: H }), source.title,
      data.layers > 1 ? t('maps.layerOf', { layer: data.layer, layers: data.layers }) : null, t(data.causal ? 'maps.causal' : 'maps.bidirectional'),
      `${t('maps.computed', { ms: ms.toFixed(1), build: buildName(ctx.info?.build, i18n) })} ${t(data.causal ? 'maps.axesMasked' : 'maps.axes')}`]
      .filter(Boolean).join(' · ');
  }

  return {
    update(state) {
      const source = ctx.sourceFor('heatmap', state);
      const key = source.key(state);
      if (last && last.key === key && last.source === source) {  // only the selected row may have changed
        drawMaps(state);
        return undefined;
      }
      if (source.tokens(state).length === 0) {
        latest.cancel();
        last = null;
        summary.textContent = t('maps.typeSentence');
        heads.replaceChildren();
        selected.replaceChildren();
        scoresBox.replaceChildren();
        setViewState(root, 'ready', { heads: 0, tokens: 0 });
        return undefined;
      }
      const t0 = performance.now();
      return latest.run(() => Promise.all([source.maps(state, { layer: state.layer }),
        source.id !== 'seeded' && import('../render/map-fit.js')]), ([data, fitting]) => {
        ctx.reportError('heatmap', null);
        let hi = 0;
        for (const w of data.weights) hi = Math.max(hi, w);
        const kept = last?.source === source ? last : null;  // the same maps, when the new data has their layout
        last = { key, source, data, range: [0, hi || 1], layout: kept?.layout ?? '', maps: kept?.maps ?? [], fit: kept?.fit };
        fitMaps ??= fitting?.fitMaps;
        drawMaps(state);
        summary.replaceChildren(describe(data, source, performance.now() - t0), ...source.extras?.(data, ctx) ?? []);
        const cut = source.note(state);
        if (cut) summary.append(' ', el('strong', { dataset: { role: 'truncated' } }, cut));
        // The lesson's "heads specialise", on weights that learned something: one click to the zoo's model.
        if (source.id === 'seeded') {
          summary.append(' ', el('button', { type: 'button', dataset: { action: 'see-trained' }, onclick: () => ctx.setState({ source: 'trained', layer: 0 }) },
            t('maps.seeTrained')));
        }
        drawScores(data);
        return { heads: data.shape.nHeads, tokens: data.tokens.length, layer: data.layer, source: source.id, truncated: Boolean(cut),
          smallMaps: last.fit?.cell ?? 0 };
      }, (e) => {
        last = null;
        ctx.reportError('heatmap', e);
        summary.replaceChildren(t('maps.cannot'), ' ', coreDetail(e.message, i18n));
        heads.replaceChildren();
        selected.replaceChildren();
        scoresBox.replaceChildren();
      });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
