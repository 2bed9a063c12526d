// params.js — the accounting table: one row per variant (MHA, MQA, GQA, MLA) at the current shape,
// with the attention weights of one block (core: paramCount), their change against MHA, the KV-cache
// elements and bytes per token per layer (core: kvCacheBytes, DeepSeek-V2 Table 1) and the cache's
// ratio to MHA's. Every number comes from the core, every shape from its resolveShape; next to each
// number, its formula with the values filled in (parts/params-rows.js, render/geometry.js). Under it,
// the lesson's "the total parameters stay the same" (parts/params-same-cost.js).
import { DTYPES, dtypeLabel, shapeSpec } from '../state.js';
import paramsCss from '../styles/params.css?inline';
import { VARIANT_IDS, createLatest, el, useStyles } from '../kit.js';
import { rebuildError } from '../core-errors.js';
import { noBaselineRow, paramsRow, pendingRow, shapeNote } from '../parts/params-rows.js';
import { measureSameCost, sameCostNodes } from '../parts/params-same-cost.js';
import { scrollRegion } from '../render/scroll-region.js';
import '../i18n/catalogs/en/params.js';  // the English words it speaks

const FIELDS = ['dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'dtype', 'variant'];

/** The core's kvCacheBytes request for one token of one layer of a resolved shape. */
function kvRequest(shape, bytesPerElement) {
  const q = { variant: shape.variant, nLayers: 1, nHeads: shape.nHeads, dHead: shape.dHead, seqLen: 1, batch: 1, bytesPerElement };
  if (shape.variant === 'gqa') q.nKvHeads = shape.nKvHeads;
  if (shape.variant === 'mla') Object.assign(q, { latentRank: shape.latentRank, ropeDim: shape.ropeDim });
  return q;
}

export function createParamsView(root, ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  useStyles(root, 'params', paramsCss);
  const latest = createLatest(root);
  let lastKey = '';
  const shapeLine = el('p', { className: 'note', dataset: { role: 'shape' } });
  const bytesHead = el('th', { scope: 'col', dataset: { role: 'bytes-head' } }, t('params.col.bytes'));
  const rows = el('tbody', { dataset: { role: 'rows' } }, VARIANT_IDS.map(pendingRow));
  const head = (text, small) => el('th', { scope: 'col' }, text, small ? el('small', null, small) : null);
  const table = el('table', { className: 'params-table', dataset: { role: 'table' } },
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, t('params.col.variant')), head(t('params.col.weights'), t('params.col.weightsNote')),
      head(t('params.col.vsMha')), head(t('params.col.cache'), t('params.col.cacheNote')), bytesHead, head(t('params.col.cacheVsMha')))),
    rows);
  const sameCost = el('section', { className: 'same-cost', dataset: { role: 'same-cost' } });
  root.replaceChildren(shapeLine, scrollRegion(t('params.tableLabel'), table, '', i18n),
    el('p', { className: 'note', dataset: { role: 'foot' } }, t('params.foot')), sameCost);

  /** Every variant's shape, parameters and cache from the core (a refused shape: its error). */
  async function measure(state, bpe) {
    const shapes = await ctx.client.call('resolveShapes', VARIANT_IDS.map((v) => shapeSpec(state, v)));
    const cost = measureSameCost(ctx.client, state).catch((error) => ({ error }));
    const rowsOf = await Promise.all(VARIANT_IDS.map(async (variant, i) => {
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
    return { rows: rowsOf, cost: await cost };
  }

  function draw(state, { rows: results, cost }, bpe) {
    const base = results.find((r) => r.variant === 'mha' && !r.error) ?? null;
    bytesHead.replaceChildren(t('params.col.bytes'), el('small', null, t('params.col.bytesAt', { dtype: dtypeLabel(state.dtype), bpe })));
    shapeLine.textContent = shapeNote(results, state, dtypeLabel(state.dtype), i18n);
    rows.replaceChildren(...results.map((r) => paramsRow(r, base, r.variant === state.variant, bpe, i18n)), ...(base ? [] : [noBaselineRow(i18n)]));
    sameCost.replaceChildren(...sameCostNodes(cost, results, i18n));
  }

  return {
    update(state) {
      const key = JSON.stringify(FIELDS.map((f) => state[f]));
      if (key === lastKey) return;
      lastKey = key;
      const bpe = DTYPES[state.dtype] ?? 2;
      latest.run(() => measure(state, bpe), (measured) => {
        draw(state, measured, bpe);
        const results = measured.rows;
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
