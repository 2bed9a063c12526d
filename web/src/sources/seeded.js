// sources/seeded.js — the first source: the lesson's example. One attention block with the core's
// seeded random weights (its documented initialisation), the learner's sentence split into words, each
// word a seeded vector plus its position (tokens.js). Everything runs in the worker: the core checks
// every field of the shape before anything is allocated (seededForward in worker-methods.js), so a
// dModel of -5 or 1e9 is refused next to its field, never turned into an array here.
// The interface every source implements: web/ARCHITECTURE.md, "Sources".
import { shapeSpec } from '../state.js';
import { tokenize, truncation } from '../tokens.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

/** The state fields a seeded pass depends on besides the variant (anything else changing redraws nothing). */
const FIELDS = ['text', 'dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'rope', 'causal', 'seed'];

/** What the worker's seededForward needs for this state and variant. */
export function seededRequest(state, variant = state.variant, extra = {}) {
  return { spec: shapeSpec(state, variant), tokens: tokenize(state.text), causal: state.causal, ...extra };
}

/** @param {{ client: { call(method: string, ...args: any[]): Promise<any> }, i18n?: object }} ctx */
export function seededSource(ctx) {
  const i18n = ctx.i18n ?? EN;
  return {
    id: 'seeded',
    title: i18n.t('source.seeded'),
    layers: () => 1,
    /** Changes exactly when the pass changes; variant '' leaves the variant out (a view showing all of them). */
    key: (state, variant = state.variant) => JSON.stringify([variant, ...FIELDS.map((f) => state[f])]),
    tokens: (state) => tokenize(state.text),
    /** '' or the sentence saying the text was cut to the tokens the pass uses. */
    note: (state) => { const cut = truncation(state.text); return cut ? i18n.t('source.truncated', cut) : ''; },

    /** Every head's map of one layer: { tokens, shape, layer, layers, causal, weights (H, N, N), output }. */
    async maps(state, { variant = state.variant } = {}) {
      const req = seededRequest(state, variant, { returnWeights: true });
      const r = await ctx.client.call('seededForward', req);
      return { tokens: req.tokens, shape: r.shape, layer: 0, layers: 1, causal: state.causal, weights: r.weights, output: r.output };
    },

    /** The walkthrough's stages: { tokens, shape, x, output, intermediates, parameters } (the core's own tensors and weights). */
    async stages(state) {
      const req = seededRequest(state, state.variant, { returnIntermediates: true });
      const r = await ctx.client.call('seededForward', req);
      // The lesson's steps also need the pass's own settings (lesson/stages.js): N, causal, RoPE.
      const shape = { ...r.shape, seqLen: req.tokens.length, causal: state.causal, rope: r.shape.rope ?? Boolean(req.spec.rope) };
      return { tokens: req.tokens, shape, layer: 0, causal: state.causal, x: r.x, output: r.output, intermediates: r.intermediates,
        parameters: r.parameters };
    },

    /**
     * A KV-cache session for the decode view: append(tokens) embeds them after the ones cached
     * (positions continue) and returns { weights (H, k, length), length, cacheBytes }.
     */
    decoder(state, { key, maxLen }) {
      const spec = shapeSpec(state);
      let cached = [];
      return {
        maxLen,
        /** A new, empty session: { cacheBytes, shape, baseline } (baseline: MHA's shape at these sizes). */
        async start() {
          cached = [];
          const info = await ctx.client.call('seededSessionCreate', key, { ...spec, maxLen, returnWeights: true });
          const [shape, baseline] = await ctx.client.call('resolveShapes', [spec, shapeSpec(state, 'mha')]);
          return { ...info, shape, baseline: baseline.error ? null : baseline };
        },
        async append(tokens) {
          const r = await ctx.client.call('seededSessionAppend', key, { spec, tokens: cached.concat(tokens), fresh: tokens.length });
          cached = cached.concat(tokens);
          return r;
        },
        dispose: () => ctx.client.call('sessionDispose', key).catch(() => {}),
      };
    },
  };
}
