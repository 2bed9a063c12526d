// hub.js — a checkpoint opened from the Hugging Face Hub by its id (`?model=hf:<org>/<name>[@<revision>]`,
// `hub=<url>` for a mirror), following the Hub's documented layout: the file listing with sizes
// (<hub>/api/models/<repo>/tree/<revision>), then each file at <hub>/<repo>/resolve/<revision>/<file>
// (large files answer with a redirect to another origin that serves the bytes). Nothing is fetched
// until the learner asks (this module loads with the first Hub open). In order:
//   1. a copy kept in this browser (sources/model-store.js) opens with no request at all;
//   2. else the listing and config.json, and `check(config, bytes)` (the core's reading of the config,
//      the size against the module's and the device's memory) refuses before a single weight byte;
//   3. the tokenizer's files, then the weights with progress and Stop, each written to the store as it
//      downloads (model-store.js's writer: no copy of it is gathered in memory); a failure part-way
//      keeps nothing. A single-file checkpoint, where the browser can move a stream to a worker and
//      the caller asks (`stream`), is not downloaded here: `streamed.start()` begins its download
//      (streamed-weights.js), whose body goes both to the store and, as it arrives, to the worker's
//      load (the copy into the heap then overlaps the download instead of following it);
//   4. the small files and the manifest: the model is kept (whole or not at all) for the next open.
// The result is model-files.js's checkpoint: { name, config, weights: Blob[], tokenizer | null } plus
// `hub: { hub, repo, revision, stored, fromStore }`, or, streamed, `weights: null` and `streamed`.
import { SinkError, download, fileError, parseJson, shardNames, tokenizerFilesOf } from './model-files.js';
import { modelWriter, storedModel } from './model-store.js';
import { hubBase, parseHubModel } from './hub-id.js';
import { streamedWeights, streamsTransfer } from './streamed-weights.js';
import '../i18n/catalogs/en/hub.js';  // the English words it speaks

const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'];

/** The error of a Hub answer that is not OK: a login (401, 403), a missing model or file (404), another status. */
function hubRefusal(repo) {
  return (status, file) => {
    if (status === 401 || status === 403) return fileError('model', 'hub.gated', { repo, status: String(status) });
    if (status === 404) return fileError('model', 'hub.notFound', { repo, file });
    return fileError('model', 'hub.status', { repo, file, status: String(status) });
  };
}

/** The listing's files: Map<path, size> (an LFS file's size is its content's). */
async function listing(base, repo, revision, signal) {
  const url = new URL(`${base}/api/models/${repo}/tree/${encodeURIComponent(revision)}`);
  const blob = await download(url, { signal, refuse: hubRefusal(repo) });
  const entries = await parseJson(blob, 'tree');
  if (!Array.isArray(entries)) throw fileError('model', 'hub.badListing', { repo });
  const files = new Map();
  for (const e of entries) {
    if (e && typeof e.path === 'string' && (e.type ?? 'file') === 'file') {
      const size = Number(e.lfs?.size ?? e.size);
      if (Number.isSafeInteger(size) && size >= 0) files.set(e.path, size);
    }
  }
  return files;
}

/**
 * Opens `model` (`hf:<org>/<name>[@<revision>]`) from the Hub at `hub` (state.hub).
 * `check(config, bytes)` may throw to refuse the model before its weights are fetched.
 * `onProgress({ file, loaded, total })`: bytes of all the weights. `stream`: the caller can take a
 * single-file checkpoint's weights as a stream (step 3 above).
 */
