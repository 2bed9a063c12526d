// configurator.js — the lesson's configurator: from a parameter budget (or dModel + layers), a target
// context, a batch and a deployment target, the core's `recommend` chooses the attention variant and
// its head counts and prices the KV cache. This view is its form and its answer: the shape, the
// memory it needs against the device, the rules that fired, the ladder of variants it priced, a
// KV-cache chart of the shape beside the closest real models, and "open in the playground".
//
// The form lives in the shared state (the cfg* keys of state.js), so a permalink reproduces it.
// Every number shown comes from the core; this file only formats it.
//
// CSS classes (styles.css): the page's .controls / .field / .field-error / .note / table, and the
// cfg-* classes under "configurator" (the answer's layout, the fit line, warnings, rule chips).
import { DTYPES, dtypeLabel } from '../state.js';
import { VARIANT_IDS as VARIANTS, createLatest, escapeHtml as esc, field, inPageWords } from '../kit.js';
import { createKvChartView } from './kv-chart.js';
import { attentionParams } from '../shape-math.js';
import { VARIANT_LONG, VARIANT_NAMES, fmtBinary, fmtCount, fmtDecimal, fmtInt, fmtTokens } from './formula.js';

/** The state keys this view reads: a change of any of them asks the core again. */
const CFG_KEYS = ['cfgBudget', 'cfgDModel', 'cfgLayers', 'cfgSeqLen', 'cfgBatch', 'cfgTarget', 'cfgMemoryGB',
  'cfgDtype', 'cfgPriority', 'cfgVariant', 'cfgBenchmark'];
const UNITS = { M: 1e6, B: 1e9 };
const PRIORITIES = [
  ['quality', 'quality (more KV heads)'],
  ['balanced', 'balanced'],
  ['memory', 'memory (smallest cache)'],
];
const DTYPE_NOTES = { fp32: '4 B', bf16: '2 B', fp8: '1 B', int4: '0.5 B' };
/** Which form field a core error belongs to: the request field (error.field) -> the state key. */
const ERROR_FIELDS = [
  ['paramBudget', 'cfgBudget'], ['dModel', 'cfgDModel'], ['nLayers', 'cfgLayers'], ['seqLen', 'cfgSeqLen'],
  ['batch', 'cfgBatch'], ['memoryBytes', 'cfgMemoryGB'], ['target', 'cfgTarget'], ['bytesPerElement', 'cfgDtype'],
  ['priority', 'cfgPriority'], ['variant', 'cfgVariant'], ['benchmark', 'cfgBenchmark'],
];
/** The attention view's limits for "open in the playground": maps stay readable. */
const PLAY_MAX_HEADS = 8;
const PLAY_MAX_DMODEL = 128;
const PLAY_MAX_LATENT = 32;
const PLAY_MAX_ROPE = 8;
const DEBOUNCE_MS = 150;

/** For table cells: binary units, decimal below (devices are sold in GB), the exact count on hover. */
const bytesCell = (b) => `<span title="${esc(fmtInt(b))} bytes">${esc(fmtBinary(b))}</span><small>${esc(fmtDecimal(b))}</small>`;
/** Memory sizes the way devices are sold (GB = 10^9 B), binary and exact on hover. */
const gbHtml = (b) => `<span title="${esc(fmtBinary(b))} · ${esc(fmtInt(b))} bytes">${esc(fmtDecimal(b))}</span>`;
const sig = (x, digits = 6) => String(Number(x.toPrecision(digits)));

let uid = 0;

/** Attention weights of one layer from its dims (no biases), as paramCount counts them. */
function attentionWeights(p) {
  return attentionParams(p.variant, p).total;
}

/** A dense estimate of a preset's parameters: layers x (attention from its dims + an 8 D^2 MLP). MoE: active only. */
export function estimateParams(p) {
  return p.nLayers * (attentionWeights(p) + 8 * p.dModel * p.dModel);
}

