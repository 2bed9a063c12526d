// heads-table.js — the lesson's rule of thumb for heads (125M, 350M, 1B, 70B: d_model, n_heads, d_head,
// KV heads) next to real models, each row with its KV cache per token and a "Load shape" button.
// Data: the core's size table (sizeTable(): the same table the configurator uses), its recommend() for
// the KV heads of a lesson row, its presets() for the real models, and kvCacheBytes for every cache figure.
// "Load shape" loads the row's own H and G into the attention maps (parts/playground-shape.js says
// what it scales and why).
import modelCss from '../styles/model.css?inline';
import { createLatest, el, useStyles, variantName } from '../kit.js';
import { fmtBinary, fmtInt } from '../format.js';
import { playgroundShape, scaledNote } from '../parts/playground-shape.js';
import { scrollRegion } from '../render/scroll-region.js';

const CONTEXT = 8192;   // the context at which the configurator picks a lesson row's KV heads
const BYTES = 2;        // fp16 / bf16
const COLUMNS = ['Model', 'd_model', 'n_heads', 'd_head', 'KV heads', 'layers', 'KV cache / token', ''];

const sizeWords = (p) => (p >= 1e9 ? `~${p / 1e9}B` : `~${p / 1e6}M`);

/** The core's rows: the lesson's (with the configurator's variant at 8K tokens) and the presets. */
async function loadRows(client) {
  const [sizes, presets] = await Promise.all([client.call('sizeTable'), client.call('presets')]);
  const lesson = await Promise.all(sizes.filter((s) => s.lesson).map(async (s) => {
    const rec = await client.call('recommend', { paramBudget: s.params, seqLen: CONTEXT });
    return {
      id: `lesson-${s.params}`, params: s.params, name: `Lesson: ${s.source.replace(/^lesson: /, '').split(';')[0]}`, lesson: true,
      source: s.source, variant: rec.variant, dModel: s.dModel, nHeads: s.nHeads, dHead: s.dHead, nLayers: s.nLayers,
      nKvHeads: rec.variant === 'mla' ? 0 : rec.nKvHeads, latentRank: rec.latentRank, ropeDim: rec.ropeDim,
    };
  }));
  const all = [...lesson, ...presets.map((p) => ({ ...p, lesson: false, nKvHeads: p.variant === 'mla' ? 0 : p.nKvHeads }))];
  const bytes = await client.call('kvCacheBytesMany', all.map((r) => ({
    variant: r.variant, nLayers: r.nLayers, nHeads: r.nHeads, nKvHeads: r.variant === 'mla' ? r.nHeads : r.nKvHeads,
    dHead: r.dHead, latentRank: r.latentRank, ropeDim: r.ropeDim, seqLen: 1, bytesPerElement: BYTES,
  })));
  return all.map((r, k) => ({ ...r, kvBytes: bytes[k] }));
}

/** The opened checkpoint (sources/pretrained.js) as a row, its cache counted as the other rows' are. */
async function modelRow(client, opened) {
  const i = opened.info;
  const r = { id: 'opened-model', name: `Opened: ${opened.name}`, opened: true, variant: i.variant, dModel: i.dModel, nHeads: i.nHeads,
    dHead: i.dHead, nLayers: i.nLayers, nKvHeads: i.variant === 'mla' ? 0 : i.nKvHeads, latentRank: i.latentRank, ropeDim: i.ropeDim,
    source: `${i.modelType}, the checkpoint open in this page (its file: ${opened.dtypeBytes * 8}-bit, ${fmtBinary(i.kvBytesPerToken)} per token)` };
  const [kvBytes] = await client.call('kvCacheBytesMany', [{ variant: r.variant, nLayers: r.nLayers, nHeads: r.nHeads,
    nKvHeads: r.variant === 'mla' ? r.nHeads : r.nKvHeads, dHead: r.dHead, latentRank: r.latentRank, ropeDim: r.ropeDim, seqLen: 1, bytesPerElement: BYTES }]);
  return { ...r, kvBytes };
}

let uid = 0;

export function createHeadsTableView(root, ctx) {
  const latest = createLatest(root);
  let rows = null, shownModel = null;
  const status = el('p', { className: 'note', dataset: { role: 'status' }, 'aria-live': 'polite' });
  const body = el('tbody', { dataset: { role: 'rows' } });
  // What the cache column counts: above the table, not its caption (a caption is as wide as the table and scrolls with it).
  const what = el('p', { className: 'note', id: `heads-table-${++uid}` },
    `KV cache per token: all layers, one sequence, at fp16 / bf16 (${BYTES} bytes per number).`);
  const table = el('table', { className: 'heads-table', 'aria-describedby': what.id },
    el('thead', null, el('tr', null, ...COLUMNS.map((h) => el('th', { scope: 'col' }, h)))), body);
  root.replaceChildren(
    el('p', { className: 'note' }, 'd_head nearly always lands on 64 or 128; d_model = n_heads × d_head except where a model sets '
      + 'its own d_head (PaLM). Lesson rows take the KV heads the configurator picks for them at 8K tokens.'),
    what, scrollRegion('Heads of the lesson\'s sizes and of real models', table), status);

  async function load(r) {
    try {
      const { patch, notes, what } = await playgroundShape(ctx.client, r);
      const note = scaledNote(notes);
      const done = ctx.openPlayground(patch, { note: `${r.name}: ${what}. ${note}`.trim() });
      status.textContent = done === 'applied' ? `Loaded ${r.name} into the attention maps: ${what}. ${note}`
        : done === 'opened' ? `Opened ${r.name} in the full playground: ${what}. ${note}`
          : `This page does not link to the full playground; ${r.name} would load as ${what}. ${note}`;
    } catch (e) {
      status.textContent = `Cannot load ${r.name}: ${e.message}`;
    }
  }

  function row(r) {
    const kv = r.variant === 'mla' ? `latent ${fmtInt(r.latentRank)} + ${fmtInt(r.ropeDim)}` : fmtInt(r.nKvHeads);
    const button = r.opened ? 'open in this page' : el('button', { type: 'button', dataset: { action: 'load-shape', row: r.id }, 'aria-label': `Load shape: ${r.name}`,
      onclick: () => load(r) }, 'Load shape');
    return el('tr', { className: r.lesson ? 'lesson-row' : r.opened ? 'opened-row' : null, dataset: { row: r.id } },
      el('th', { scope: 'row' }, r.name, el('small', null, r.lesson ? `rule of thumb · ${sizeWords(r.params ?? 0)}` : `${variantName(r.variant)} · ${r.source ?? ''}`)),
      el('td', null, fmtInt(r.dModel)), el('td', null, fmtInt(r.nHeads)), el('td', null, fmtInt(r.dHead)),
      el('td', null, `${kv}${r.lesson ? ` (${variantName(r.variant)})` : ''}`), el('td', null, fmtInt(r.nLayers)),
      el('td', null, fmtBinary(r.kvBytes)), el('td', null, button));
  }

  return {
    update() {
      const model = ctx.model?.()?.opened ?? null;
      if (model) useStyles(root, 'model', modelCss);
      if (rows && model === shownModel) return undefined;  // nothing else here depends on the state
      shownModel = model;
      return latest.run(() => Promise.all([rows ?? loadRows(ctx.client), model && modelRow(ctx.client, model)]), ([r, m]) => {
        rows = r;
        body.replaceChildren(...(m ? [row(m)] : []), ...rows.map(row));
        return { rows: rows.length, lessonRows: rows.filter((x) => x.lesson).length, opened: m?.name ?? null };
      }, (e) => { status.textContent = `Cannot load the table: ${e.message}`; });
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
