// decode-facts.js — the decode view's words: what the session is, and what its cache stores per token
// and holds now. For the lesson's block: one layer in float32. For an opened checkpoint: every layer,
// per token at the file's precision (what a Hugging Face cache of that dtype holds) beside this
// session's float32 cache, as the core reports it.
import { el, plural, variantName } from '../kit.js';
import { fmtInt, fmtRatio } from '../format.js';
import { cacheFormula, cacheWhat } from '../render/geometry.js';

/** The sentence above the controls. */
export function decodeIntro(s, model, maxLen) {
  if (model) {
    return `${model.name}: ${variantName(s.variant)} decoding with its KV cache (${model.layers} layers, at most ${maxLen} tokens). ` +
      'Each step appends one token to every layer\'s cache; the model then says its next token, which “Add the model\'s next token” appends. ' +
      `The weights below are layer ${model.layer}'s (the layer picker of the attention maps chooses it).`;
  }
  return `${variantName(s.variant)} decoding with a KV cache (one layer, float32, at most ${maxLen} tokens). Each step appends one token: ` +
    'its keys and values are computed once and stored, and its query attends to everything cached so far.' +
    (s.variant === 'mla' ? ' MLA stores only the latent and a small RoPE key, and decodes in the absorbed form, never rebuilding K or V.' : '');
}

/**
 * The facts list: stored per token, bytes per token, the cache now, against MHA.
 * @param {object} s the session's shape @param {object | null} baseline MHA's shape @param {number} L tokens cached
 * @param {number} cacheBytes the core's figure @param {object | null} model the decoder's model (sources/pretrained.js)
 */
export function decodeFacts(s, baseline, L, cacheBytes, model) {
  const f = cacheFormula(s), row = (k, v, cls) => [el('dt', null, k), el('dd', cls ?? null, v)];
  if (model) {
    const bits = model.dtypeBytes * 8, perLayer = f.value * model.dtypeBytes;
    return [
      ...row('Stored per token, per layer', `${cacheWhat(s)}: ${f.symbolic} = ${f.filled} = ${fmtInt(f.value)} numbers`),
      ...row('Bytes per token', `${fmtInt(f.value)} × ${model.dtypeBytes} bytes (${bits}-bit, the file's) = ${fmtInt(perLayer)} bytes per layer; ` +
        `× ${model.layers} layers = ${fmtInt(model.kvBytesPerToken)} bytes`),
      ...row('Cache now', `${plural(L, 'token')} × ${fmtInt(model.kvBytesPerToken)} bytes = ${fmtInt(L * model.kvBytesPerToken)} bytes at ${bits} bits ` +
        `(this page keeps it in float32: the core reports ${fmtInt(cacheBytes)} bytes)`, 'dec-total'),
    ];
  }
  const bytes = f.value * 4, mha = baseline?.cacheFloatsPerToken;
  return [
    ...row('Stored per token', `${cacheWhat(s)}: ${f.symbolic} = ${f.filled} = ${fmtInt(f.value)} floats`),
    ...row('Bytes per token', `${fmtInt(f.value)} × 4 bytes (float32) = ${fmtInt(bytes)} bytes`),
    ...row('Cache now', `${plural(L, 'token')} × ${fmtInt(bytes)} bytes = ${fmtInt(L * bytes)} bytes (the core reports ${fmtInt(cacheBytes)} bytes)`, 'dec-total'),
    ...(s.variant !== 'mha' && mha ? row('Against MHA', `MHA at this shape stores 2 · H · dh = ${fmtInt(mha)} floats per token: ` +
      (mha >= f.value ? `${fmtRatio(mha / f.value)} more than ${variantName(s.variant)}` : `${fmtRatio(f.value / mha)} less than ${variantName(s.variant)}`)) : []),
  ];
}
