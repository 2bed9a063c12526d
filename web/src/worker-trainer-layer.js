// worker-trainer-layer.js — the worker's methods for one layer of a trained model (a zoo model,
// sources/zoo.js): its walkthrough stages and its KV-cache session, both the inference core's own, run
// on the layer's input and weights (trainer.layer, docs/api.md "Training"). Imported by the worker with
// the first call of one of them (worker-methods.js), so the first map's worker does not carry them.
import { methods, trainer } from './worker-methods.js';

export const trainerLayerMethods = {
  /** The walkthrough's stages: forward with returnIntermediates on the layer's input and weights. */
  trainerLayerStages(attn, key, tokens, layer) {
    const l = trainer(key).layer(tokens, layer);
    return { ...attn.forward({ ...l.spec, x: l.x, weights: l.weights, returnIntermediates: true }), x: l.x, spec: l.spec };
  },
  /** A KV-cache session (the core's) over the layer's attention, under `session`. */
  trainerLayerSessionCreate(attn, key, session, { layer, maxLen }) {
    const { spec, weights } = trainer(key).layer([0], layer);
    const { seqLen, causal, ...shape } = spec;  // a session is causal by construction and has no seqLen
    return methods.sessionCreate(attn, session, { ...shape, maxLen, weights, returnWeights: true });
  },
  /**
   * Appends the last `fresh` of `tokens` (every token so far: the model reads them all, so positions
   * continue) to the layer's session: that layer's input rows for them, as the model computes them.
   * Also the model's `top` most likely next tokens: [{ id, p }].
   */
  trainerLayerSessionAppend(attn, key, session, { tokens, fresh, layer, top = 5 }) {
    const t = trainer(key);
    const { x, spec } = t.layer(tokens, layer);
    const r = methods.sessionAppend(attn, session, x.subarray((tokens.length - fresh) * spec.dModel));
    const p = t.nextTokenProbs(tokens);
    const next = Array.from(p, (q, id) => ({ id, p: q })).sort((a, b) => b.p - a.p || a.id - b.id).slice(0, top);
    return { ...r, next };
  },
};
