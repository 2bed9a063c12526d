// model-host.js — how an <attention-playground> opens and closes a checkpoint (element.js imports this
// on first use, so the first map never loads it): one opening at a time (a new one stops the last),
// its progress to the watchers (ctx.watchModel: views/model.js), the opened model's source
// (sources/pretrained.js) for the map views, and back to the lesson's block on close.

/**
 * Starts opening at once (host.modelJob is set before the first await) and resolves with the source,
 * or null when it failed (job.error), was stopped or was replaced.
 * @param {HTMLElement & Record<string, any>} host  the element
 * @param {{ files: File[], name?: string, text?: string } | { url: string, hub?: string }} input  a picker's files (a lab's
 *   model: its `name` and the ids `text` to start from), a served folder or a Hub model (`hf:…`, from `hub`)
 */
export async function openModel(host, input) {
  host.modelJob?.controller.abort();
  const job = { input, controller: new AbortController(), progress: null, error: null };
  host.modelJob = job;
  const tell = () => { for (const fn of host.modelWatchers) fn(job); };
  job.promise = import('./sources/pretrained.js').then(({ openCheckpoint }) => openCheckpoint(liveCtx(host), input, {
    signal: job.controller.signal, onProgress: (p) => { job.progress = p; tell(); } }));
  tell();
  host.rerender();
  try {
    const source = await job.promise;
    const text = await startTextOf(source, input, host.state.text);
    if (host.modelJob !== job || !host.mounted) {
      host.client.call('pretrainedDispose', source.opened.key).catch(() => {});
      source.opened.tokenizer?.close();
      return null;
    }
    dropModel(host);
    host.model = source;
    host.modelJob = null;
    const patch = { layer: 0, sel: '', model: input.url ?? '' };
    if (text !== null) {
      host.textBeforeModel = host.state.text;
      patch.text = text;
    }
    host.setState(patch);
    tell();
    host.dispatchEvent(new CustomEvent('model', { detail: { name: source.opened.name, info: source.opened.info } }));
    return source;
  } catch (e) {
    if (host.modelJob !== job) return null;
    job.error = e;
    tell();
    host.rerender();
    return null;
  }
}

/**
 * The sentence a model without a tokenizer starts from (typed ids instead of words), or null to keep
 * the learner's: the opener's ids (a lab's example sequence), else the learner's own ids when they are
 * ids of this model (a reloaded link), else BOS and the model's own next tokens.
 */
async function startTextOf(source, input, learnersText) {
  const own = (text) => source.acceptsText(text ?? '');
  if (source.opened.tokenizer) return null;  // words: the learner's sentence is tokenized as it is
  if (own(input.text)) return input.text;
  if (own(learnersText)) return null;
  return source.startText().catch(() => null);
}

/**
 * The element's ctx as it is at each use: the language picker builds the views again with a new ctx
 * (and ctx.i18n), and an opened model outlives it.
 */
const liveCtx = (host) => ({
  get client() { return host.ctx.client; },
  get i18n() { return host.ctx.i18n; },
  closeModel: () => host.ctx.closeModel(),
  rerender: () => host.rerender(),
});

function dropModel(host) {
  if (!host.model) return;
  host.client.call('pretrainedDispose', host.model.opened.key).catch(() => {});
  host.model.opened.tokenizer?.close();  // its worker (sources/tokenizer-client.js)
  host.model = null;
}

/** Back to the lesson's block (and its sentence, where the model took typed ids). */
export function closeModel(host) {
  host.modelJob?.controller.abort();
  host.modelJob = null;
  const hadTokenizer = Boolean(host.model?.opened.tokenizer);
  dropModel(host);
  const patch = { model: '', layer: 0, sel: '' };
  if (!hadTokenizer && host.textBeforeModel != null) patch.text = host.textBeforeModel;
  host.textBeforeModel = null;
  for (const fn of host.modelWatchers) fn(null);
  host.setState(patch);
}

/** What the map views draw while a checkpoint opens: nothing yet, or why it could not be opened. */
export const openingSource = (job) => ({
  id: 'opening', title: 'the model being opened', key: () => `opening:${job.error ? 'error' : 'busy'}`, error: job.error ?? null,
  tokens: () => ['…'], note: () => '', decoder: null,
  maps: () => (job.error ? Promise.reject(job.error) : job.promise.then(() => new Promise(() => {}))),
  stages: () => (job.error ? Promise.reject(job.error) : job.promise.then(() => new Promise(() => {}))),
});