export async function checkpointFromHub(model, { hub = '', signal, onProgress, check = async () => {}, stream = false } = {}) {
  const { repo, revision } = parseHubModel(model);
  const base = hubBase(hub);
  const name = `${repo}${revision === 'main' ? '' : `@${revision}`}`;

  const kept = await storedModel(base, repo, revision);
  if (kept) {
    const config = await parseJson(kept.files.get('config.json'), 'config.json');
    const weights = [...kept.files].filter(([p]) => p.endsWith('.safetensors')).sort(([a], [b]) => a.localeCompare(b)).map(([, b]) => b);
    return { name, config, weights, tokenizer: await tokenizerFilesOf(kept.files),
      hub: { hub: base, repo, revision, stored: true, fromStore: true, bytes: kept.manifest.bytes } };
  }

  const files = await listing(base, repo, revision, signal);
  const resolve = (file) => new URL(`${base}/${repo}/resolve/${encodeURIComponent(revision)}/${file}`);
  const get = (file, options = {}) => download(resolve(file), { signal, size: files.get(file) ?? 0, refuse: hubRefusal(repo), ...options });
  if (!files.has('config.json')) throw fileError('model', 'hub.noConfig', { repo });
  const got = new Map();  // path -> Blob: the small files, kept after the weights
  const configBlob = await get('config.json');
  got.set('config.json', configBlob);
  const config = await parseJson(configBlob, 'config.json');

  let shards;
  if (files.has('model.safetensors')) {
    shards = ['model.safetensors'];
  } else if (files.has('model.safetensors.index.json')) {
    const index = await get('model.safetensors.index.json');
    got.set('model.safetensors.index.json', index);
    shards = shardNames(await parseJson(index, 'model.safetensors.index.json'));
    const missing = shards.find((s) => !files.has(s));
    if (missing) throw fileError('model', 'hub.noShard', { repo, file: missing });
  } else {
    const other = [...files.keys()].find((p) => /\.(bin|pt|pth|gguf|onnx)$/.test(p));
    throw fileError('model', other ? 'hub.onlyOther' : 'hub.noSafetensors', { repo, file: other ?? '' });
  }
  const total = shards.reduce((s, f) => s + files.get(f), 0);
  await check(config, total);
  for (const file of TOKENIZER_FILES) if (files.has(file)) got.set(file, await get(file));
  const tokenizer = await tokenizerFilesOf(got);

  // The weights stream into the store as they download (no copy gathered in memory: what the worker
  // reads is the kept file, on disk); where storage is refused, or fails part-way, into Blobs instead.
  let writer = await modelWriter(base, repo, revision);
  const dropStore = async () => { await writer?.abandon(); writer = null; };
  /** The small files and the manifest, after the weights: the model is kept whole, or not at all. */
  const keep = async () => {
    if (!writer) return;
    try {
      for (const [path, blob] of got) await writer.put(path, blob);
      await writer.finish();
    } catch {
      await dropStore();
    }
  };
  const facts = (stored) => ({ hub: base, repo, revision, stored, fromStore: false, bytes: total });
  if (stream && shards.length === 1 && streamsTransfer()) {
    const file = shards[0];
    const streamed = streamedWeights({ size: total, signal,
      download: (o) => get(file, { ...o, onProgress: (p) => onProgress?.({ file, ...p }) }),
      keepInto: (stream) => (writer ? writer.put(file, stream) : null), dropKeep: dropStore,
      settle: async () => { await keep(); return Boolean(writer); }, abandon: dropStore });
    return { name, config, weights: null, tokenizer, hub: facts(Boolean(writer)), streamed };
  }
  try {
    const weights = [];
    let done = 0;
    for (const file of shards) {
      const options = { onProgress: (p) => onProgress?.({ file, loaded: done + p.loaded, total }) };
      let blob;
      try {
        blob = await get(file, writer ? { ...options, into: (stream) => writer.put(file, stream) } : options);
      } catch (e) {
        if (!(e instanceof SinkError)) throw e;
        await dropStore();  // the disk refused it: this file again, and every file, in memory
        blob = await get(file, options);
      }
      done += blob.size;
      weights.push(blob);
    }
    await keep();
    return { name, config, weights, tokenizer, hub: facts(Boolean(writer)) };
  } catch (e) {
    await dropStore();  // a failure part-way keeps nothing
    throw e;
  }
}
