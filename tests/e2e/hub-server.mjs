// hub-server.mjs — a stand-in for the Hugging Face Hub on loopback, for the browser tests of "Open from
// the Hub" (web/src/sources/hub.js). It follows the Hub's documented layout:
//   GET  <hub>/api/models/<repo>/tree/<revision>     the file listing: [{ type, oid, size, path, lfs? }]
//   GET  <hub>/<repo>/resolve/<revision>/<file>       small files served as they are (ETag, X-Repo-Commit);
//                                                    .safetensors files answer 302 to a second origin
//   GET  <cdn>/blobs/<sha256>                         the bytes, with ETag and Range (206) support
// and every answer carries CORS headers, as the Hub's do. Repositories (REPOS below) serve folders of
// the repository (the PyTorch fixtures) and of ../shared/models (a real trained checkpoint), plus:
// a gated id (401), an unknown id (404), a model whose weights' connection is cut half-way the first
// time, one whose listing is too big to open and one the loader cannot read. `log` records every
// request (origin, path, range; a file origin's answer also when it ended, `ended`, in Date.now()) so
// that tests can say which bytes were asked for and when.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const COMMIT = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

/** A folder's files as { path -> { bytes } } (bytes read once). */
function folderFiles(dir, only = null) {
  const files = {};
  for (const name of fs.readdirSync(dir)) {
    if (only && !only.includes(name)) continue;
    const p = path.join(dir, name);
    if (fs.statSync(p).isFile()) files[name] = { bytes: fs.readFileSync(p) };
  }
  return files;
}

const json = (o) => Buffer.from(JSON.stringify(o));

/**
 * The repositories the stand-in serves: id -> { files?, status?, cutOnce?, sizes? }.
 * `sizes` overrides what the listing says of a file (a model too big to open: its bytes never exist).
 */
function repositories(extra = {}) {
  const fixture = (name, only) => folderFiles(path.join(REPO_ROOT, 'tests/fixtures/pretrained', name), only);
  const stories = path.join(REPO_ROOT, '..', 'shared', 'models', 'stories260K');
  const ckpt = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
  const repos = {
    'test-org/tiny-gpt2': { files: fixture('gpt2', ckpt) },
    'test-org/tiny-qwen3': { files: fixture('qwen3', ckpt) },
    'test-org/cut-gpt2': { files: fixture('gpt2', ckpt), cutOnce: 'model.safetensors' },
    'test-org/gated-model': { status: 401 },
    'test-org/too-big': {
      files: { 'config.json': { bytes: fs.readFileSync(path.join(REPO_ROOT, 'tests/fixtures/pretrained/gpt2/config.json')) },
        'model.safetensors': { bytes: Buffer.alloc(0) } },
      sizes: { 'model.safetensors': 5 * 2 ** 30 },
    },
    'test-org/tiny-mixtral': {
      files: { 'config.json': { bytes: json({ model_type: 'mixtral', hidden_size: 32, num_attention_heads: 4, num_key_value_heads: 2,
        num_hidden_layers: 2, num_local_experts: 8, num_experts_per_tok: 2, vocab_size: 64 }) },
      'model.safetensors': { bytes: Buffer.alloc(4096) } },
    },
  };
  if (fs.existsSync(stories)) {
    repos['karpathy/stories260K'] = { files: folderFiles(stories, ckpt) };
    // the same files, served slowly (16 KiB every 40 ms: about 2.5 s for its 1 MB), so that a test can stop it
    repos['test-org/slow-stories'] = { files: folderFiles(stories, ckpt), slow: true };
  }
  for (const [id, dir] of Object.entries(extra)) repos[id] = { files: folderFiles(dir) };
  for (const r of Object.values(repos)) {
    for (const f of Object.values(r.files ?? {})) f.sha = crypto.createHash('sha256').update(f.bytes).digest('hex');
  }
  return repos;
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range, If-Range, Content-Type',
  'Access-Control-Expose-Headers': 'ETag, Content-Range, Content-Length, Accept-Ranges, X-Repo-Commit, X-Linked-Size, X-Linked-Etag',
};

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
}

/**
 * Starts the Hub and its file origin. Returns { hub, cdn, log, reset(), close(), repos }.
 * `log`: [{ origin: 'hub' | 'cdn', path, range }], every request in order. `extra`: more repositories,
 * id -> a folder whose files it serves (scripts/bench-pretrained-page.mjs --hub).
 */
