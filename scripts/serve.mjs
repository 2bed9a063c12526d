#!/usr/bin/env node
// Static server for dist/: `sirv` (MIME types, path checks, ETag, ranges) behind node:http.
//
//   node scripts/serve.mjs [--port N] [--root DIR] [--csp] [--host ADDR]
//
// PORT env or --port (default 8080; when busy, the next few ports are tried; 0 = any free port),
// --root DIR (default dist/; a sub-path is a folder under the root: the tests copy dist/ to
// <tmp>/courses/attention/playground/ and serve <tmp>), --csp adds a strict Content-Security-Policy,
// --host (default 127.0.0.1).
//
// In-process use (tests):
//   import { startServer } from './scripts/serve.mjs';
//   const srv = await startServer({ root: 'dist', port: 0, csp: true });
//   await fetch(srv.url + 'lib/attention.mjs'); ...; await srv.close();
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sirv from 'sirv';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:";

/** The strict CSP, with `connect` (origins such as a Hub and the origin its files redirect to) allowed to be fetched. */
export const cspWith = (connect = []) => (connect.length ? `${CSP}; connect-src 'self' ${connect.join(' ')}` : CSP);

function makeHandler(root, csp) {
  // dev: look files up on every request (dist/ may be rebuilt while serving); etag: revalidate.
  const files = sirv(root, {
    dev: true,
    etag: true,
    // TypeScript declarations (.d.ts/.d.mts) as text: mrmime maps .ts to video/mp2t.
    setHeaders: (res, pathname) => {
      if (/\.[cm]?ts$/.test(pathname)) res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    },
  });
  const end = (res, status, text, headers = {}) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
    res.end(res.req.method === 'HEAD' ? undefined : text + '\n');
  };
  return (req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (csp) res.setHeader('Content-Security-Policy', typeof csp === 'string' ? csp : CSP);
    if (req.method !== 'GET' && req.method !== 'HEAD') return end(res, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
    // A folder without its trailing slash: redirect, so that index.html's relative URLs resolve
    // inside the folder (sirv would serve index.html at the bare path).
    const url = new URL(req.url || '/', 'http://x');
    if (!url.pathname.endsWith('/')) {
      let dir;
      try { dir = path.join(root, decodeURIComponent(url.pathname)); } catch { dir = null; }
      if (dir && dir.startsWith(root + path.sep) && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
        return end(res, 301, 'Moved Permanently', { Location: url.pathname + '/' + url.search });
      }
    }
    files(req, res, () => end(res, 404, 'Not Found'));
  };
}

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    const onError = (err) => { server.off('listening', onListening); reject(err); };
    const onListening = () => { server.off('error', onError); resolve(); };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * Start the static server.
 * @param {{root?: string, port?: number, csp?: boolean | string, host?: string, tries?: number}} [options]
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

const USAGE = 'usage: node scripts/serve.mjs [--port N] [--root DIR] [--csp] [--host ADDR]\n' +
  '  PORT env sets the port too (default 8080; busy ports: the next few are tried)';

/** The command line, parsed with node:util parseArgs (unknown options and stray arguments throw). */
export function parseServeArgs(argv, env = process.env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', short: 'p' },
      root: { type: 'string' },
      host: { type: 'string' },
      csp: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = values.port ?? env.PORT ?? '8080';
  if (!/^\d+$/.test(port)) throw new Error(`serve: bad port: ${port}`);
  return { port: Number(port), root: values.root, host: values.host, csp: values.csp, help: values.help };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const { help, ...opts } = parseServeArgs(process.argv.slice(2));
    if (help) {
      console.log(USAGE);
      process.exit(0);
    }
    for (const k of Object.keys(opts)) if (opts[k] === undefined) delete opts[k];
    const srv = await startServer(opts);
    const rel = path.relative(process.cwd(), srv.root);
    const shown = rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? srv.root : rel;
    console.log(`Serving ${shown}/ at ${srv.url}${opts.csp ? ' (with CSP)' : ''}  (Ctrl+C to stop)`);
    const stop = () => { srv.close().finally(() => process.exit(0)); };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (err) {
    console.error(`${err.message || err}${err.code?.startsWith('ERR_PARSE_ARGS') ? ' (see --help)' : ''}`);
    process.exit(1);
  }
}
