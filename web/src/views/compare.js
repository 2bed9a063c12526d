// compare.js — the same input through 2 or 3 attention variants, side by side.
//
// Per column: the variant (a select writes state.compare), its per-head attention heatmaps on one
// shared 0..1 viridis scale, its KV cache per token per layer (float32) and its parameter count.
// Columns 2 and 3 are also compared against column 1: output difference, per-head attention
// difference and the cache-size ratio.
import { tokenize } from '../tokens.js';
import { inputOf, shapeSpec, kvHeadsOf, dHeadOf } from '../state.js';
import { drawMiniHeatmap, createMiniCanvas, cellAt, createLegend } from './mini-heatmap.js';
import { VARIANT_IDS as VARIANTS, announce, createLatest, el, plural, setViewState, variantLabel, variantName } from '../kit.js';
import { truncationNote } from '../tokens.js';
import { cacheElementsPerToken } from '../shape-math.js';
import { createTrainedBox } from './compare-trained.js';

const NAME = Object.fromEntries(VARIANTS.map((v) => [v, variantName(v)]));
// State fields this view reads: anything else changing does not recompute.
const FIELDS = ['text', 'dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'rope',
  'causal', 'seed', 'compare'];

const fmt = (n) => Number(n).toLocaleString('en-US');
const num = (v, digits = 3) => (Number.isFinite(v) ? (Math.abs(v) >= 1000 ? fmt(Math.round(v)) : v.toPrecision(digits)) : '–');
const ratioText = (r) => (Number.isInteger(r) ? String(r) : r.toFixed(2).replace(/0+$/, '').replace(/\.$/, ''));

