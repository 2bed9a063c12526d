// sources/token-kinds.js — what a checkpoint's tokenizer says about its ids: whether an id is an ordinary
// token (the head-roles probes draw only those) and whether the model starts a sentence with BOS.
// The tokenizer here is wasm/tokenizer.mjs's object; this runs where the tokenizer lives (the
// tokenizer's worker, worker-tokenizer.js).

/** The config's special ids (BOS, EOS, padding) that are integers. */
export const specialIds = (config) =>
  new Set(['bos_token_id', 'eos_token_id', 'pad_token_id'].map((k) => config?.[k]).filter(Number.isInteger));

/**
 * How many of the vocabulary's first ids the model was trained to read: config.json's input_vocab_size
 * where a lab's model has one (the pairs task reads A ids of its A^2; the rest are only ever targets,
 * their embeddings untrained: core/include/attn/train/hf_checkpoint.hpp), else the whole vocabulary.
 */
export function inputIds(config, vocab) {
  const n = config?.input_vocab_size;
  return Number.isInteger(n) && n > 0 && n < vocab ? n : vocab;
}

/**
 * Whether an id is an ordinary token: below `inputs` (inputIds), not one of `special`, and with a
 * tokenizer, one that decodes to text when special tokens are skipped, is not a byte token (<0x41>)
 * and not a partial character.
 * @param {object | null} tokenizer
 * @param {Set<number>} special
 * @param {number} [inputs]
 */
export function ordinaryToken(tokenizer, special, inputs = Infinity) {
  return (id) => {
    if (id >= inputs || special.has(id)) return false;
    if (!tokenizer) return true;
    const piece = tokenizer.idToToken(id);
    if (piece === undefined || /^<0x[0-9A-Fa-f]{2}>$/.test(piece)) return false;
    let text = '';
    try { text = tokenizer.decode([id], { skipSpecialTokens: true }); } catch { return false; }
    return text.trim() !== '' && !text.includes('\uFFFD');
  };
}

/**
 * The model's BOS id where it uses one: the config's bos_token_id when its tokenizer puts it first
 * (encode with special tokens), or, without a tokenizer, when the config names one. Else null (GPT-2's
 * and Qwen's tokenizers add none).
 */
export function modelBos(config, tokenizer, vocab) {
  const bos = config?.bos_token_id;
  if (!Number.isInteger(bos) || bos < 0 || bos >= vocab) return null;
  if (!tokenizer) return bos;
  try {
    return tokenizer.encode('a', { addSpecialTokens: true }).ids[0] === bos ? bos : null;
  } catch {
    return null;
  }
}
