// heads-rows.js — the heads table's rows (views/heads-table.js), all from the core: the lesson's rows
// (the size table, with the configurator's variant and KV heads at 8K tokens), the presets, the page's
// current shape and an opened checkpoint, each with its KV cache per token (kvCacheBytes, fp16); and
// the lesson's rule for a head width.
import { shapeSpec } from '../state.js';

const CONTEXT = 8192;   // the context at which the configurator picks a lesson row's KV heads
export const BYTES = 2;  // fp16 / bf16: the bytes per cached number of every row

/** The lesson's rule for a head width: 'usual' (64, 128), 'ok', or the two it breaks: 'low' (< 32), 'high' (> 256). */
export const dHeadRule = (dh) => (dh < 32 ? 'low' : dh > 256 ? 'high' : dh === 64 || dh === 128 ? 'usual' : 'ok');

/** The core's KV-cache bytes per token (all layers, fp16) of rows with a shape. */
const cacheRequest = (r) => ({
  variant: r.variant, nLayers: r.nLayers, nHeads: r.nHeads, nKvHeads: r.variant === 'mla' ? r.nHeads : r.nKvHeads,
  dHead: r.dHead, latentRank: r.latentRank, ropeDim: r.ropeDim, seqLen: 1, bytesPerElement: BYTES,
});

/** The core's rows: the lesson's (with the configurator's variant at 8K tokens) and the presets. */
export async function loadRows(client) {
  const [sizes, presets] = await Promise.all([client.call('sizeTable'), client.call('presets')]);
  const lesson = await Promise.all(sizes.filter((s) => s.lesson).map(async (s) => {
    const rec = await client.call('recommend', { paramBudget: s.params, seqLen: CONTEXT });
    return {
      id: `lesson-${s.params}`, params: s.params, size: s.source.replace(/^lesson: /, '').split(' ')[0].toLowerCase(), lesson: true,
      source: s.source, variant: rec.variant, dModel: s.dModel, nHeads: s.nHeads, dHead: s.dHead, nLayers: s.nLayers,
      nKvHeads: rec.variant === 'mla' ? 0 : rec.nKvHeads, latentRank: rec.latentRank, ropeDim: rec.ropeDim,
    };
  }));
  const all = [...lesson, ...presets.map((p) => ({ ...p, lesson: false, nKvHeads: p.variant === 'mla' ? 0 : p.nKvHeads }))];
  const bytes = await client.call('kvCacheBytesMany', all.map(cacheRequest));
  return all.map((r, k) => ({ ...r, kvBytes: bytes[k] }));
}

/** The page's current shape as a row (the core's resolved shape, the state's layers). */
export async function currentRow(client, state) {
  const shape = await client.call('resolveShape', shapeSpec(state));
  const row = { ...shape, id: 'current', current: true, nLayers: state.nLayers, nKvHeads: shape.variant === 'mla' ? 0 : shape.nKvHeads };
  [row.kvBytes] = await client.call('kvCacheBytesMany', [cacheRequest(row)]);
  return row;
}

/** The opened checkpoint (sources/pretrained.js) as a row, its cache counted as the other rows' are. */
export async function modelRow(client, opened) {
  const i = opened.info;
  const r = { id: 'opened-model', name: opened.name, opened, variant: i.variant, dModel: i.dModel, nHeads: i.nHeads,
    dHead: i.dHead, nLayers: i.nLayers, nKvHeads: i.variant === 'mla' ? 0 : i.nKvHeads, latentRank: i.latentRank, ropeDim: i.ropeDim };
  [r.kvBytes] = await client.call('kvCacheBytesMany', [cacheRequest(r)]);
  return r;
}
