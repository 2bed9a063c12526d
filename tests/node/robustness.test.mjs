// robustness.test.mjs: "nothing silently wrong", one block per case, on both builds.
//   1. model files: checksum, header fields' type and range, non-finite tensors
//   2. finite input whose result overflows float32: refused naming the input and its magnitude
//   3. sizes and the magic are checked before anything is copied into the wasm heap
//   4. long work: step(n) cap, async train() with AbortSignal, the compute cap of forward
//   5. own fields only; step() refuses non-numbers; loadAttention option checks
//   6. detached buffers, BigInt elements, throwing getters: errors naming the field
//   7. a refused oversized call leaves the heap size unchanged
// (8, chunked appends equal within float32 rounding, is tested in session.test.mjs.)

import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import fs from 'node:fs';
import path from 'node:path';

import { BUILDS, REPO, bitIdentical, importLib, load, randomArray, throwsField } from './helpers.mjs';
import { checksumOf, crc32, editModelFile, readModelFile } from './model-file-kit.mjs';

const BASE = { variant: 'gqa', seqLen: 4, dModel: 32, nHeads: 4, nKvHeads: 2 };
const X = randomArray(4 * 32, 1);
const TRAINER = { task: 'copy', seqLen: 8, batchSize: 4, seed: 3, model: { variant: 'mha', dModel: 16, nHeads: 2 } };

// ---- model files: an independent reader and writer (model-file-kit.mjs) ------------------------
/** The ATTNTRN2 file of the previous exporter (tests/fuzz/corpus/model_export without its mode byte). */
const LEGACY = new Uint8Array(fs.readFileSync(path.join(REPO, 'tests/fuzz/corpus/model_export')).subarray(1));
const u32 = (b, at) => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at, true);
/** An ATTNTRN2 body with its CRC-32 appended. */
function resealed(body) {
  const out = new Uint8Array(body.length + 4);
  out.set(body);
  new DataView(out.buffer).setUint32(body.length, crc32(body), true);
  return out;
}
/** The same model as a version-1 file (no checksum), as exported before the checksum existed. */
function asVersion1(file) {
  const out = file.slice(0, file.length - 4);
  out.set(new TextEncoder().encode('ATTNTRN1'), 0);
  return out;
}
/** The file's JSON header replaced by edit(json) (data unchanged, checksum not recomputed). */
function withJson(file, edit) {
  const { headerLength } = readModelFile(file);
  const json = new TextEncoder().encode(edit(new TextDecoder().decode(file.subarray(8, 8 + headerLength))));
  const out = new Uint8Array(8 + json.length + file.length - 8 - headerLength);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(file.subarray(8 + headerLength), 8 + json.length);
  return out;
}

