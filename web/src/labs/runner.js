// runner.js — the one experiment runner of the four labs. A lab gives its spec (its fields and
// what one run does) and draws its results; the runner owns everything else:
//   - the controls row: the lab's fields (kit.field, value checked before a run: what is allowed
//     is said next to the field and nothing starts), Start / Stop, a progress line (aria-live);
//   - runs: the values are read from the fields at Start (never a stale state), put into the state
//     (permalinks), and a run replaces the previous one (its late results are dropped);
//   - training in chunks (the page never freezes: one worker call per chunk), the evaluation cadence,
//     Stop between chunks, disposal of the worker's trainers;
//   - trained models are KEPT after a run, for Export, Import and "Inspect in the attention view".
// The view-ready signal (kit.setViewState): 'ready' with { status: 'idle' | 'done' | 'stopped' |
// 'imported', ... } when idle or finished, 'busy' with { status: 'running', step } while training,
// 'error' when a run failed.
import { el, field, inPageWords, setViewState } from '../kit.js';
import { trainerKey } from './keys.js';
import { parseIntegerField, parseIntegerList } from './fields.js';

export { parseIntegerField, parseIntegerList };
export { tooFewSteps } from './verdicts.js';

/** Inspect tokens for any model: n / 2 tokens, then the same again (the induction pattern). */
function defaultInspectTokens(vocabSize, n = 16) {
  const half = n / 2;
  const first = Array.from({ length: half }, (_, i) => (i * 7 + 3) % vocabSize);
  const tokens = [...first, ...first];
  return { tokens, labels: tokens.map(String), title: `${half} token ids, then the same again` };
}

/**
 * @param {HTMLElement} controlsBox where the controls row goes (the lab's root or a slot in it)
 * @param {HTMLElement} root the view root (signal)
 * @param {object} ctx the view ctx
 * @param {{
 *   id: string,                      lab id (trainer keys, messages)
 *   fields: { name: string, label: string, hint?: string, kind?: 'number' | 'text',
 *             parse: (text: string) => ({ value: any } | { error: string }),
 *             format?: (value: any) => string }[],   name = the state key
 *   startLabel: string, againLabel?: string,
 *   run: (api) => Promise<object | void>,          one run; its result is merged into the signal
 *   idleText?: (values) => string,
 *   inspectTokens?: (vocabSize: number) => { tokens: number[], labels: string[], title: string },
 *   onImport?: (api, { key, label, loaded }) => Promise<object | void>,   draw an imported model
 * }} spec
 */
