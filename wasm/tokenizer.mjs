// tokenizer.mjs: a checkpoint's own tokenizer (docs/api.md, "Tokenizers"), through the Hugging Face
// tokenizers port for JavaScript (@huggingface/tokenizers, Apache-2.0; its build ships beside this file
// as tokenizers.mjs, with tokenizers.LICENSE). attention.mjs imports this file only when
// loadTokenizer() is called, so the first map never loads either. The library generates no code from
// strings (it runs under `node --disallow-code-generation-from-strings` and a CSP without 'unsafe-eval').

import { Tokenizer } from './tokenizers.mjs';

/** @param {string} field @param {string} message */
function typeError(field, message) {
  const err = /** @type {TypeError & { field?: string }} */ (new TypeError(message));
  err.field = field;
  return err;
}

/** @param {string} field @param {string} message */
function rangeError(field, message) {
  const err = /** @type {RangeError & { field?: string }} */ (new RangeError(message));
  err.field = field;
  return err;
}

/** The largest token id a tokenizer may use: the library keeps its vocabulary as an array indexed by id. */
export const MAX_TOKEN_ID = 2 ** 24 - 1;

/** A token as messages quote it: at most 40 characters. @param {string} token */
const shownToken = (token) => JSON.stringify(token.length > 40 ? `${token.slice(0, 40)}...` : token);

/**
 * Refuses absurd ids before the library sees them: it builds an array as long as the largest id, so one
 * id of 2^31 would keep it busy for minutes. Every id must be an integer from 0 to MAX_TOKEN_ID and
 * below twice the number of entries plus 1,024 (real vocabularies number their tokens densely).
 * @param {Record<string, any>} json
 */
function checkIds(json) {
  /** @type {[string, string, unknown][]} field, token, id */
  const entries = [];
  const vocab = json.model.vocab;
  if (vocab !== null && typeof vocab === 'object' && !Array.isArray(vocab)) {
    for (const [token, id] of Object.entries(vocab)) entries.push(['tokenizer.model.vocab', token, id]);
  }
  const added = Array.isArray(json.added_tokens) ? json.added_tokens : [];
  for (let i = 0; i < added.length; i++) {
    const a = added[i];
    if (a === null || typeof a !== 'object') throw typeError(`tokenizer.added_tokens[${i}]`, `tokenizer.added_tokens[${i}] must be an object { id, content, ... }`);
    entries.push([`tokenizer.added_tokens[${i}]`, String(a.content), a.id]);
  }
  const count = Math.max(entries.length, Array.isArray(vocab) ? vocab.length + added.length : 0);
  const bound = Math.min(MAX_TOKEN_ID, 2 * count + 1023);
  for (const [field, token, id] of entries) {
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id > bound) {
      throw rangeError(field, `${field}: token ${shownToken(token)} has id ${typeof id === 'number' ? id : JSON.stringify(id)?.slice(0, 40)}; ` +
        `an id must be an integer from 0 to ${bound} (at most twice the ${count} entries plus 1,023, and at most ${MAX_TOKEN_ID})`);
    }
  }
}

/**
 * @param {unknown} value  the parsed JSON, or its text
 * @param {string} field
 * @returns {Record<string, any> | undefined}
 */
function jsonObject(value, field) {
  if (value === undefined) return undefined;
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch (e) {
      throw typeError(field, `${field} is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw typeError(field, `${field} must be an object (the parsed JSON file)`);
  return /** @type {Record<string, any>} */ (v);
}

/**
 * @param {unknown} tokenizerJson  tokenizer.json (parsed, or its text)
 * @param {unknown} [tokenizerConfig]  tokenizer_config.json (parsed, or its text), optional
 */
export function makeTokenizer(tokenizerJson, tokenizerConfig) {
  const json = jsonObject(tokenizerJson, 'tokenizer');
  if (!json) throw typeError('tokenizer', 'tokenizer is required: the parsed tokenizer.json');
  if (json.model === null || typeof json.model !== 'object') {
    throw typeError('tokenizer.model', 'tokenizer.model is missing: not a tokenizer.json of the Hugging Face tokenizers library');
  }
  checkIds(json);
  const config = jsonObject(tokenizerConfig, 'config') ?? {};
  /** @type {Tokenizer} */
  let t;
  try {
    t = new Tokenizer(json, config);
  } catch (e) {
    throw typeError('tokenizer', `tokenizer could not be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  // a loop, not Math.max(...ids): spreading 128,256 or more arguments overflows the call stack
  let vocabSize = 0;
  for (const id of t.get_vocab(true).values()) vocabSize = Math.max(vocabSize, id + 1);
  return Object.freeze({
    /** Ids one past the largest id of the vocabulary (added tokens included). */
    vocabSize,
    /**
     * The model's tokens of `text`, as the checkpoint's tokenizer splits it.
     * @param {string} text
     * @param {{ addSpecialTokens?: boolean }} [options]  default false: the text's own tokens only
     * @returns {{ ids: Int32Array, tokens: string[] }}
     */
    encode(text, options = {}) {
      if (typeof text !== 'string') throw typeError('text', `text must be a string, got ${text === null ? 'null' : typeof text}`);
      const add = options?.addSpecialTokens ?? false;
      if (typeof add !== 'boolean') throw typeError('addSpecialTokens', 'addSpecialTokens must be a boolean');
      const r = t.encode(text, { add_special_tokens: add });
      return { ids: Int32Array.from(r.ids), tokens: r.tokens };
    },
    /**
     * The text of token ids.
     * @param {ArrayLike<number>} ids
     * @param {{ skipSpecialTokens?: boolean }} [options]
     */
    decode(ids, options = {}) {
      if (!(Array.isArray(ids) || (ArrayBuffer.isView(ids) && !(ids instanceof DataView)))) {
        throw typeError('ids', 'ids must be an Array or an Int32Array of token ids');
      }
      const skip = options?.skipSpecialTokens ?? false;
      if (typeof skip !== 'boolean') throw typeError('skipSpecialTokens', 'skipSpecialTokens must be a boolean');
      const list = Array.from(/** @type {ArrayLike<unknown>} */ (ids));
      for (let i = 0; i < list.length; i++) {
        const id = list[i];
        if (typeof id !== 'number' && typeof id !== 'bigint') {
          throw typeError('ids', `ids[${i}] must be a token id (a number), got ${id === null ? 'null' : typeof id}`);
        }
        const n = Number(id);
        if (!Number.isInteger(n) || n < 0 || n >= vocabSize || t.id_to_token(n) === undefined) {
          throw rangeError('ids', `ids[${i}] (${String(id)}) is not a token id of this tokenizer: ids run from 0 to ${vocabSize - 1}` +
            (Number.isInteger(n) && n >= 0 && n < vocabSize ? ', and this one names no token' : ''));
        }
        list[i] = n;
      }
      if (list.length === 0) return '';
      return t.decode(/** @type {number[]} */ (list), { skip_special_tokens: skip });
    },
    /** One token's text, or undefined for an id outside the vocabulary. @param {number} id */
    idToToken: (id) => t.id_to_token(id),
    /** One token's id, or undefined. @param {string} token */
    tokenToId: (token) => t.token_to_id(token),
  });
}