/** The cache shape of a preset: presets with the same one draw the same curve (GPT-2, BERT, T5). */
const cacheShape = (p) => [p.variant, p.nLayers, p.nHeads, p.variant === 'gqa' ? p.nKvHeads : 0, p.dHead,
  p.latentRank ?? 0, p.ropeDim ?? 0].join(',');

/** The `count` presets closest in estimated size to `params` (log scale), one per cache shape. */
export function closestPresets(presets, params, count = 3) {
  if (!(params > 0)) return [];
  const ranked = presets
    .map((p) => ({ p, d: Math.abs(Math.log(estimateParams(p) / params)) }))
    .filter((x) => Number.isFinite(x.d))
    .sort((a, b) => a.d - b.d);
  const seen = new Set();
  const out = [];
  for (const { p } of ranked) {
    const key = cacheShape(p);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p.id);
    if (out.length === count) break;
  }
  return out;
}

/**
 * The recommended shape scaled down for the attention maps: at most 8 query heads and dModel 128,
 * the same variant and (when it fits in 8 heads) the same query heads per K/V head.
 * @returns {{ patch: object, notes: string[] }} the state patch and what was changed, in words
 */
export function playgroundShape(rec) {
  const v = rec.variant;
  const H = rec.nHeads;
  const G = v === 'mha' ? H : v === 'mqa' ? 1 : v === 'gqa' ? rec.nKvHeads : 0;
  const notes = [];
  let nHeads = Math.min(H, PLAY_MAX_HEADS);
  let nKvHeads = 1;
  if (v === 'mha') nKvHeads = nHeads;
  if (v === 'gqa') {
    const group = H / G;  // query heads per K/V head
    if (Number.isInteger(group) && group <= PLAY_MAX_HEADS) {
      nHeads = group * Math.max(1, Math.floor(Math.min(H, PLAY_MAX_HEADS) / group));
      nKvHeads = nHeads / group;
    } else {
      nHeads = PLAY_MAX_HEADS;
      nKvHeads = 1;
      notes.push(`${fmtInt(group)} query heads per K/V head do not fit in ${PLAY_MAX_HEADS} heads: 1 K/V head for all ${PLAY_MAX_HEADS}`);
    }
  }
  if (v === 'mla') nKvHeads = nHeads;
  if (nHeads !== H) {
    notes.push(`${fmtInt(H)} → ${nHeads} query heads${v === 'gqa' && G !== nKvHeads ? `, ${fmtInt(G)} → ${nKvHeads} K/V heads` : ''}`);
  }
  const dHead = Math.max(1, Math.floor(Math.min(rec.dModel, PLAY_MAX_DMODEL) / nHeads));
  const dModel = dHead * nHeads;
  if (dModel !== rec.dModel) notes.push(`dModel ${fmtInt(rec.dModel)} → ${dModel} (dHead ${fmtInt(rec.dHead)} → ${dHead})`);
  const patch = { variant: v, dModel, nHeads, nKvHeads, dHead: 0, view: 'all' };
  if (v === 'mla') {
    const r = Math.max(1, Math.min(rec.latentRank || PLAY_MAX_LATENT, PLAY_MAX_LATENT, dModel));
    const dr = Math.max(0, 2 * Math.floor(Math.min(rec.ropeDim ?? 0, PLAY_MAX_ROPE, dHead) / 2));
    if (r !== rec.latentRank) notes.push(`latent rank ${fmtInt(rec.latentRank)} → ${r}`);
    if (dr !== rec.ropeDim) notes.push(`RoPE width ${fmtInt(rec.ropeDim ?? 0)} → ${dr}`);
    patch.latentRank = r;
    patch.ropeDim = dr;
  }
  return { patch, notes };
}