/** state.compare ('mha,gqa,mla') -> 2 or 3 valid variants. */
export function parseCompare(text) {
  const list = String(text ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((v) => VARIANTS.includes(v)).slice(0, 3);
  for (const v of ['mha', 'gqa', 'mla']) if (list.length < 2 && !list.includes(v)) list.push(v);
  return list;
}

/** KV cache per token per layer (elements at float32) and how it is made up. */
export function cachePerToken(state, v) {
  if (v === 'mla') {
    const r = state.latentRank, dr = state.ropeDim || 0;
    return { elems: cacheElementsPerToken(v, state), formula: `r + dr = ${r} + ${dr}`, what: 'latent c + RoPE key kr' };
  }
  const G = kvHeadsOf(state, v), dh = dHeadOf(state);
  return { elems: cacheElementsPerToken(v, state), formula: `2 · G · dh = 2 · ${G} · ${dh}`, what: `K and V of ${plural(G, 'KV head')}` };
}

/** Input rows for a variant: RoPE variants get positions inside attention, the others added to x. */
function inputFor(state, v, tokens) {
  try {
    return inputOf(state, tokens, v);  // MLA keeps sinusoidal positions: its decoupled RoPE covers them only partly
  } catch {
    return new Float32Array(0); // a bad dModel: let the core name the field
  }
}

/** A <dt>/<dd> pair appended to a <dl> (compact defaults; styles.css may refine .cmp-facts). */
function addFact(dl, term, desc, cls) {
  const dt = el('dt', null, term);
  dt.style.fontWeight = '600';
  const dd = typeof desc === 'string' ? el('dd', cls ?? null, desc) : desc;
  dd.style.margin = '0 0 .35rem .8rem';
  dl.append(dt, dd);
}


export function createCompareView(root, ctx) {
  root.classList.add('cmp');
  root.innerHTML = '';

  const note = el('p', 'cmp-note');
  const toolbar = el('div', 'cmp-toolbar');
  toolbar.style.cssText = 'display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin:.5rem 0';
  const legend = createLegend('cmp-legend', 0, 1, 'Attention weight (all columns)');
  const colButton = el('button', 'cmp-colbutton');
  colButton.type = 'button';
  const status = el('span', 'cmp-status');
  status.setAttribute('role', 'status');
  status.style.color = 'var(--muted)';
  toolbar.append(legend, colButton, status);
  const cols = el('div', 'cmp-cols');
  cols.style.cssText = 'display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start';
  const trained = createTrainedBox(ctx);
  root.append(trained.box, note, toolbar, cols);

  let state = null;
  let lastKey = '';
  const latest = createLatest(root); // late answers of earlier states are dropped
  let variants = [];
  /** @type {{ box: HTMLElement, select: HTMLSelectElement, body: HTMLElement }[]} */
  const columns = [];

  const setCompare = (list) => ctx.setState({ compare: list.join(',') });

  colButton.addEventListener('click', () => {
    if (variants.length < 3) setCompare([...variants, VARIANTS.find((v) => !variants.includes(v)) ?? 'mqa']);
    else setCompare(variants.slice(0, 2));
  });

  // One persistent column per variant slot (the select keeps focus across recomputes).
  function ensureColumns(n) {
    while (columns.length < n) {
      const idx = columns.length;
      const box = el('section', 'cmp-col');
      box.style.cssText = 'flex:1 1 16rem;min-width:0;border:1px solid var(--border);border-radius:6px;padding:.6rem';
      const label = el('label', 'cmp-pick', `Column ${idx + 1} `);
      const select = el('select', 'cmp-select');
      select.dataset.col = String(idx);
      for (const v of VARIANTS) {
        const o = el('option', null, variantLabel(v));
        o.value = v;
        select.append(o);
      }
      select.addEventListener('change', () => {
        const list = variants.slice();
        list[idx] = select.value;
        setCompare(list);
      });
      label.append(select);
      const body = el('div', 'cmp-body');
      box.append(label, body);
      cols.append(box);
      columns.push({ box, select, body });
    }
    while (columns.length > n) columns.pop().box.remove();
  }

  function renderNote(tokens) {
    const parts = [
      `Same input (${tokens.length} token${tokens.length === 1 ? '' : 's'}) and same seed (${state.seed}) in every column. ` +
      'Weights are drawn per matrix from the seed, so all variants share the query and output projections ' +
      '(wq, wo), and GQA/MQA keys and values are the first G·dh columns of MHA\'s wk/wv: differences come from the variant. ' +
      'Each heatmap: rows are queries, columns are keys' + (state.causal ? ' (grey: masked by causality)' : '') + '.',
    ];
    if (state.rope && variants.includes('mla') && variants.some((v) => v !== 'mla')) {
      parts.push('With RoPE on, MHA/MQA/GQA get positions inside attention while MLA\'s input keeps sinusoidal positions, so MLA also sees a different x.');
    }
    note.textContent = parts.join(' ');
  }

  // ---- one column's result --------------------------------------------------------------
  function renderColumn(col, idx, v, res, ref, tokens) {
    const { body } = col;
    body.innerHTML = '';
    col.box.dataset.variant = v;
    if (res.status === 'rejected') {
      const p = el('p', 'cmp-error error', res.reason?.message ?? String(res.reason));
      p.setAttribute('role', 'alert');
      p.style.color = 'var(--error, inherit)';
      body.append(p);
      return;
    }
    const { fw, pc } = res.value;
    const N = tokens.length, H = state.nHeads;
    const G = kvHeadsOf(state, v);

    const shape = el('p', 'cmp-shape',
      v === 'mla'
        ? `H = ${H} heads, dh = ${dHeadOf(state)}, latent r = ${state.latentRank}, RoPE dr = ${state.ropeDim}`
        : `H = ${H} query heads, G = ${plural(G, 'KV head')}, dh = ${dHeadOf(state)}`);
    shape.style.cssText = 'margin:.3rem 0;color:var(--muted);font-size:.9em';

    // Per-head heatmaps.
    const grid = el('div', 'cmp-heads');
    grid.style.cssText = 'display:grid;grid-template-columns:repeat(auto-fill,minmax(4.2rem,1fr));gap:.35rem';
    const readout = el('p', 'cmp-readout', 'Hover or tap a cell for its tokens and weight.');
    readout.style.cssText = 'min-height:1.3em;margin:.3rem 0;font-size:.85em;color:var(--muted)';
    const masked = state.causal ? (i, j) => j > i : null;
    const maskColor = ctx.theme?.().grid; // the canvas is not in the document yet: pass the colour
    for (let h = 0; h < H; h++) {
      const fig = el('figure', 'cmp-head');
      fig.style.margin = '0';
      const canvas = createMiniCanvas('cmp-canvas');
      canvas.style.border = '1px solid var(--border)';
      const kv = v === 'mla' || v === 'mha' ? '' : ` → kv ${Math.floor(h / (H / G))}`;
      canvas.setAttribute('role', 'img');
      canvas.tabIndex = 0;  // keyboard: focus a map, arrow keys move the read-out cell
      canvas.dataset.cmpHead = String(h);
      canvas.setAttribute('aria-label', `${NAME[v]} head ${h}${kv}: attention weights, ${N} by ${N}; arrow keys read out cells`);
      canvas.title = `${NAME[v]} head ${h}${kv} — rows: queries, columns: keys`;
      drawMiniHeatmap(canvas, fw.weights, N, N, { offset: h * N * N, masked, maskColor });
      const showCell = (c) => {
        const w = fw.weights[h * N * N + c.i * N + c.j];
        const text = `${NAME[v]} head ${h}${kv}: “${tokens[c.i]}” (#${c.i}) → “${tokens[c.j]}” (#${c.j}) = ${w.toFixed(3)}`;
        readout.textContent = text;
        canvas.title = text;
        announce(root, text);
      };
      const show = (e) => { const c = cellAt(canvas, e); if (c) showCell(c); };
      let cursor = { i: 0, j: 0 };
      canvas.addEventListener('pointermove', show);
      canvas.addEventListener('pointerdown', show);
      canvas.addEventListener('focus', () => showCell(cursor));
      canvas.addEventListener('keydown', (e) => {
        const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
        const m = moves[e.key];
        if (!m) return;
        e.preventDefault();
        cursor = { i: Math.min(N - 1, Math.max(0, cursor.i + m[0])), j: Math.min(N - 1, Math.max(0, cursor.j + m[1])) };
        showCell(cursor);
      });
      const cap = el('figcaption', 'cmp-caption', `h${h}${kv.replace(' → kv ', '→kv')}`);
      cap.style.cssText = 'font-size:.75em;color:var(--muted);text-align:center';
      fig.append(canvas, cap);
      grid.append(fig);
    }

    // Cache and parameters.
    const cache = cachePerToken(state, v);
    const facts = el('dl', 'cmp-facts');
    const fact = (dt, dd) => addFact(facts, dt, dd);
    fact('KV cache per token per layer (float32)',
      `${cache.what}: ${cache.formula} = ${fmt(cache.elems)} floats = ${fmt(cache.elems * 4)} bytes`);
    const parts = ['wq', 'wk', 'wv', 'wo', 'wDkv', 'wUk', 'wUv', 'wQr', 'wKr'].filter((k) => pc[k]).map((k) => `${k} ${fmt(pc[k])}`);
    fact('Parameters (one attention block)', `${fmt(pc.total)} (${parts.join(' · ')})`);

    body.append(shape, grid, readout, facts);

    // Against column 1.
    const diff = el('div', 'cmp-diff');
    diff.style.cssText = 'border-top:1px solid var(--border);margin-top:.4rem;padding-top:.4rem;font-size:.9em';
    if (idx === 0) {
      diff.append(el('p', 'cmp-diff-ref', 'Reference: the other columns are compared against this one.'));
    } else if (!ref || ref.status !== 'fulfilled') {
      diff.append(el('p', 'cmp-diff-none', 'No comparison: column 1 has no result.'));
    } else {
      renderDiff(diff, v, res.value, ref.value, tokens);
    }
    body.append(diff);
  }

  function renderDiff(box, v, cur, ref, tokens) {
    const v0 = variants[0];
    const N = tokens.length, H = state.nHeads;
    box.append(el('h4', 'cmp-diff-title', `Against column 1 (${NAME[v0]})`));
    const dl = el('dl', 'cmp-facts');
    const fact = (dt, dd, cls) => addFact(dl, dt, dd, cls);

    // Cache ratio.
    const c0 = cachePerToken(state, v0).elems, c1 = cachePerToken(state, v).elems;
    let sentence;
    if (c1 === c0) sentence = `${NAME[v]} stores as much as ${NAME[v0]} per token`;
    else if (c1 < c0) sentence = `${NAME[v]} stores ${ratioText(c0 / c1)}× less than ${NAME[v0]} per token`;
    else sentence = `${NAME[v]} stores ${ratioText(c1 / c0)}× more than ${NAME[v0]} per token`;
    fact('KV cache', `${sentence} (${fmt(c1)} vs ${fmt(c0)} floats).`);

    // Parameters.
    const p0 = ref.pc.total, p1 = cur.pc.total;
    const dp = p1 - p0;
    fact('Parameters', dp === 0 ? 'the same' : `${dp > 0 ? '+' : '−'}${fmt(Math.abs(dp))} (${dp > 0 ? '+' : '−'}${(Math.abs(dp) / p0 * 100).toFixed(1)}%)`);

    // Outputs.
    const a = cur.fw.output, b = ref.fw.output;
    if (a.length === b.length) {
      let d2 = 0, n2 = 0, max = 0;
      for (let k = 0; k < a.length; k++) {
        const d = a[k] - b[k];
        d2 += d * d; n2 += b[k] * b[k];
        if (Math.abs(d) > max) max = Math.abs(d);
      }
      const rel = n2 > 0 ? Math.sqrt(d2 / n2) : NaN;
      fact('Output (L2, relative)', `‖out − out₁‖ / ‖out₁‖ = ${num(rel)}, max |diff| = ${num(max)}`, 'cmp-outdiff');
    } else {
      fact('Output', 'not comparable: output shapes differ');
    }

    // Attention weights per head (same H x N x N in every variant at one state).
    const wa = cur.fw.weights, wb = ref.fw.weights;
    const dd = el('dd', 'cmp-wdiff');
    if (wa.length === wb.length && wa.length === H * N * N) {
      const list = el('ol', 'cmp-wdiff-list');
      list.style.cssText = 'list-style:none;padding:0;margin:.2rem 0;display:flex;flex-wrap:wrap;gap:.2rem .6rem';
      const same = []; // heads whose maps match exactly (same query and key columns in both)
      for (let h = 0; h < H; h++) {
        let s = 0, n = 0;
        for (let i = 0; i < N; i++) {
          const end = state.causal ? i + 1 : N; // masked cells are 0 in both: leave them out
          for (let j = 0; j < end; j++, n++) s += Math.abs(wa[h * N * N + i * N + j] - wb[h * N * N + i * N + j]);
        }
        const m = n ? s / n : 0;
        if (m < 1e-6) same.push(`h${h}`);
        const li = el('li', 'cmp-wdiff-item');
        li.title = `head ${h}: mean |Δ weight| over ${n} ${state.causal ? 'unmasked ' : ''}cells`;
        const bar = el('span', 'cmp-wdiff-bar');
        bar.setAttribute('aria-hidden', 'true');
        bar.style.cssText = `display:inline-block;vertical-align:middle;height:.6em;margin-left:.2em;background:var(--accent);width:${Math.min(3, m * 12).toFixed(2)}em`;
        li.append(`h${h} ${m.toFixed(3)}`, bar);
        list.append(li);
      }
      dd.append(list, el('small', 'cmp-wdiff-note',
        `Shapes match (${H} heads × ${N} × ${N}), so heads compare one to one` + (state.causal ? ', over the unmasked cells.' : '.') +
        (same.length && same.length < H ? ` ${same.join(', ')}: the same query and key weights in both, so the same map.` : '')));
    } else {
      dd.textContent = 'not meaningful: the weight shapes differ';
    }
    fact('Attention weights: mean |Δ| per head', dd);
    box.append(dl);
  }

  // ---- recompute ------------------------------------------------------------------------
  function recompute() {
    const s = state;
    const tokens = tokenize(s.text);
    variants = parseCompare(s.compare);
    ensureColumns(variants.length);
    variants.forEach((v, i) => { columns[i].select.value = v; });
    colButton.textContent = variants.length < 3 ? 'Add a third column' : 'Remove the third column';
    colButton.dataset.action = variants.length < 3 ? 'add-column' : 'remove-column';
    renderNote(tokens);
    const cut = truncationNote(s.text);
    if (cut) note.textContent += ` ${cut}`;

    if (tokens.length === 0) {
      latest.cancel();
      status.textContent = '';
      for (const c of columns) c.body.replaceChildren(el('p', 'cmp-empty', 'Type some text to compare the variants.'));
      setViewState(root, 'ready', { variants, tokens: 0 });
      return;
    }
    status.textContent = 'Computing…';
    for (const c of columns) c.box.classList.add('cmp-busy');
    const list = variants.slice();
    latest.run(
      () => Promise.allSettled(list.map(async (v) => {
        const x = inputFor(s, v, tokens);
        const spec = { ...shapeSpec(s, v), seqLen: tokens.length, causal: s.causal, returnWeights: true, x };
        const [fw, pc] = await Promise.all([
          ctx.client.call('forward', spec),
          ctx.client.call('paramCount', shapeSpec(s, v)),
        ]);
        return { fw, pc };
      })),
      (results) => {
        status.textContent = '';
        list.forEach((v, i) => {
          columns[i].box.classList.remove('cmp-busy');
          renderColumn(columns[i], i, v, results[i], results[0], tokens);
        });
        const failed = results.find((r) => r.status === 'rejected');
        ctx.reportError?.('compare', failed ? failed.reason : null);
        return { variants: list, tokens: tokens.length, failed: results.filter((r) => r.status === 'rejected').length };
      },
      (e) => { status.textContent = `Error: ${e?.message ?? e}`; });
  }

  return {
    update(next) {
      state = next;
      trained.update();
      const key = JSON.stringify(FIELDS.map((f) => next[f]));
      if (key === lastKey) return;
      lastKey = key;
      recompute();
    },
    destroy() {
      latest.cancel(); // drop anything still in flight
      ctx.reportError?.('compare', null);
      root.innerHTML = '';
      root.classList.remove('cmp');
    },
  };
}
