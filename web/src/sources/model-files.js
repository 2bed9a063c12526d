// model-files.js — a Hugging Face checkpoint folder as the page gets it: the files a picker or a drop
// gives (File objects, names with or without their folder), or a folder served next to the page
// (`?model=<relative url>`, same origin only: nothing is fetched from anywhere else). Either way the
// result is { name, config, weights: Blob[], tokenizer | null }: config.json parsed, every
// .safetensors file (the shards in any order; the core looks tensors up across them), and the texts of
// the folder's tokenizer.json and tokenizer_config.json (tokenizerFilesOf), or null without one.
import { EN } from '../i18n/index.js';
import { streamedWeights, streamsTransfer } from './streamed-weights.js';
import '../i18n/catalogs/en/sources.js';  // the English words it speaks

/**
 * An error naming the file it is about (error.field), as the core's errors name their field: its
 * message in English, its catalog key and parameters (error.key, error.params) for the page's language.
 */
export function fileError(field, key, params = {}, Kind = TypeError) {
  return Object.assign(new Kind(EN.t(key, params)), { field, key, params });
}

const baseName = (f) => (f.webkitRelativePath || f.name).split('/').pop();

export async function parseJson(blob, name) {
  try {
    return JSON.parse(await blob.text());
  } catch (e) {
    throw fileError(name, 'sources.badJson', { name, reason: e.message });
  }
}

/**
 * The texts of tokenizer.json and tokenizer_config.json ({ json, configText }), or null when the folder
 * has no tokenizer.json. They are read by the tokenizer's own worker (sources/tokenizer-client.js), never here.
 */
export async function tokenizerFilesOf(byName) {
  const json = byName.get('tokenizer.json');
  if (!json) return null;
  const config = byName.get('tokenizer_config.json');
  return { json: await json.text(), configText: config ? await config.text() : undefined };
}

/**
 * A checkpoint from files (a folder picker, several files, a drop).
 * @param {File[]} files
 */
export async function checkpointFromFiles(files) {
  const byName = new Map(files.map((f) => [baseName(f), f]));
  const folder = files[0]?.webkitRelativePath?.split('/')[0] || '';
  const configFile = byName.get('config.json');
  if (!configFile) {
    throw fileError('config.json', 'sources.noConfig', { count: files.length });
  }
  const weights = files.filter((f) => baseName(f).endsWith('.safetensors')).sort((a, b) => baseName(a).localeCompare(baseName(b)));
  if (!weights.length) throw fileError('weights', 'sources.noWeights');
  const config = await parseJson(configFile, 'config.json');
  return { name: folder || savedName(config) || config.model_type || 'model', config, weights, tokenizer: await tokenizerFilesOf(byName) };
}

/**
 * The name a config.json was saved under (`_name_or_path`: a Hub id such as 'HuggingFaceTB/SmolLM2-135M',
 * or a local folder, of which the last part), or '' without one: files picked without their folder.
 */
export function savedName(config) {
  const saved = typeof config?._name_or_path === 'string' ? config._name_or_path.trim().slice(0, 200) : '';
  if (/^[\w.-]+\/[\w.-]+$/.test(saved)) return saved;
  return saved.split(/[\\/]/).filter(Boolean).pop() ?? '';
}

/** The URL of a served folder, if it is on this page's origin (else an error naming `model`). */
export function folderUrl(model, base = location.href) {
  let url;
  try {
    url = new URL(model.endsWith('/') ? model : `${model}/`, base);
  } catch {
    throw fileError('model', 'sources.notUrl', { model });
  }
  if (url.origin !== new URL(base).origin) {
    throw fileError('model', 'sources.otherSite', { model }, RangeError);
  }
  return url;
}

/** A failure of where a download was being written (`into`), not of the connection: the caller may fetch again. */
export class SinkError extends Error {
  constructor(cause) {
    super(`the file could not be written where it was kept (${cause?.message ?? cause})`);
    this.name = 'SinkError';
    this.cause = cause;
  }
}

/**
 * Reads a response's body as a Blob, reporting bytes as they arrive; `signal` stops it. `refuse(status,
 * file)` makes the error of an answer that is not OK (default: 'sources.unreadable'); a connection lost
 * part-way is 'sources.network' (nothing of the file is kept: the caller may try again), and a body
 * shorter than `size` (when known) 'sources.truncated'.
 * The body goes, as it arrives, to `into(stream, response)` (default: a Blob the browser keeps, on disk when
 * large; the Hub's reader passes its Cache Storage writer), counted on the way: no copy of the file is
 * gathered in JavaScript. A failure of `into` itself (a full disk) is a SinkError.
 */