export function createConfiguratorView(root, ctx) {
  const id = `cfg${++uid}`;
  let state = null;
  const latest = createLatest(root, { busyDelay: DEBOUNCE_MS });
  let queryKey = '';
  let rec = null;               // the latest recommendation shown
  let targets = null;           // deploymentTargets(), once
  let targetsError = '';
  let targetsHtml = '';
  let unit = null;              // the budget's unit as the user chose it ('M' | 'B')
  const pending = new Map();    // number fields typed but not applied yet (debounced): key -> value
  let pendingTimer = 0;
  let chart = null;             // the KV-cache chart of the recommendation, with its own local state
  let chartState = null;
  let chartError = '';

  const fieldId = (k) => `${id}-${k}`;
  const errBox = (k) => `<p class="field-error" id="${fieldId(k)}-err" role="alert" hidden></p>`;
  const described = (k, help) => `aria-describedby="${help ? `${fieldId(k)}-help ` : ''}${fieldId(k)}-err"`;
  // The form's fields from the kit's one field builder (label, input, hint, error slot), as markup.
  const INT = { min: '1', step: '1', inputmode: 'numeric' };
  const numberField = (k, label, help, attrs = INT, extra = {}) => {
    const f = field({ id: fieldId(k), name: k, label, kind: 'number', hint: help, attrs });
    for (const [a, v] of Object.entries(extra)) f.box.setAttribute(a, v);
    return f.box.outerHTML;
  };
  const selectField = (k, label, options, help) => field({ id: fieldId(k), name: k, label, kind: 'select', hint: help, options }).box.outerHTML;
  const opts = (pairs) => pairs.map(([v, t]) => `<option value="${esc(v)}">${esc(t)}</option>`).join('');

  root.innerHTML = `
    <form class="controls cfg-form" novalidate aria-label="Configurator request">
      <fieldset class="field field-wide cfg-mode">
        <legend>Model size</legend>
        <label><input type="radio" name="cfgMode" value="budget"> parameter budget</label>
        <label><input type="radio" name="cfgMode" value="dims"> set dModel and layers directly</label>
      </fieldset>
      <div class="field" data-field="cfgBudget" data-mode="budget">
        <label for="${fieldId('cfgBudget')}">Parameter budget</label>
        <span class="cfg-budget">
          <input type="number" id="${fieldId('cfgBudget')}" name="cfgBudget" min="0" step="any" inputmode="decimal"
            ${described('cfgBudget', true)}>
          <select name="cfgUnit" aria-label="Budget unit">${opts([['M', 'M (million)'], ['B', 'B (billion)']])}</select>
        </span>
        <small id="${fieldId('cfgBudget')}-help">total parameters</small>${errBox('cfgBudget')}</div>
      ${numberField('cfgDModel', 'dModel', 'model width', INT, { 'data-mode': 'dims' })}
      ${numberField('cfgLayers', 'Layers', 'transformer blocks', INT, { 'data-mode': 'dims' })}
      ${numberField('cfgSeqLen', 'Target context (tokens)', 'sequence length to serve')}
      ${numberField('cfgBatch', 'Batch', 'sequences cached at once')}
      ${selectField('cfgTarget', 'Deployment target', [], 'memory for weights + KV cache')}
      ${numberField('cfgMemoryGB', 'Custom memory (GB)', 'GB = 10⁹ bytes', { min: '0', step: 'any', inputmode: 'decimal' }, { 'data-custom': '' })}
      ${selectField('cfgDtype', 'KV-cache data type', Object.keys(DTYPES).map((k) => [k, `${dtypeLabel(k)} (${DTYPE_NOTES[k]} / element)`]), 'weights: 2 bytes / parameter')}
      ${selectField('cfgPriority', 'Priority', PRIORITIES, '')}
      ${selectField('cfgVariant', 'Force variant', [['', 'auto (recommend)'], ...VARIANTS.map((v) => [v, `${VARIANT_NAMES[v]} (${VARIANT_LONG[v]})`])], 'priced and warned about')}
      <div class="field field-check" data-field="cfgBenchmark">
        <input type="checkbox" id="${fieldId('cfgBenchmark')}" name="cfgBenchmark" ${described('cfgBenchmark', true)}>
        <label for="${fieldId('cfgBenchmark')}">Benchmarking MLA</label>
        <small id="${fieldId('cfgBenchmark')}-help">allow MLA under 1B parameters</small>${errBox('cfgBenchmark')}</div>
    </form>
    <p class="note cfg-status" data-role="status" role="status" aria-live="polite"></p>
    <div class="cfg-result" data-role="result" hidden>
      <div class="cfg-answer" data-role="answer"></div>
      <div class="cfg-open">
        <button type="button" class="primary" data-action="open">Open in the playground</button>
        <span class="note" data-role="open-status" role="status" aria-live="polite"></span>
      </div>
      <h3 id="${id}-chart-title">KV cache of this shape beside the closest real models</h3>
      <p class="note" data-role="chart-note"></p>
      <p class="error-text" data-role="chart-status" role="status" hidden></p>
      <div class="cfg-chart" data-role="chart" role="group" aria-labelledby="${id}-chart-title"></div>
    </div>`;

  const $ = (r) => root.querySelector(`[data-role="${r}"]`);
  const form = root.querySelector('form');
  const input = (k) => form.elements.namedItem(k);
  const isFocused = (el) => el === root.getRootNode().activeElement;
  const targetSelect = input('cfgTarget');

  // ---- the form -> the state --------------------------------------------------------------------
  const budgetFromInput = () => {
    const v = input('cfgBudget').value;
    return v === '' ? null : Math.round(Number(v) * UNITS[unit]);
  };

  function flush() {
    clearTimeout(pendingTimer);
    if (pending.size === 0) return;
    const patch = Object.fromEntries(pending);
    pending.clear();
    ctx.setState(patch);
  }

  form.addEventListener('input', (e) => {
    const el = e.target;
    const k = el.name;
    if (el.type === 'number') {
      const value = k === 'cfgBudget' ? budgetFromInput() : el.value === '' ? null : Number(el.value);
      if (value === null || !Number.isFinite(value)) return;  // mid-edit: wait for a number
      pending.set(k, value);
      clearTimeout(pendingTimer);
      pendingTimer = setTimeout(flush, DEBOUNCE_MS);
      return;
    }
    if (el.type === 'checkbox') ctx.setState({ [k]: el.checked });
    else if (k === 'cfgMode') {
      if (el.value === 'budget') ctx.setState({ cfgDModel: 0, cfgLayers: 0 });
      else ctx.setState({ cfgDModel: rec?.dModel || 4096, cfgLayers: rec?.nLayers || 32 });
    } else if (k === 'cfgUnit') {
      unit = el.value;
      const b = budgetFromInput();
      if (b !== null && Number.isFinite(b)) ctx.setState({ cfgBudget: b });
    } else if (k in (state ?? {})) ctx.setState({ [k]: el.value });
  });
  form.addEventListener('change', (e) => { if (e.target.type === 'number') flush(); });
  form.addEventListener('submit', (e) => { e.preventDefault(); flush(); });

  function renderTargets(s) {
    const list = targets ?? [];
    const known = new Set(['custom', 'none', ...list.map((t) => t.id)]);
    const extra = known.has(s.cfgTarget) ? [] : [[s.cfgTarget, s.cfgTarget]];  // unknown id from a URL: the core explains
    const html = opts([
      ...list.map((t) => [t.id, /\d\s*GB/.test(t.name) ? t.name : `${t.name} (${fmtDecimal(t.memoryBytes)})`]),
      ...extra,
      ['custom', 'custom memory…'],
      ['none', 'none (do not check the fit)'],
    ]);
    if (html === targetsHtml) return;  // re-filling the options would lose the selection
    targetsHtml = html;
    targetSelect.innerHTML = html;
    targetSelect.value = s.cfgTarget;
  }

  function syncForm(s) {
    renderTargets(s);
    const dims = s.cfgDModel > 0 || s.cfgLayers > 0;
    for (const r of form.querySelectorAll('input[name="cfgMode"]')) r.checked = r.value === (dims ? 'dims' : 'budget');
    for (const el of root.querySelectorAll('[data-mode]')) el.hidden = el.dataset.mode !== (dims ? 'dims' : 'budget');
    root.querySelector('[data-custom]').hidden = s.cfgTarget !== 'custom';
    unit ??= s.cfgBudget >= 1e9 ? 'B' : 'M';
    input('cfgUnit').value = unit;
    const set = (k, text) => {
      const el = input(k);
      if (isFocused(el) || pending.has(k)) return;  // never overwrite what is being typed
      if (el.value !== text) el.value = text;
    };
    set('cfgBudget', sig(s.cfgBudget / UNITS[unit]));
    for (const k of ['cfgDModel', 'cfgLayers', 'cfgSeqLen', 'cfgBatch', 'cfgMemoryGB']) set(k, String(s[k]));
    for (const k of ['cfgTarget', 'cfgDtype', 'cfgPriority', 'cfgVariant']) if (!isFocused(input(k))) input(k).value = s[k];
    input('cfgBenchmark').checked = Boolean(s.cfgBenchmark);
  }

  // ---- the request ------------------------------------------------------------------------------
  function queryOf(s) {
    const q = { seqLen: s.cfgSeqLen, batch: s.cfgBatch, priority: s.cfgPriority, bytesPerElement: DTYPES[s.cfgDtype] ?? 2 };
    if (s.cfgDModel > 0 || s.cfgLayers > 0) {
      q.dModel = s.cfgDModel;
      q.nLayers = s.cfgLayers;
    } else {
      q.paramBudget = s.cfgBudget;
    }
    if (s.cfgTarget === 'custom') q.memoryBytes = s.cfgMemoryGB * 1e9;
    else if (s.cfgTarget !== 'none') q.target = s.cfgTarget;
    if (s.cfgVariant) q.variant = s.cfgVariant;
    if (s.cfgBenchmark) q.benchmark = true;
    return q;
  }

  /** Shows a core error next to the field it names (error.field); returns whether a field took it. */
  function showFieldErrors(error, s) {
    const message = error ? inPageWords(error.message) : '';
    const hits = new Set();
    const dims = s.cfgDModel > 0 || s.cfgLayers > 0;
    const shown = (key) => (key === 'cfgBudget' ? !dims : key === 'cfgDModel' || key === 'cfgLayers' ? dims : true);
    if (message) {
      const named = String(error.field ?? '').split('.')[0];
      for (const [field, key] of ERROR_FIELDS) {
        if (field !== named) continue;
        // A custom memory error belongs to the custom field, a named target's to the target select;
        // fields of the other size mode are hidden (a budget error may mention dModel in passing).
        const k = key === 'cfgMemoryGB' && s.cfgTarget !== 'custom' ? 'cfgTarget' : key;
        if (shown(k)) hits.add(k);
      }
    }
    for (const [, key] of ERROR_FIELDS) {
      const box = root.querySelector(`#${fieldId(key)}-err`);
      const on = hits.has(key);
      box.hidden = !on;
      box.textContent = on ? message : '';
      const el = input(key);
      el.toggleAttribute('aria-invalid', on);
      if (key === 'cfgBudget') input('cfgUnit').toggleAttribute('aria-invalid', on);
    }
    return hits.size > 0;
  }

  function compute(s) {
    const q = queryOf(s);
    latest.run(
      async (isCurrent) => {
        if (!targets && !targetsError) {
          try {
            targets = await ctx.client.call('deploymentTargets');
          } catch (e) {
            targetsError = `deployment targets unavailable: ${e.message}`;
          }
          if (isCurrent()) renderTargets(state);
        }
        return ctx.client.call('recommend', q);
      },
      (result) => {
        showFieldErrors(null, s);
        rec = result;
        root.dataset.variant = result.variant;
        $('status').className = 'note cfg-status';
        $('status').textContent = targetsError;
        $('open-status').textContent = '';
        $('result').hidden = false;
        renderAnswer(result, s);
        renderChart(result, s);
        return { recommendation: result };
      },
      (e) => {
        rec = null;
        const onField = showFieldErrors(e, s);
        $('status').className = 'cfg-status error-text';
        $('status').textContent = onField ? 'No recommendation: see the highlighted field.' : `No recommendation: ${inPageWords(e.message)}`;
        $('result').hidden = true;
        return { error: e.message, field: e.field ?? null };
      });
  }

  // ---- the answer -------------------------------------------------------------------------------
  function kvHeadsText(r) {
    if (r.variant === 'mla') return `a latent of rank ${fmtInt(r.latentRank)} + a RoPE key of ${fmtInt(r.ropeDim ?? 0)}`;
    if (r.variant === 'mqa') return `${fmtInt(r.nHeads)} query heads sharing 1 K/V head`;
    if (r.variant === 'mha') return `${fmtInt(r.nHeads)} heads, each with its own K/V`;
    return `${fmtInt(r.nHeads)} query heads sharing ${fmtInt(r.nKvHeads)} K/V heads`;
  }

  function fitHtml(r, s) {
    if (r.fits === null || r.fits === undefined) {
      return `<p class="cfg-fit cfg-fit-none" data-role="fit"><strong>Fit not checked</strong>: no deployment target.
        Weights ${gbHtml(r.weightBytes)} + KV cache ${gbHtml(r.kvBytesTotal)} = ${gbHtml(r.weightBytes + r.kvBytesTotal)}.</p>`;
    }
    const target = targets?.find((t) => t.id === s.cfgTarget)?.name ?? (s.cfgTarget === 'custom' ? 'custom memory' : s.cfgTarget);
    const sum = `weights ${gbHtml(r.weightBytes)} + KV cache ${gbHtml(r.kvBytesTotal)} = ${gbHtml(r.weightBytes + r.kvBytesTotal)}
      of ${gbHtml(r.memoryBytes)}`;
    const margin = Math.abs(r.marginBytes ?? 0);
    return r.fits
      ? `<p class="cfg-fit cfg-fit-yes" data-role="fit"><span aria-hidden="true">✓</span> <strong>Fits</strong> ${esc(target)}: ${sum}, ${gbHtml(margin)} to spare.</p>`
      : `<p class="cfg-fit cfg-fit-no" data-role="fit"><span aria-hidden="true">✗</span> <strong>Does not fit</strong> ${esc(target)}: ${sum}, ${gbHtml(margin)} over.</p>`;
  }

  function shapeTable(r) {
    const rows = [
      ['dModel', 'model width', r.dModel],
      ['nLayers', 'layers', r.nLayers],
      ['nHeads', 'query heads', r.nHeads],
      ['nKvHeads', r.variant === 'mla' ? 'K/V heads cached: none, the latent replaces them' : 'K/V heads (cached)',
        r.variant === 'mla' ? null : r.nKvHeads],
      ['dHead', 'head width', r.dHead],
    ];
    if (r.variant === 'mla') {
      rows.push(['latentRank', 'cached latent per token (r)', r.latentRank], ['ropeDim', 'decoupled RoPE key (dr)', r.ropeDim]);
    }
    return `<table class="cfg-shape"><caption>Shape</caption><tbody>
      ${rows.map(([k, what, v]) => `<tr data-key="${k}"><th scope="row"><code>${k}</code> <small>${what}</small></th><td>${v === undefined || v === null ? '—' : fmtInt(v)}</td></tr>`).join('')}
      <tr><th scope="row">parameters <small>estimated, whole model</small></th><td title="${esc(fmtInt(r.params))}">${esc(fmtCount(r.params))}</td></tr>
      </tbody></table>`;
  }

  function memoryTable(r, s) {
    const batch = s.cfgBatch === 1 ? '' : ` × ${fmtInt(s.cfgBatch)} sequences`;
    const rows = [
      ['KV cache per token per layer', bytesCell(r.kvBytesPerTokenPerLayer)],
      ['KV cache per token (all layers)', bytesCell(r.kvBytesPerToken)],
      [`KV cache at ${fmtInt(s.cfgSeqLen)} tokens (${fmtTokens(s.cfgSeqLen)})${batch}`, bytesCell(r.kvBytesTotal)],
      ['weights', bytesCell(r.weightBytes)],
      ['weights + KV cache', bytesCell(r.weightBytes + r.kvBytesTotal)],
    ];
    if (r.memoryBytes !== null && r.memoryBytes !== undefined) rows.push(['device memory', bytesCell(r.memoryBytes)]);
    return `<table class="cfg-memory"><caption>Memory (${esc(dtypeLabel(s.cfgDtype))} KV cache)</caption><tbody>
      ${rows.map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${v}</td></tr>`).join('')}</tbody></table>`;
  }

  function ladderTable(r) {
    const alts = r.alternatives ?? [];
    if (!alts.length) return '';
    const cache = (a) => (a.variant === 'mla'
      ? `r + dr = ${fmtInt(a.latentRank ?? 0)} + ${fmtInt(a.ropeDim ?? 0)}`
      : `${fmtInt(a.nKvHeads)} K/V head${a.nKvHeads === 1 ? '' : 's'}`);
    const chosen = (a) => a.variant === r.variant && (a.variant === 'mla'
      ? a.latentRank === r.latentRank && (a.ropeDim ?? 0) === (r.ropeDim ?? 0)
      : a.nKvHeads === r.nKvHeads);
    const fit = (f) => (f === true ? '<span class="cfg-yes">✓ fits</span>' : f === false ? '<span class="cfg-no">✗ too big</span>' : '—');
    return `<div class="scroll" tabindex="0" role="region" aria-label="Variants priced"><table class="cfg-ladder"><caption>Variants priced (at ${fmtTokens(state.cfgSeqLen)} tokens)</caption>
      <thead><tr><th scope="col">variant</th><th scope="col">cache</th><th scope="col">KV cache</th><th scope="col">fits</th></tr></thead>
      <tbody>${alts.map((a) => `<tr class="${chosen(a) ? 'current' : ''}"${chosen(a) ? ' aria-current="true"' : ''}>
        <th scope="row">${VARIANT_NAMES[a.variant] ?? esc(a.variant)}${chosen(a) ? ` <small>(${state.cfgVariant ? 'asked for' : 'recommended'})</small>` : ''}</th>
        <td>${esc(cache(a))}</td><td>${bytesCell(a.kvBytesTotal)}</td><td>${fit(a.fits)}</td></tr>`).join('')}</tbody></table></div>`;
  }

  const list = (items, cls, label) => (items?.length
    ? `<ul class="${cls}" aria-label="${label}">${items.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : '');

  function renderAnswer(r, s) {
    $('answer').innerHTML = `
      <div class="cfg-headline">
        <p class="cfg-variant"><strong data-role="variant">${VARIANT_NAMES[r.variant] ?? esc(r.variant)}</strong>
          <span>(${esc(VARIANT_LONG[r.variant] ?? '')}): ${esc(kvHeadsText(r))}</span></p>
        <p class="cfg-justification" data-role="justification">${esc(r.justification)}</p>
        ${fitHtml(r, s)}
      </div>
      ${r.warnings?.length ? `<div class="cfg-warnings" role="note"><h4>Warnings</h4>${list(r.warnings, 'cfg-warning-list', 'Warnings')}</div>` : ''}
      <div class="cfg-tables"><div class="scroll" tabindex="0" role="region" aria-label="Shape">${shapeTable(r)}</div><div class="scroll" tabindex="0" role="region" aria-label="Memory">${memoryTable(r, s)}</div>${ladderTable(r)}</div>
      <dl class="cfg-build">
        <dt>Initialisation</dt><dd data-role="init">${esc(r.init)}</dd>
        <dt>Biases</dt><dd data-role="bias">${esc(r.bias)}</dd>
        <dt>Check the built model</dt><dd data-role="check">${esc(r.check)}</dd>
      </dl>
      ${r.reasons?.length ? `<h4>Why</h4>${list(r.reasons, 'cfg-reasons', 'Reasons')}` : ''}
      ${r.rules?.length ? `<p class="cfg-rules"><span class="note">Rules that fired:</span>
        ${r.rules.map((x) => `<code class="cfg-chip">${esc(x)}</code>`).join(' ')}</p>` : ''}`;
  }

  // ---- the KV-cache chart of the recommendation (a kv-chart view with its own local state) -------
  function renderChartStatus() {
    $('chart-status').hidden = !chartError;
    $('chart-status').textContent = chartError;
  }

  function renderChart(r, s) {
    const presets = ctx.presets ?? [];
    const mlaAlt = (r.alternatives ?? []).find((a) => a.variant === 'mla' && a.latentRank);
    const ids = closestPresets(presets, r.params);
    chartState = {
      ...s,
      variant: r.variant,
      dModel: r.dModel,
      nHeads: r.nHeads,
      nKvHeads: r.nKvHeads || 1,
      dHead: r.dHead,
      // The MLA line at this shape: the recommended latent, else the one the ladder priced, else
      // DeepSeek-V2/V3's ratios (r = 4 dh, dr = dh / 2), not the playground's toy sizes.
      latentRank: r.latentRank || mlaAlt?.latentRank || 4 * r.dHead,
      ropeDim: r.ropeDim ?? mlaAlt?.ropeDim ?? Math.floor(r.dHead / 2),
      nLayers: r.nLayers,
      dtype: s.cfgDtype,
      batch: s.cfgBatch,
      presets: ids.join(','),
    };
    const names = ids.map((pid) => presets.find((p) => p.id === pid)?.name).filter(Boolean);
    $('chart-note').textContent = `Solid: the four variants at the recommended shape (${VARIANT_NAMES[r.variant]} thick). Dashed: ${
      names.length ? names.join(', ') : 'no real model'}, the closest in size (a dense estimate from their dimensions; for mixture-of-experts models, the active parameters). The chart's settings change only this chart.`;
    chartError = '';
    renderChartStatus();
    if (!chart) {
      const local = {
        client: ctx.client,
        theme: ctx.theme,
        info: ctx.info,
        presets,
        setState: (patch) => {
          chartState = { ...chartState, ...patch };
          chart.update(chartState);
        },
        reportError: (source, error) => {
          chartError = error ? `Chart: ${error.message}` : '';
          renderChartStatus();
        },
      };
      chart = createKvChartView($('chart'), local);
    }
    chart.update(chartState);
  }

  // ---- open in the playground -------------------------------------------------------------------
  root.querySelector('[data-action="open"]').addEventListener('click', () => {
    if (!rec) return;
    const { patch, notes } = playgroundShape(rec);
    const what = `${VARIANT_NAMES[patch.variant]}, ${patch.nHeads} query heads${patch.variant === 'gqa' ? ` / ${patch.nKvHeads} K/V heads` : ''}, dModel ${patch.dModel}${patch.variant === 'mla' ? `, r ${patch.latentRank}, dr ${patch.ropeDim}` : ''}`;
    const scaled = notes.length ? ` Scaled down so the maps stay readable: ${notes.join('; ')}.` : '';
    let done = 'applied';
    if (ctx.openPlayground) {
      const { view, ...shape } = patch;
      done = ctx.openPlayground(state?.view === 'all' ? patch : shape);
    } else {
      ctx.setState(patch);
    }
    $('open-status').textContent = done === 'applied'
      ? `Loaded into the attention maps: ${what}.${scaled}`
      : done === 'opened'
        ? `Opened the playground in a new tab: ${what}.${scaled}`
        : `This page does not link to the full playground; the shape is ${what}.${scaled}`;
  });

  return {
    update(s) {
      state = s;
      syncForm(s);
      const key = JSON.stringify(CFG_KEYS.map((k) => s[k]));
      if (key !== queryKey) {
        queryKey = key;
        compute(s);
      }
    },
    destroy() {
      latest.cancel();
      clearTimeout(pendingTimer);
      chart?.destroy();
      chart = null;
      root.replaceChildren();
    },
  };
}
