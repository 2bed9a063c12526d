// runner.js — the one experiment runner of the four labs. A lab gives its spec (its fields and what
// one run does) and draws its results; the runner owns everything else:
//   - the controls row: the lab's fields (kit.field, value checked before a run: what is allowed
//     is said next to the field and nothing starts), Start / Stop, a progress line (aria-live);
//   - runs: the values are read from the fields at Start (never a stale state), put into the state
//     (permalinks), and a run replaces the previous one (its late results are dropped);
//   - training: api.train is the worker's trainerTrain, i.e. the core's trainer.train (chunks sized
//     by the core, evaluations every `evalEvery` steps, progress posted back); Stop aborts it;
//     api.each trains several models at once, one per trainer worker (client.js);
//   - the trained models (labs/models.js), KEPT after a run for Export, Import and "Inspect".
// The view-ready signal (kit.setViewState): 'ready' with { status: 'idle' | 'done' | 'stopped' |
// 'imported', ... } when idle or finished, 'busy' with { status: 'running', step } while training,
// 'error' when a run or an import failed.
// Its own words (Stop, loading a file, a failure) are in the element's language (ctx.i18n); the lab
// gives its labels, hints and progress lines in it.
import { coreDetail, el, field, setViewState } from '../kit.js';
import { EN } from '../i18n/index.js';
import { trainerKey } from './keys.js';
import { RefusedImport, createModelTools } from './models.js';
import '../i18n/catalogs/en/labs.js';  // the English words it speaks

/** Thrown by api.check() when a newer run or destroy made this one stale. */
class Stale extends Error {}

/**
 * @param {HTMLElement} controlsBox where the controls row goes
 * @param {HTMLElement} root the view root (signal)
 * @param {object} ctx the view ctx
 * @param {{
 *   id: string,                      lab id (trainer keys, messages, its task: labs/tasks.js)
 *   fields: { name: string, label: string, hint?: string, kind?: 'number' | 'text',
 *             parse: (text: string) => ({ value: any } | { error: string }),
 *             format?: (value: any) => string }[],   name = the state key
 *   startLabel: string, againLabel?: string,       in the element's language, like every label and hint
 *   run: (api) => Promise<object | void>,          one run; its result is merged into the signal
 *   idleText?: (state) => string,
 *   inspectTokens?: (vocabSize: number, spec?: object) => { tokens: number[], labels: string[], title: string } | null
 *     (a model's example ids, from its vocabulary and trainer spec; null: the default example),
 *   onImport?: (api, { key, label, loaded, file }) => Promise<object | void>,   draw an imported model
 * }} spec
 */
