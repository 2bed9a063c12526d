// params.js — the accounting table: one row per variant (MHA, MQA, GQA, MLA) at the current shape,
// with the attention weights of one block (core: paramCount), their change against MHA, the KV-cache
// elements and bytes per token per layer (core: kvCacheBytes, DeepSeek-V2 Table 1) and the cache's
// ratio to MHA's. Every number comes from the core; next to it, the formula with the values filled in.
//
// CSS classes used (styles.css): .scroll (horizontal scroll wrapper), table/th/td, tr.current
// (the current variant's row), .formula (the filled-in formulas), .error-text (a row's core error),
// .note (muted text), .view.busy (the root while the core answers). A few inline styles: row-header
// alignment and the "current" badge.
import { DTYPES, dtypeLabel, shapeSpec } from '../state.js';
import { VARIANT_IDS as VARIANTS, createLatest, escapeHtml as esc } from '../kit.js';
import {
  VARIANT_NAMES, VARIANT_LONG, dimsOf, fmtInt, fmtChange, fmtPct, fmtRatio, kvConfigOf, kvFormula, paramFormula,
} from './formula.js';

const nowrap = (s) => `<span style="white-space:nowrap">${esc(s)}</span>`;

const FIELDS = ['dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'dtype', 'variant'];

export function createParamsView(root, ctx) {
  const latest = createLatest(root);
  let lastKey = '';

  root.innerHTML = `
    <p class="note" data-role="shape"></p>
    <div class="scroll" tabindex="0" role="region" aria-label="Parameters and KV cache per variant"><table data-role="table">
      <thead><tr>
        <th scope="col" style="text-align:left">Variant</th>
        <th scope="col">Attention weights<br><small>one block, no biases</small></th>
        <th scope="col">vs MHA</th>
        <th scope="col">KV cache<br><small>elements / token / layer</small></th>
        <th scope="col" data-role="bytes-head">bytes / token / layer</th>
        <th scope="col">cache vs MHA</th>
      </tr></thead>
      <tbody data-role="rows">${VARIANTS.map((v) => `<tr data-variant="${v}"><th scope="row" style="text-align:left">${VARIANT_NAMES[v]}</th><td colspan="5" class="note">…</td></tr>`).join('')}</tbody>
    </table></div>
    <p class="note" data-role="foot">Symbols: D = dModel, H = query heads, G = K/V heads, dh = head width,
      r = MLA latent rank, dr = MLA decoupled RoPE key width. KV cache per DeepSeek-V2 (Table 1); the MHA
      baseline is the paper's 2 · H · dh: every query head caches its own key and value.
      GQA with G = H is MHA, with G = 1 it is MQA.</p>`;
  const $ = (r) => root.querySelector(`[data-role="${r}"]`);

  /** One variant's numbers from the core, or its error. */
  async function measure(state, variant, bpe) {
    try {
      const [params, [elements, bytes]] = await Promise.all([
        ctx.client.call('paramCount', shapeSpec(state, variant)),
        ctx.client.call('kvCacheBytesMany', [
          kvConfigOf(state, variant, { bytesPerElement: 1 }),
          kvConfigOf(state, variant, { bytesPerElement: bpe }),
        ]),
      ]);
      return { variant, params, elements, bytes };
    } catch (error) {
      return { variant, error };
    }
  }

  function variantCell(state, v) {
    const d = dimsOf(state);
    const detail = v === 'gqa' ? `G = ${esc(d.G)}` : v === 'mqa' ? 'G = 1' : v === 'mha' ? `G = H = ${esc(d.H)}` : `r = ${esc(d.r)}, dr = ${esc(d.dr)}`;
    const current = v === state.variant
      ? ' <span style="font-size:0.75rem;padding:0 6px;border-radius:999px;border:1px solid var(--accent);color:var(--accent)">current</span>'
      : '';
    return `<th scope="row" style="text-align:left;min-width:8em">${VARIANT_NAMES[v]}${current}<small>${VARIANT_LONG[v]} · ${detail}</small></th>`;
  }

  function render(state, results) {
    const d = dimsOf(state);
    const bpe = DTYPES[state.dtype];
    const base = results.find((r) => r.variant === 'mha');
    const ok = base && !base.error;
    $('bytes-head').innerHTML = `bytes / token / layer<br><small>at ${esc(dtypeLabel(state.dtype))} (${bpe} B / element)</small>`;
    $('shape').textContent = `Current shape: D = ${d.D}, H = ${d.H}, dh = ${d.dh}${state.dHead ? '' : ' (D / H)'}, `
      + `G = ${d.G} (GQA), r = ${d.r} and dr = ${d.dr} (MLA); cache elements stored at ${dtypeLabel(state.dtype)}.`;
    $('rows').innerHTML = results.map((r) => {
      const v = r.variant;
      const cls = v === state.variant ? ' class="current" aria-current="true"' : '';
      if (r.error) {
        return `<tr data-variant="${v}"${cls}>${variantCell(state, v)}<td colspan="5" class="error-text" style="text-align:left">${esc(r.error.message)}</td></tr>`;
      }
      const pf = paramFormula(v, d);
      const kf = kvFormula(v, d);
      const paramsCell = `<td><strong>${fmtInt(r.params.total)}</strong>
        <div class="formula" style="min-width:12em" title="${esc(Object.entries(r.params).filter(([k, n]) => k !== 'total' && n).map(([k, n]) => `${k} ${fmtInt(n)}`).join(' · '))}">${pf.terms.map((t) => nowrap(t[1])).join(' + ')}<br>= ${pf.terms.map((t) => nowrap(t[2])).join(' + ')}<br>= ${fmtInt(r.params.total)}</div></td>`;
      const change = !ok ? '<td class="note">—</td>'
        : v === 'mha' ? '<td>baseline</td>'
          : `<td>${fmtChange((r.params.total - base.params.total) / base.params.total)}
            <div class="formula" style="white-space:nowrap">(${fmtInt(r.params.total)} − ${fmtInt(base.params.total)})<br>/ ${fmtInt(base.params.total)}</div></td>`;
      const elemCell = `<td><strong>${fmtInt(r.elements)}</strong>
        <div class="formula" style="white-space:nowrap">${esc(kf.symbolic)}<br>= ${esc(kf.filled)} = ${fmtInt(r.elements)}</div></td>`;
      const bytesCell = `<td><strong>${fmtInt(r.bytes)} B</strong>
        <div class="formula" style="white-space:nowrap">${fmtInt(r.elements)} × ${bpe} B<br>= ${fmtInt(r.bytes)} B</div></td>`;
      const ratio = r.elements / (ok ? base.elements : NaN);
      const ratioCell = !ok ? '<td class="note">—</td>'
        : v === 'mha' ? '<td>baseline</td>'
          : `<td style="white-space:nowrap"><strong>${fmtRatio(ratio)}</strong> (${fmtPct(ratio)})
            <div class="formula">${fmtInt(r.elements)} / ${fmtInt(base.elements)}</div></td>`;
      return `<tr data-variant="${v}"${cls}>${variantCell(state, v)}${paramsCell}${change}${elemCell}${bytesCell}${ratioCell}</tr>`;
    }).join('');
    if (!ok) {
      $('rows').insertAdjacentHTML('beforeend', `<tr><td colspan="6" class="note" style="text-align:left">No MHA baseline at this shape: the comparisons need a valid MHA row.</td></tr>`);
    }
  }

  return {
    update(state) {
      const key = JSON.stringify(FIELDS.map((f) => state[f]));
      if (key === lastKey) return;
      lastKey = key;
      const bpe = DTYPES[state.dtype] ?? 2;
      latest.run(
        () => Promise.all(VARIANTS.map((v) => measure(state, v, bpe))),
        (results) => {
          render(state, results);
          const mine = results.find((r) => r.variant === state.variant);
          ctx.reportError('params', mine?.error ?? null);
          return results.map((r) => (r.error ? { variant: r.variant, error: r.error.message }
            : { variant: r.variant, params: r.params.total, elements: r.elements, bytes: r.bytes }));
        });
    },
    destroy() {
      latest.cancel();
      ctx.reportError('params', null);
      root.replaceChildren();
    },
  };
}
