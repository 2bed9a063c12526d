// nodes.js — a message with elements in it (a button, a token marked as data): the catalog's text
// split at the `{name}` parameters given as nodes, for el(). The other parameters are filled by t()
// first. Pure (no DOM of its own).

/**
 * For a message 'Train them in {lab}: …' and { lab: button }: ['Train them in ', button, ': …'].
 * @param {(key: string, params?: object) => string} t  the element's i18n.t
 * @param {string} key
 * @param {Record<string, Node>} nodes  parameters that are nodes
 * @param {object} [params]  the other parameters
 * @returns {(string | Node)[]}
 */
export function messageNodes(t, key, nodes, params = {}) {
  const text = t(key, params);
  return text.split(/(\{\w+\})/).filter(Boolean).map((part) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    return name && name in nodes ? nodes[name] : part;
  });
}
