// sources/zoo.js — the trained source: a bundled model of the zoo (web/zoo/, `npm run zoo`,
// docs/zoo.md), character-level, trained on tiny Shakespeare, one per variant. The state's variant
// picks the model (GQA: 4 or 2 KV heads by nKvHeads; MLA: latent 32 or 16 by latentRank); the
// learner's sentence is read as characters (the corpus's own: others are left out, and the note says
// so); the maps are the trainer's (trainer.attention, every layer); each head carries its strongest
// score from the manifest (the core's head scores, measured when the zoo was trained) where it clearly beats a uniform head's (sources/zoo-roles.js). Nothing is
// fetched until a map is asked for. Drawn by the heatmap, compare, walkthrough and decode views
// (element.js ZOO_VIEWS): the walkthrough's stages and the decoder's KV-cache session are the inference
// core's own, run on one layer's input and weights (trainer.layer, docs/api.md "Training"): sources/zoo-layer.js,
// imported when the walkthrough or decode view first asks.
// The interface every source implements: web/ARCHITECTURE.md, "Sources".
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/maps.js';  // the English words it speaks
import { attentionSpecOf } from './trained-spec.js';

/** The zoo model drawn for a state (and a variant): the manifest's model id. */
export function zooModelId(state, variant = state.variant) {
  if (variant === 'mqa') return 'mqa';
  if (variant === 'gqa') return state.nKvHeads >= 4 ? 'gqa4' : 'gqa2';
  if (variant === 'mla') return state.latentRank >= 32 ? 'mla32' : 'mla16';
  return 'mha';
}

/** The trainer's character vocabulary of a corpus: its distinct code points, sorted (id = index). */
export function charVocab(text) {
  return [...new Set(Array.from(text))].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
}

/**
 * A sentence as the model's characters: { ids, labels, unknown, cut } — the characters the corpus
 * has, up to `max` of them (`cut`: how many more were left out), `unknown`: the distinct characters
 * it never uses (left out too).
 */
export function charTokens(text, vocab, max) {
  const index = new Map(vocab.map((c, i) => [c, i]));
  const known = [];
  const unknown = new Set();
  for (const c of Array.from(text)) (index.has(c) ? known.push(c) : unknown.add(c));
  const kept = known.slice(0, max);
  return { ids: kept.map((c) => index.get(c)), labels: kept.map(charLabel), unknown: [...unknown], cut: known.length - kept.length };
}

/** How a character is shown as a token (a space and a newline visibly), and back. */
export const charLabel = (c) => (c === ' ' ? '␣' : c === '\n' ? '↵' : c);
export const labelChar = (l) => (l === '␣' ? ' ' : l === '↵' ? '\n' : l);

/** A head's label: the role's score and value ("previous token 0.39"), or that no role stands out (field ''). */
const ROLE_WORDS = { previousToken: 'zoo.role.previous', diagonal: 'zoo.role.self', firstToken: 'zoo.role.first', induction: 'zoo.role.induction' };
export const roleLabel = (score, field, t) => t(ROLE_WORDS[field] ?? 'zoo.role.none', { value: score[field]?.toFixed(2) });

