// decode.js — a decode stepper: tokens enter a KV-cache session one at a time (or all at once,
// as one chunk), and the view shows what the cache stores per token, how it grows, and how the
// newest token attends to everything cached so far.
//
// Finished drawing (kit.js setViewState): data-state="ready" once the queue is empty, with the result
// { length, cacheBytes } as the core reports them; buttons carry data-action="step|all|reset|word".
import { tokenize, embed } from '../tokens.js';
import { shapeSpec, kvHeadsOf, dHeadOf } from '../state.js';
import { drawMiniHeatmap, createMiniCanvas, cellAt, createLegend } from './mini-heatmap.js';
import { announce, el, plural, setViewState, variantName } from '../kit.js';
import { cacheElementsPerToken } from '../shape-math.js';

const MAX_LEN = 64;
const fmt = (n) => Number(n).toLocaleString('en-US');
const ratioText = (r) => (Number.isInteger(r) ? String(r) : r.toFixed(2).replace(/0+$/, '').replace(/\.$/, ''));
const FALLBACK_SERIES = ['#4c78a8', '#f58518', '#54a24b', '#e45756'];


function button(action, label, title) {
  const b = el('button', `dec-button dec-${action}`, label);
  b.type = 'button';
  b.dataset.action = action;
  if (title) b.title = title;
  return b;
}

/** What one cached token holds for the current variant: segments from the bottom of its block. */
function layoutOf(state) {
  const v = state.variant;
  const dh = dHeadOf(state);
  if (v === 'mla') {
    const r = state.latentRank, dr = state.ropeDim || 0;
    return {
      elems: cacheElementsPerToken(v, state),
      what: `latent c (r = ${r} floats) + RoPE key kr (dr = ${dr} floats)`,
      formula: `r + dr = ${r} + ${dr}`,
      segments: [{ kind: 'c', label: 'c', size: r }, ...(dr ? [{ kind: 'kr', label: 'kr', size: dr }] : [])],
    };
  }
  const G = kvHeadsOf(state);
  const segments = [];
  for (let g = 0; g < G; g++) segments.push({ kind: 'k', label: `K${g}`, size: dh, head: g });
  for (let g = 0; g < G; g++) segments.push({ kind: 'v', label: `V${g}`, size: dh, head: g });
  return {
    elems: cacheElementsPerToken(v, state),
    what: `K and V for G = ${G} KV head${G === 1 ? '' : 's'}`,
    formula: `2 · G · dh = 2 · ${G} · ${dh}`,
    segments,
  };
}

