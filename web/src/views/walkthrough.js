// walkthrough.js — the lesson's mechanism, one step at a time, on the core's real tensors:
// X → Q, K, V → split into heads → scores → softmax → P·V → concat → W_o (MLA: the latent, the
// up-projections, the decoupled RoPE key, the cache and the absorbed form). Every tensor drawn is one
// the core returned (forward with returnIntermediates), never recomputed here; lesson/stages.js says
// which tensors each step shows, the formula with the sizes filled in, and what each cell was made from.
// Steps: the step list, Previous / Next, or the arrow keys; the current step is `step` in the URL.
import { createLatest, el, setViewState, variantLabel } from '../kit.js';
import { cellStory, lessonSteps } from '../lesson/stages.js';
import { inputOf, shapeSpec } from '../state.js';
import { tokenize, truncationNote } from '../tokens.js';
import { tensorPlot } from './tensor-plot.js';

export function createWalkthroughView(root, ctx) {
  const latest = createLatest(root);
  let last = null;      // { key, tokens, r (core result), x, steps }
  let stepId = '';

  const nav = el('ol', { className: 'wt-steps', 'aria-label': 'Steps of the lesson' });
  const prev = el('button', { type: 'button', dataset: { action: 'prev' } }, '← Previous');
  const next = el('button', { type: 'button', dataset: { action: 'next' } }, 'Next →');
  const counter = el('span', { className: 'note', dataset: { role: 'counter' } });
  const title = el('h3', { className: 'wt-title', dataset: { role: 'step-title' }, tabindex: '-1' });
  const formula = el('div', { className: 'formula wt-formula', dataset: { role: 'formula' } });
  const note = el('p', { className: 'note', dataset: { role: 'step-note' } });
  const plots = el('div', { className: 'wt-plots', dataset: { role: 'plots' } });
  const readout = el('p', { className: 'wt-readout', dataset: { role: 'readout' }, 'aria-live': 'polite' },
    'Hover a cell, or focus a plot and use the arrow keys, to see what it was made from.');
  const summary = el('p', { className: 'note', dataset: { role: 'summary' } });
  root.replaceChildren(summary, nav, el('div', 'wt-buttons', prev, counter, next), title, formula, note, readout, plots);

  const go = (delta) => {
    if (!last) return;
    const ids = last.steps.map((s) => s.id);
    const k = Math.max(0, Math.min(ids.length - 1, ids.indexOf(stepId) + delta));
    if (ids[k] !== stepId) ctx.setState({ step: ids[k] });
  };
  prev.addEventListener('click', () => go(-1));
  next.addEventListener('click', () => go(1));
  root.addEventListener('keydown', (e) => {
    const t = e.composedPath()[0];
    if (t instanceof HTMLElement && (t.matches('input, select, textarea, canvas') || t.isContentEditable)) return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      go(e.key === 'ArrowRight' ? 1 : -1);
    }
  });

  function tensorOf(key) {
    if (key === 'x') return { shape: [last.tokens.length, last.r.shape.dModel], data: last.x };
    if (key === 'output') return { shape: [last.tokens.length, last.r.shape.dModel], data: last.r.output };
    return last.r.intermediates[key];
  }

  function renderStep() {
    const { steps, r, tokens } = last;
    const k = Math.max(0, steps.findIndex((s) => s.id === stepId));
    const step = steps[k];
    stepId = step.id;
    nav.replaceChildren(...steps.map((s, n) => el('li', null, el('button', {
      type: 'button', dataset: { step: s.id }, 'aria-current': s.id === step.id ? 'step' : null,
      onclick: () => ctx.setState({ step: s.id }),
    }, `${n + 1}. ${s.title.split(':')[0]}`))));
    prev.disabled = k === 0;
    next.disabled = k === steps.length - 1;
    counter.textContent = `Step ${k + 1} of ${steps.length}`;
    title.textContent = step.title;
    formula.replaceChildren(...step.formula.map((f) => el('div', null, f)));
    note.textContent = step.note;
    plots.replaceChildren(...step.tensors.map((spec) => tensorPlot(spec, tensorOf(spec.key), (at, value) => {
      readout.textContent = at ? cellStory(spec.key, r.shape, tokens, at, value)
        : 'Hover a cell, or focus a plot and use the arrow keys, to see what it was made from.';
    }, ctx.theme(), tokens)));
    root.dataset.step = step.id;
    // What was drawn, for tests and embedders: the step, and each tensor exactly as the core returned it.
    const drawn = Object.fromEntries(step.tensors.map((t) => [t.key, tensorOf(t.key)]));
    return { step: step.id, steps: steps.map((s) => s.id), tensors: step.tensors.map((t) => t.key), drawn, shape: r.shape };
  }

  return {
    update(state) {
      const tokens = tokenize(state.text);
      if (tokens.length === 0) {
        latest.cancel();
        summary.textContent = 'Type a sentence to walk through its attention.';
        plots.replaceChildren();
        setViewState(root, 'ready', { steps: [], step: null });
        return undefined;
      }
      const x = inputOf(state, tokens);
      const spec = { ...shapeSpec(state), seqLen: tokens.length, causal: state.causal, x, returnIntermediates: true };
      const key = JSON.stringify({ ...spec, x: undefined, text: tokens });
      if (last && last.key === key) {           // only the step changed: no new pass
        stepId = state.step;
        setViewState(root, 'ready', renderStep());
        return undefined;
      }
      stepId = state.step;
      const cut = truncationNote(state.text);
      return latest.run(
        () => ctx.client.call('forward', spec),
        (r) => {
          ctx.reportError('walkthrough', null);
          last = { key, tokens, r, x, steps: lessonSteps(r.shape) };
          const s = r.shape;
          summary.textContent = `${variantLabel(s.variant)} on ${tokens.length} tokens: N = ${s.seqLen}, D = ${s.dModel}, ` +
            `H = ${s.nHeads}${s.variant === 'mla' ? `, r = ${s.latentRank}, dr = ${s.ropeDim}` : `, G = ${s.nKvHeads}`}, ` +
            `dh = ${s.dHead}${s.causal ? ', causal' : ''}. Every tensor below is the core's own, from this very pass.`;
          if (cut) summary.append(' ', el('strong', { dataset: { role: 'truncated' } }, cut));
          return renderStep();
        },
        (e) => {
          ctx.reportError('walkthrough', e);
          last = null;
          summary.textContent = `Cannot compute: ${e.message}`;
          plots.replaceChildren();
        });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
