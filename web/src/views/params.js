// params.js — the accounting table: one row per variant (MHA, MQA, GQA, MLA) at the current shape,
// with the attention weights of one block (core: paramCount), their change against MHA, the KV-cache
// elements and bytes per token per layer (core: kvCacheBytes, DeepSeek-V2 Table 1) and the cache's
// ratio to MHA's. Every number comes from the core, every shape from its resolveShape; next to each
// number, its formula with the values filled in (parts/params-rows.js, render/geometry.js).
import { DTYPES, dtypeLabel, shapeSpec } from '../state.js';
import paramsCss from '../styles/params.css?inline';
import { VARIANT_IDS, createLatest, el, useStyles } from '../kit.js';
import { rebuildError } from '../core-errors.js';
import { noBaselineRow, paramsRow, pendingRow, shapeNote } from '../parts/params-rows.js';
import { scrollRegion } from '../render/scroll-region.js';

const FIELDS = ['dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'dtype', 'variant'];
const FOOT = 'Symbols: D = dModel, H = query heads, G = K/V heads, dh = head width, r = MLA latent rank, '
  + 'dr = MLA decoupled RoPE key width. KV cache per DeepSeek-V2 (Table 1); the MHA baseline is the paper\'s '
  + '2 · H · dh: every query head caches its own key and value. GQA with G = H is MHA, with G = 1 it is MQA.';

/** The core's kvCacheBytes request for one token of one layer of a resolved shape. */
function kvRequest(shape, bytesPerElement) {
  const q = { variant: shape.variant, nLayers: 1, nHeads: shape.nHeads, dHead: shape.dHead, seqLen: 1, batch: 1, bytesPerElement };
  if (shape.variant === 'gqa') q.nKvHeads = shape.nKvHeads;
  if (shape.variant === 'mla') Object.assign(q, { latentRank: shape.latentRank, ropeDim: shape.ropeDim });
  return q;
}

export function createParamsView(root, ctx) {
  useStyles(root, 'params', paramsCss);
  const latest = createLatest(root);
  let lastKey = '';
  const shapeLine = el('p', { className: 'note', dataset: { role: 'shape' } });
  const bytesHead = el('th', { scope: 'col', dataset: { role: 'bytes-head' } }, 'bytes / token / layer');
  const rows = el('tbody', { dataset: { role: 'rows' } }, VARIANT_IDS.map(pendingRow));
  const head = (text, small) => el('th', { scope: 'col' }, text, small ? el('small', null, small) : null);
  const table = el('table', { className: 'params-table', dataset: { role: 'table' } },
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, 'Variant'), head('Attention weights', 'one block, no biases'),
      head('vs MHA'), head('KV cache', 'elements / token / layer'), bytesHead, head('cache vs MHA'))),
    rows);
  root.replaceChildren(shapeLine, scrollRegion('Parameters and KV cache per variant', table),
    el('p', { className: 'note', dataset: { role: 'foot' } }, FOOT));

  /** Every variant's shape, parameters and cache from the core (a refused shape: its error). */
  async function measure(state, bpe) {
    const shapes = await ctx.client.call('resolveShapes', VARIANT_IDS.map((v) => shapeSpec(state, v)));
    return Promise.all(VARIANT_IDS.map(async (variant, i) => {
      const shape = shapes[i];
      if (shape.error) return { variant, error: rebuildError(shape.error) };
      try {
        const [params, [elements, bytes]] = await Promise.all([
          ctx.client.call('paramCount', shapeSpec(state, variant)),
          ctx.client.call('kvCacheBytesMany', [kvRequest(shape, 1), kvRequest(shape, bpe)]),
        ]);
        return { variant, shape, params, elements, bytes };
      } catch (error) {
        return { variant, error };
      }
    }));
  }

  function draw(state, results, bpe) {
    const base = results.find((r) => r.variant === 'mha' && !r.error) ?? null;
    bytesHead.replaceChildren('bytes / token / layer', el('small', null, `at ${dtypeLabel(state.dtype)} (${bpe} B / element)`));
    shapeLine.textContent = shapeNote(results, state, dtypeLabel(state.dtype));
    rows.replaceChildren(...results.map((r) => paramsRow(r, base, r.variant === state.variant, bpe)), ...(base ? [] : [noBaselineRow()]));
  }

  return {
    update(state) {
      const key = JSON.stringify(FIELDS.map((f) => state[f]));
      if (key === lastKey) return;
      lastKey = key;
      const bpe = DTYPES[state.dtype] ?? 2;
      latest.run(() => measure(state, bpe), (results) => {
        draw(state, results, bpe);
        ctx.reportError('params', results.find((r) => r.variant === state.variant)?.error ?? null);
        return results.map((r) => (r.error ? { variant: r.variant, error: r.error.message }
          : { variant: r.variant, params: r.params.total, elements: r.elements, bytes: r.bytes }));
      });
    },
    destroy() {
      latest.cancel();
      ctx.reportError('params', null);
      root.replaceChildren();
    },
  };
}