export function createDecodeView(root, ctx) {
  const key = `decode-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;
  root.classList.add('dec');
  root.innerHTML = '';

  // ---- static skeleton -------------------------------------------------------------------
  const intro = el('p', 'dec-intro');
  const controls = el('div', 'dec-controls');
  controls.style.cssText = 'display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:.5rem 0';
  const stepBtn = button('step', 'Add next token', 'Append the next token of the sentence to the cache');
  const allBtn = button('all', 'Add all', 'Append the rest of the sentence in one chunk (prefill)');
  const resetBtn = button('reset', 'Reset', 'Empty the cache (a new session)');
  const form = el('form', 'dec-word');
  form.style.cssText = 'display:flex;flex-wrap:wrap;align-items:center;gap:.4rem';
  const wordLabel = el('label', 'dec-word-label', 'Your word ');
  const wordInput = el('input', 'dec-word-input');
  wordInput.type = 'text';
  wordInput.name = 'word';
  wordInput.placeholder = 'e.g. dog';
  wordInput.size = 10;
  wordInput.autocomplete = 'off';
  wordLabel.append(wordInput);
  const wordBtn = el('button', 'dec-button dec-word-button', 'Append word');
  wordBtn.type = 'submit';
  wordBtn.dataset.action = 'word';
  form.append(wordLabel, wordBtn);
  controls.append(stepBtn, allBtn, resetBtn, form);

  const error = el('p', 'dec-error error');
  error.setAttribute('role', 'alert');
  error.hidden = true;
  error.style.color = 'var(--error, inherit)';

  const tokensBox = el('div', 'dec-tokens-box');
  const tokensTitle = el('h4', 'dec-title', 'Tokens in the cache');
  const tokensList = el('ol', 'dec-tokens');
  tokensList.style.cssText = 'list-style:none;padding:0;margin:.3rem 0;display:flex;flex-wrap:wrap;gap:.3rem';
  tokensBox.append(tokensTitle, tokensList);

  const facts = el('dl', 'dec-facts');
  const live = el('p', 'dec-live');
  live.setAttribute('role', 'status');
  live.style.cssText = 'position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)';

  const stripBox = el('div', 'dec-strip-box');
  const stripTitle = el('h4', 'dec-title', 'The cache, one block per token');
  const strip = el('div', 'dec-strip');
  strip.style.cssText = 'position:relative;display:flex;align-items:flex-end;gap:2px;height:8rem;' +
    'border-bottom:1px solid var(--border);overflow:hidden;padding-top:1.2rem';
  strip.setAttribute('role', 'img');
  const stripLegend = el('div', 'dec-legend');
  stripLegend.style.cssText = 'display:flex;flex-wrap:wrap;gap:.3rem .9rem;font-size:.85em;color:var(--muted);margin-top:.3rem';
  stripBox.append(stripTitle, strip, stripLegend);

  const weightsBox = el('div', 'dec-weights-box');
  const weightsTitle = el('h4', 'dec-title', 'Newest token: attention weights per head');
  const weights = el('div', 'dec-weights');
  const readout = el('p', 'dec-readout');
  readout.style.cssText = 'min-height:1.3em;margin:.3rem 0;font-size:.85em;color:var(--muted)';
  weightsBox.append(weightsTitle, createLegend('dec-scale', 0, 1, 'Attention weight'), weights, readout);

  root.append(intro, controls, error, tokensBox, facts, stripBox, weightsBox, live);

  // ---- state -----------------------------------------------------------------------------
  let state = null;
  let shapeKey = '';
  let sentence = [];   // tokens of state.text
  let nextIdx = 0;     // next sentence token to append
  let cached = [];     // tokens in the cache, in order
  let cacheBytes = 0;  // as reported by the core
  let ready = false;   // the session exists
  let newest = null;   // { weights, k, length }: the last append's weights (H, k, length)
  let gen = 0;         // bumps when the session is recreated: queued work for an older one is dropped
  let pending = 0;
  let queue = Promise.resolve();

  const positionsFor = (s) => !(s.variant !== 'mla' && s.rope); // MLA keeps added positions

  /** Runs tasks one after another (the session is stateful), dropping those of an older session. */
  function enqueue(task) {
    const g = gen;
    pending++;
    setViewState(root, 'busy');
    queue = queue
      .then(() => (g === gen ? task(g) : undefined))
      .catch((e) => {
        if (g !== gen) return;
        showError(e);
        render();
      })
      .finally(() => {
        renderButtons();
        if (--pending === 0) setViewState(root, error.hidden ? 'ready' : 'error', { length: cached.length, cacheBytes });
      });
    return queue;
  }

  function showError(e) {
    error.textContent = e?.message ?? String(e);
    error.hidden = false;
    ctx.reportError?.('decode', e);
  }
  function clearError() {
    if (error.hidden) return;
    error.hidden = true;
    error.textContent = '';
    ctx.reportError?.('decode', null);
  }


  /** A fresh, empty session for the current state (also Reset). */
  function restart() {
    gen++;
    ready = false;
    cached = [];
    nextIdx = 0;
    cacheBytes = 0;
    newest = null;
    render();
    const s = state;
    enqueue(async (g) => {
      const info = await ctx.client.call('sessionCreate', key, { ...shapeSpec(s), maxLen: MAX_LEN, returnWeights: true });
      if (g !== gen) return;
      ready = true;
      cached = [];
      cacheBytes = info.cacheBytes;
      clearError();
      render();
    });
  }

  /** Appends the tokens `pick()` returns (called when the task runs, so rapid clicks queue up). */
  function append(pick) {
    enqueue(async (g) => {
      if (!ready) return;
      const toks = pick().slice(0, MAX_LEN - cached.length);
      if (toks.length === 0) return;
      const s = state;
      // Re-embed the whole list and keep the new rows: same word vectors, positions continue.
      const all = cached.concat(toks);
      const x = embed(all, s.dModel, { seed: s.seed, positions: positionsFor(s) }).slice(cached.length * s.dModel);
      const r = await ctx.client.call('sessionAppend', key, x);
      if (g !== gen) return;
      cached = all;
      cacheBytes = r.cacheBytes;
      newest = { weights: r.weights, k: toks.length, length: r.length };
      clearError();
      render();
      live.textContent = `${toks.length === 1 ? `“${toks[0]}”` : `${toks.length} tokens`} appended; ${r.length} in the cache, ${fmt(r.cacheBytes)} bytes.`;
    });
  }

  stepBtn.addEventListener('click', () => append(() => (nextIdx < sentence.length ? [sentence[nextIdx++]] : [])));
  allBtn.addEventListener('click', () => append(() => {
    const toks = sentence.slice(nextIdx, nextIdx + MAX_LEN - cached.length);
    nextIdx += toks.length;
    return toks;
  }));
  resetBtn.addEventListener('click', () => restart());
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const toks = tokenize(wordInput.value);
    if (toks.length === 0) return;
    wordInput.value = '';
    append(() => toks);
  });

  // ---- rendering -------------------------------------------------------------------------
  function renderButtons() {
    const full = cached.length >= MAX_LEN;
    const left = nextIdx < sentence.length;
    stepBtn.disabled = !ready || full || !left;
    allBtn.disabled = !ready || full || !left;
    wordBtn.disabled = !ready || full;
    wordInput.disabled = !ready || full;
    stepBtn.textContent = left ? `Add next token (“${sentence[nextIdx]}”)` : 'Add next token';
  }

  function render() {
    if (!state) return;
    const s = state;
    // No session (invalid shape): only the core's message and the controls make sense.
    const broken = !ready && !error.hidden;
    for (const box of [facts, stripBox, weightsBox]) box.hidden = broken;
    const lay = layoutOf(s);
    const v = s.variant;
    const bytes = lay.elems * 4;

    intro.textContent =
      `${variantName(v)} decoding with a KV cache (one layer, float32, at most ${MAX_LEN} tokens). Each step appends one token: ` +
      'its keys and values are computed once and stored, and its query attends to everything cached so far.' +
      (v === 'mla' ? ' MLA stores only the latent and a small RoPE key, and decodes in the absorbed form, never rebuilding K or V.' : '');

    // Tokens.
    tokensList.replaceChildren(...cached.map((t, i) => {
      const li = el('li', i === cached.length - 1 ? 'dec-token dec-token-newest' : 'dec-token', t);
      li.title = `position ${i}`;
      li.style.cssText = 'padding:.1rem .4rem;border:1px solid var(--border);border-radius:4px' +
        (i === cached.length - 1 ? ';border-color:var(--accent);font-weight:600' : '');
      return li;
    }));
    if (cached.length === 0) {
      tokensList.append(el('li', 'dec-token-empty', ready ? 'empty — press “Add next token”' : error.hidden ? 'starting…' : 'no session'));
    }

    // Facts with the formula filled in.
    const L = cached.length;
    const mhaElems = cacheElementsPerToken('mha', s);
    facts.replaceChildren();
    const fact = (term, desc, cls) => {
      const dt = el('dt', null, term);
      dt.style.fontWeight = '600';
      const dd = el('dd', cls ?? null, desc);
      dd.style.margin = '0 0 .35rem .8rem';
      facts.append(dt, dd);
    };
    fact('Stored per token', `${lay.what}: ${lay.formula} = ${fmt(lay.elems)} floats`);
    fact('Bytes per token', `${fmt(lay.elems)} × 4 bytes (float32) = ${fmt(bytes)} bytes`);
    fact('Cache now', `${L} token${L === 1 ? '' : 's'} × ${fmt(bytes)} bytes = ${fmt(L * bytes)} bytes` +
      ` (the core reports ${fmt(cacheBytes)} bytes)`, 'dec-total');
    if (v !== 'mha' && Number.isFinite(mhaElems) && mhaElems > 0) {
      const ratio = mhaElems / lay.elems;
      fact('Against MHA', `MHA at this shape stores 2 · H · dh = ${fmt(mhaElems)} floats per token: ` +
        (ratio >= 1 ? `${ratioText(ratio)}× more than ${variantName(v)}` : `${ratioText(1 / ratio)}× less than ${variantName(v)}`));
    }

    renderStrip(s, lay, mhaElems);
    renderWeights(s);
    renderButtons();
  }

  // The growing strip: one block per token, its height ∝ floats per token (MHA = the dashed line).
  function renderStrip(s, lay, mhaElems) {
    const theme = ctx.theme?.() ?? {};
    const series = theme.series?.length >= 2 ? theme.series : FALLBACK_SERIES;
    const colour = { k: 'var(--accent)', v: series[1], c: 'var(--accent)', kr: series[1] };
    const ref = Math.max(mhaElems || 0, lay.elems) || 1;
    const h = (lay.elems / ref) * 100;

    strip.replaceChildren();
    if (s.variant !== 'mha' && mhaElems >= lay.elems) {
      // A zero-height dashed line at MHA's height (the content box is 100% minus the top padding).
      const line = el('div', 'dec-mha-line');
      line.style.cssText = 'position:absolute;left:0;right:0;height:0;border-top:1px dashed var(--muted);pointer-events:none;' +
        `bottom:calc((100% - 1.2rem) * ${mhaElems / ref})`;
      const tag = el('span', 'dec-mha-label', `MHA: ${fmt(mhaElems)} floats / token`);
      tag.style.cssText = 'position:absolute;right:.3rem;bottom:100%;font-size:.75em;color:var(--muted);white-space:nowrap';
      line.append(tag);
      strip.append(line);
    }
    const many = lay.segments.length > 32; // too thin to separate
    cached.forEach((tok, i) => {
      const block = el('div', i === cached.length - 1 ? 'dec-block dec-block-newest' : 'dec-block');
      block.style.cssText = `flex:0 1 2.2rem;min-width:2px;height:${h}%;display:flex;flex-direction:column-reverse`;
      block.title = `“${tok}” (position ${i}): ${lay.segments.map((g) => `${g.label} ${g.size}`).join(' + ')} = ${fmt(lay.elems)} floats = ${fmt(lay.elems * 4)} bytes`;
      for (const seg of lay.segments) {
        const d = el('div', `dec-seg dec-seg-${seg.kind}`);
        d.style.cssText = `flex:${seg.size} 0 0;background:${colour[seg.kind]};` +
          `opacity:${seg.head != null && seg.head % 2 ? 0.65 : 1};` + (many ? '' : 'border-top:1px solid var(--bg)');
        block.append(d);
      }
      strip.append(block);
    });
    strip.setAttribute('aria-label', `${cached.length} cached tokens, ${fmt(lay.elems)} floats each`);

    // Legend.
    const sw = (c, text) => {
      const item = el('span', 'dec-legend-item');
      const box = el('span', 'dec-swatch');
      box.style.cssText = `display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:middle;background:${c}`;
      item.append(box, text);
      return item;
    };
    if (s.variant === 'mla') {
      stripLegend.replaceChildren(sw(colour.c, `c: latent (r = ${s.latentRank})`),
        ...(s.ropeDim ? [sw(colour.kr, `kr: RoPE key (dr = ${s.ropeDim}), shared by all heads`)] : []));
    } else {
      const G = kvHeadsOf(s);
      stripLegend.replaceChildren(sw(colour.k, `K: ${plural(G, 'KV head')} × dh = ${dHeadOf(s)}`),
        sw(colour.v, `V: ${plural(G, 'KV head')} × dh = ${dHeadOf(s)}`),
        ...(G > 1 ? [el('span', null, 'alternating shades: KV heads')] : []));
    }
  }

  // The newest token's weights over the cache: one heatmap strip per head, tokens on top.
  function renderWeights(s) {
    weights.replaceChildren();
    readout.textContent = '';
    if (!newest || cached.length === 0) {
      weights.append(el('p', 'dec-weights-empty', 'Append a token to see where it looks.'));
      return;
    }
    const H = s.nHeads, L = newest.length, k = newest.k;
    if (newest.weights.length !== H * k * L) return; // state changed under us; a restart follows
    const G = kvHeadsOf(s);
    weightsTitle.textContent = `Newest token “${cached[cached.length - 1]}”: attention weights per head over the ${L} cached tokens`;

    const rowStyle = 'display:grid;grid-template-columns:4.5rem 1fr;align-items:center;gap:.4rem';
    weights.style.maxWidth = `calc(5rem + ${L} * 2.6rem)`; // the strips grow with the cache
    if (L <= 24) { // token labels above the strips
      const head = el('div', 'dec-wrow dec-wlabels');
      head.style.cssText = rowStyle;
      const labels = el('div', 'dec-wtokens');
      labels.style.cssText = `display:grid;grid-template-columns:repeat(${L},1fr);font-size:.7em;color:var(--muted)`;
      for (const t of cached) {
        const c = el('span', null, t);
        c.style.cssText = 'overflow:hidden;text-overflow:ellipsis;white-space:nowrap;text-align:center';
        labels.append(c);
      }
      head.append(el('span'), labels);
      weights.append(head);
    }
    for (let h = 0; h < H; h++) {
      const row = el('div', 'dec-wrow');
      row.style.cssText = rowStyle + ';margin-top:2px';
      const kv = s.variant === 'gqa' || s.variant === 'mqa' ? ` → kv ${Math.floor(h / (H / G))}` : '';
      const label = el('span', 'dec-wlabel', `h${h}${kv.replace(' → kv ', '→kv')}`);
      label.style.cssText = 'font-size:.8em;color:var(--muted)';
      const canvas = createMiniCanvas('dec-wcanvas', 0);
      canvas.style.height = '1rem';
      canvas.style.border = '1px solid var(--border)';
      canvas.setAttribute('role', 'img');
      const offset = h * k * L + (k - 1) * L; // last query row of this head
      const row0 = newest.weights.subarray(offset, offset + L);
      let best = 0;
      for (let j = 1; j < L; j++) if (row0[j] > row0[best]) best = j;
      canvas.setAttribute('aria-label', `head ${h}${kv}: strongest on “${cached[best]}” (${row0[best].toFixed(2)})`);
      canvas.title = `head ${h}${kv}`;
      drawMiniHeatmap(canvas, newest.weights, 1, L, { offset });
      const show = (e) => {
        const c = cellAt(canvas, e);
        if (!c) return;
        const text = `head ${h}${kv}: “${cached[cached.length - 1]}” → “${cached[c.j]}” (#${c.j}) = ${row0[c.j].toFixed(3)}`;
        readout.textContent = text;
        canvas.title = text;
        announce(root, text);
      };
      canvas.addEventListener('pointermove', show);
      canvas.addEventListener('pointerdown', show);
      row.append(label, canvas);
      weights.append(row);
    }
  }

  return {
    update(next) {
      state = next;
      const toks = tokenize(next.text);
      const keyNow = JSON.stringify([shapeSpec(next), positionsFor(next), toks]);
      if (keyNow !== shapeKey) {
        shapeKey = keyNow;
        sentence = toks;
        restart();
      }
    },
    destroy() {
      gen++; // drop queued work; then free the session after whatever is in flight
      queue.then(() => ctx.client.call('sessionDispose', key)).catch(() => {});
      ctx.reportError?.('decode', null);
      root.innerHTML = '';
      root.classList.remove('dec');
    },
  };
}
