#!/usr/bin/env node
// wasm-relaxed-fix.mjs: rewrite the prototype relaxed-SIMD FMA opcode into the final one.
//
//   node scripts/wasm-relaxed-fix.mjs FILE.wasm|FILE.js ...          rewrite in place (a .js: a -sSINGLE_FILE build)
//   node scripts/wasm-relaxed-fix.mjs --check FILE.wasm|FILE.js ...  only check: relaxed_madd present, no
//                                                                    prototype opcode left (ctest wasm_fma_ops)
//
// Debian 12's Emscripten 3.1.6 (clang 14, binaryen 108) compiles __builtin_wasm_fma_f32x4 to the
// relaxed-SIMD proposal's prototype opcode `fd af 01` (f32x4.relaxed_fma), which engines no longer
// accept; the standard f32x4.relaxed_madd is `fd 85 02`, with the same operands (a, b, c -> a * b + c)
// and the same length, so the rewrite moves no byte and no offset. The code section is walked
// instruction by instruction (every immediate decoded), so bytes inside immediates (a v128.const, an
// i32.const, a memarg offset) are never touched. Any opcode the walker does not know stops it with an
// error naming the function and offset: the walker covers the instructions Emscripten emits (MVP,
// sign extension, saturating truncation, bulk memory, SIMD, exceptions, atomics), not more.
// Any other prototype relaxed-SIMD opcode is refused (this project emits only the FMA).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const PROTOTYPE_FMA = 0xaf; // f32x4.relaxed_fma (LLVM 14, binaryen 108)
const FINAL_MADD = 0x105; // f32x4.relaxed_madd (standard relaxed SIMD)
// The other prototype relaxed-SIMD opcodes of LLVM 14 (relaxed_swizzle, relaxed_trunc, fms, f64x2 fma,
// laneselect, relaxed_min/max) sit in the holes of the final SIMD opcode space: these holes.
const OTHER_PROTOTYPE = new Set([0x9a, 0xa2, 0xa5, 0xa6, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6, 0xcf, 0xd0,
  0xd2, 0xd3, 0xd4, 0xe2, 0xee]);

/** A cursor over bytes with the LEB128 readers of the binary format. */
class Reader {
  constructor(bytes, pos = 0) {
    this.b = bytes;
    this.pos = pos;
  }
  byte() {
    if (this.pos >= this.b.length) throw new Error(`unexpected end of module at byte ${this.pos}`);
    return this.b[this.pos++];
  }
  u32() {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return result;
      shift += 7;
      if (shift > 35) throw new Error(`LEB128 too long at byte ${this.pos}`);
    }
  }
  /** A signed LEB128 of up to `bits` bits: skipped (its value is never needed here). */
  sleb(bits) {
    for (let n = 0; ; n++) {
      if (n * 7 > bits + 7) throw new Error(`signed LEB128 too long at byte ${this.pos}`);
      if (!(this.byte() & 0x80)) return;
    }
  }
  skip(n) {
    this.pos += n;
    if (this.pos > this.b.length) throw new Error('unexpected end of module');
  }
  memarg() {
    const align = this.u32();
    if (align & 0x40) this.u32(); // multi-memory: a memory index follows
    this.u32(); // offset
  }
  blockType() {
    const t = this.b[this.pos];
    if (t === 0x40 || (t >= 0x6f && t <= 0x7f)) this.pos++; // empty, or one value type
    else this.sleb(33); // a type index
  }
}

// 0xfd sub-opcodes with immediates (all others have none).
function simdImmediates(r, op) {
  if (op <= 11 || op === 92 || op === 93) r.memarg(); // loads, stores, load32_zero / load64_zero
  else if (op === 12 || op === 13) r.skip(16); // v128.const, i8x16.shuffle
  else if (op >= 21 && op <= 34) r.skip(1); // extract_lane / replace_lane
  else if (op >= 84 && op <= 91) { r.memarg(); r.skip(1); } // load_lane / store_lane
}

