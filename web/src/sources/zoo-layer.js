// zoo-layer.js — one layer of a zoo model through the inference core (sources/zoo.js imports it when
// the walkthrough or the decode view first asks): the walkthrough's stages (the core's forward on the
// layer's input and weights) and a KV-cache session over the layer (the core's session, fed the
// layer's input rows as the model computes them, the model naming its next character). The worker's
// side: worker-trainer-layer.js.
// It imports nothing: what it needs of sources/zoo.js comes in `host` (so the first map's bundle stays
// as it is).

/**
 * @typedef {{ ctx: object, sentence: (state) => Promise<{ m, s }>, layerOf: (state, m) => number,
 *   model: (state) => Promise<object>, vocab: () => string[] | null, charTokens: Function, charLabel: Function,
 *   labelChar: Function, noChars: () => Error }} ZooHost  what sources/zoo.js gives
 */

/** The stages of the state's layer: { tokens, shape, layer, layers, causal, x, output, intermediates, parameters, trained: { name, seed } }. */
export async function zooStages(host, state) {
  const { m, s } = await host.sentence(state);
  const layer = host.layerOf(state, m);
  const r = await host.ctx.client.call('trainerLayerStages', m.key, s.ids, layer);
  const shape = { ...r.shape, seqLen: s.ids.length, causal: true, rope: Boolean(r.spec.rope) };
  return { tokens: s.labels, shape, layer, layers: m.layers, causal: true, x: r.x, output: r.output,
    intermediates: r.intermediates, parameters: r.parameters, trained: { name: m.model.label, seed: m.model.shippedSeed } };
}

/**
 * A KV-cache session over the state's layer: append(labels) runs the model on every character so far,
 * feeds that layer's input rows for the new ones to the core's session, and returns { weights
 * (H, k, length), length, cacheBytes, next: [{ id, token, p }] }.
 * @param {ZooHost} host @param {object} state @param {{ key: string, maxLen: number }} options
 */
export function zooDecoder(host, state, { key: session, maxLen }) {
  const { ctx, charLabel, labelChar } = host;
  let m = null, ids = [];
  return {
    maxLen: Math.min(maxLen, 64),
    model: null,  // once started: { name, layers, layer, dtypeBytes, kvBytesPerToken, trained }
    tokenize: (text) => host.charTokens(text, host.vocab(), 64).labels,
    async start() {
      m = await host.model(state);
      ids = [];
      const layer = host.layerOf(state, m);
      this.maxLen = Math.min(this.maxLen, m.seqLen);
      this.model = { name: m.model.label, layers: m.layers, layer, dtypeBytes: 4, kvBytesPerToken: m.model.kvBytesPerToken, trained: true };
      const info = await ctx.client.call('trainerLayerSessionCreate', m.key, session, { layer, maxLen: this.maxLen });
      return { ...info, shape: m.shape, baseline: null };
    },
    async append(labels) {
      const vocab = host.vocab();
      const index = new Map(vocab.map((c, i) => [c, i]));
      const fresh = labels.map(labelChar).filter((c) => index.has(c)).map((c) => index.get(c));
      if (fresh.length === 0) throw host.noChars();
      const all = ids.concat(fresh);
      const r = await ctx.client.call('trainerLayerSessionAppend', m.key, session, { tokens: all, fresh: fresh.length, layer: this.model.layer });
      ids = all;
      return { ...r, next: r.next.map((n) => ({ ...n, token: charLabel(vocab[n.id]) })) };
    },
    dispose: () => ctx.client.call('sessionDispose', session).catch(() => {}),
  };
}
