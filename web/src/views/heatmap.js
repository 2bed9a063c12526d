// heatmap.js — attention maps, one per head (query rows × key columns, tokens on both axes), query
// heads grouped by the K/V head they read, on one shared scale; a selected query row compared across
// all heads. The maps come from the view's source (sources/: seeded random weights, a trained model),
// one layer at a time; every group and label is read off the core's shape (render/geometry.js).
import { buildName, createLatest, el, inPageWords, setViewState } from '../kit.js';
import { legend } from '../render/colour.js';
import { saveControl } from '../render/save-control.js';
import { kvGroups, groupLabel, headLabel } from '../render/geometry.js';
import { createHeatmap, createReadout, fileName, groupMaps } from '../render/heatmap.js';
import { queryRows } from '../render/query-rows.js';

const HINT = 'Hover or tap a cell, or focus a map and use the arrow keys; Enter or a click selects the query row.';

export function createHeatmapView(root, ctx) {
  const latest = createLatest(root);
  const summary = el('p', { className: 'note', dataset: { role: 'summary' } }, 'Loading the WebAssembly core…');
  const tools = el('div', 'view-tools');
  const readout = createReadout(HINT);
  const heads = el('div', { className: 'heads', dataset: { role: 'heads' } });
  const selected = el('div');
  root.replaceChildren(summary, tools, readout, heads, selected);
  let last = null;    // { key, source, data: { tokens, shape, weights, layer, layers, ... }, range, maps, layout }

  const name = (h) => ({ view: 'attention', variant: last.data.shape.variant, layer: last.data.layer, head: h });

  function drawMaps(state) {
    const { data } = last;
    const { tokens, shape, weights } = data;
    const N = tokens.length;
    const layout = JSON.stringify([tokens, shape.kvHeadOf, data.causal, root.clientWidth > 700]);
    if (layout !== last.layout) {
      last.layout = layout;
      last.maps = [];
      heads.replaceChildren(...kvGroups(shape).map((group) => el('figure', 'kv-group',
        el('figcaption', null, groupLabel(shape, group)),
        el('div', 'kv-group-heads', ...group.heads.map((h) => {
          const map = createHeatmap({
            title: headLabel(shape, h), colour: 'prob', masked: data.causal ? 'causal' : null, readout, save: true,
            maxWidth: root.clientWidth > 700 ? 420 : Math.max(160, root.clientWidth - 90), dataset: { head: String(h) },
            name: name(h), legendLabel: 'attention weight',
            describe: ({ i, j }, v) => `${headLabel(shape, h)} · query “${tokens[i]}” (${i}) → key “${tokens[j]}” (${j}): ` +
              (data.causal && j > i ? 'masked (a later token)' : v.toFixed(3)),
            onSelect: (row) => ctx.setState({ sel: row == null ? '' : String(row) }),
          });
          last.maps[h] = map;
          return map.element;
        })))));
      groupMaps(last.maps);
    }
    const sel = state.sel === '' ? -1 : Number(state.sel);
    last.maps.forEach((map, h) => {
      map.update({ data: weights, offset: h * N * N, rows: N, cols: N, rowLabels: tokens, colLabels: tokens, range: last.range });
      map.select(sel);
    });
    tools.replaceChildren(...layerPicker(data), legend('prob', last.range, 'attention weight'),
      saveControl(() => last.maps.map((m) => m.figure()), () => fileName({ ...name(null), head: 'all' }),
        { text: 'Save all heads', label: 'attention weight' }));
    selected.replaceChildren(sel >= 0 && sel < N ? queryRows({ weights, tokens, shape, row: sel, range: last.range, readout,
      headLabel: (h) => headLabel(shape, h), onClear: () => ctx.setState({ sel: '' }) }) : '');
    root.dataset.heads = String(shape.nHeads);
    root.dataset.tokens = String(N);
    if (!performance.getEntriesByName('attention-playground:first-heatmap').length) {
      performance.mark('attention-playground:first-heatmap');  // for npm run bench:page
    }
  }

  /** A layer picker where the source has several layers (state.layer). */
  function layerPicker(data) {
    if (data.layers <= 1) return [];
    const id = `${root.dataset.slot}-layer-${Math.random().toString(36).slice(2, 7)}`;
    const select = el('select', { id, name: 'layer', onchange: () => ctx.setState({ layer: Number(select.value) }) },
      ...Array.from({ length: data.layers }, (_, l) => el('option', { value: String(l) }, `layer ${l}`)));
    select.value = String(data.layer);
    return [el('label', { for: id }, 'Layer '), select];
  }

  function describe(data, source, ms) {
    const s = data.shape;
    const layer = data.layers > 1 ? ` · layer ${data.layer} of ${data.layers}` : '';
    return `${data.tokens.length} tokens · ${s.nHeads} query heads · ${source.title}${layer} · ` +
      `${data.causal ? 'causal' : 'bidirectional'} · computed in ${ms.toFixed(1)} ms by the ` +
      `${buildName(ctx.info?.build)} core. ` +
      `Rows are queries, columns keys${data.causal ? ' (grey: masked)' : ''}.`;
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
        summary.textContent = 'Type a sentence to see its attention maps.';
        heads.replaceChildren();
        selected.replaceChildren();
        setViewState(root, 'ready', { heads: 0, tokens: 0 });
        return undefined;
      }
      const t0 = performance.now();
      return latest.run(() => source.maps(state, { layer: state.layer }), (data) => {
        ctx.reportError('heatmap', null);
        let hi = 0;
        for (const w of data.weights) hi = Math.max(hi, w);
        last = { key, source, data, range: [0, hi || 1], layout: '', maps: [] };
        drawMaps(state);
        summary.replaceChildren(describe(data, source, performance.now() - t0), ...source.extras?.(data, ctx) ?? []);
        const cut = source.note(state);
        if (cut) summary.append(' ', el('strong', { dataset: { role: 'truncated' } }, cut));
        return { heads: data.shape.nHeads, tokens: data.tokens.length, layer: data.layer, source: source.id, truncated: Boolean(cut) };
      }, (e) => {
        last = null;
        ctx.reportError('heatmap', e);
        summary.textContent = `Cannot compute: ${inPageWords(e.message)}`;
        heads.replaceChildren();
        selected.replaceChildren();
      });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
