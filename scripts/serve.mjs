#!/usr/bin/env node
// Static file server for dist/ (no dependencies).
//
//   node scripts/serve.mjs [--port N] [--root DIR] [--csp] [--host ADDR]
//
// PORT env or --port (default 8080; when busy, the next few ports are tried; 0 = any free port),
// --root DIR (default dist/), --csp adds a strict Content-Security-Policy, --host (default 127.0.0.1).
//
// In-process use (tests):
//   import { startServer } from './scripts/serve.mjs';
//   const srv = await startServer({ root: 'dist', port: 0, csp: true });
//   await fetch(srv.url + 'lib/attention.mjs'); ...; await srv.close();
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:";

export const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8', // .d.ts: shown as text, never executed
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.pdf': 'application/pdf',
  '.webmanifest': 'application/manifest+json',
};

export function mimeType(file) {
  return MIME_TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream';
}

function send(res, status, text, extra = {}) {
  const body = Buffer.from(text + '\n');
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': body.length,
    ...extra,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function isInside(root, p) {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function makeHandler(root, csp) {
  return async (req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (csp) res.setHeader('Content-Security-Policy', CSP);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(res, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
    }

    // Work on the raw path (no WHATWG normalisation), so that `..` is seen and refused.
    const raw = req.url || '/';
    const cut = raw.search(/[?#]/);
    const rawPath = cut === -1 ? raw : raw.slice(0, cut);
    const query = cut === -1 ? '' : raw.slice(cut);
    let urlPath;
    try {
      urlPath = decodeURIComponent(rawPath);
    } catch {
      return send(res, 400, 'Bad Request');
    }
    if (!urlPath.startsWith('/') || urlPath.includes('\0') || urlPath.includes('\\')) {
      return send(res, 400, 'Bad Request');
    }
    let file = path.join(root, urlPath);
    if (!isInside(root, file)) return send(res, 403, 'Forbidden');

    try {
      let real = await fs.promises.realpath(file); // symlinks must not lead out of root either
      if (!isInside(root, real)) return send(res, 403, 'Forbidden');
      let stat = await fs.promises.stat(real);
      if (stat.isDirectory()) {
        if (!rawPath.endsWith('/')) {
          // Relative URLs in index.html resolve against the directory only with a trailing slash.
          return send(res, 301, 'Moved Permanently', { Location: rawPath + '/' + query });
        }
        file = path.join(real, 'index.html');
        real = await fs.promises.realpath(file);
        if (!isInside(root, real)) return send(res, 403, 'Forbidden');
        stat = await fs.promises.stat(real);
      }
      if (!stat.isFile()) return send(res, 404, 'Not Found');
      res.writeHead(200, {
        'Content-Type': mimeType(real),
        'Content-Length': stat.size,
        'Last-Modified': stat.mtime.toUTCString(),
      });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(real)
        .on('error', () => res.destroy())
        .pipe(res);
    } catch (err) {
      if (err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return send(res, 404, 'Not Found');
      if (err && err.code === 'EACCES') return send(res, 403, 'Forbidden');
      return send(res, 500, 'Internal Server Error');
    }
  };
}

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    const onError = (err) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * Start the static server.
 * @param {{root?: string, port?: number, csp?: boolean, host?: string, tries?: number}} [options]
 *   root: folder to serve (default: <repo>/dist); port: first port to try (default 8080; 0 = any free
 *   port); csp: add the Content-Security-Policy header; host: default 127.0.0.1; tries: how many
 *   consecutive ports to try when one is busy (default 10).
 * @returns {Promise<{server: import('node:http').Server, url: string, port: number, host: string,
 *   root: string, close: () => Promise<void>}>}
 */
export async function startServer({ root = path.join(REPO, 'dist'), port = 8080, csp = false, host = '127.0.0.1', tries = 10 } = {}) {
  const absRoot = await fs.promises.realpath(path.resolve(root)).catch(() => {
    const hint = path.resolve(root) === path.join(REPO, 'dist') ? ' (run `npm run build` first)' : '';
    throw new Error(`serve: root folder not found: ${path.resolve(root)}${hint}`);
  });
  if (!(await fs.promises.stat(absRoot)).isDirectory()) throw new Error(`serve: not a folder: ${absRoot}`);
  const first = Number(port);
  if (!Number.isInteger(first) || first < 0 || first > 65535) throw new Error(`serve: bad port: ${port}`);

  const server = http.createServer(makeHandler(absRoot, csp));
  const attempts = first === 0 ? 1 : Math.max(1, Math.min(tries, 65536 - first));
  let lastErr;
  for (let i = 0; i < attempts; i++) {
    try {
      await listen(server, first + i, host);
      lastErr = null;
      break;
    } catch (err) {
      lastErr = err;
      if (err.code !== 'EADDRINUSE') break;
    }
  }
  if (lastErr) {
    if (lastErr.code === 'EADDRINUSE') {
      throw new Error(`serve: ports ${first}-${first + attempts - 1} on ${host} are all in use (try --port)`);
    }
    throw lastErr;
  }
  const actual = server.address().port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    port: actual,
    host,
    root: absRoot,
    url: `http://${urlHost}:${actual}/`,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections?.();
      }),
  };
}

function parseArgs(argv) {
  const opts = { port: process.env.PORT ? Number(process.env.PORT) : 8080, csp: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [name, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length) throw new Error(`serve: ${name} needs a value`);
      return argv[++i];
    };
    switch (name) {
      case '--port': case '-p': opts.port = Number(value()); break;
      case '--root': opts.root = value(); break;
      case '--host': opts.host = value(); break;
      case '--csp': opts.csp = true; break;
      case '--help': case '-h':
        console.log('usage: node scripts/serve.mjs [--port N] [--root DIR] [--csp] [--host ADDR]\n' +
          '  PORT env sets the port too (default 8080; busy ports: the next few are tried)');
        process.exit(0);
        break;
      default: throw new Error(`serve: unknown option ${a} (see --help)`);
    }
  }
  return opts;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const opts = parseArgs(process.argv.slice(2));
    const srv = await startServer(opts);
    const rel = path.relative(process.cwd(), srv.root);
    const shown = rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? srv.root : rel;
    console.log(`Serving ${shown}/ at ${srv.url}${opts.csp ? ' (with CSP)' : ''}  (Ctrl+C to stop)`);
    const stop = () => { srv.close().finally(() => process.exit(0)); };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (err) {
    console.error(err.message || err);
    process.exit(1);
  }
}