export async function startHub({ extra = {} } = {}) {
  const repos = repositories(extra);
  const log = [];
  const cut = new Set();     // repos whose cut has happened
  const blobs = new Map();   // sha -> { bytes, repo, file }
  for (const [id, r] of Object.entries(repos)) {
    for (const [name, f] of Object.entries(r.files ?? {})) blobs.set(f.sha, { bytes: f.bytes, repo: id, file: name, size: r.sizes?.[name] });
  }
  let cdnUrl = '';

  const send = (res, status, body, headers = {}) => {
    res.writeHead(status, { ...CORS, ...headers });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  };
  const error = (res, status, text) => send(res, status, json({ error: text }), { 'Content-Type': 'application/json', 'X-Error-Code':
    status === 401 ? 'GatedRepo' : 'RepoNotFound' });

  const hubServer = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    log.push({ origin: 'hub', path: decodeURIComponent(url.pathname), range: req.headers.range ?? null });
    if (req.method === 'OPTIONS') return send(res, 204, '');
    let m = url.pathname.match(/^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)\/?$/);
    if (m) {
      const r = repos[decodeURIComponent(m[1])];
      if (!r) return error(res, 404, 'Repository not found');
      if (r.status) return error(res, r.status, 'Access to this model is restricted: log in');
      const listing = Object.entries(r.files).map(([name, f]) => {
        const size = r.sizes?.[name] ?? f.bytes.length;
        const entry = { type: 'file', oid: f.sha.slice(0, 40), size, path: name };
        if (name.endsWith('.safetensors')) entry.lfs = { oid: f.sha, size, pointerSize: 134 };
        return entry;
      });
      return send(res, 200, json(listing), { 'Content-Type': 'application/json' });
    }
    m = url.pathname.match(/^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/);
    if (m) {
      const r = repos[decodeURIComponent(m[1])];
      if (!r) return error(res, 404, 'Repository not found');
      if (r.status) return error(res, r.status, 'Access to this model is restricted: log in');
      const name = decodeURIComponent(m[3]);
      const f = r.files[name];
      if (!f) return error(res, 404, 'Entry not found');
      const common = { 'X-Repo-Commit': COMMIT, ETag: `"${f.sha}"` };
      if (name.endsWith('.safetensors')) {
        return send(res, 302, '', { ...common, Location: `${cdnUrl}/blobs/${f.sha}?repo=${encodeURIComponent(m[1])}`,
          'X-Linked-Size': String(r.sizes?.[name] ?? f.bytes.length), 'X-Linked-Etag': `"${f.sha}"` });
      }
      return send(res, 200, f.bytes, { ...common, 'Content-Type': 'application/octet-stream', 'Content-Length': String(f.bytes.length) });
    }
    return error(res, 404, 'Not found');
  });

  const cdnServer = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const entry = { origin: 'cdn', path: url.pathname, range: req.headers.range ?? null };
    log.push(entry);
    res.on('finish', () => { entry.ended = Date.now(); });  // the last byte was handed to the connection
    if (req.method === 'OPTIONS') return send(res, 204, '');
    const m = url.pathname.match(/^\/blobs\/([0-9a-f]{64})$/);
    const blob = m && blobs.get(m[1]);
    if (!blob) return send(res, 404, 'Not found');
    const { bytes } = blob;
    const etag = `"${m[1]}"`;
    let begin = 0, end = bytes.length;
    const range = req.headers.range?.match(/^bytes=(\d+)-(\d*)$/);
    const ifRange = req.headers['if-range'];
    const partial = range && (!ifRange || ifRange === etag);
    if (partial) {
      begin = Number(range[1]);
      end = range[2] ? Math.min(bytes.length, Number(range[2]) + 1) : bytes.length;
      if (begin >= bytes.length) return send(res, 416, '', { 'Content-Range': `bytes */${bytes.length}` });
    }
    const headers = { ETag: etag, 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream', 'Content-Length': String(end - begin) };
    if (partial) headers['Content-Range'] = `bytes ${begin}-${end - 1}/${bytes.length}`;
    // the repository that redirected here (several serve the same bytes: the cut and slow ones)
    const repoId = repos[url.searchParams.get('repo')] ? url.searchParams.get('repo') : blob.repo;
    const r = repos[repoId];
    if (r.cutOnce === blob.file && !cut.has(repoId) && req.method === 'GET') {
      // the connection drops half-way through the file, the first time it is asked for
      cut.add(repoId);
      res.writeHead(partial ? 206 : 200, { ...CORS, ...headers });
      res.write(bytes.subarray(begin, begin + Math.floor((end - begin) / 2)), () => res.socket.destroy());
      return undefined;
    }
    if (r.slow && req.method === 'GET') {
      res.writeHead(partial ? 206 : 200, { ...CORS, ...headers });
      let at = begin;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        const next = Math.min(end, at + 16384);
        res.write(bytes.subarray(at, next));
        at = next;
        if (at >= end) { clearInterval(timer); res.end(); }
      }, 40);
      res.on('close', () => clearInterval(timer));
      return undefined;
    }
    return send(res, partial ? 206 : 200, bytes.subarray(begin, end), headers);
  });

  const hub = await listen(hubServer);
  cdnUrl = await listen(cdnServer);
  return {
    hub, cdn: cdnUrl, log, repos,
    /** Which weights' bytes were asked for (requests to the file origin). */
    weightRequests: () => log.filter((e) => e.origin === 'cdn'),
    reset() { log.length = 0; cut.clear(); },
    close: () => Promise.all([hubServer, cdnServer].map((s) => new Promise((resolve) => {
      if (!s.listening) return resolve();
      s.closeAllConnections?.();
      return s.close(() => resolve());
    }))),
  };
}
