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
 * Keeps a model's files (Map<path, Blob>) whole, or not at all. Resolves to true when kept, false when
 * the browser refused (nothing of the model is left behind then).
 */
export async function storeModel(hub, repo, revision, files) {
  const cache = await open();
  if (!cache) return false;
  const written = [];
  try {
    for (const [path, blob] of files) {
      const key = fileKey(hub, repo, revision, path);
      await cache.put(key, new Response(blob, { headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(blob.size) } }));
      written.push(key);
    }
    const list = [...files].map(([path, blob]) => ({ path, size: blob.size }));
    const manifest = { hub, repo, revision, files: list, bytes: list.reduce((s, f) => s + f.size, 0), storedAt: new Date().toISOString() };
    await cache.put(fileKey(hub, repo, revision, MANIFEST), new Response(JSON.stringify(manifest), { headers: { 'Content-Type': 'application/json' } }));
    return true;
  } catch {
    await Promise.all(written.map((k) => cache.delete(k).catch(() => false)));
    return false;
  }
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
