// model-file.js — the trainer spec a model file records (its .safetensors `__metadata__`, written by
// the core's export_model: core/src/train/model_file.cpp, docs/api.md "The model file"). Read only
// after attn.loadModel accepted the bytes, and only while the core's Trainer does not return its
// spec itself: the worker's trainerLoad prefers `trainer.spec`. Pure (tests/node/web-lab-models.test.mjs).

// The metadata keys of the model (spec.model), the rest being the task's and training's.
const MODEL_KEYS = ['variant', 'dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'rope', 'ropeBase',
  'nLayers', 'mlp', 'layerNorm', 'tiedEmbeddings', 'activation', 'block', 'mlpWidth'];
// Values kept as text; booleans are 'true' / 'false'; every other value is a number written as text.
const TEXT_KEYS = new Set(['task', 'variant', 'activation', 'block']);
// Not part of the spec (the file's own bookkeeping), or too large to carry around (the corpus, or
// the length and CRC-32 of a corpus the file names by reference).
const SKIP_KEYS = new Set(['format', 'formatVersion', 'crc32', 'step', 'rng', 'text', 'weightsOnly', 'textBytes', 'textCrc32']);

/**
 * The spec of a trainer's .safetensors file ({ task, seqLen, vocabSize, ..., model: { variant, ... } }),
 * or null when the bytes are not one (e.g. an older ATTNTRN file, which the core also reads).
 * @param {Uint8Array} bytes
 */
export function specFromModelFile(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length < 8) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;  // u64 little-endian
  if (n > bytes.length - 8) return null;
  let meta;
  try {
    meta = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n))).__metadata__;
  } catch {
    return null;
  }
  if (!meta || typeof meta !== 'object' || meta.format !== 'attention-playground.trainer') return null;
  const spec = { model: {} };
  for (const [k, v] of Object.entries(meta)) {
    if (SKIP_KEYS.has(k) || typeof v !== 'string') continue;
    const value = TEXT_KEYS.has(k) ? v : v === 'true' ? true : v === 'false' ? false : Number(v);
    (MODEL_KEYS.includes(k) ? spec.model : spec)[k] = value;
  }
  return spec;
}