/** @param {{ client: { call(method: string, ...args: any[]): Promise<any> }, i18n?: object }} ctx */
export function zooSource(ctx) {
  const i18n = ctx.i18n ?? EN;
  const { t } = i18n;
  let zoo = null;         // Promise<{ manifest, text, vocab, files }>
  const models = new Map(); // id -> Promise<{ key, model, shape }>
  let vocab = null;       // known once the corpus has loaded; until then the sentence's characters as typed

  const loadZoo = () => (zoo ??= (async () => {
    // the zoo's words come with its files: nothing says them before the corpus is here (the first map never loads them)
    const [files, text] = await Promise.all([import('attn-zoo-files'),
      import('../../data/tinyshakespeare-256k.txt?raw').then((m) => m.default), import('../i18n/catalogs/en/zoo.js')]);
    const manifest = await files.zooManifest();
    vocab = charVocab(text);
    return { manifest, text, files };
  })().catch((e) => { zoo = null; throw e; }));

  const loadModel = (id) => {
    if (!models.has(id)) {
      models.set(id, (async () => {
        const { manifest, text, files } = await loadZoo();
        const model = manifest.models.find((m) => m.id === id);
        if (!model) throw new Error(`the zoo has no model '${id}'`);
        const key = `zoo:${id}`;
        const info = await ctx.client.call('trainerLoad', key, await files.zooBytes(model.file), { text });
        const spec = attentionSpecOf(info.spec.model);
        const shape = await ctx.client.call('resolveShape', spec);
        return { key, model, spec, shape, seqLen: manifest.training.seqLen, layers: info.spec.model.nLayers ?? manifest.geometry.nLayers };
      })().catch((e) => { models.delete(id); throw e; }));
    }
    return models.get(id);
  };

  const split = (state, seqLen = 64) => (vocab ? charTokens(state.text, vocab, seqLen)
    : { labels: Array.from(state.text).slice(0, seqLen).map(charLabel), ids: [], unknown: [], cut: 0 });
  const layerOf = (state, m) => Math.min(Math.max(0, state.layer | 0), m.layers - 1);
  /** The model and the sentence's characters it knows (an error when it knows none). */
  const sentence = async (state) => {
    const m = await loadModel(zooModelId(state));
    const s = split(state, m.seqLen);
    if (s.ids.length === 0) throw host.noChars();
    return { m, s };
  };

  /** What sources/zoo-layer.js needs of this source. */
  const host = { ctx, sentence, layerOf, model: (state) => loadModel(zooModelId(state)), vocab: () => vocab, charTokens, charLabel, labelChar,
    noChars: () => new Error(t('zoo.noChars')) };

  return {
    id: 'trained',
    title: t('source.zoo'),
    /** variant '' (a view showing several): every variant's model, as the state picks them. */
    key: (state, variant = state.variant) => JSON.stringify(['zoo', variant ? zooModelId(state, variant)
      : ['mha', 'mqa', 'gqa', 'mla'].map((v) => zooModelId(state, v)), state.text, state.layer]),
    tokens: (state) => split(state).labels,
    note(state) {
      const s = split(state);
      return [s.cut ? t('zoo.cut', { count: s.cut }) : '', s.unknown.length ? t('zoo.unknown', { chars: s.unknown.join(' ') }) : '']
        .filter(Boolean).join(' ');
    },
    async maps(state, { layer = 0, variant = state.variant } = {}) {
      const { m, s } = await sentence({ ...state, variant });
      const att = await ctx.client.call('trainerAttention', m.key, s.ids);
      const l = Math.min(Math.max(0, layer | 0), att.layers - 1);
      const size = att.heads * att.n * att.n;
      const seed = m.model.seeds.find((x) => x.seed === m.model.shippedSeed);
      const { roleField } = await import('./zoo-roles.js');  // which score names a head's role (its own chunk)
      const roles = m.model.headScores.filter((h) => h.layer === l).map((h) => roleLabel(h, roleField(h, m.seqLen), t));
      return { tokens: s.labels, shape: m.shape, layer: l, layers: att.layers, causal: true, roles,
        headScores: m.model.headScores, seqLen: m.seqLen,
        // for the compare view: one attention block's spec (its parameters), and that each variant's
        // model was trained on its own (no shared weights: heads do not correspond across models)
        paramSpec: m.spec, independent: true,
        model: { id: m.model.id, label: m.model.label, bitsPerChar: seed?.bitsPerChar, seed: m.model.shippedSeed },
        weights: att.weights.subarray(l * size, (l + 1) * size) };
    },
    /** The walkthrough's stages of the state's layer (sources/zoo-layer.js, imported when asked). */
    stages: async (state) => (await import('./zoo-layer.js')).zooStages(host, state),

    /** A KV-cache session over the state's layer, for the decode view (sources/zoo-layer.js, imported at its start). */
    decoder(state, options) {
      let inner = null;
      return {
        maxLen: Math.min(options.maxLen, 64),
        model: null,  // known once started
        tokenize: (text) => inner.tokenize(text),
        async start() {
          inner = (await import('./zoo-layer.js')).zooDecoder(host, state, options);
          const r = await inner.start();
          Object.assign(this, { maxLen: inner.maxLen, model: inner.model });
          return r;
        },
        append: (labels) => inner.append(labels),
        dispose: () => inner?.dispose() ?? Promise.resolve(),
      };
    },
    /** What the heatmap view adds to its summary: which model, and how well it predicts held-out text. */
    extras: (data) => (data.model ? [' ', t('zoo.which', { label: data.model.label, seed: data.model.seed,
      bits: data.model.bitsPerChar?.toFixed(2) ?? '?' })] : []),
  };
}
