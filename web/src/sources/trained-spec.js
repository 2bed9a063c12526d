// trained-spec.js — the attention part of a trainer's model spec, as resolveShape takes it (shared by
// the lab-trained source, trained.js, and the zoo's checkpoints, zoo-model.js).

/** The attention part of a trainer's model spec, as resolveShape takes it. */
export function attentionSpecOf(model) {
  const spec = {};
  for (const k of ['variant', 'dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'rope']) {
    if (model[k] !== undefined) spec[k] = model[k];
  }
  return spec;
}
