// decode-facts.js — the decode view's words: what the session is, and what its cache stores per token
// and holds now. For the lesson's block: one layer in float32. For an opened checkpoint: every layer,
// per token at the file's precision (what a Hugging Face cache of that dtype holds) beside this
// session's float32 cache, as the core reports it (a zoo model is one: sources/zoo.js). The list is
// kept between appends (a step rewrites the cache's figure, not the list).
import { el, variantName } from '../kit.js';
import { EN } from '../i18n/index.js';
import { messageNodes } from '../i18n/nodes.js';
import { cacheWhat } from '../render/cache-words.js';
import { cacheFormula } from '../render/geometry.js';
import { setText } from './decode-tokens.js';
import '../i18n/catalogs/en/decode.js';  // the English words it speaks

/**
 * The sentence above the controls, as nodes (an opened model's name is its data, marked data-text).
 * @param {object} s the session's shape @param {object | null} model the decoder's model @param {number} maxLen
 * @param {object} [i18n] the element's language (ctx.i18n; default English)
 * @returns {(string | Node)[]}
 */
export function decodeIntro(s, model, maxLen, i18n = EN) {
  const { t } = i18n;
  if (model) {
    const name = el('span', { lang: 'en', dataset: { text: 'model' } }, model.name);
    return messageNodes(t, 'dec.introModel', { name }, { variant: variantName(s.variant), count: model.layers, max: maxLen,
      button: t('dec.predict'), layer: model.layer });
  }
  return [[t('dec.intro', { variant: variantName(s.variant), max: maxLen }), s.variant === 'mla' ? t('dec.introMla') : ''].filter(Boolean).join(' ')];
}

/**
 * The facts list's rows: [term, detail, detail's class?] (stored per token, bytes per token, the cache
 * now, against MHA), words only.
 * @param {object} s the session's shape @param {object | null} baseline MHA's shape @param {number} L tokens cached
 * @param {number} cacheBytes the core's figure @param {object | null} model the decoder's model (sources/pretrained.js)
 * @param {object} [i18n] the element's language (ctx.i18n; default English)
 * @returns {[string, string, string?][]}
 */
export function factRows(s, baseline, L, cacheBytes, model, i18n = EN) {
  const { t } = i18n;
  const f = cacheFormula(s, 0, i18n);
  const stored = { what: cacheWhat(s, i18n), symbolic: f.symbolic, filled: f.filled, n: f.value };
  if (model) {
    const bits = model.dtypeBytes * 8, perLayer = f.value * model.dtypeBytes;
    return [
      [t('dec.fact.storedPerLayer'), t('dec.storedNumbers', stored)],
      [t('dec.fact.bytes'), t('dec.bytesModel', { n: f.value, dtypeBytes: model.dtypeBytes, bits, perLayer, count: model.layers,
        total: model.kvBytesPerToken })],
      [t('dec.fact.now'), t('dec.nowModel', { count: L, perToken: model.kvBytesPerToken, total: L * model.kvBytesPerToken, bits,
        reported: cacheBytes }), 'dec-total'],
    ];
  }
  const bytes = f.value * 4, mha = baseline?.cacheFloatsPerToken;
  return [
    [t('dec.fact.stored'), t('dec.storedFloats', stored)],
    [t('dec.fact.bytes'), t('dec.bytesFloat', { n: f.value, bytes })],
    [t('dec.fact.now'), t('dec.nowFloat', { count: L, perToken: bytes, total: L * bytes, reported: cacheBytes }), 'dec-total'],
    ...(s.variant !== 'mha' && mha ? [[t('dec.fact.vsMha'), t(mha >= f.value ? 'dec.mhaMore' : 'dec.mhaLess',
      { mha, variant: variantName(s.variant), ratio: i18n.fmt.ratio(mha >= f.value ? mha / f.value : f.value / mha) })]] : []),
  ];
}

/**
 * The facts list (a <dl>), kept between appends: its terms are laid out once per kind of session,
 * and a step rewrites only the details whose words changed (the cache now).
 * @param {object} [i18n] the element's language (ctx.i18n; default English)
 * @returns {{ element: HTMLElement, update(s: object, baseline: object | null, L: number, cacheBytes: number, model: object | null): void }}
 */
export function createDecodeFacts(i18n = EN) {
  const element = el('dl', 'dec-facts');
  let terms = '', details = [];

  function build(rows) {
    details = rows.map(([, , cls]) => el('dd', cls ?? null));
    element.replaceChildren(...rows.flatMap(([term], i) => [el('dt', null, term), details[i]]));
  }

  return {
    element,
    update(s, baseline, L, cacheBytes, model) {
      const rows = factRows(s, baseline, L, cacheBytes, model, i18n);
      const termsNow = JSON.stringify(rows.map(([term, , cls]) => [term, cls]));
      if (termsNow !== terms) build(rows);
      terms = termsNow;
      rows.forEach(([, detail], i) => setText(details[i], detail));
    },
  };
}
