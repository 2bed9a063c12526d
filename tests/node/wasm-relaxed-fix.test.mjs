// wasm-relaxed-fix.test.mjs: the post-link rewrite of the FMA build (scripts/wasm-relaxed-fix.mjs)
// changes the prototype f32x4.relaxed_fma (fd af 01) and nothing else: not the same bytes inside
// immediates, which a byte scan would corrupt. Its instruction walker decodes the real modules
// (its SIMD instruction count equals Binaryen's wasm-dis count on the SIMD build).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { LIB_DIR, REPO } from './helpers.mjs';

const { rewriteRelaxedFma } = await import(pathToFileURL(path.join(REPO, 'scripts/wasm-relaxed-fix.mjs')).href);

const PROTO = [0xfd, 0xaf, 0x01];
const FINAL = [0xfd, 0x85, 0x02];
const leb = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
const section = (id, body) => [id, ...leb(body.length), ...body];
/** A module with one function () -> () of the given instructions, and one page of memory. */
function moduleOf(code) {
  const body = [0, ...code, 0x0b]; // no locals, the instructions, end
  return Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 0, 0]), ...section(3, [1, 0]), ...section(5, [1, 0, 1]),
    ...section(10, [1, ...leb(body.length), ...body])]);
}
const v128 = (bytes16) => [0xfd, 0x0c, ...bytes16];
const zeros16 = new Array(16).fill(0);
/** Offsets of a byte pattern. */
function find(bytes, pattern) {
  const at = [];
  for (let i = 0; i + pattern.length <= bytes.length; i++) if (pattern.every((b, k) => bytes[i + k] === b)) at.push(i);
  return at;
}

test('only the f32x4.relaxed_fma instruction is rewritten, not the same bytes inside immediates', () => {
  assert.deepEqual(leb(22525), PROTO, 'i32.const 22525 encodes as fd af 01');
  const code = [
    0x41, ...leb(22525), 0x1a, // i32.const 22525; drop
    ...v128([...PROTO, ...new Array(13).fill(0)]), 0x1a, // v128.const whose bytes start fd af 01; drop
    0x41, 0, 0x28, 2, ...leb(22525), 0x1a, // i32.load offset=22525; drop
    ...v128(zeros16), ...v128(zeros16), ...v128(zeros16), ...PROTO, 0x1a, // f32x4.relaxed_fma; drop
    0x02, 0x40, 0x0b, // block end (nested control)
  ];
  const input = moduleOf(code);
  assert.equal(find(input, PROTO).length, 4, 'a byte scan would see four FMAs');
  const { bytes, rewritten, madd, simdOps } = rewriteRelaxedFma(input);
  assert.equal(rewritten, 1);
  assert.equal(madd, 1);
  assert.equal(simdOps, 5); // four v128.const and the FMA
  assert.equal(find(bytes, PROTO).length, 3, 'the three immediates are untouched');
  assert.equal(find(bytes, FINAL).length, 1);
  const changed = [...bytes.keys()].filter((i) => bytes[i] !== input[i]);
  assert.deepEqual(changed, [find(input, PROTO)[3] + 1, find(input, PROTO)[3] + 2], 'only the FMA opcode changes');
  assert.ok(WebAssembly.validate(moduleOf([0x41, ...leb(22525), 0x1a])), 'the test module format is valid wasm');
});

test('an unknown opcode or a truncated body is an error naming the function, never a silent pass', () => {
  assert.throws(() => rewriteRelaxedFma(moduleOf([0xf0])), /function body 0: unknown opcode 0xf0/);
  const bad = moduleOf([0x41, ...leb(22525), 0x1a]);
  bad[bad.length - 1] = 0x01; // the final end becomes a nop: the body runs past its size
  assert.throws(() => rewriteRelaxedFma(bad), /function body 0/);
  assert.throws(() => rewriteRelaxedFma(moduleOf([...v128(zeros16), 0xfd, 0xb0, 0x01, 0x1a])),
    /prototype relaxed-SIMD opcode 0xfd 0xb0/);
  assert.throws(() => rewriteRelaxedFma(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])), /not a WebAssembly/);
});

test("the walker decodes the SIMD build: as many SIMD instructions as Binaryen's wasm-dis prints", () => {
  const file = path.join(LIB_DIR, 'attention-simd.wasm');
  const { rewritten, simdOps } = rewriteRelaxedFma(fs.readFileSync(file));
  assert.equal(rewritten, 0);
  const dis = spawnSync('wasm-dis', [file], { encoding: 'utf8', maxBuffer: 256 << 20 });
  assert.equal(dis.status, 0, `wasm-dis (Debian's binaryen) failed: ${dis.error?.message ?? dis.stderr}`);
  const counted = dis.stdout.match(/\((?:v128|[if](?:8x16|16x8|32x4|64x2))\./g)?.length ?? 0;
  assert.ok(counted > 500, `wasm-dis shows only ${counted} SIMD instructions`);
  assert.equal(simdOps, counted);
});

test('the FMA builds in dist/lib carry f32x4.relaxed_madd and no prototype opcode', () => {
  for (const name of ['attention-fma.wasm', 'attention-train-fma.wasm']) {
    const { rewritten, madd } = rewriteRelaxedFma(fs.readFileSync(path.join(LIB_DIR, name)));
    assert.equal(rewritten, 0, `${name}: prototype FMA left`);
    assert.ok(madd >= 20, `${name}: only ${madd} f32x4.relaxed_madd`);
  }
});