/**
 * Walks one function body's instructions from r.pos to `end`, calling visit(op, at) for every
 * 0xfd instruction (at = offset of its sub-opcode).
 */
function walkBody(r, end, visitSimd) {
  const locals = r.u32();
  for (let i = 0; i < locals; i++) { r.u32(); r.byte(); }
  let depth = 1; // the function's own block
  while (depth > 0) {
    const at = r.pos;
    const op = r.byte();
    switch (op) {
      case 0x02: case 0x03: case 0x04: case 0x06: r.blockType(); depth++; break; // block loop if try
      case 0x0b: depth--; break; // end
      case 0x05: case 0x19: break; // else, catch_all
      case 0x07: case 0x08: case 0x09: case 0x0c: case 0x0d: case 0x10: case 0x12: r.u32(); break; // catch throw rethrow br br_if call return_call
      case 0x18: r.u32(); depth--; break; // delegate ends its try
      case 0x0e: { const n = r.u32(); for (let i = 0; i <= n; i++) r.u32(); break; } // br_table
      case 0x11: case 0x13: r.u32(); r.u32(); break; // call_indirect type table
      case 0x1c: { const n = r.u32(); r.skip(n); break; } // select t*
      case 0x20: case 0x21: case 0x22: case 0x23: case 0x24: case 0x25: case 0x26: r.u32(); break; // locals, globals, tables
      case 0x3f: case 0x40: r.u32(); break; // memory.size / memory.grow memidx
      case 0x41: r.sleb(32); break;
      case 0x42: r.sleb(64); break;
      case 0x43: r.skip(4); break;
      case 0x44: r.skip(8); break;
      case 0xd0: r.byte(); break; // ref.null t
      case 0xd2: r.u32(); break; // ref.func
      case 0xfc: { // saturating truncation, bulk memory, tables
        const sub = r.u32();
        if (sub <= 7) break;
        if (sub === 8 || sub === 12 || sub === 14 || sub === 10) { r.u32(); r.u32(); break; }
        if (sub <= 17) { r.u32(); break; }
        throw new Error(`unknown 0xfc ${sub} at byte ${at}`);
      }
      case 0xfd: {
        const subAt = r.pos;
        const sub = r.u32();
        visitSimd(sub, subAt, r.pos - subAt);
        simdImmediates(r, sub);
        break;
      }
      case 0xfe: { // atomics: memarg, except atomic.fence (one zero byte)
        const sub = r.u32();
        if (sub === 3) r.byte(); else r.memarg();
        break;
      }
      default:
        if (op === 0x00 || op === 0x01 || op === 0x0f || op === 0x1a || op === 0x1b || op === 0xd1) break;
        if (op >= 0x28 && op <= 0x3e) { r.memarg(); break; } // loads and stores
        if (op >= 0x45 && op <= 0xc4) break; // numeric, no immediates
        throw new Error(`unknown opcode 0x${op.toString(16)} at byte ${at}`);
    }
  }
  if (r.pos !== end) throw new Error(`function body ends at byte ${r.pos}, its size says ${end}`);
}

/**
 * Rewrites every f32x4.relaxed_fma (prototype, fd af 01) into f32x4.relaxed_madd (fd 85 02).
 * @param {Uint8Array} input a WebAssembly module
 * @returns {{ bytes: Uint8Array, rewritten: number, madd: number, simdOps: number }} a rewritten copy, the
 *   number of instructions rewritten, of f32x4.relaxed_madd in it (rewritten or already there) and of SIMD
 *   instructions in all
 */
