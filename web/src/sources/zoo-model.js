// zoo-model.js — one zoo model opened (sources/zoo.js imports it when a view first asks for trained
// weights): the variant's checkpoint folder (sources/zoo-files.js) opened as a dropped folder is
// (sources/pretrained.js openCheckpoint), its maps with what the manifest measured when the zoo was
// trained: each head's label (its strongest score where it clearly beats a uniform head's:
// sources/zoo-roles.js), every head's scores for the table under the maps, and the notes that go with
// them (sources/zoo-notes.js).
import { openCheckpoint } from './pretrained.js';
import { openTokenizer } from './tokenizer-client.js';
import { attentionSpecOf } from './trained-spec.js';
import { roleField, roleLabel } from './zoo-roles.js';
import { zooNotes } from './zoo-notes.js';
import { zooLabel, zooRows } from './zoo-stats.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/zoo.js';  // the English words it speaks

let manifest = null;  // Promise of the zoo's manifest.json, fetched once
const filesModule = () => import('attn-zoo-files');
// One tokenizer worker for every zoo model: their tokenizer.json and special ids are the same (scripts/zoo.mjs
// copies one file into each folder), so the compare view's models do not start a worker each.
let tokenizer = null;
const sharedTokenizer = (files, options) =>
  (tokenizer ??= openTokenizer(files, { config: options.config }).catch((e) => { tokenizer = null; throw e; }));

/**
 * Opens the zoo model `id`: { source (the checkpoint's, sources/pretrained.js), model (its manifest
 * entry), maps(state, { layer }), stages(state, options) }.
 * @param {{ client: object, i18n?: object, rerender?: () => void }} ctx
 */
export async function openZooModel(ctx, id) {
  const files = await filesModule();
  const m = await (manifest ??= files.zooManifest().catch((e) => { manifest = null; throw e; }));
  const model = m.models.find((x) => x.id === id);
  if (!model) throw new Error(`the zoo has no model '${id}'`);
  // its name as the decode view says it ("MHA (Shakespeare): MHA decoding with its KV cache …")
  const source = await openCheckpoint(ctx, { files: await files.zooFiles(model), name: `${model.label} (Shakespeare)`,
    openTokenizer: sharedTokenizer });
  const t = (key, params) => (ctx.i18n ?? EN).t(key, params);
  const seqLen = m.training.seqLen;
  const seed = model.seeds.find((s) => s.seed === model.shippedSeed);
  const row = zooRows(m).find((r) => r.id === id);  // its name in the page's language (zooLabel)
  return {
    source,
    model,
    async maps(state, { layer = 0 } = {}) {
      const data = await source.maps(state, { layer });
      const roles = model.headScores.filter((h) => h.layer === data.layer).map((h) => roleLabel(h, roleField(h, seqLen), t));
      return { ...data, roles, headScores: model.headScores, seqLen, scoresNotes: zooNotes(m, t, id),
        // for the compare view: the attention block's spec (its parameters), and that each variant's
        // model was trained on its own (no shared weights: heads do not correspond across models)
        paramSpec: attentionSpecOf(data.shape), independent: true,
        which: t('zoo.which', { label: zooLabel(row, { t }), seed: model.shippedSeed, bits: seed?.bitsPerToken?.toFixed(2) ?? '?' }) };
    },
    /** The walkthrough's stages of the checkpoint, named as the manifest names the model. */
    stages: async (state, options) => ({ ...await source.stages(state, options), trained: { name: model.label, seed: model.shippedSeed } }),
  };
}
