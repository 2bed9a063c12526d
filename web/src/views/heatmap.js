// heatmap.js — the attention view: one heatmap per head (query rows x key columns, tokens on both
// axes), query heads grouped by the K/V head they share, a viridis colour scale with a legend,
// hover/tap read-outs, and a selected query row compared across all heads.
import { tokenize, truncationNote } from '../tokens.js';
import { inputOf, shapeSpec } from '../state.js';
import { kvHeads } from '../shape-math.js';
import { createLegend, drawMiniHeatmap, viridis } from './mini-heatmap.js';
import { announce, createLatest, el, inPageWords, setViewState } from '../kit.js';

const LABEL_W = 64; // px for row labels

export function createHeatmapView(root, ctx) {
  const latest = createLatest(root);
  let last = null; // { state, tokens, weights: (H, N, N), H, N }
  root.innerHTML = `
    <div class="view-head">
      <p class="note" data-role="summary">Loading the WebAssembly core…</p>
      <div data-role="legend"></div>
    </div>
    <div class="heads" data-role="heads"></div>
    <div class="tooltip" data-role="tooltip" role="status" hidden></div>
    <section class="selected-query" data-role="selected" hidden></section>`;
  const $ = (r) => root.querySelector(`[data-role="${r}"]`);
  const tooltip = $('tooltip');

  function groupsOf(state, H) {
    if (last?.inspected) {  // a trained model: one group per layer, heads numbered within it
      const { layers, heads } = last.inspected;
      return Array.from({ length: layers }, (_, l) => ({
        label: `layer ${l + 1} of the trained model`,
        heads: Array.from({ length: heads }, (_, k) => l * heads + k),
      }));
    }
    // [{ label, heads: [h...] }]: query heads sharing a K/V head are drawn together.
    const v = state.variant;
    if (v === 'mla') return [{ label: `all ${H} heads read the shared latent c (rank ${state.latentRank})`, heads: [...Array(H).keys()] }];
    const G = kvHeads(v, state);
    const per = H / G;
    return Array.from({ length: G }, (_, g) => ({
      label: v === 'mha' ? `K/V head ${g}` : `K/V head ${g} · query heads ${g * per}–${(g + 1) * per - 1}`,
      heads: Array.from({ length: per }, (_, k) => g * per + k),
    }));
  }

  function cellSize(N) {
    const avail = Math.max(160, Math.min(root.clientWidth || 600, 900) - LABEL_W - 40);
    return Math.max(6, Math.min(28, Math.floor(Math.min(avail, 420) / N)));
  }

  // Rebuilding the DOM (labels of every head) is the slow part at large N: when only the weights
  // changed (same tokens, heads and grouping: seed, causal, RoPE, dModel...), redraw the canvases in place.
  let layoutKey = '';
  function render() {
    const { state, tokens, weights, H, N, vmax } = last;
    const cell = cellSize(N);
    const groups = groupsOf(state, H);
    const sel = state.sel === '' ? -1 : Number(state.sel);
    const key = JSON.stringify([tokens, cell, groups]);
    const masked = state.causal ? (i, j) => j > i : null;  // keys a query may not see: grey, not "0"
    const heads = $('heads');
    if (key !== layoutKey) {
      layoutKey = key;
      heads.replaceChildren();
      for (const group of groups) {
        const box = document.createElement('figure');
        box.className = 'kv-group';
        const cap = document.createElement('figcaption');
        cap.textContent = group.label;
        box.append(cap);
        const row = document.createElement('div');
        row.className = 'kv-group-heads';
        for (const h of group.heads) row.append(headFigure(h, tokens, N, cell));
        box.append(row);
        heads.append(box);
      }
    }
    for (const canvas of heads.querySelectorAll('canvas[data-head]')) {
      drawMiniHeatmap(canvas, weights, N, N, { offset: Number(canvas.dataset.head) * N * N, lo: 0, hi: vmax, masked });
      const mark = canvas.parentElement.querySelector('.row-mark');
      mark.hidden = !(sel >= 0 && sel < N);
      mark.style.top = `${Math.max(0, sel) * cell}px`;
    }
    $('legend').replaceChildren(createLegend('legend', 0, Number(vmax.toFixed(2)), 'attention weight (viridis)'));
    renderSelected(sel);
    root.dataset.heads = String(H);
    root.dataset.tokens = String(N);
    // For the page benchmark (scripts/bench-page.mjs): when the first maps of this page appeared.
    if (!performance.getEntriesByName('attention-playground:first-heatmap').length) {
      performance.mark('attention-playground:first-heatmap');
    }
  }

  function headFigure(h, tokens, N, cell) {
    const fig = document.createElement('div');
    fig.className = 'head';
    const title = document.createElement('div');
    title.className = 'head-title';
    title.textContent = headLabel(h);
    const grid = document.createElement('div');
    grid.className = 'head-grid';
    grid.style.gridTemplateColumns = `${LABEL_W}px ${N * cell}px`;
    const rowLabels = document.createElement('div');
    rowLabels.className = 'row-labels';
    rowLabels.style.fontSize = `${Math.min(12, cell * 0.8)}px`;
    tokens.forEach((t) => {
      const d = document.createElement('div');
      d.textContent = t;
      d.style.height = `${cell}px`;
      d.style.lineHeight = `${cell}px`;
      rowLabels.append(d);
    });
    // One canvas pixel per cell (ImageData), scaled up by CSS with crisp edges; the selected query
    // row is an outline drawn over it.
    const canvas = document.createElement('canvas');
    canvas.style.width = `${N * cell}px`;
    canvas.style.height = `${N * cell}px`;
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${headLabel(h)}: attention weights of ${N} queries over ${N} keys; arrow keys move, Enter selects the query`);
    canvas.dataset.head = String(h);
    const plot = document.createElement('div');
    plot.className = 'plot';
    const mark = document.createElement('div');  // outline of the selected query row
    mark.className = 'row-mark';
    mark.style.height = `${cell}px`;
    mark.hidden = true;
    plot.append(canvas, mark);
    const colLabels = document.createElement('div');
    colLabels.className = 'col-labels';
    colLabels.style.gridTemplateColumns = `repeat(${N}, ${cell}px)`;
    colLabels.style.fontSize = `${Math.min(12, cell * 0.8)}px`;
    tokens.forEach((t) => {
      const d = document.createElement('div');
      d.textContent = t;
      colLabels.append(d);
    });
    grid.append(rowLabels, plot, document.createElement('div'), colLabels);
    fig.append(title, grid);
    attachPointer(canvas, h, cell, N);
    return fig;
  }

  // "head 3", or "L2 H1" for a trained model's maps (index = layer * heads + head).
  function headLabel(h) {
    const m = last?.inspected;
    return m ? `L${Math.floor(h / m.heads) + 1} H${(h % m.heads) + 1}` : `head ${h}`;
  }

  function showTip(canvas, h, i, j) {
    const { tokens, weights, N } = last;
    const w = weights[h * N * N + i * N + j];
    tooltip.textContent = `${headLabel(h)} · query “${tokens[i]}” (${i}) → key “${tokens[j]}” (${j}): ${w.toFixed(3)}`;
    tooltip.hidden = false;
    announce(root, tooltip.textContent);
    const r = canvas.getBoundingClientRect(), base = root.getBoundingClientRect();
    tooltip.style.left = `${Math.max(0, r.left - base.left + (j + 1) * (r.width / N))}px`;
    tooltip.style.top = `${r.top - base.top + i * (r.height / N) - 28}px`;
  }

  function attachPointer(canvas, h, cell, N) {
    let cursor = [0, 0];
    const at = (e) => {
      const r = canvas.getBoundingClientRect();
      return [Math.floor((e.clientY - r.top) / (r.height / N)), Math.floor((e.clientX - r.left) / (r.width / N))];
    };
    const valid = ([i, j]) => i >= 0 && j >= 0 && i < N && j < N;
    canvas.addEventListener('pointermove', (e) => { const c = at(e); if (valid(c)) showTip(canvas, h, ...c); });
    canvas.addEventListener('pointerleave', () => { tooltip.hidden = true; });
    canvas.addEventListener('pointerdown', (e) => {  // tap (touch) or click: read out and select the query
      const c = at(e);
      if (!valid(c)) return;
      showTip(canvas, h, ...c);
      ctx.setState({ sel: String(c[0]) });
    });
    canvas.addEventListener('keydown', (e) => {
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (moves[e.key]) {
        e.preventDefault();
        cursor = [Math.min(N - 1, Math.max(0, cursor[0] + moves[e.key][0])), Math.min(N - 1, Math.max(0, cursor[1] + moves[e.key][1]))];
        showTip(canvas, h, ...cursor);
      } else if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        ctx.setState({ sel: String(cursor[0]) });
      } else if (e.key === 'Escape') {
        tooltip.hidden = true;
        ctx.setState({ sel: '' });
      }
    });
    canvas.addEventListener('blur', () => { tooltip.hidden = true; });
  }

  // The selected query across all heads: one row of weights per head.
  function renderSelected(sel) {
    const box = $('selected');
    const { tokens, weights, H, N, vmax } = last;
    if (sel < 0 || sel >= N) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    box.innerHTML = '';
    const h3 = document.createElement('h3');
    h3.textContent = `Query “${tokens[sel]}” (${sel}) in every head`;
    const clear = document.createElement('button');
    clear.type = 'button';
    clear.textContent = 'Clear selection';
    clear.addEventListener('click', () => ctx.setState({ sel: '' }));
    const table = document.createElement('table');
    table.className = 'selected-table';
    const head = table.insertRow();
    head.insertCell().textContent = 'head';
    tokens.forEach((t) => { const c = document.createElement('th'); c.textContent = t; head.append(c); });
    for (let h = 0; h < H; h++) {
      const tr = table.insertRow();
      tr.insertCell().textContent = String(h);
      for (let j = 0; j < N; j++) {
        const w = weights[h * N * N + sel * N + j];
        const td = tr.insertCell();
        td.textContent = w.toFixed(2);
        td.style.background = viridis(w, 0, vmax);
        td.style.color = w / vmax > 0.6 ? '#000' : '#fff';
      }
    }
    const scroll = document.createElement('div');
    scroll.className = 'scroll';
    scroll.tabIndex = 0;  // keyboard users can scroll it (axe: scrollable-region-focusable)
    scroll.setAttribute('role', 'region');
    scroll.setAttribute('aria-label', 'The selected query in every head');
    scroll.append(table);
    box.append(h3, scroll, clear);
  }

  // "Inspect this model": the maps of a model trained in the lab, on the lab's example tokens.
  function showTrained(state, model) {
    return latest.run(
      () => ctx.client.call('trainerAttention', model.key, model.tokens),  // weights: (layers, H, N, N)
      (att) => {
        let vmax = 0;
        for (const w of att.weights) vmax = Math.max(vmax, w);
        last = { state: { ...state, causal: true }, tokens: model.labels, weights: att.weights, H: att.layers * att.heads,
          N: att.n, vmax: vmax || 1, inspected: { layers: att.layers, heads: att.heads } };
        render();
        $('summary').textContent = `Trained model: ${model.title}. ${att.layers} layers × ${att.heads} heads on ${att.n} tokens ` +
          `(token ids). Rows are queries, columns keys (grey: masked). The controls above apply again after "Back to the random-weight model".`;
        const back = document.createElement('button');
        back.type = 'button';
        back.dataset.action = 'uninspect';
        back.textContent = 'Back to the random-weight model';
        back.addEventListener('click', () => ctx.inspectModel(null));
        $('summary').append(' ', back);
        return { heads: att.layers * att.heads, tokens: att.n, inspected: true };
      },
      (e) => { $('summary').textContent = `Cannot show the trained model: ${e.message}`; });
  }

  // The fields the maps are computed from: a change of anything else (e.g. the KV chart's data type)
  // does not recompute; a new selected row (sel) only redraws.
  const COMPUTE = ['text', 'variant', 'dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'rope', 'causal', 'seed'];
  let computedKey = '';
  return {
    update(state) {
      const model = ctx.inspected?.();
      if (model) { computedKey = ''; return showTrained(state, model); }
      const key = JSON.stringify(COMPUTE.map((f) => state[f]));
      if (key === computedKey && last && !last.inspected) {
        if (last.state.sel !== state.sel) {
          last.state = state;
          render();
        }
        return undefined;
      }
      computedKey = key;
      const tokens = tokenize(state.text);
      if (tokens.length === 0) {
        latest.cancel();
        $('summary').textContent = 'Type a sentence to see its attention maps.';
        $('heads').replaceChildren();
        layoutKey = '';
        setViewState(root, 'ready', { heads: 0, tokens: 0 });
        return undefined;
      }
      const cut = truncationNote(state.text);
      const N = tokens.length;
      const x = inputOf(state, tokens);
      const spec = { ...shapeSpec(state), seqLen: N, causal: state.causal, returnWeights: true, x };
      let t0 = 0;
      return latest.run(
        () => { t0 = performance.now(); return ctx.client.call('forward', spec); },
        (r) => {
          ctx.reportError('heatmap', null);
          const H = state.nHeads;
          let vmax = 0;
          for (const w of r.weights) vmax = Math.max(vmax, w);
          last = { state, tokens, weights: r.weights, H, N, vmax: vmax || 1, inspected: null };
          render();
          $('summary').textContent = `${N} tokens · ${H} query heads · ${state.variant !== 'mla' && state.rope ? 'RoPE' : 'sinusoidal positions'} · ` +
            `${state.causal ? 'causal' : 'bidirectional'} · computed in ${(performance.now() - t0).toFixed(1)} ms by the ` +
            `${ctx.info?.build === 'simd' ? 'WebAssembly SIMD' : 'WebAssembly scalar'} core. Rows are queries, columns keys${state.causal ? ' (grey: masked)' : ''}. Hover or tap a cell; click a row to compare heads.`;
          if (cut) $('summary').append(' ', el('strong', { dataset: { role: 'truncated' } }, cut));
          return { heads: H, tokens: N, truncated: Boolean(cut) };
        },
        (e) => {
          computedKey = '';
          ctx.reportError('heatmap', e);
          $('summary').textContent = `Cannot compute: ${inPageWords(e.message)}`;
          $('heads').replaceChildren();
          layoutKey = '';
        });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