for (const { simd, name } of BUILDS) {
  describe(`robustness (${name})`, () => {
    let attn;
    before(async () => {
      attn = await load(simd);
    });

    // ---- 1 ---------------------------------------------------------------------------------------
    describe('1. model files', () => {
      let file;
      let trained;
      before(() => {
        const t = attn.createTrainer(TRAINER);
        t.step(5);
        file = t.exportModel();
        trained = t.evaluate();
        t.dispose();
      });

      test('an export is a .safetensors file whose metadata carries the CRC-32 of the whole file (checked independently)', () => {
        const f = readModelFile(file);
        assert.equal(f.metadata.format, 'attention-playground.trainer');
        assert.equal(f.metadata.formatVersion, '4');
        assert.equal(f.metadata.crc32, checksumOf(file));
        const t = attn.loadModel(file);
        assert.equal(t.steps, 5);
        assert.deepEqual(t.evaluate(), trained);
        t.dispose();
      });

      test('a flipped byte in the data or the metadata is refused by the checksum', () => {
        const { headerLength, json } = readModelFile(file);
        const seedAt = 8 + json.indexOf('"seed":"3"') + 8;
        for (const at of [seedAt, 8 + headerLength, Math.floor(file.length / 2), file.length - 9, file.length - 1]) {
          const bad = file.slice();
          bad[at] ^= 0x10;
          throwsField(() => attn.loadModel(bad), RangeError, 'bytes', [/checksum does not match/]);
        }
        const bad = file.slice();
        bad[3] ^= 0x10; // the header length
        throwsField(() => attn.loadModel(bad), RangeError, 'bytes', [/not a model exported by trainer.exportModel\(\)/]);
      });

      test('files of the previous format (ATTNTRN2, ATTNTRN1) still load, with their checks', () => {
        const t = attn.loadModel(LEGACY);
        assert.equal(t.steps, 2);
        const again = attn.loadModel(t.exportModel());
        assert.deepEqual(again.evaluate(), t.evaluate());
        const v1 = attn.loadModel(asVersion1(LEGACY));
        assert.deepEqual(v1.evaluate(), t.evaluate());
        for (const x of [t, again, v1]) x.dispose();
        const bad = LEGACY.slice();
        bad[Math.floor(bad.length / 2)] ^= 0x10;
        throwsField(() => attn.loadModel(bad), RangeError, 'bytes', [/checksum/]);
        const body = LEGACY.slice(0, LEGACY.length - 4);
        new DataView(body.buffer).setFloat32(body.length - 4, NaN, true);
        throwsField(() => attn.loadModel(resealed(body)), RangeError, 'bytes', [/second moment/, /NaN/]);
        throwsField(() => attn.loadModel(asVersion1(resealed(body))), RangeError, 'bytes', [/moment/, /NaN/]);
        assert.equal(u32(LEGACY, LEGACY.length - 4), crc32(LEGACY.subarray(0, LEGACY.length - 4)));
      });

      test('a NaN AdamW moment or weight is refused, with or without a valid checksum', () => {
        const set = (name, i, v) => editModelFile(file, (m, tensors) => { tensors[name].data[i] = v; });
        throwsField(() => attn.loadModel(set('optim.exp_avg_sq.unembed', 7, NaN)), RangeError, 'bytes', [/second moment/, /NaN/]);
        throwsField(() => attn.loadModel(set('optim.exp_avg_sq.unembed', 7, -1)), RangeError, 'bytes', [/second moment/, />= 0/]);
        throwsField(() => attn.loadModel(set('optim.exp_avg.wpe', 0, Infinity)), RangeError, 'bytes', [/first moment/, /Infinity/]);
        throwsField(() => attn.loadModel(set('wte', 0, NaN)), RangeError, 'bytes', [/non-finite/, /NaN/]);
        const unsealed = editModelFile(file, (m, tensors) => { tensors.wte.data[0] = NaN; }, { keepCrc: true });
        throwsField(() => attn.loadModel(unsealed), RangeError, 'bytes', [/checksum/]);
      });

      test('finite but huge weights load, and a training step that overflows is refused and not applied', () => {
        // wte and wpe filled with 3e38: their sum overflows float32
        const huge = editModelFile(file, (m, tensors) => { tensors.wte.data.fill(3e38); tensors.wpe.data.fill(3e38); });
        const t = attn.loadModel(huge);
        try {
          throwsField(() => t.step(1), RangeError, undefined, [/overflowed float32/, /3e\+38/, /not applied/]);
          assert.equal(t.steps, 5);
          throwsField(() => t.evaluate(), RangeError, undefined, [/overflowed float32/]);
          throwsField(() => t.attention([1, 2, 3]), RangeError, undefined, [/overflowed float32/]);
          throwsField(() => t.headScores(), RangeError, undefined, [/overflowed float32/]);
        } finally {
          t.dispose();
        }
      });

      test('header fields are checked for type and range (step, rng, numbers, booleans, duplicates, unknown keys)', () => {
        const cases = [
          [(m) => { m.step = '99999999999999999999999'; }, /step/],
          [(m) => { m.step = '-5'; }, /step/],
          [(m) => { m.step = 'abc'; }, /step/],
          [(m) => { m.step = '1.5'; }, /step/],
          [(m) => { delete m.step; }, /step' is missing/],
          [(m) => { m.rng = '-1'; }, /rng/],
          [(m) => { m.seqLen = 'abc'; }, /seqLen/],
          [(m) => { m.seqLen = 'inf'; }, /seqLen/],
          [(m) => { m.seqLen = '1e300'; }, /seqLen/],
          [(m) => { m.dModel = '15'; }, /dModel|nHeads/],
          [(m) => { m.layerNorm = 'yes'; }, /layerNorm/],
          [(m) => { m.evil = '1'; }, /unknown header field 'evil'/],
          [(m) => { m.formatVersion = '2'; }, /formatVersion/],
          [(m) => { m.format = 'x'; }, /not a trainer's export/],
        ];
        for (const [edit, pattern] of cases) {
          throwsField(() => attn.loadModel(editModelFile(file, edit)), RangeError, 'bytes', [/model file is not valid/, pattern]);
        }
        throwsField(() => attn.loadModel(withJson(file, (j) => j.replace('{"__metadata__":{', '{"__metadata__":{"seed":"1",'))),
          RangeError, 'bytes', [/'seed' appears twice/]);
        throwsField(() => attn.loadModel(withJson(file, (j) => j.replace(/("wte":\{"data_offsets":\[\d+,\d+\],"dtype":)"F32"/, '$1"BF16"'))),
          RangeError, 'bytes', [/dtype 'BF16'/]);
        // the edit itself is sound: an unchanged file loads
        attn.loadModel(editModelFile(file, () => {})).dispose();
      });

      test('the checksum covers the tensor table: swapped data_offsets are refused (version 3 did not cover them)', () => {
        // the two entries' data_offsets exchanged, whatever the order of the entries' keys
        const entry = (name) => new RegExp(`("layers\\.0\\.attn\\.${name}":\\{[^}]*"data_offsets":)(\\[\\d+,\\d+\\])`);
        const swap = (j) => {
          const wk = j.match(entry('wk'))[2];
          const wv = j.match(entry('wv'))[2];
          return j.replace(entry('wk'), `$1${wv}`).replace(entry('wv'), `$1${wk}`);
        };
        throwsField(() => attn.loadModel(withJson(file, swap)), RangeError, 'bytes', [/checksum does not match/]);
        // version 3 files still load, with their checksum (which left the table out)
        const v3 = editModelFile(file, (m) => { m.formatVersion = '3'; });
        const a = attn.loadModel(v3);
        const b = attn.loadModel(withJson(v3, swap));
        try {
          assert.deepEqual(a.evaluate(), trained);
          assert.notDeepEqual(b.evaluate(), trained, 'version 3: the swap loads another model');
        } finally {
          a.dispose();
          b.dispose();
        }
      });

      test('truncated, empty and foreign bytes are refused naming the file', () => {
        throwsField(() => attn.loadModel(new Uint8Array(0)), RangeError, 'bytes', [/not a model exported/]);
        throwsField(() => attn.loadModel(file.subarray(0, 20)), RangeError, 'bytes', [/not a model exported/]);
        throwsField(() => attn.loadModel(file.subarray(0, file.length - 4)), RangeError, 'bytes', [/its tensors cover/]);
        throwsField(() => attn.loadModel(new TextEncoder().encode('PK\u0003\u0004 a zip file')), RangeError, 'bytes', [/not a model/]);
      });
    });

    // ---- 2 ---------------------------------------------------------------------------------------
    describe('2. finite input, non-finite result', () => {
      test('x = 1e20 is refused naming x and its magnitude (it returned 128 NaN before)', () => {
        throwsField(() => attn.forward({ ...BASE, x: new Float32Array(128).fill(1e20) }), RangeError, 'x', [/overflowed float32/, /1e\+20/]);
      });

      test('weights of 1e30 are refused naming the weight', () => {
        const dh = 8;
        const weights = {
          wq: new Float32Array(32 * 4 * dh).fill(1e30),
          wk: new Float32Array(32 * 2 * dh).fill(1e30),
          wv: new Float32Array(32 * 2 * dh).fill(1e30),
          wo: new Float32Array(4 * dh * 32).fill(1e30),
        };
        const e = throwsField(() => attn.forward({ ...BASE, x: X, weights }), RangeError, 'weights.wq', [/overflowed/, /1e\+30/]);
        assert.match(e.message, /x up to/);
      });

      test('session.append with x = 1e20 is refused and leaves the cache as it was', () => {
        const s = attn.createSession({ variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2, maxLen: 8 });
        try {
          s.append(X.subarray(0, 64));
          throwsField(() => s.append(new Float32Array(64).fill(1e20)), RangeError, 'x', [/overflowed/]);
          assert.equal(s.length, 2);
          const r = s.append(X.subarray(64, 128));
          assert.ok(r.output.every(Number.isFinite));
        } finally {
          s.dispose();
        }
      });

      test('large but representable inputs still compute finitely', () => {
        const r = attn.forward({ ...BASE, x: new Float32Array(128).fill(1e3), returnWeights: true });
        assert.ok(r.output.every(Number.isFinite) && r.weights.every(Number.isFinite));
      });
    });

    // ---- 3 and 7 ---------------------------------------------------------------------------------
    describe('3 and 7. sizes before copying; the heap does not grow on refused calls', () => {
      test('an x of 268435456 floats for a 128-float input is refused and the heap keeps its size', () => {
        const heap = attn.heapBytes();
        const big = new Float32Array(268435456);
        throwsField(() => attn.forward({ ...BASE, x: big }), RangeError, 'x', [/268435456 elements, expected seqLen \* dModel = 128/]);
        const w = { wq: big, wk: new Float32Array(512), wv: new Float32Array(512), wo: new Float32Array(1024) };
        throwsField(() => attn.forward({ ...BASE, x: X, weights: w }), RangeError, 'weights.wq', [/268435456 elements/]);
        assert.equal(attn.heapBytes(), heap, 'heap size changed');
      });

      test('an Array of 268435456 holes is refused at its first element, without copying', () => {
        const heap = attn.heapBytes();
        throwsField(() => attn.forward({ ...BASE, x: new Array(268435456) }), TypeError, 'x', [/x\[0\] must be a number/]);
        assert.equal(attn.heapBytes(), heap);
      });

      test('an append larger than the room left in the cache is refused before copying', () => {
        const s = attn.createSession({ variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2, maxLen: 8 });
        try {
          const heap = attn.heapBytes();
          throwsField(() => s.append(new Float32Array(64 * 1024 * 1024)), RangeError, 'x', [/maxLen \(8\)/]);
          assert.equal(attn.heapBytes(), heap);
          assert.equal(s.length, 0);
        } finally {
          s.dispose();
        }
      });

      test('256 MiB of garbage given to loadModel is refused on its magic, the heap keeps its size', () => {
        const heap = attn.heapBytes();
        throwsField(() => attn.loadModel(new Uint8Array(256 * 1024 * 1024).fill(7)), RangeError, 'bytes', [/not a model exported/]);
        assert.equal(attn.heapBytes(), heap);
      });
    });

    // ---- 4 ---------------------------------------------------------------------------------------
    describe('4. long work', () => {
      test('step(n) is capped at about a second of work per call (the cost model), and the error says so', () => {
        const t = attn.createTrainer(TRAINER);
        try {
          const max = t.maxStepsPerCall;
          assert.ok(Number.isInteger(max) && max >= 1, String(max));
          throwsField(() => t.step(100000), RangeError, 'n', [/100000/, /cap/, new RegExp(`${max} steps here`), /train\(/]);
          throwsField(() => t.step(max + 1), RangeError, 'n', [/cap/]);
          throwsField(() => t.step(0), RangeError, 'n');
          throwsField(() => t.step(2.5), RangeError, 'n');
          assert.equal(t.steps, 0, 'refused calls take no step');
        } finally {
          t.dispose();
        }
      });

      test('train({ steps, onProgress }) runs in chunks, yields, and equals step(n) in a loop', async () => {
        const a = attn.createTrainer(TRAINER);
        const b = attn.createTrainer(TRAINER);
        try {
          const progress = [];
          let yielded = 0;
          const timer = setInterval(() => yielded++, 0);
          const last = await a.train({ steps: 25, chunk: 10, onProgress: (p) => progress.push(p) });
          clearInterval(timer);
          assert.deepEqual(progress.map((p) => p.done), [10, 20, 25]);
          assert.equal(last.step, 25);
          assert.ok(yielded >= 1, 'the event loop ran between chunks');
          b.step(10); b.step(10);
          assert.equal(b.step(5).loss, last.loss, 'same losses as step() in the same chunks');
        } finally {
          a.dispose();
          b.dispose();
        }
      });

      test('train({ evalEvery }) ends chunks at its multiples and reports evaluate() there', async () => {
        const a = attn.createTrainer(TRAINER);
        const b = attn.createTrainer(TRAINER);
        try {
          const progress = [];
          await a.train({ steps: 25, chunk: 10, evalEvery: 8, onProgress: (p) => progress.push(p) });
          assert.deepEqual(progress.map((p) => p.done), [8, 16, 24, 25]);
          assert.deepEqual(progress.map((p) => 'evaluation' in p), [true, true, true, false]);
          b.step(8);
          assert.deepEqual(progress[0].evaluation, b.evaluate(), 'the evaluation of the model after 8 steps');
          await assert.rejects(a.train({ steps: 5, evalEvery: 0 }), (e) => e instanceof RangeError && e.field === 'evalEvery');
        } finally {
          a.dispose();
          b.dispose();
        }
      });

      test('train() stops on an AbortSignal and keeps the steps already taken', async () => {
        const t = attn.createTrainer(TRAINER);
        try {
          const ac = new AbortController();
          await assert.rejects(
            t.train({ steps: 1000, chunk: 5, signal: ac.signal, onProgress: (p) => p.done >= 10 && ac.abort() }),
            (e) => e.name === 'AbortError',
          );
          assert.equal(t.steps, 10);
          await assert.rejects(t.train({ steps: 5, signal: AbortSignal.abort() }), (e) => e.name === 'AbortError');
          assert.equal(t.steps, 10, 'an aborted signal runs nothing');
          await assert.rejects(t.train({ steps: '5' }), (e) => e instanceof TypeError && e.field === 'steps');
          await assert.rejects(t.train({ steps: 5, chunk: t.maxStepsPerCall + 1 }), (e) => e instanceof RangeError && e.field === 'chunk');
          await assert.rejects(t.train({ steps: 5, every: 1 }), (e) => e instanceof TypeError && e.field === 'every');
        } finally {
          t.dispose();
        }
      });

      test('forward above about a second of work is refused, naming the field to reduce, unless allowLongWork: true', () => {
        const big = { variant: 'gqa', seqLen: 12288, dModel: 512, nHeads: 8, nKvHeads: 2, x: X };
        throwsField(() => attn.forward(big), RangeError, 'seqLen', [/would take about \d+ s/, /attention scores/, /allowLongWork/]);
        // with the opt-in the cap is lifted: the next check (x's length) speaks, nothing runs
        throwsField(() => attn.forward({ ...big, allowLongWork: true }), RangeError, 'x', [/expected seqLen \* dModel/]);
        throwsField(() => attn.forward({ ...big, allowLongWork: 'yes' }), TypeError, 'allowLongWork');
        // probes: the softmax over 131072^2 scores (71.8 s before), at dModel 1 and causal at 2
        throwsField(() => attn.forward({ variant: 'mha', seqLen: 131072, dModel: 1, nHeads: 1, x: X }), RangeError, 'seqLen');
        throwsField(() => attn.forward({ variant: 'mha', seqLen: 131072, dModel: 2, nHeads: 1, causal: true, x: X }),
          RangeError, 'seqLen');
        // the stages of the walkthrough run plain loops: their own estimate, which refuses passes the plain
        // forward accepts (the first such seqLen on this build; x is refused by its length once the caps pass)
        const pass = (n) => ({ variant: 'mha', seqLen: n, dModel: 64, nHeads: 4 });
        const stages = (n) => ({ ...pass(n), returnIntermediates: true, x: X });
        let n = 256;
        const refusal = (spec) => { try { attn.forward(spec); } catch (e) { return e; } return null; };
        while (n < 8192 && refusal(stages(n))?.field === 'x') n += 256;
        assert.doesNotThrow(() => attn.resolveShape(pass(n)), `forward at seqLen ${n}`);
        throwsField(() => attn.forward(stages(n)), RangeError, 'seqLen', [/returnIntermediates/]);
      });

      test('a session append above about a second of work is refused before x is copied, unless allowLongWork', () => {
        const spec = { variant: 'mha', dModel: 128, nHeads: 1, maxLen: 12000 };
        const s = attn.createSession(spec);
        const heap = attn.heapBytes();
        try {
          throwsField(() => s.append(new Float32Array(12000 * 128)), RangeError, 'x', [/would take about/, /fewer tokens per call/]);
          assert.equal(s.length, 0);
          assert.equal(attn.heapBytes(), heap);
        } finally {
          s.dispose();
        }
        // MLA at latentRank 4096 (4-31 s a chunk before): the scores run at latentRank
        const mla = attn.createSession({ variant: 'mla', dModel: 64, nHeads: 4, dHead: 1, latentRank: 4096, maxLen: 4096 });
        try {
          throwsField(() => mla.append(new Float32Array(1024 * 64)), RangeError, 'x', [/latentRank/]);
        } finally {
          mla.dispose();
        }
        throwsField(() => attn.createSession({ variant: 'mla', dModel: 64, nHeads: 64, dHead: 1, latentRank: 4096, maxLen: 32768 }),
          RangeError, 'maxLen', [/a full cache/]);
      });
    });

    // ---- 5 ---------------------------------------------------------------------------------------
    describe('5. own fields only; numbers only', () => {
      test('fields inherited from Object.prototype are not read (dHead, seed, an unknown one)', () => {
        const plain = attn.forward({ ...BASE, x: X });
        const count = attn.paramCount({ variant: 'mha', dModel: 64, nHeads: 8 }).total;
        try {
          Object.prototype.dHead = 4;
          Object.prototype.seed = 9;
          Object.prototype.nKVHeads = 3;
          assert.ok(bitIdentical(attn.forward({ ...BASE, x: X }).output, plain.output));
          assert.equal(attn.paramCount({ variant: 'mha', dModel: 64, nHeads: 8 }).total, count);
          const t = attn.createTrainer(TRAINER);
          t.dispose();
        } finally {
          delete Object.prototype.dHead;
          delete Object.prototype.seed;
          delete Object.prototype.nKVHeads;
        }
        // a spec made from a class instance: own fields count, prototype getters do not
        class Spec { get seed() { return 9; } }
        const fromClass = Object.assign(new Spec(), BASE, { x: X });
        assert.ok(bitIdentical(attn.forward(fromClass).output, plain.output));
      });

      test("trainer.step('5'), step(true), step([2]), step(null) are refused with a TypeError naming n", () => {
        const t = attn.createTrainer(TRAINER);
        try {
          for (const bad of ['5', true, [2], null, 5n]) throwsField(() => t.step(bad), TypeError, 'n');
          assert.equal(t.steps, 0);
        } finally {
          t.dispose();
        }
      });
    });

    // ---- 6 ---------------------------------------------------------------------------------------
    describe('6. engine-level failures name the field', () => {
      const detached = (n) => {
        const a = new Float32Array(n);
        structuredClone(a.buffer, { transfer: [a.buffer] });
        return a;
      };
      test('a detached ArrayBuffer as x, a weight or append input', () => {
        throwsField(() => attn.forward({ ...BASE, x: detached(128) }), TypeError, 'x', [/detached/]);
        const w = { wq: detached(1024), wk: new Float32Array(512), wv: new Float32Array(512), wo: new Float32Array(1024) };
        throwsField(() => attn.forward({ ...BASE, x: X, weights: w }), TypeError, 'weights.wq', [/detached/]);
        const s = attn.createSession({ variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2, maxLen: 8 });
        try {
          throwsField(() => s.append(detached(32)), TypeError, 'x', [/detached/]);
        } finally {
          s.dispose();
        }
        const bytes = new Uint8Array(16);
        structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
        throwsField(() => attn.loadModel(bytes), TypeError, 'bytes', [/detached/]);
      });

      test('a BigInt inside x or a weight', () => {
        const x = Array.from(X);
        x[5] = 5n;
        throwsField(() => attn.forward({ ...BASE, x }), TypeError, 'x', [/x\[5\]/, /bigint/]);
        throwsField(() => attn.forward({ ...BASE, x: X, seed: 1n }), TypeError, 'seed', [/bigint/]);
      });

      test('a getter that throws (an Error or anything else) names its field', () => {
        const spec = { ...BASE, x: X };
        Object.defineProperty(spec, 'nHeads', { enumerable: true, get() { throw new Error('boom'); } });
        throwsField(() => attn.forward(spec), TypeError, 'nHeads', [/getter threw/, /boom/]);
        const rope = {};
        Object.defineProperty(rope, 'base', { enumerable: true, get() { throw 42; } }); // eslint-disable-line no-throw-literal
        throwsField(() => attn.forward({ ...BASE, x: X, rope }), TypeError, 'rope.base', [/42/]);
        const model = { variant: 'mha', dModel: 16 };
        Object.defineProperty(model, 'nHeads', { enumerable: true, get() { throw new RangeError('no'); } });
        throwsField(() => attn.createTrainer({ ...TRAINER, model }), TypeError, 'model.nHeads');
        const proxy = new Proxy({}, { ownKeys() { throw new Error('trap'); } });
        throwsField(() => attn.forward(proxy), TypeError, undefined, [/trap/]);
      });

      test('afterwards the module still gives the same results', () => {
        const a = attn.forward({ ...BASE, x: X, seed: 2 });
        const b = attn.forward({ ...BASE, x: X, seed: 2 });
        assert.ok(bitIdentical(a.output, b.output));
        assert.ok(a.output.every(Number.isFinite));
      });
    });
  });
}

// A seeded fuzz of the JS layer (the native fuzzer cannot make inherited fields): random specs with
// huge, odd-typed and inherited fields. Properties: every call returns finite numbers or throws an
// Error whose `field`, when set, is a string that the message mentions (its last path segment);
// inherited fields never change a result.
describe('JS-layer fuzz: huge, odd and inherited fields', () => {
  test('400 random specs per build', async () => {
    const { rng } = await import('./helpers.mjs');
    const r = rng(12);
    const pick = (a) => a[Math.floor(r() * a.length)];
    const FIELDS = ['variant', 'seqLen', 'dModel', 'nHeads', 'nKvHeads', 'dHead', 'latentRank', 'ropeDim', 'rope', 'causal', 'seed', 'returnWeights', 'allowLongWork'];
    const VALUES = [1, 2, 4, 8, 16, 0, -1, 2.5, 1e300, 2 ** 53 + 2, Number.MAX_VALUE, NaN, Infinity, '4', true, null, [], {}, 5n, 'gqa', 'mla', { base: 1e300 }];
    for (const { simd } of BUILDS) {
      const attn = await load(simd);
      for (let i = 0; i < 400; i++) {
        const own = { variant: pick(['mha', 'mqa', 'gqa', 'mla']), seqLen: pick([1, 2, 3]), dModel: pick([8, 16]), nHeads: pick([1, 2, 4]) };
        if (own.variant === 'gqa') own.nKvHeads = pick([1, 2]);
        if (own.variant === 'mla') own.latentRank = pick([2, 4]);
        for (let k = Math.floor(r() * 3); k > 0; k--) own[pick(FIELDS)] = pick(VALUES);
        const inherited = {};
        for (let k = 1 + Math.floor(r() * 3); k > 0; k--) inherited[pick([...FIELDS, 'x', 'weights', 'nKVHeads'])] = pick(VALUES);
        const len = Number(own.seqLen) * Number(own.dModel);
        const x = randomArray(Number.isInteger(len) && len > 0 && len <= 4096 ? len : 16, i);
        const run = (spec) => {
          try {
            const res = attn.forward(spec);
            assert.ok(res.output.every(Number.isFinite), 'non-finite output');
            return res.output;
          } catch (e) {
            assert.ok(e instanceof Error, `non-Error ${String(e)}`);
            if (e.field !== undefined) {
              assert.equal(typeof e.field, 'string');
              const last = e.field.split('.').pop();
              assert.ok(e.message.includes(last), `field ${e.field} not in "${e.message}"`);
            }
            return e.message;
          }
        };
        const plain = run({ ...own, x });
        const withProto = run(Object.assign(Object.create(inherited), own, { x }));
        if (typeof plain === 'string') assert.equal(withProto, plain, `spec ${i}: inherited fields changed the error`);
        else assert.ok(bitIdentical(withProto, plain), `spec ${i}: inherited fields changed the output`);
      }
    }
  });
});

describe('5. loadAttention option checks', () => {
  test('non-objects and unknown keys are refused with a TypeError', async () => {
    const { loadAttention } = await importLib();
    for (const bad of [42, null, 'auto', [true], true]) {
      await assert.rejects(loadAttention(bad), (e) => e instanceof TypeError && /options must be an object/.test(e.message), String(bad));
    }
    await assert.rejects(loadAttention({ simd: true, threads: 2 }), (e) => e instanceof TypeError && /unknown option 'threads'/.test(e.message));
    try {
      Object.prototype.simd = 'nonsense';
      const a = await loadAttention({});
      assert.equal(a.info.build, 'simd', 'an inherited simd option is not read');
    } finally {
      delete Object.prototype.simd;
    }
    assert.ok(await loadAttention(undefined));
  });
});
