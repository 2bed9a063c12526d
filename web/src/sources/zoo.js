// sources/zoo.js — the trained source: a bundled model of the zoo (web/zoo/, docs/zoo.md), word-level,
// trained on tiny Shakespeare, one per variant, each a Hugging Face checkpoint folder. The state's
// variant picks the model (GQA: 4 or 2 KV heads by nKvHeads; MLA: latent 32 or 16 by latentRank), which
// is opened as any checkpoint is (sources/pretrained.js openCheckpoint, from the files
// sources/zoo-files.js gives): its tokenizer splits the sentence, its forward draws the maps, its stages
// the walkthrough, its KV-cache session the decode view. The zoo adds the manifest's measured head
// scores (each head's label, the table under the maps: sources/zoo-model.js). Nothing is fetched until
// a view asks; this file is in the first map's bundle, so everything else is imported then.
// Drawn by the heatmap, compare, walkthrough and decode views (element.js ZOO_VIEWS).
// The interface every source implements: web/ARCHITECTURE.md, "Sources".
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks

/** The zoo model drawn for a state (and a variant): the manifest's model id. */
export function zooModelId(state, variant = state.variant) {
  if (variant === 'mqa') return 'mqa';
  if (variant === 'gqa') return state.nKvHeads >= 4 ? 'gqa4' : 'gqa2';
  if (variant === 'mla') return state.latentRank >= 32 ? 'mla32' : 'mla16';
  return 'mha';
}

/** @param {{ client: object, i18n?: object, rerender?: () => void }} ctx  read at each use (the page's language may change) */
export function zooSource(ctx) {
  const t = (key, params) => (ctx.i18n ?? EN).t(key, params);
  const models = new Map();  // id -> { promise, opened (sources/zoo-model.js, once it is), error }

  /** The zoo model `id`, opened once (a failed opening is tried again at the next ask). */
  function open(id) {
    let m = models.get(id);
    if (!m || m.error) {
      m = { opened: null, error: null };
      m.promise = import('./zoo-model.js').then((z) => z.openZooModel(ctx, id))
        .then((opened) => (m.opened = opened), (e) => { m.error = e; throw e; });
      models.set(id, m);
    }
    return m.promise;
  }
  /** The state's model's checkpoint source, once it is open (its tokenizer splits the sentence). */
  const now = (state) => models.get(zooModelId(state))?.opened?.source ?? null;

  return {
    id: 'trained',
    get title() { return t('source.zoo'); },
    /** variant '' (a view showing several): every variant's model, as the state picks them. */
    key: (state, variant = state.variant) => JSON.stringify(['zoo', variant ? zooModelId(state, variant)
      : ['mha', 'mqa', 'gqa', 'mla'].map((v) => zooModelId(state, v)), state.text, state.layer]),
    /** The state's model once it is open: { name, layers, shape, maxTokens } for the form's note (views/controls.js showModel), else null. */
    shown(state) {
      const s = now(state);
      return s ? { name: s.opened.name, layers: s.opened.info.nLayers, shape: s.opened.shape, maxTokens: s.maxTokens, trained: true } : null;
    },
    tokens: (state) => now(state)?.tokens(state) ?? ['…'],
    note: (state) => now(state)?.note(state) ?? '',
    /**
     * Whether the views must wait before they read the sentence's tokens (element.js): true while the
     * model opens or its tokenizer splits the sentence; the element renders again then (ctx.rerender).
     */
    waits(state) {
      const m = models.get(zooModelId(state));
      if (m?.error) return false;  // its maps() says why
      if (m?.opened) return m.opened.source.waits(state);
      open(zooModelId(state)).then(() => ctx.rerender?.(), () => ctx.rerender?.());
      return true;
    },
    maps: async (state, { layer = 0, variant = state.variant } = {}) => (await open(zooModelId(state, variant))).maps(state, { layer }),
    stages: async (state, options) => (await open(zooModelId(state))).stages(state, options),
    /** The checkpoint's KV-cache session (sources/pretrained.js), once the model is open (start). */
    decoder(state, options) {
      let inner = null;
      return {
        maxLen: options.maxLen,
        model: null,  // known once started
        tokenize: (text) => inner.tokenize(text),
        async start() {
          inner = (await open(zooModelId(state))).source.decoder(state, options);
          Object.assign(this, { maxLen: inner.maxLen, model: inner.model });
          return inner.start();
        },
        append: (tokens) => inner.append(tokens),
        dispose: () => inner?.dispose() ?? Promise.resolve(),
      };
    },
    /** What the heatmap view adds to its summary: which model, and how well it predicts held-out text. */
    extras: (data) => (data.which ? [' ', data.which] : []),
  };
}
