// playground-shape.js — "Load shape" (heads table) and "Open in the playground" (configurator): a
// model's attention shape as the attention maps draw it with seeded weights. The rule:
//   - the variant, the query heads H and the K/V heads G are the model's: the maps show H heads in
//     G groups, as the model has them;
//   - dModel is at most PLAY_MAX_DMODEL (128): the width the example's tokens are embedded in, which
//     no map's layout depends on;
//   - the head width dh is the model's while one block's weights (the core's paramCount) stay within
//     PLAY_MAX_WEIGHTS (2^20 numbers, 4 MiB of float32); otherwise it is halved until they do (never
//     below 8), and MLA's latent rank r and RoPE width dr with it (their ratio to dh stays the model's).
// The core checks every candidate (paramCount resolves the shape): nothing here is counted by hand.
import { shapeLine } from '../render/geometry.js';
import { variantName } from '../kit.js';
import { EN } from '../i18n/index.js';
import '../i18n/catalogs/en/play-shape.js';  // the English words it speaks

export const PLAY_MAX_DMODEL = 128;
export const PLAY_MAX_WEIGHTS = 2 ** 20;
const MIN_DHEAD = 8;

/** The rule in one sentence, for the notes the learner reads. */
export const rule = (i18n = EN) => i18n.t('playShape.rule', { dModel: PLAY_MAX_DMODEL, weights: PLAY_MAX_WEIGHTS });

/** The core's spec of a candidate: the model's heads, dModel capped, dh (and r, dr) as given. */
function candidate(row, dModel, dHead, latentRank, ropeDim) {
  const spec = { variant: row.variant, dModel, nHeads: row.nHeads, dHead };
  if (row.variant === 'gqa') spec.nKvHeads = row.nKvHeads;
  if (row.variant === 'mla') Object.assign(spec, { latentRank, ropeDim });
  return spec;
}

/**
 * @param {{ call(method: string, ...args: any[]): Promise<any> }} client  the core worker's proxy
 * @param {{ variant: string, dModel: number, nHeads: number, nKvHeads?: number, dHead: number,
 *           latentRank?: number, ropeDim?: number }} row  a model's shape (a preset, a table row, a recommendation)
 * @returns {Promise<{ patch: object, notes: string[], what: string, weights: number }>} the state patch,
 *   what was scaled in words ([] when nothing), the loaded shape in words, and its weights per block
 */
export async function playgroundShape(client, row, i18n = EN) {
  const fmtInt = i18n.fmt.int;
  const dModel = Math.min(row.dModel, PLAY_MAX_DMODEL);
  let dHead = row.dHead, r = row.latentRank ?? 0, dr = row.ropeDim ?? 0;
  let spec = candidate(row, dModel, dHead, r, dr);
  let weights = (await client.call('paramCount', spec)).total;
  while (weights > PLAY_MAX_WEIGHTS && Math.floor(dHead / 2) >= MIN_DHEAD) {
    dHead = Math.floor(dHead / 2);
    r = r && Math.max(1, Math.floor(r / 2));
    dr = dr > 2 ? 2 * Math.floor(dr / 4) : dr;  // RoPE rotates pairs: dr stays even
    spec = candidate(row, dModel, dHead, r, dr);
    weights = (await client.call('paramCount', spec)).total;
  }
  const shape = await client.call('resolveShape', spec);
  const notes = [];
  const changed = (what, from, to) => { if (from !== to) notes.push(`${what} ${fmtInt(from)} → ${fmtInt(to)}`); };
  changed('dModel', row.dModel, shape.dModel);
  changed('dh', row.dHead, shape.dHead);
  if (row.variant === 'mla') {
    changed(i18n.t('field.latentRank'), row.latentRank, shape.latentRank);
    changed(i18n.t('field.ropeDim'), row.ropeDim ?? 0, shape.ropeDim);
  }
  const patch = {
    variant: row.variant, dModel: shape.dModel, nHeads: shape.nHeads,
    nKvHeads: row.variant === 'gqa' ? shape.nKvHeads : row.variant === 'mqa' ? 1 : shape.nHeads,
    dHead: shape.dModel === shape.nHeads * shape.dHead ? 0 : shape.dHead,  // 0: dModel / nHeads
  };
  if (row.variant === 'mla') Object.assign(patch, { latentRank: shape.latentRank, ropeDim: shape.ropeDim });
  return { patch, notes, what: `${variantName(row.variant)}, ${shapeLine(shape, i18n)}, D = ${fmtInt(shape.dModel)}`, weights };
}

/** "Scaled so that …: dModel 8,192 → 128; dh 128 → 32." or '' when the model loads as it is. */
export const scaledNote = (notes, i18n = EN) => (notes.length ? i18n.t('playShape.scaled', { rule: rule(i18n), notes: notes.join('; ') }) : '');
