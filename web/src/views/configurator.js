// configurator.js — the lesson's configurator: from a parameter budget (or dModel + layers), a target
// context, a batch and a deployment target, the core's `recommend` chooses the attention variant and
// its head counts and prices the KV cache. This view is its form (parts/cfg-form.js) and its answer
// (parts/cfg-answer.js): the shape, the memory it needs against the device, the rules that fired, the
// ladder of variants it priced, a KV-cache chart of the shape beside the closest real models
// (parts/cfg-chart.js), and "Open in the playground" (parts/playground-shape.js).
// The form lives in the shared state (the cfg* keys of state.js), so a permalink reproduces it.
// Every number shown comes from the core; the parts only put it into words.
import { DTYPES } from '../state.js';
import configuratorCss from '../styles/configurator.css?inline';
import { createLatest, el, showCoreError, useStyles } from '../kit.js';
import { DEBOUNCE_MS, createCfgForm } from '../parts/cfg-form.js';
import { cfgAnswer } from '../parts/cfg-answer.js';
import { createCfgChart } from '../parts/cfg-chart.js';
import { playgroundShape, scaledNote } from '../parts/playground-shape.js';
import '../i18n/catalogs/en/cfg.js';  // the English words it speaks

/** The state keys this view reads: a change of any of them asks the core again. */
const CFG_KEYS = ['cfgBudget', 'cfgDModel', 'cfgLayers', 'cfgSeqLen', 'cfgBatch', 'cfgTarget', 'cfgMemoryGB',
  'cfgDtype', 'cfgPriority', 'cfgVariant', 'cfgBenchmark'];

let uid = 0;

/** The core's recommend request for the form's state. */
function queryOf(s) {
  const q = { seqLen: s.cfgSeqLen, batch: s.cfgBatch, priority: s.cfgPriority, bytesPerElement: DTYPES[s.cfgDtype] ?? 2 };
  if (s.cfgDModel > 0 || s.cfgLayers > 0) Object.assign(q, { dModel: s.cfgDModel, nLayers: s.cfgLayers });
  else q.paramBudget = s.cfgBudget;
  if (s.cfgTarget === 'custom') q.memoryBytes = s.cfgMemoryGB * 1e9;
  else if (s.cfgTarget !== 'none') q.target = s.cfgTarget;
  if (s.cfgVariant) q.variant = s.cfgVariant;
  if (s.cfgBenchmark) q.benchmark = true;
  return q;
}

export function createConfiguratorView(root, ctx) {
  useStyles(root, 'configurator', configuratorCss);
  const { i18n } = ctx;
  const { t } = i18n;
  const id = `cfg${++uid}`;
  const latest = createLatest(root, { busyDelay: DEBOUNCE_MS });
  let state = null, queryKey = '', rec = null, opening = null;
  let targets = null, targetsError = '';   // deploymentTargets(), once
  const form = createCfgForm(id, ctx.setState, () => rec, i18n);
  const status = el('p', { className: 'note cfg-status', dataset: { role: 'status' }, role: 'status', 'aria-live': 'polite' });
  const answer = el('div', { className: 'cfg-answer', dataset: { role: 'answer' } });
  const openStatus = el('span', { className: 'note', dataset: { role: 'open-status' }, role: 'status', 'aria-live': 'polite' });
  const open = el('button', { type: 'button', className: 'primary', dataset: { action: 'open' }, onclick: () => openPlayground() },
    t('cfg.open'));
  const chart = createCfgChart(ctx, `${id}-chart-title`);
  const result = el('div', { className: 'cfg-result', dataset: { role: 'result' }, hidden: true },
    answer, el('div', 'cfg-open', open, openStatus), chart.element);
  root.replaceChildren(form.element, status, result);

  /** "Open in the playground": the recommended shape with its H and G, scaled as parts/playground-shape.js says. */
  async function openPlayground() {
    if (!opening) return;
    try {
      const { patch, notes, what } = await opening;
      const note = scaledNote(notes, i18n);
      const done = ctx.openPlayground(patch, { note: `${what}. ${note}`.trim() });
      openStatus.textContent = t(done === 'applied' ? 'cfg.loaded' : done === 'opened' ? 'cfg.opened' : 'cfg.notLinked', { shape: what, note }).trim();
    } catch (e) {
      showCoreError(openStatus, e, i18n).prepend(t('cfg.cannotOpen'), ' ');
    }
  }

  function compute(s) {
    latest.run(async (isCurrent) => {
      if (!targets && !targetsError) {
        try {
          targets = await ctx.client.call('deploymentTargets');
        } catch (e) {
          targetsError = t('cfg.noTargets', { message: e.message });
        }
        if (isCurrent()) form.sync(state, targets ?? []);
      }
      return ctx.client.call('recommend', queryOf(s));
    }, (r) => {
      form.showError(null, s);
      rec = r;
      opening = playgroundShape(ctx.client, r, i18n);  // asked now: the click then opens a tab at once
      opening.catch(() => {});                   // (its error is shown on the click)
      root.dataset.variant = r.variant;
      status.className = 'note cfg-status';
      status.textContent = targetsError;
      openStatus.textContent = '';
      result.hidden = false;
      answer.replaceChildren(...cfgAnswer(r, s, targets ?? [], i18n));
      chart.show(r, s);
      return { recommendation: r };
    }, (e) => {
      rec = opening = null;
      const onField = form.showError(e, s);
      status.className = 'cfg-status error-text';
      if (onField) status.textContent = t('cfg.noRecField');
      else showCoreError(status, e, i18n).prepend(t('cfg.noRec'), ' ');
      result.hidden = true;
      return { error: e.message, field: e.field ?? null };
    });
  }

  return {
    update(s) {
      state = s;
      form.sync(s, targets ?? []);
      const key = JSON.stringify(CFG_KEYS.map((k) => s[k]));
      if (key !== queryKey) {
        queryKey = key;
        compute(s);
      }
    },
    destroy() {
      latest.cancel();
      form.destroy();
      chart.destroy();
      root.replaceChildren();
    },
  };
}
