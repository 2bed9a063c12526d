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
  const config = jsonObject(tokenizerConfig, 'config') ?? {};
  /** @type {Tokenizer} */
  let t;
  try {
    t = new Tokenizer(json, config);
  } catch (e) {
    throw typeError('tokenizer', `tokenizer could not be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  const vocab = t.get_vocab(true);
  const vocabSize = Math.max(-1, ...vocab.values()) + 1;
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
      if (!(Array.isArray(ids) || ArrayBuffer.isView(ids))) throw typeError('ids', 'ids must be an Array or an Int32Array of token ids');
      return t.decode(Array.from(/** @type {ArrayLike<number>} */ (ids)), { skip_special_tokens: options?.skipSpecialTokens ?? false });
    },
    /** One token's text, or undefined for an id outside the vocabulary. @param {number} id */
    idToToken: (id) => t.id_to_token(id),
    /** One token's id, or undefined. @param {string} token */
    tokenToId: (token) => t.token_to_id(token),
  });
}