export async function download(url, { signal, onProgress, optional = false, size = 0, refuse = null,
  into = (stream) => new Response(stream).blob() } = {}) {
  const file = decodeURIComponent(url.pathname.split('/').pop());
  let res;
  try {
    res = await fetch(url, { signal });
  } catch (e) {
    if (signal?.aborted) throw signal.reason ?? e;
    throw fileError('model', 'sources.network', { file, reason: e.message });
  }
  if (!res.ok) {
    if (optional && res.status === 404) return null;
    throw refuse?.(res.status, file) ?? fileError('model', 'sources.unreadable', { file, status: String(res.status) });
  }
  const total = size || Number(res.headers.get('content-length')) || 0;
  let loaded = 0, lost = null;
  const reader = res.body.getReader();
  const counted = new ReadableStream({
    async pull(controller) {
      let r;
      try {
        r = await reader.read();
      } catch (e) {
        lost = e;  // the connection, not the sink
        throw e;
      }
      if (r.done) { controller.close(); return; }
      loaded += r.value.length;
      onProgress?.({ loaded, total });
      controller.enqueue(r.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  let blob;
  try {
    blob = await into(counted, res);
  } catch (e) {
    if (signal?.aborted) throw signal.reason ?? e;
    if (lost) throw fileError('model', 'sources.network', { file, reason: lost.message });
    throw new SinkError(e);
  }
  if (size && loaded !== size) throw fileError('model', 'sources.truncated', { file, loaded: String(loaded), size: String(size) });
  return blob;
}

/**
 * The shard files a model.safetensors.index.json lists (its weight_map's values, once each, sorted):
 * plain file names in the same folder only, so an index cannot send the page to another folder or site.
 */
export function shardNames(index) {
  const map = index?.weight_map;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) {
    throw fileError('model.safetensors.index.json', 'sources.badIndex', { name: 'model.safetensors.index.json' });
  }
  const names = [...new Set(Object.values(map))].sort();
  for (const name of names) {
    if (typeof name !== 'string' || !/^[\w.-]{1,200}\.safetensors$/.test(name) || name.startsWith('.')) {
      throw fileError('model.safetensors.index.json', 'sources.badShard', { shard: String(name).slice(0, 80) }, RangeError);
    }
  }
  if (!names.length) throw fileError('model.safetensors.index.json', 'sources.badIndex', { name: 'model.safetensors.index.json' });
  return names;
}

/**
 * A checkpoint folder served beside the page: config.json, model.safetensors or the shards that
 * model.safetensors.index.json lists, tokenizer.json and tokenizer_config.json when they are there.
 * `stream` (where the browser can move a stream to a worker): a single model.safetensors is returned
 * as `streamed` (streamed-weights.js, its download begun: the worker reads it as it arrives) and
 * `weights: null`.
 */
export async function checkpointFromUrl(model, { signal, onProgress, stream = false } = {}) {
  const dir = folderUrl(model);
  const get = (name, optional) => download(new URL(name, dir), { signal, optional });
  const config = await parseJson(await get('config.json'), 'config.json');
  const name = dir.pathname.split('/').filter(Boolean).pop() || 'model';
  if (stream && streamsTransfer()) {
    const byName = new Map();
    for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
      const blob = await get(file, true);
      if (blob) byName.set(file, blob);
    }
    const tokenizer = await tokenizerFilesOf(byName);
    const streamed = streamedWeights({ signal, download: (o) => download(new URL('model.safetensors', dir),
      { ...o, optional: true, onProgress: (p) => onProgress?.({ file: 'model.safetensors', ...p }) }) });
    if (await streamed.start()) return { name, config, weights: null, tokenizer, streamed };
    return { name, config, weights: await shardsOf(dir, { signal, onProgress }), tokenizer };
  }
  // model.safetensors, or else the shards model.safetensors.index.json lists (asked second: a missing
  // file still answers 404, which the browser's console shows)
  const progress = (file, done) => (p) => onProgress?.({ file, loaded: done + p.loaded, total: 0, fileTotal: p.total });
  const single = await download(new URL('model.safetensors', dir), { signal, optional: true, onProgress: progress('model.safetensors', 0) });
  const weights = single ? [single] : await shardsOf(dir, { signal, onProgress });
  const byName = new Map();
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
    const blob = await get(file, true);
    if (blob) byName.set(file, blob);
  }
  return { name, config, weights, tokenizer: await tokenizerFilesOf(byName) };
}

/** A served folder's shards, as its model.safetensors.index.json lists them (a folder without model.safetensors). */
async function shardsOf(dir, { signal, onProgress }) {
  const index = await download(new URL('model.safetensors.index.json', dir), { signal, optional: true });
  if (!index) throw fileError('model', 'sources.noSafetensors');
  const names = shardNames(await parseJson(index, 'model.safetensors.index.json'));
  const weights = [];
  let done = 0;
  for (const file of names) {
    const blob = await download(new URL(file, dir), { signal, onProgress: (p) => onProgress?.({ file, loaded: done + p.loaded, total: 0, fileTotal: p.total }) });
    done += blob.size;
    weights.push(blob);
  }
  return weights;
}
