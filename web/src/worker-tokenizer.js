// worker-tokenizer.js — an opened checkpoint's tokenizer, in a worker of its own
// (sources/tokenizer-client.js starts it and calls it). Reading tokenizer.json (0.7-4 s for a
// vocabulary of 100k-262k tokens) and splitting a sentence (a pre-tokenizer's regular expression may
// backtrack for minutes) run here, never on the page's main thread, and the client stops this worker
// (terminates it) when a call runs past its time cap. Messages: { id, method, args } -> { id, ok, result }
// or { id, ok: false, error: { name, message, field } }.
import { makeTokenizer } from '@core/tokenizer.mjs';
import { serializeError } from './core-errors.js';
import { roleProbe } from './sources/head-roles.js';
import { modelBos, ordinaryToken, specialIds } from './sources/token-kinds.js';
import { tokenLabels } from './sources/token-labels.js';

let tokenizer = null, labels = null, ordinary = null;

const methods = {
  /** Reads tokenizer.json (text) and tokenizer_config.json (text or undefined) for the model of `config`. */
  load({ json, configText, config }) {
    tokenizer = makeTokenizer(json, configText);
    labels = tokenLabels(tokenizer);
    ordinary = ordinaryToken(tokenizer, specialIds(config));
    return { vocabSize: tokenizer.vocabSize, bos: modelBos(config, tokenizer, tokenizer.vocabSize) };
  },
  /**
   * The first `maxTokens` tokens of `text` (special tokens added): { ids, tokens (their labels), cut }.
   * Only the first `maxChars` characters are split: the rest could not reach the kept tokens.
   */
  encode({ text, maxTokens, maxChars }) {
    const ids = [...tokenizer.encode(text.slice(0, maxChars), { addSpecialTokens: true }).ids];
    const cut = ids.length > maxTokens || text.length > maxChars;
    const kept = ids.slice(0, maxTokens);
    return { ids: kept, tokens: kept.map(labels.label), cut };
  },
  /** The labels of ids (sources/token-labels.js: one-to-one with ids). */
  labels: ({ ids }) => ids.map(labels.label),
  /** The ids of labels the page hands back (NaN for a label of no token). */
  idsOf: ({ tokens }) => tokens.map(labels.idOf),
  /** The head-roles probes (sources/head-roles.js roleProbe) of `seeds`, from ordinary tokens only. */
  probes: ({ info, seeds, bos }) => seeds.map((seed) => roleProbe(info, { seed, bos, ordinary })),
};

self.onmessage = ({ data: { id, method, args } }) => {
  try {
    if (method !== 'load' && !tokenizer) throw new Error('no tokenizer is loaded');
    self.postMessage({ id, ok: true, result: methods[method](args) });
  } catch (e) {
    self.postMessage({ id, ok: false, error: serializeError(e) });
  }
};