export function createLabRunner(controlsBox, root, ctx, spec) {
  const fields = spec.fields.map((f) => ({
    ...f,
    ui: field({ name: f.name, label: f.label, hint: f.hint ?? '', kind: f.kind ?? 'number',
      attrs: f.kind === 'text' ? { spellcheck: 'false', inputmode: 'numeric' } : { inputmode: 'numeric' } }),
  }));
  const startBtn = el('button', { type: 'button', className: 'primary', dataset: { act: 'start', role: 'start' } }, spec.startLabel);
  const stopBtn = el('button', { type: 'button', dataset: { act: 'stop' }, disabled: true }, 'Stop');
  const progress = el('p', { className: 'note lab-progress', role: 'status', 'aria-live': 'polite', dataset: { role: 'progress' } });
  const error = el('p', { className: 'error-text', role: 'alert', dataset: { role: 'error' } });
  const buttons = el('div', { className: 'field lab-buttons' }, startBtn, stopBtn);
  // The trained models: export one, import one, show one in the attention view.
  const uid = Math.random().toString(36).slice(2, 8);
  const modelSelect = el('select', { id: `${spec.id}-model-${uid}`, name: 'model' });
  const exportBtn = el('button', { type: 'button', dataset: { act: 'export' }, disabled: true }, 'Export model');
  const inspectBtn = el('button', { type: 'button', dataset: { act: 'inspect' }, disabled: true, hidden: !ctx.canInspect?.() },
    'Inspect in the attention view');
  const fileInput = el('input', { type: 'file', name: 'import', id: `${spec.id}-import-${uid}`, accept: '.safetensors,.bin,application/octet-stream' });
  const modelLabel = el('label', { for: modelSelect.id }, 'Trained model ');
  const tools = el('div', { className: 'lab-row lab-models' },
    modelLabel, modelSelect, exportBtn, inspectBtn,
    el('label', { className: 'lab-import', for: fileInput.id }, 'Import model '), fileInput);
  controlsBox.append(el('div', { className: 'lab-row controls' }, ...fields.map((f) => f.ui.box), buttons, progress), tools, error);
  const vocab = new Map(); // key -> vocabSize

  let state = null;
  let run = 0;            // bumps on every start / import / destroy: results of an older run are dropped
  let running = false;
  let stopped = false;
  let destroyed = false;
  let ranOnce = false;
  const models = new Map(); // label -> worker trainer key (kept after a run for export / inspect)

  const disposeAll = () => {
    for (const key of models.values()) {
      if (ctx.inspected?.()?.key === key) ctx.inspectModel(null);
      ctx.client.call('trainerDispose', key).catch(() => {});
    }
    models.clear();
    renderModels();
  };

  function renderModels() {
    const keep = modelSelect.value;
    modelSelect.replaceChildren(...[...models.keys()].map((label) => el('option', { value: label }, label)));
    if (models.has(keep)) modelSelect.value = keep;
    else if (models.size) modelSelect.value = [...models.keys()].at(-1);
    const none = models.size === 0 || running;
    exportBtn.disabled = none;
    inspectBtn.disabled = none;
    modelSelect.disabled = none;
    // Before any model exists only Import is offered.
    for (const e of [modelLabel, modelSelect, exportBtn]) e.hidden = models.size === 0;
    inspectBtn.hidden = models.size === 0 || !ctx.canInspect?.();
    if (!running) {  // finished models only: the compare view lists them with their held-out scores
      ctx.noteTrained?.(spec.id, [...models].map(([label, key]) => ({
        lab: spec.id, label, key,
        inspect: (spec.inspectTokens ?? defaultInspectTokens)(vocab.get(key) ?? 16),
      })));
    }
  }

  function setRunning(on) {
    running = on;
    startBtn.disabled = on;
    stopBtn.disabled = !on;
    for (const f of fields) f.ui.input.disabled = on;
    if (!on) startBtn.textContent = ranOnce && spec.againLabel ? spec.againLabel : spec.startLabel;
    renderModels();
  }

  const chosenKey = () => models.get(modelSelect.value) ?? null;
  exportBtn.addEventListener('click', async () => {
    const key = chosenKey();
    if (!key) return;
    try {
      const { bytes } = await ctx.client.call('trainerExport', key);
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      const a = el('a', { href: url, download: `${spec.id}-${modelSelect.value.replace(/\W+/g, '-')}.safetensors`, style: 'display:none' });
      root.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) {
      error.textContent = `Export failed: ${inPageWords(e.message)}`;
    }
  });
  inspectBtn.addEventListener('click', () => {
    const key = chosenKey();
    if (!key) return;
    const ex = (spec.inspectTokens ?? defaultInspectTokens)(vocab.get(key) ?? 16);
    ctx.inspectModel({ key, tokens: ex.tokens, labels: ex.labels, title: `${modelSelect.value}: ${ex.title}` });
  });
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    replaceWith(async (api) => {
      const bytes = new Uint8Array(await file.arrayBuffer());
      api.check();
      progress.textContent = `Loading ${file.name}…`;
      const label = `imported: ${file.name}`;
      const old = models.get(label);
      if (old) ctx.client.call('trainerDispose', old).catch(() => {});
      const key = trainerKey(`${spec.id}-import`);
      models.set(label, key);
      const loaded = await ctx.client.call('trainerLoad', key, bytes);
      api.check();
      vocab.set(key, loaded.vocabSize);
      modelSelect.value = label;
      const extra = spec.onImport ? await spec.onImport(api, { key, label, loaded, file }) : null;
      api.check();
      if (!spec.onImport) {
        const ev = await ctx.client.call('trainerEvaluate', key);
        api.check();
        progress.textContent = `Loaded ${file.name}: trained ${loaded.steps} steps; held-out loss ${ev.loss.toFixed(3)}.`;
      }
      fileInput.value = '';
      return { step: loaded.steps, ...extra };
    });
  });

  /** The fields' values, or null after showing what is allowed next to each bad field. */
  function readFields() {
    const values = {};
    let ok = true;
    for (const f of fields) {
      const r = f.parse(f.ui.input.value);
      if ('error' in r) {
        ok = false;
        f.ui.setError(r.error);
      } else {
        f.ui.setError('');
        values[f.name] = r.value;
      }
    }
    return ok ? values : null;
  }

  /** Creates a trainer kept under `label` (replacing one of the same label); returns its key. */
  async function createModel(api, label, trainerSpec) {
    const key = trainerKey(`${spec.id}-${label}`.replace(/\W+/g, '-'));
    const old = models.get(label);
    if (old) ctx.client.call('trainerDispose', old).catch(() => {});
    models.set(label, key);
    const created = await ctx.client.call('trainerCreate', key, trainerSpec);
    api.check();
    vocab.set(key, created.vocabSize);
    renderModels();
    return key;
  }

  /** One chunk of n optimiser steps: { step, loss }. */
  async function step(api, key, n) {
    const r = await ctx.client.call('trainerStep', key, n);
    api.check();
    return r;
  }

  /** Trains one model in chunks (evaluating every `evalEvery` chunks); returns { stopped, last, key, steps }. */
  async function train(api, { label, spec: trainerSpec, steps, chunk, evalEvery = 0, onChunk, onEval }) {
    const key = await createModel(api, label, trainerSpec);
    let done = 0, last = null, chunks = 0;
    while (done < steps && !stopped) {
      last = await step(api, key, Math.min(chunk, steps - done));
      done = last.step;
      onChunk?.(last, key);
      if (evalEvery && ++chunks % evalEvery === 0 && done < steps && onEval) {
        await onEval(await ctx.client.call('trainerEvaluate', key), done, key);
        api.check();
      }
    }
    return { stopped, last, key, steps: done };
  }

  /** Thrown by api.check() when a newer run, Stop-and-replace or destroy made this one stale. */
  class Stale extends Error {}

  async function start() {
    const values = readFields();
    if (!values) return;
    ctx.setState(values);  // the permalink keeps what ran
    const my = ++run;
    stopped = false;
    disposeAll();
    error.textContent = '';
    setRunning(true);
    setViewState(root, 'busy', { status: 'running', step: 0 });
    const t0 = performance.now();
    const api = {
      values,
      check() { if (my !== run || destroyed) throw new Stale(); },
      isStopped: () => stopped,
      progress(text, step) {
        progress.textContent = text;
        if (step != null) setViewState(root, 'busy', { status: 'running', step });
      },
      train: (o) => train(api, o),
      createModel: (label, trainerSpec) => createModel(api, label, trainerSpec),
      step: (key, n) => step(api, key, n),
      async evaluate(key) { const r = await ctx.client.call('trainerEvaluate', key); api.check(); return r; },
      seconds: () => (performance.now() - t0) / 1000,
      vocabOf: (key) => vocab.get(key),
      models,
    };
    try {
      const extra = await spec.run(api);
      api.check();
      ranOnce = true;
      setRunning(false);
      setViewState(root, 'ready', { status: stopped ? 'stopped' : 'done', seconds: api.seconds(), ...extra });
    } catch (e) {
      if (e instanceof Stale || my !== run || destroyed) return;
      setRunning(false);
      error.textContent = `Training failed: ${inPageWords(e.message)}`;
      ctx.reportError?.(spec.id, e);
      setViewState(root, 'error', { status: 'error', message: e.message });
    }
  }

  startBtn.addEventListener('click', () => { start(); });
  stopBtn.addEventListener('click', () => {
    stopped = true;
    stopBtn.disabled = true;
    progress.textContent += ' — stopping after this chunk…';
  });

  /**
   * Runs `fn(api)` as a run of its own (an Import): it replaces (stops) a running training.
   * fn returns the signal's extra result.
   */
  async function replaceWith(fn) {
      const my = ++run;
      stopped = false;
      const api = { check() { if (my !== run || destroyed) throw new Stale(); }, disposeAll };
      setRunning(true);
      setViewState(root, 'busy', { status: 'loading' });
      try {
        const extra = await fn(api);
        api.check();
        setRunning(false);
        setViewState(root, 'ready', { status: 'imported', ...extra });
      } catch (e) {
        if (e instanceof Stale || my !== run || destroyed) return;
        setRunning(false);
        error.textContent = `Import failed: ${inPageWords(e.message)}`;
        setViewState(root, 'error', { status: 'error', message: e.message });
      }
  }

  renderModels();
  for (const f of fields) {
    f.ui.input.addEventListener('change', () => {
      const r = f.parse(f.ui.input.value);
      if ('error' in r) return f.ui.setError(r.error);
      f.ui.setError('');
      ctx.setState({ [f.name]: r.value });
    });
  }

  return {
    models,
    progress: (text) => { progress.textContent = text; },
    isRunning: () => running,
    replaceWith,
    update(s) {
      const first = state === null;
      state = s;
      const active = root.getRootNode().activeElement;
      for (const f of fields) {
        if (f.ui.input === active || f.ui.input.getAttribute('aria-invalid') !== null) continue;  // never overwrite what the user typed
        f.ui.input.value = (f.format ?? String)(s[f.name]);
      }
      if (!running && !ranOnce && spec.idleText) progress.textContent = spec.idleText(s);
      if (first) setViewState(root, 'ready', { status: 'idle' });
    },
    destroy() {
      destroyed = true;
      run++;
      disposeAll();
    },
  };
}