export function rewriteRelaxedFma(input) {
  const bytes = Uint8Array.from(input);
  const r = new Reader(bytes);
  const magic = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (!magic.every((b, i) => bytes[i] === b)) throw new Error('not a WebAssembly version 1 module');
  r.pos = 8;
  let rewritten = 0;
  let madd = 0;
  let simdOps = 0;
  let fn = -1;
  while (r.pos < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (id === 10) { // code
      const count = r.u32();
      for (fn = 0; fn < count; fn++) {
        const bodySize = r.u32();
        const bodyEnd = r.pos + bodySize;
        try {
          walkBody(r, bodyEnd, (sub, at, len) => {
            simdOps++;
            if (sub === PROTOTYPE_FMA) {
              if (len !== 2) throw new Error(`f32x4.relaxed_fma with a ${len}-byte opcode at byte ${at}`);
              bytes[at] = 0x80 | (FINAL_MADD & 0x7f);
              bytes[at + 1] = FINAL_MADD >> 7;
              rewritten++;
              madd++;
            } else if (sub === FINAL_MADD) {
              madd++;
            } else if (OTHER_PROTOTYPE.has(sub)) {
              throw new Error(`prototype relaxed-SIMD opcode 0xfd 0x${sub.toString(16)} at byte ${at}: only the FMA is rewritten`);
            }
          });
        } catch (e) {
          throw new Error(`code section, function body ${fn}: ${e.message}`);
        }
      }
    }
    r.pos = end;
  }
  if (r.pos !== bytes.length) throw new Error('the last section runs past the end of the module');
  return { bytes, rewritten, madd, simdOps };
}

// A -sSINGLE_FILE build carries its module as one base64 data URI.
const DATA_URI = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/;

/** The module of a .wasm file, or of a -sSINGLE_FILE .js (with `put` to write a new one back). */
function readModule(file) {
  if (!file.endsWith('.js')) {
    return { bytes: fs.readFileSync(file), put: (bytes) => fs.writeFileSync(file, bytes) };
  }
  const text = fs.readFileSync(file, 'utf8');
  const m = DATA_URI.exec(text);
  if (!m) throw new Error('no base64 WebAssembly data URI (is it a -sSINGLE_FILE build?)');
  if (DATA_URI.test(text.slice(m.index + m[0].length))) throw new Error('more than one data URI');
  const put = (bytes) => {
    const uri = `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`;
    fs.writeFileSync(file, text.slice(0, m.index) + uri + text.slice(m.index + m[0].length));
  };
  return { bytes: Buffer.from(m[1], 'base64'), put };
}

/** Rewrites one file in place (or with `check`, only reads it); returns the counts. */
export function rewriteFile(file, { check = false } = {}) {
  const { bytes, put } = readModule(file);
  const out = rewriteRelaxedFma(bytes);
  if (!check) put(out.bytes);
  return out;
}

// Fewer than this many FMAs in a module of the fma build means its kernels lost the FMA path.
const MIN_MADD = 20;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv[2] === '--check';
  const files = process.argv.slice(check ? 3 : 2);
  if (!files.length) {
    console.error('usage: node scripts/wasm-relaxed-fix.mjs [--check] FILE.wasm|FILE.js ...');
    process.exit(2);
  }
  for (const file of files) {
    try {
      const { rewritten, madd, simdOps } = rewriteFile(file, { check });
      if (check && rewritten > 0) throw new Error(`${rewritten} prototype f32x4.relaxed_fma left: the rewrite did not run`);
      // An FMA build without FMA would be a silent mistake (a flag lost in the build): refuse it.
      if (madd < MIN_MADD) throw new Error(`only ${madd} f32x4.relaxed_madd: is it built with -mrelaxed-simd -DATTN_FMA?`);
      console.log(check
        ? `wasm-relaxed-fix: ${file}: ${madd} f32x4.relaxed_madd, no prototype opcode (of ${simdOps} SIMD ops)`
        : `wasm-relaxed-fix: ${file}: ${rewritten} f32x4.relaxed_fma -> relaxed_madd (of ${simdOps} SIMD ops)`);
    } catch (e) {
      console.error(`wasm-relaxed-fix: ${file}: ${e.message}`);
      process.exit(1);
    }
  }
}
