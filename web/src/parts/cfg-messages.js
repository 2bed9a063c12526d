// cfg-messages.js — the configurator's sentences in the page's language: the core returns each one as a
// message (`{ id, params }`, attn/message.hpp; its English text too), and the catalog has a sentence
// for each id (cfg.msg.<id>). Values are written by the language's formats by what they are: a count
// grouped, { parameters } in words (8 billion, 8 अरब), { bytes } in binary units, { decimalBytes } as
// devices are sold (GB), { ratio } as a factor, { decimal } with its digits; { text } is the core's data
// (a citation, the ladder of variants), shown as it is and marked so; a part that is a message itself is
// written the same way, in place.
import { el } from '../kit.js';
import '../i18n/catalogs/en/cfg.js';  // the English words it speaks

/** A value as text in the language (a message's parts as nodes: messageNodes). */
function valueText(v, { fmt }) {
  if (typeof v === 'number') return fmt.int(v);
  if (v && typeof v === 'object') {
    if ('parameters' in v) return fmt.count(v.parameters);
    if ('bytes' in v) return fmt.binary(v.bytes);
    if ('decimalBytes' in v) return fmt.decimal(v.decimalBytes);
    if ('ratio' in v) return fmt.ratio(v.ratio);
    if ('decimal' in v) return fmt.sig(v.decimal, 4);
  }
  return String(v ?? '');
}

/**
 * A message as nodes: the catalog's sentence with its values in place ({ text } values in an element
 * marked as the core's data, lang="en").
 * @param {{ id: string, params: object }} m
 * @param {object} i18n  the element's words and formats
 * @returns {(Node | string)[]}
 */
export function messageNodes(m, i18n) {
  return parts(m, i18n, (text) => el('span', { lang: 'en', dataset: { text: 'data' } }, text));
}

/** A message as plain text (an option of a select, which holds no elements; Node tests). */
export function messageText(m, i18n) {
  return parts(m, i18n, (text) => text).join('');
}

/** The pieces of a message: the catalog's text between its values, each value written ({ text } through `data`). */
function parts(m, i18n, data) {
  const template = i18n.t(`cfg.msg.${m.id}`);  // no parameters given: its {names} stay, filled below
  const params = m.params ?? {};
  return template.split(/(\{\w+\})/).flatMap((part) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (!name || !(name in params)) return part === '' ? [] : [part];
    const v = params[name];
    if (v && typeof v === 'object' && 'id' in v) return parts(v, i18n, data);
    if (v && typeof v === 'object' && 'text' in v) return [data(v.text)];
    return [valueText(v, i18n)];
  });
}
