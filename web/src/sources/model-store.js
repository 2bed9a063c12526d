// model-store.js — the Hub models kept in this browser (Cache Storage), so that a second open works
// offline and is fast. A model is kept whole or not at all: its files are written first, then a small
// manifest that lists them; a model counts as kept only when its manifest is there and every file it
// lists is too. A write that fails part-way removes what it wrote. Where the browser refuses storage (a
// private window, an insecure context, a full disk) every call here says so by returning null / false
// / [], and the model still opens from what was downloaded.
//
// Keys are the files' Hub addresses (<hub>/<repo>/resolve/<revision>/<file>); the manifest's is
// <hub>/<repo>/resolve/<revision>/.attention-playground.json: { hub, repo, revision, files: [{ path, size }], bytes, storedAt }.

const CACHE = 'attention-playground-models-v1';
const MANIFEST = '.attention-playground.json';

const fileKey = (hub, repo, revision, file) => `${hub}/${repo}/resolve/${encodeURIComponent(revision)}/${file}`;

async function open() {
  try {
    return typeof caches === 'undefined' ? null : await caches.open(CACHE);
  } catch {
    return null;  // storage refused (private window, file://)
  }
}

async function readManifest(cache, request) {
  try {
    const res = await cache.match(request);
    const m = res ? await res.json() : null;
    return m && Array.isArray(m.files) && typeof m.repo === 'string' ? m : null;
  } catch {
    return null;
  }
}

/** A kept model's files: { manifest, files: Map<path, Blob> }, or null when it is not kept whole. */
export async function storedModel(hub, repo, revision) {
  const cache = await open();
  if (!cache) return null;
  const manifest = await readManifest(cache, fileKey(hub, repo, revision, MANIFEST));
  if (!manifest) return null;
  const files = new Map();
  for (const f of manifest.files) {
    const res = await cache.match(fileKey(hub, repo, revision, f.path)).catch(() => null);
    if (!res) return null;
    const blob = await res.blob();
    if (blob.size !== f.size) return null;
    files.set(f.path, blob);
  }
  return { manifest, files };
}

/**
 * A writer of one model's files, or null where the browser refuses storage. `put(path, body)` keeps a
 * file (a Blob, or a stream as it downloads: its bytes go to the disk, never through a copy in
 * JavaScript) and resolves to the kept copy as a Blob (read from the store: on disk, not in memory);
 * `finish()` writes the manifest, after which the model counts as kept; `abandon()` removes what was
 * written (a model is kept whole or not at all).
 */
export async function modelWriter(hub, repo, revision) {
  const cache = await open();
  if (!cache) return null;
  const written = new Map();  // path -> size
  return {
    async put(path, body) {
      const key = fileKey(hub, repo, revision, path);
      written.set(path, -1);  // removed by abandon() even if the write fails half-way
      await cache.put(key, new Response(body, { headers: { 'Content-Type': 'application/octet-stream' } }));
      const res = await cache.match(key);
      if (!res) throw new Error(`${path} was not kept`);
      const blob = await res.blob();
      written.set(path, blob.size);
      return blob;
    },
    async finish() {
      const files = [...written].map(([path, size]) => ({ path, size }));
      const manifest = { hub, repo, revision, files, bytes: files.reduce((s, f) => s + f.size, 0), storedAt: new Date().toISOString() };
      await cache.put(fileKey(hub, repo, revision, MANIFEST), new Response(JSON.stringify(manifest), { headers: { 'Content-Type': 'application/json' } }));
    },
    async abandon() {
      await Promise.all([...written.keys()].map((path) => cache.delete(fileKey(hub, repo, revision, path)).catch(() => false)));
      written.clear();
    },
  };
}

/** The models kept in this browser: [{ hub, repo, revision, bytes, storedAt }], newest first. */
export async function listStored() {
  const cache = await open();
  if (!cache) return [];
  const out = [];
  for (const request of await cache.keys().catch(() => [])) {
    if (!request.url.endsWith(`/${MANIFEST}`)) continue;
    const m = await readManifest(cache, request);
    if (m) out.push({ hub: m.hub, repo: m.repo, revision: m.revision, bytes: m.bytes, storedAt: m.storedAt });
  }
  return out.sort((a, b) => String(b.storedAt).localeCompare(String(a.storedAt)));
}

/** Removes a kept model (its manifest first, so that it never looks kept with files missing). */
export async function deleteStored(hub, repo, revision) {
  const cache = await open();
  if (!cache) return false;
  const manifestKey = fileKey(hub, repo, revision, MANIFEST);
  const manifest = await readManifest(cache, manifestKey);
  await cache.delete(manifestKey).catch(() => false);
  const prefix = fileKey(hub, repo, revision, '');
  for (const request of await cache.keys().catch(() => [])) {
    if (request.url.startsWith(prefix)) await cache.delete(request).catch(() => false);
  }
  return Boolean(manifest);
}
