// scripts/serve.mjs (sirv behind node:http): the headers, MIME types, sub-path folders and refusals
// the browser tests and course hosts rely on, on a small temporary root (no build needed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { CSP, parseServeArgs, startServer } from '../../scripts/serve.mjs';

let root, srv;
const SUB = 'courses/attention/playground';
before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-serve-'));
  const site = path.join(root, SUB);
  fs.mkdirSync(path.join(site, 'lib'), { recursive: true });
  fs.writeFileSync(path.join(site, 'index.html'), '<!doctype html><title>t</title>');
  fs.writeFileSync(path.join(site, 'lib/attention.mjs'), 'export const x = 1;\n');
  fs.writeFileSync(path.join(site, 'lib/attention.d.ts'), 'export declare const x: number;\n');
  fs.writeFileSync(path.join(site, 'attention-playground.js'), 'export {};\n');
  fs.writeFileSync(path.join(site, 'lib/attention-simd.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  fs.writeFileSync(path.join(root, 'secret.txt'), 'outside the site\n');
  srv = await startServer({ root: site, port: 0, csp: true });
});
after(async () => {
  await srv?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A raw request: the path is sent as written (fetch would normalise `..`). */
function get(rawPath, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: srv.host, port: srv.port, path: rawPath, method }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('MIME types: wasm, ES modules, HTML, declarations', async () => {
  const cases = [
    ['/lib/attention-simd.wasm', 'application/wasm', 8],
    ['/lib/attention.mjs', 'text/javascript', 20],
    ['/attention-playground.js', 'text/javascript', 11],
    ['/', 'text/html;charset=utf-8', 31],
    ['/index.html', 'text/html;charset=utf-8', 31],
    ['/lib/attention.d.ts', 'text/plain; charset=utf-8', 32],
  ];
  for (const [p, type, length] of cases) {
    const r = await get(p);
    assert.equal(r.status, 200, p);
    assert.equal(r.headers['content-type'], type, p);
    assert.equal(r.body.length, length, p);
    assert.equal(Number(r.headers['content-length']), length, p);
  }
});

test('--csp: the strict policy, nosniff and no-cache on every response, 404s included', async () => {
  assert.equal(CSP, "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; " +
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:");
  for (const p of ['/', '/lib/attention.mjs', '/missing.js']) {
    const r = await get(p);
    assert.equal(r.headers['content-security-policy'], CSP, p);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', p);
    assert.equal(r.headers['cache-control'], 'no-cache', p);
  }
  const plain = await startServer({ root: path.join(root, SUB), port: 0 });
  try {
    const r = await fetch(plain.url);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-security-policy'), null);
  } finally { await plain.close(); }
});

test('sub-path: a folder without its slash redirects, so relative URLs resolve inside it', async () => {
  const outer = await startServer({ root, port: 0 });
  try {
    const r = await fetch(`${outer.url}${SUB}?x=1`, { redirect: 'manual' });
    assert.equal(r.status, 301);
    assert.equal(r.headers.get('location'), `/${SUB}/?x=1`);
    const page = await fetch(`${outer.url}${SUB}/`);
    assert.equal(page.status, 200);
    assert.equal(await page.text(), '<!doctype html><title>t</title>');
    assert.equal((await fetch(`${outer.url}${SUB}/lib/attention-simd.wasm`)).headers.get('content-type'), 'application/wasm');
  } finally { await outer.close(); }
});

test('refused: paths out of the root, other methods, missing files', async () => {
  for (const p of ['/../secret.txt', '/lib/../../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt']) {
    const r = await get(p);
    assert.equal(r.status, 404, p);
    assert.ok(!r.body.toString().includes('outside the site'), p);
  }
  const post = await get('/index.html', 'POST');
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  assert.equal((await get('/nope.html')).status, 404);
  const head = await get('/lib/attention-simd.wasm', 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.body.length, 0);
});

test('command line: parseArgs options, PORT env, errors', () => {
  assert.deepEqual(parseServeArgs(['--port', '9000', '--csp', '--root', 'x', '--host', '0.0.0.0'], {}),
    { port: 9000, root: 'x', host: '0.0.0.0', csp: true, help: false });
  assert.deepEqual(parseServeArgs(['-p', '0'], {}), { port: 0, root: undefined, host: undefined, csp: false, help: false });
  assert.equal(parseServeArgs(['--port=1234'], {}).port, 1234);
  assert.equal(parseServeArgs([], { PORT: '8181' }).port, 8181);
  assert.equal(parseServeArgs([], {}).port, 8080);
  assert.equal(parseServeArgs(['-h'], {}).help, true);
  assert.throws(() => parseServeArgs(['--bogus'], {}), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
  assert.throws(() => parseServeArgs(['--port'], {}), { code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' });
  assert.throws(() => parseServeArgs(['--port', 'abc'], {}), /serve: bad port: abc/);
});

test('busy port: the next one is taken', async () => {
  const again = await startServer({ root: path.join(root, SUB), port: srv.port, tries: 3 });
  try {
    assert.ok(again.port > srv.port && again.port <= srv.port + 2, `${again.port} after ${srv.port}`);
  } finally { await again.close(); }
});
