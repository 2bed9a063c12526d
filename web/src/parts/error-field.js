// error-field.js — which field of the shape form a core error belongs under (pure but for the core's
// own check, passed in: tests/node/web-error-field.test.mjs). The core names the field its check
// tripped on (error.field), which is not always the one the learner can fix:
//   - a value the page derives, not the learner: dHead 0 is dModel / nHeads, and nKvHeads is implied
//     by MHA and MQA; an error on it belongs under the fields it derives from;
//   - a rule between two fields ("nHeads (8) must be divisible by nKvHeads (3)"): the error belongs under
//     the one the learner just edited, or, when none was (a link), under the one whose own default
//     would make the shape valid again (the core's resolveShape decides, nothing is counted here).

import { DEFAULTS, shapeSpec } from '../state.js';

/** The shape's number fields that the core's rules relate: a field, then those its checks compare it with. */
export const RELATED = {
  dModel: ['dModel', 'nHeads', 'dHead'],
  nHeads: ['nHeads', 'nKvHeads', 'dModel'],
  nKvHeads: ['nKvHeads', 'nHeads'],
  dHead: ['dHead', 'dModel', 'nHeads'],
  latentRank: ['latentRank', 'dModel'],
  ropeDim: ['ropeDim', 'dHead'],
};

/** The fields a field's value comes from when the learner did not set it ('' when it is the learner's). */
function derivedFrom(field, state) {
  if (field === 'dHead' && !state.dHead) return ['dModel', 'nHeads'];  // 0: dModel / nHeads
  if (field === 'nKvHeads' && state.variant !== 'gqa') return ['nHeads', 'variant'];  // MHA: H, MQA: 1
  return null;
}

/**
 * @param {Error & { field?: string }} error  a core error
 * @param {object} state  the element's state the error was made from
 * @param {{ valid: (spec: object) => Promise<boolean>, edited?: string }} o  valid: whether the core
 *   accepts a shape (resolveShape); edited: the form field the learner changed last ('' for none)
 * @returns {Promise<string>} the form field to show the error under (the core's field when it is not one of the shape's)
 */
export async function errorField(error, state, { valid, edited = '' }) {
  const named = String(error?.field ?? '').split('.')[0];
  if (!RELATED[named]) return named;
  const candidates = derivedFrom(named, state) ?? RELATED[named];
  if (edited && candidates.includes(edited)) return edited;
  for (const f of candidates) {
    if (!(f in DEFAULTS) || f === 'variant' || state[f] === DEFAULTS[f]) continue;  // as it starts: not what was changed
    if (await valid(shapeSpec({ ...state, [f]: DEFAULTS[f] })).catch(() => false)) return f;
  }
  return candidates.find((f) => f !== 'variant' && (f !== named || !derivedFrom(named, state))) ?? named;
}

/** A message as a sentence of its own: "… head sizes" and "this session needs …" never run together. */
const sentence = (s) => (/[.!?।]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);

/**
 * The form's errors, each in the catalog's words (by its field and kind) with the core's message as the
 * detail, grouped under the field to fix: for each field [text, detail], and [text, detail] of those no
 * field of the form takes. One catalog sentence per field and kind, then every detail, each a sentence.
 * @param {Error[]} errors
 * @param {object | null} state  the state the form shows
 * @param {{ client: object, edited: string, fields: string[], i18n: object }} o  client: the core worker's proxy
 * @returns {Promise<{ byField: Map<string, [string, string]>, other: [string, string] }>}
 */
export async function placeErrors(errors, state, { client, edited, fields, i18n }) {
  const valid = (spec) => client.call('resolveShape', spec).then(() => true, () => false);
  const under = await Promise.all(errors.map((e) => (state ? errorField(e, state, { valid, edited }) : String(e.field ?? '').split('.')[0])));
  const groups = new Map();  // field ('' for none) -> Map(detail -> text)
  errors.forEach((e, k) => {
    const key = fields.includes(under[k]) ? under[k] : '';
    const { text, detail } = i18n.coreError(e);
    if (!groups.has(key)) groups.set(key, new Map());
    groups.get(key).set(detail, text);
  });
  const parts = (list) => (list ? [[...new Set(list.values())].map(sentence).join(' '), [...list.keys()].map(sentence).join(' ')] : ['', '']);
  const byField = new Map([...groups].filter(([f]) => f).map(([f, list]) => [f, parts(list)]));
  return { byField, other: parts(groups.get('')) };
}
