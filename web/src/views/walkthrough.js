// walkthrough.js — the lesson's mechanism, one step at a time, on the core's real tensors:
// X → Q, K, V → split into heads → scores → softmax → P·V → concat → W_o (MLA: the latent, the
// up-projections, the decoupled RoPE key, the cache and the absorbed form). Every tensor drawn is one
// the source's pass returned (the core's forward with returnIntermediates), never recomputed here;
// lesson/stages.js says which tensors each step shows, its formula with the sizes filled in, and what
// each cell was made from, for the lesson's block and a layer of an opened checkpoint alike (with a
// layer picker). Steps: the step list, Previous / Next, or the arrow keys; `step` in the URL.
import lessonCss from '../styles/lesson.css?inline';
import { coreDetail, createLatest, el, setViewState, variantLabel, useStyles } from '../kit.js';
import { cellStory, lessonSteps } from '../lesson/stages.js';
import '../i18n/catalogs/en/maps.js';         // the layer picker's words
import { createReadout } from '../render/heatmap.js';
import { tensorFigure } from '../render/tensor-figure.js';
import { messageNodes } from '../i18n/nodes.js';
import '../i18n/catalogs/en/walkthrough.js';  // the English words it speaks

export function createWalkthroughView(root, ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  useStyles(root, 'lesson', lessonCss);
  const latest = createLatest(root);
  let last = null;      // { key, data: source.stages(), steps }
  let stepId = '';
  const nav = el('ol', { className: 'wt-steps', 'aria-label': t('walk.stepsLabel') });
  const prev = el('button', { type: 'button', dataset: { action: 'prev' }, onclick: () => go(-1) }, t('walk.prev'));
  const next = el('button', { type: 'button', dataset: { action: 'next' }, onclick: () => go(1) }, t('walk.next'));
  const counter = el('span', { className: 'note', dataset: { role: 'counter' } });
  const title = el('h3', { className: 'wt-title', dataset: { role: 'step-title' }, tabindex: '-1' });
  const formula = el('div', { className: 'formula wt-formula', dataset: { role: 'formula' } });
  const note = el('p', { className: 'note', dataset: { role: 'step-note' } });
  const plots = el('div', { className: 'wt-plots', dataset: { role: 'plots' } });
  const readout = createReadout(t('walk.hint'));
  const summary = el('p', { className: 'note', dataset: { role: 'summary' } });
  const tools = el('div', 'view-tools');
  root.replaceChildren(summary, tools, nav, el('div', 'wt-buttons', prev, counter, next), title, formula, note, readout, plots);

  function go(delta) {
    if (!last) return;
    const ids = last.steps.map((s) => s.id);
    const k = Math.max(0, Math.min(ids.length - 1, ids.indexOf(stepId) + delta));
    if (ids[k] !== stepId) ctx.setState({ step: ids[k] });
  }
  root.addEventListener('keydown', (e) => {
    const t = e.composedPath()[0];
    if (t instanceof HTMLElement && (t.matches('input, select, textarea, canvas') || t.isContentEditable)) return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      go(e.key === 'ArrowRight' ? 1 : -1);
    }
  });

  function tensorOf(key) {
    const { data } = last;
    if (key === 'x') return { shape: [data.tokens.length, data.shape.dModel], data: data.x };
    if (key === 'output') return { shape: [data.tokens.length, data.shape.dModel], data: data.output };
    return data.intermediates[key];
  }

  function renderStep() {
    const { steps, data } = last;
    const k = Math.max(0, steps.findIndex((s) => s.id === stepId));
    const step = steps[k];
    stepId = step.id;
    nav.replaceChildren(...steps.map((s, n) => el('li', null, el('button', {
      type: 'button', dataset: { step: s.id }, 'aria-current': s.id === step.id ? 'step' : null,
      onclick: () => ctx.setState({ step: s.id }),
    }, t('walk.stepButton', { n: n + 1, name: s.short })))));
    prev.disabled = k === 0;
    next.disabled = k === steps.length - 1;
    counter.textContent = t('walk.counter', { k: k + 1, n: steps.length });
    title.textContent = step.title;
    formula.replaceChildren(...step.formula.map((f) => el('div', null, f)));
    note.textContent = step.note;
    readout.say('');
    plots.replaceChildren(...step.tensors.map((spec) => tensorFigure(spec, tensorOf(spec.key), {
      tokens: data.tokens, readout, name: { view: 'walkthrough', variant: data.shape.variant, what: spec.key, layer: data.layer ?? 0 }, i18n,
      describe: (at, value) => cellStory(spec.key, data.shape, data.tokens, at, value, i18n),
    })));
    root.dataset.step = step.id;
    // What was drawn, for tests and embedders: the step, and each tensor exactly as the core returned it.
    const drawn = Object.fromEntries(step.tensors.map((t) => [t.key, tensorOf(t.key)]));
    return { step: step.id, steps: steps.map((s) => s.id), tensors: step.tensors.map((t) => t.key), drawn, shape: data.shape };
  }

  /** A layer picker where the source has several layers (state.layer), as the attention-maps view's. */
  function layerPicker(data) {
    if (!(data.layers > 1)) return [];
    const { t } = ctx.i18n;
    const id = `${root.dataset.slot}-layer-${Math.random().toString(36).slice(2, 7)}`;
    const select = el('select', { id, name: 'layer', onchange: () => ctx.setState({ layer: Number(select.value) }) },
      ...Array.from({ length: data.layers }, (_, l) => el('option', { value: String(l) }, t('maps.layerOption', { layer: l }))));
    select.value = String(data.layer);
    return [el('label', { for: id }, t('maps.layer'), ' '), select];
  }

  function describe(data, cut) {
    const s = data.shape, n = i18n.fmt.int;
    const dims = `N = ${n(s.seqLen)}, D = ${n(s.dModel)}, H = ${n(s.nHeads)}, ` +
      `${s.variant === 'mla' ? `r = ${n(s.latentRank)}, dr = ${n(s.ropeDim)}` : `G = ${n(s.nKvHeads)}`}, dh = ${n(s.dHead)}`;
    summary.replaceChildren(t(s.causal ? 'walk.summaryCausal' : 'walk.summary', { variant: variantLabel(s.variant, i18n), count: data.tokens.length, dims }));
    if (data.shape.modelType) {
      summary.append(' ', t('walk.layerSummary', { layer: data.layer, layers: data.layers, model: data.shape.modelType }));
    }
    if (data.trained) {  // a zoo model (sources/zoo-model.js); its name is the manifest's
      summary.append(' ', ...messageNodes(t, 'walk.trained', { name: el('span', { lang: 'en', dataset: { text: 'model' } }, data.trained.name) },
        { seed: data.trained.seed }));
    }
    if (cut) summary.append(' ', el('strong', { dataset: { role: 'truncated' } }, cut));
    tools.replaceChildren(...layerPicker(data));
  }

  return {
    update(state) {
      const source = ctx.sourceFor('walkthrough', state);
      stepId = state.step;
      if (!source.stages) {
        latest.cancel();
        summary.textContent = t('walk.noStages', { source: source.title });
        plots.replaceChildren();
        tools.replaceChildren();
        setViewState(root, 'ready', { steps: [], step: null });
        return undefined;
      }
      if (source.tokens(state).length === 0) {
        latest.cancel();
        last = null;
        summary.textContent = t('walk.typeSentence');
        plots.replaceChildren();
        tools.replaceChildren();
        setViewState(root, 'ready', { steps: [], step: null });
        return undefined;
      }
      const key = source.key(state);
      if (last && last.key === key) {           // only the step changed: no new pass
        setViewState(root, 'ready', renderStep());
        return undefined;
      }
      return latest.run(() => source.stages(state, { layer: state.layer }), (data) => {
        ctx.reportError('walkthrough', null);
        last = { key, data, steps: lessonSteps(data.shape, i18n) };
        describe(data, source.note(state));
        return renderStep();
      }, (e) => {
        ctx.reportError('walkthrough', e);
        last = null;
        summary.replaceChildren(t('walk.cannot'), ' ', coreDetail(e.message, i18n));
        plots.replaceChildren();
        tools.replaceChildren();
      });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
