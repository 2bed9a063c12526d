// decode.js — a decode stepper: tokens enter a KV-cache session one at a time (or all at once, as one
// chunk), and the view shows what the cache stores per token, how it grows, and how the newest token
// attends to everything cached so far (parts/decode-cache.js). The session is the source's decoder.
// Finished drawing (kit.js setViewState): data-state="ready" once the queue is empty, with the result
// { length, cacheBytes, workerMs } as the core reports them (workerMs: a model's last append in the worker, else null);
// buttons carry data-action="step|all|reset|word".
// Below it, the bandwidth measurement (parts/decode-bandwidth.js), on a button of its own.
import decodeCss from '../styles/decode.css?inline';
import { coreDetail, el, setViewState, useStyles } from '../kit.js';
import { createReadout } from '../render/heatmap.js';
import { createCacheStrip, createNewestWeights } from '../parts/decode-cache.js';
import { createDecodeFacts, decodeIntro } from '../parts/decode-facts.js';
import { createTokenList, setText } from '../parts/decode-tokens.js';
import { createDecodeBandwidth } from '../parts/decode-bandwidth.js';
import { tokenize } from '../tokens.js';
import '../i18n/catalogs/en/decode.js';  // the English words it speaks

const MAX_LEN = 64;

export function createDecodeView(root, ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  const key = `decode-${Math.random().toString(36).slice(2)}`;
  useStyles(root, 'decode', decodeCss);
  const button = (action, text, title, onclick) => el('button', { type: 'button', className: 'dec-button', dataset: { action }, title, onclick }, text);
  const stepBtn = button('step', t('dec.step'), t('dec.stepTitle'), () => append(() => (nextIdx < sentence.length ? [sentence[nextIdx++]] : [])));
  const allBtn = button('all', t('dec.all'), t('dec.allTitle'), () => append(() => {
    const toks = sentence.slice(nextIdx, nextIdx + maxLen() - cached.length);
    nextIdx += toks.length;
    return toks;
  }));
  const predictBtn = button('predict', t('dec.predict'), t('dec.predictTitle'), () => append(() => (predicted ? [predicted] : [])));
  const resetBtn = button('reset', t('dec.reset'), t('dec.resetTitle'), () => restart());
  const wordInput = el('input', { type: 'text', name: 'word', placeholder: t('dec.wordExample'), size: 10, autocomplete: 'off', className: 'dec-word-input' });
  const wordBtn = el('button', { type: 'submit', className: 'dec-button', dataset: { action: 'word' } }, t('dec.appendWord'));
  const form = el('form', { className: 'dec-word', onsubmit: (e) => {
    e.preventDefault();
    // an opened model's tokenizer answers from its worker (a promise); the others at once
    Promise.resolve(wordInput.value).then(decoder?.tokenize ?? tokenize).then((toks) => {
      if (toks.length) { wordInput.value = ''; append(() => toks); }
    }, showError);
  } }, el('label', null, t('dec.word'), ' ', wordInput), wordBtn);
  const intro = el('p', 'dec-intro');
  const full = el('p', { className: 'note dec-full', role: 'status', hidden: true });
  const error = el('p', { className: 'error-text', role: 'alert', hidden: true });
  // kept between appends (a step adds a token and rewrites the words that changed): parts/decode-tokens.js, decode-facts.js
  const tokenList = createTokenList(i18n), decodeFacts = createDecodeFacts(i18n);
  const facts = decodeFacts.element;
  const strip = el('div', 'dec-strip-box');
  const weightsTitle = el('h3', 'dec-title', t('dec.newest'));
  const weights = el('div');
  const readout = createReadout(t('dec.hint'));
  // kept between appends (a step adds a block and redraws the heads' strips): parts/decode-cache.js
  const cacheStrip = createCacheStrip(i18n), newestWeights = createNewestWeights(readout, i18n);
  const appendToSee = el('p', 'note', t('dec.appendToSee'));
  strip.replaceChildren(...cacheStrip.elements);
  const live = el('p', { className: 'sr-live', role: 'status' });
  root.replaceChildren(intro, el('div', 'dec-controls', stepBtn, allBtn, predictBtn, resetBtn, form), full, error,
    el('h3', 'dec-title', t('dec.tokensTitle')), tokenList.element, facts, el('h3', 'dec-title', t('dec.stripTitle')), strip,
    weightsTitle, weights, readout, live);
  const bandwidth = createDecodeBandwidth(root, ctx);  // runs when asked, never on the first map's path

  let state = null, shapeKey = '', sentence = [], nextIdx = 0, cached = [], cacheBytes = 0, workerMs = null;
  let decoder = null, session = null;  // session: { shape, baseline } once started
  let newest = null, drawnNewest = null, gen = 0, pending = 0, queue = Promise.resolve(), predicted = null;
  let introFor = [];  // what the intro was written for: [shape, model, maxLen]
  const maxLen = () => decoder?.maxLen ?? MAX_LEN;

  /** An error in the catalog's words: the page's own (error.key) or the core's, its English text as the detail. */
  function showError(e) {
    if (e?.key) error.replaceChildren(t(e.key, e.params));
    else {
      const { text, detail } = i18n.coreError(e);
      error.replaceChildren(text, ' ', coreDetail(detail, i18n));
    }
    error.hidden = false;
  }

  /** Runs tasks one after another (the session is stateful), dropping those of an older session. */
  function enqueue(task) {
    const g = gen;
    pending++;
    setViewState(root, 'busy');
    queue = queue.then(() => (g === gen ? task(g) : undefined)).catch((e) => {
      if (g !== gen) return;
      showError(e);
      ctx.reportError('decode', e);
      render();
    }).finally(() => {
      render();
      if (--pending === 0) setViewState(root, error.hidden ? 'ready' : 'error', { length: cached.length, cacheBytes, workerMs });
    });
  }
  const clearError = () => { if (!error.hidden) { error.hidden = true; ctx.reportError('decode', null); } };

  function restart() {
    gen++;
    decoder?.dispose();
    session = null; cached = []; nextIdx = 0; cacheBytes = 0; workerMs = null; newest = null; predicted = null;
    const source = ctx.sourceFor('decode', state);
    decoder = source.decoder?.(state, { key, maxLen: MAX_LEN }) ?? null;
    if (!decoder) {
      // a model that could not be opened says why here too (an embed of this view alone has no model view)
      if (source.id === 'opening' && source.error) { showError(source.error); return; }
      error.textContent = source.id === 'opening' ? t('dec.opening') : t('dec.noSession', { source: source.title });
      error.hidden = false;
      return;
    }
    enqueue(async (g) => {
      const info = await decoder.start();
      if (g !== gen) return;
      session = info;
      cacheBytes = info.cacheBytes;
      clearError();
    });
  }

  function append(pick) {
    enqueue(async (g) => {
      if (!session) return;
      const toks = pick().slice(0, maxLen() - cached.length);
      if (!toks.length) return;
      const r = await decoder.append(toks);
      if (g !== gen) return;
      cached = cached.concat(toks);
      cacheBytes = r.cacheBytes;
      workerMs = r.ms ?? null;
      newest = { weights: r.weights, k: toks.length, length: r.length };
      predicted = r.next?.[0]?.token ?? null;
      clearError();
      live.textContent = toks.length === 1 ? t('dec.appendedOne', { token: toks[0], length: r.length, bytes: r.cacheBytes })
        : t('dec.appendedMany', { count: toks.length, length: r.length, bytes: r.cacheBytes });
    });
  }

  function render() {
    const isFull = cached.length >= maxLen(), left = nextIdx < sentence.length, model = decoder?.model ?? null;
    for (const b of [stepBtn, allBtn]) b.disabled = !session || isFull || !left;
    wordBtn.disabled = wordInput.disabled = !session || isFull;
    predictBtn.hidden = !model;
    predictBtn.disabled = !session || isFull || !predicted;
    setText(predictBtn, predicted ? t('dec.predictNext', { token: predicted }) : t('dec.predict'));
    setText(stepBtn, left ? t('dec.stepNext', { token: sentence[nextIdx] }) : t('dec.step'));
    full.hidden = !isFull;
    setText(full, t('dec.full', { max: maxLen() }));
    tokenList.update(cached, session ? t('dec.emptyList', { button: t('dec.step') }) : error.hidden ? t('dec.starting') : t('dec.noSessionShort'));
    for (const box of [facts, strip, weights, weightsTitle]) box.hidden = !session;
    if (!session) return;
    const s = session.shape, L = cached.length;
    showIntro(s, model);
    decodeFacts.update(s, session.baseline, L, cacheBytes, model);
    cacheStrip.update(s, session.baseline, cached);
    setText(weightsTitle, newest && L ? t('dec.newestOf', { token: cached[L - 1], count: L }) : t('dec.newest'));
    if (newest && L) {
      if (newest !== drawnNewest) newestWeights.update(s, newest, cached);
      drawnNewest = newest;
      if (weights.firstChild !== newestWeights.element) weights.replaceChildren(newestWeights.element);
    } else if (weights.firstChild !== appendToSee) {
      weights.replaceChildren(appendToSee);
    }
  }

  /** The sentence above the controls, written again only for another shape, model or cache size. */
  function showIntro(s, model) {
    const now = [s, model, maxLen()];
    if (now.every((x, i) => x === introFor[i])) return;
    introFor = now;
    intro.replaceChildren(...decodeIntro(s, model, maxLen(), i18n));
  }

  return {
    update(next) {
      state = next;
      const source = ctx.sourceFor('decode', next);
      const keyNow = source.key(next);
      if (keyNow === shapeKey) return;
      shapeKey = keyNow;
      sentence = source.tokens(next);
      restart();
      render();
    },
    destroy() {
      gen++;
      queue.then(() => decoder?.dispose()).catch(() => {});
      ctx.reportError('decode', null);
      bandwidth.destroy();
      root.replaceChildren();
    },
  };
}