export function createLabRunner(controlsBox, root, ctx, spec) {
  const i18n = ctx.i18n ?? EN;
  const { t } = i18n;
  const fields = spec.fields.map((f) => ({ ...f, ui: field({ name: f.name, label: f.label, hint: f.hint ?? '', kind: f.kind ?? 'number', i18n,
    attrs: { inputmode: 'numeric', ...(f.kind === 'text' ? { spellcheck: 'false' } : {}) } }) }));
  const startBtn = el('button', { type: 'button', className: 'primary', dataset: { act: 'start', role: 'start' }, onclick: () => start() }, spec.startLabel);
  const stopBtn = el('button', { type: 'button', dataset: { act: 'stop' }, disabled: true, onclick: stop }, t('labs.stop'));
  const progress = el('p', { className: 'note lab-progress', role: 'status', 'aria-live': 'polite', dataset: { role: 'progress' } });
  const error = el('p', { className: 'error-text', role: 'alert', dataset: { role: 'error' } });
  const tools = createModelTools(ctx, { id: spec.id, inspectTokens: spec.inspectTokens, onFile: (file) => importFile(file),
    onError: (nodes) => { error.replaceChildren(...nodes); } });
  controlsBox.append(el('div', { className: 'lab-row controls' }, ...fields.map((f) => f.ui.box),
    el('div', { className: 'field lab-buttons' }, startBtn, stopBtn), progress), tools.element, error);

  let state = null, run = 0, running = false, ranOnce = false, destroyed = false;
  let controller = new AbortController();  // the current run's: Stop, a newer run and destroy abort it

  function setRunning(on) {
    running = on;
    startBtn.disabled = on;
    stopBtn.disabled = !on;
    for (const f of fields) f.ui.input.disabled = on;
    if (!on) startBtn.textContent = ranOnce && spec.againLabel ? spec.againLabel : spec.startLabel;
    tools.setBusy(on);
  }

  /** A new run: the previous one is aborted and its late results dropped. */
  function begin() {
    controller.abort();
    controller = new AbortController();
    const my = ++run, mine = controller, signal = controller.signal;
    const api = {
      signal,
      check() { if (my !== run || destroyed) throw new Stale(); },
      isStopped: () => signal.aborted,
      progress(text, step) {
        progress.textContent = text;
        if (step != null) setViewState(root, 'busy', { status: 'running', step });
      },
      /**
       * Creates a trainer listed under `label` (replacing one of the same label); returns its key.
       * `fileName` names it in its key and its exported file (the label by default).
       */
      async createModel(label, trainerSpec, fileName = label) {
        const key = trainerKey(`${spec.id}-${fileName}`.replace(/\W+/g, '-'));
        const created = await ctx.client.call('trainerCreate', key, trainerSpec);
        if (my !== run || destroyed) ctx.client.call('trainerDispose', key).catch(() => {});
        api.check();
        tools.add(label, key, created.vocabSize, fileName, created.checkpointType, created.spec);
        return key;
      },
      /**
       * Trains `key` for `steps` steps: the core's trainer.train in the worker. onProgress(p) after every
       * chunk, p = { step, loss, done, steps, evaluation? } (evaluation: { loss, bitsPerToken, accuracy },
       * every evalEvery steps). Resolves { step, loss, stopped } (stopped: Stop ended it; the steps stay).
       */
      async train(key, { steps, evalEvery = 0, onProgress }) {
        let last = { step: 0, loss: NaN };
        const report = (p) => { if (my === run && !destroyed) { last = p; onProgress?.(p); } };
        try {
          last = await ctx.client.run('trainerTrain', [key, { steps, evalEvery }], { signal, onProgress: report });
        } catch (e) {
          if (e?.name !== 'AbortError') throw e;
          api.check();
          return { step: last.step, loss: last.loss, stopped: true };
        }
        api.check();
        return { step: last.step, loss: last.loss, stopped: false };
      },
      async evaluate(key) { const r = await ctx.client.call('trainerEvaluate', key); api.check(); return r; },
      /**
       * Runs one(item, i) for every item, up to ctx.client.trainerWorkers at once (the client spreads
       * trainers over workers, one per core: client.js), starting none after Stop. Each run's progress
       * goes through progressOf(i, text, step), shown together with the others in flight. A failure
       * stops the others and rejects.
       */
      async each(items, one) {
        const width = Math.max(1, Math.min(items.length, ctx.client.trainerWorkers ?? 1));
        let next = 0;
        const lane = async () => {
          while (next < items.length && !signal.aborted) {
            const i = next++;
            try {
              await one(items[i], i);
            } catch (e) {
              mine.abort();
              throw e;
            } finally {
              lines.delete(i);
            }
          }
        };
        const lines = new Map();  // i -> the progress text of a run in flight
        api.progressOf = (i, text, step) => {
          lines.set(i, text);
          api.progress([...lines.keys()].sort((a, b) => a - b).map((k) => lines.get(k)).join(' · '), step);
        };
        await Promise.all(Array.from({ length: width }, lane));
      },
      progressOf: (i, text, step) => api.progress(text, step),
      vocabOf: (key) => tools.vocabOf(key),
    };
    error.textContent = '';
    setRunning(true);
    return api;
  }

  /**
   * Runs fn(api) as a run; `status` names the finished run in the signal (or 'stopped'); `failure`: the
   * sentence of a failed one; `onFailure`: what else a failure undoes.
   */
  async function perform(fn, api, status, failure, onFailure = () => {}) {
    try {
      const extra = await fn(api);
      api.check();
      setRunning(false);
      setViewState(root, 'ready', { status: api.isStopped() ? 'stopped' : status, ...extra });
    } catch (e) {
      if (e instanceof Stale || destroyed) return;
      setRunning(false);
      onFailure();
      error.replaceChildren(...(e instanceof RefusedImport ? e.nodes(i18n) : [failure, ' ', coreDetail(e?.message ?? e, i18n)]));
      if (!(e instanceof RefusedImport)) ctx.reportError?.(spec.id, e);
      setViewState(root, 'error', { status: 'error', message: e.message });
    }
  }

  async function start() {
    const values = readFields();
    if (!values) return;
    ctx.setState(values);  // the permalink keeps what ran
    const api = begin();
    tools.disposeAll();
    const t0 = performance.now();
    Object.assign(api, { values, seconds: () => (performance.now() - t0) / 1000 });
    setViewState(root, 'busy', { status: 'running', step: 0 });
    await perform(async () => {
      const extra = await spec.run(api);
      ranOnce = true;
      return { seconds: api.seconds(), ...extra };
    }, api, 'done', t('labs.trainingFailed'));
  }

  function stop() {
    controller.abort();
    stopBtn.disabled = true;
    progress.textContent = t('labs.stopping', { progress: progress.textContent });
  }

  /** An import is a run of its own: it replaces (stops) a running training. */
  async function importFile(file) {
    const api = begin();
    setViewState(root, 'busy', { status: 'loading' });
    await perform(async () => {
      progress.textContent = t('labs.loadingFile', { file: file.name });
      const { key, label, loaded } = await tools.load(file, api.check);
      if (spec.onImport) return { step: loaded.steps, ...await spec.onImport(api, { key, label, loaded, file }) };
      const ev = await api.evaluate(key);
      progress.textContent = t('labs.loadedFile', { file: file.name, count: loaded.steps, loss: i18n.fmt.fixed(ev.loss, 3) });
      return { step: loaded.steps };
    }, api, 'imported', t('labs.importFailed'), () => { progress.textContent = ''; });  // not "Loading …" any more
  }

  /** The fields' values, or null after showing what is allowed next to each bad field. */
  function readFields() {
    const values = {};
    let ok = true;
    for (const f of fields) {
      const r = f.parse(f.ui.input.value);
      f.ui.setError(r.error ?? '');
      if ('error' in r) ok = false;
      else values[f.name] = r.value;
    }
    return ok ? values : null;
  }

  for (const f of fields) {
    f.ui.input.addEventListener('change', () => {
      const r = f.parse(f.ui.input.value);
      f.ui.setError(r.error ?? '');
      if (!('error' in r)) ctx.setState({ [f.name]: r.value });
    });
  }
  tools.setBusy(false);

  return {
    progress: (text) => { progress.textContent = text; },
    /** Lists a model the lab loaded itself (its bundled one) with the trained ones: Export, Inspect, Open. */
    list: (label, key, vocabSize, fileName, checkpointType) => tools.add(label, key, vocabSize, fileName, checkpointType),
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
      controller.abort();
      tools.disposeAll();
    },
  };
}
