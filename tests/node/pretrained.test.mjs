// attn.loadPretrained on both builds: every fixture checkpoint of tests/fixtures/pretrained/ against
// PyTorch (logits and attention maps within 1e-4), decoding with the KV cache against forward, the
// SIMD and scalar builds bit for bit, the ways to pass files (Uint8Array, ArrayBuffer, Blob, shards),
// progress and abort, and every refusal with its error.field (docs/api.md, "Pretrained checkpoints").
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILDS, load, assertClose, bitIdentical } from './helpers.mjs';
import { CASES, config, weights, expected, editHeader, rejection } from './pretrained-kit.mjs';

const TOL = 1e-4;  // against the float64 reference over the files' exact (widened) weights, F32 and 16-bit alike


for (const build of BUILDS) {
  describe(`pretrained checkpoints (${build.name})`, () => {
    for (const c of CASES) {
      test(`${c.name} (${c.model_type}, ${c.dtype}): logits, maps and decoding against PyTorch`, async () => {
        const attn = await load(build.simd);
        const model = await attn.loadPretrained({ config: config(c.name), weights: weights(c.name) });
        const e = expected(c.name);
        const out = model.forward(e.ids, { attentions: true });
        assertClose(out.logits, e.logits, TOL, `${c.name} logits`);
        assert.equal(out.attentions.length, e.attentions.length);
        out.attentions.forEach((m, l) => assertClose(m, e.attentions[l], TOL, `${c.name} layer ${l} maps`));
        const { info } = model;
        assert.equal(info.modelType, c.model_type);
        assert.equal(info.nLayers, e.attentions.length);
        assert.equal(info.kvHeadOf.length, info.nHeads);
        // token by token through a session: the rows of forward's logits
        const s = model.createSession({ maxLen: e.ids.length });
        const rows = [];
        for (let i = 0; i < e.ids.length; i++) rows.push(...s.append([e.ids[i]]).logits);
        assertClose(Float32Array.from(rows), out.logits, TOL, `${c.name} decoded logits`);
        assert.equal(s.length, e.ids.length);
        const perToken = info.variant === 'mla' ? info.latentRank + info.ropeDim : 2 * info.nKvHeads * info.dHead;
        assert.equal(s.cacheBytes, 4 * perToken * info.nLayers * e.ids.length);
        s.dispose();
        model.dispose();
        assert.throws(() => model.forward(e.ids), /disposed/);
      });
    }

    test('the files as an ArrayBuffer, a Blob, or shards in any order; progress; abort', async () => {
      const attn = await load(build.simd);
      const e = expected('llama3');
      const [a, b] = weights('llama3');
      const seen = [];
      const model = await attn.loadPretrained({ config: config('llama3'), weights: [new Blob([b]), a.slice().buffer],
        onProgress: (p) => seen.push(p) });
      assertClose(model.forward(e.ids).logits, e.logits, TOL, 'llama3 from a Blob and an ArrayBuffer');
      assert.ok(seen.length > 10);
      assert.equal(seen.at(-1).loaded, seen.at(-1).total);
      assert.equal(seen.at(-1).total, model.info.weightBytes);
      model.dispose();
      const controller = new AbortController();
      const err = await rejection(() => attn.loadPretrained({ config: config('llama3'), weights: [a, b], signal: controller.signal,
        onProgress: () => controller.abort() }));
      assert.equal(err.name, 'AbortError');
    });

    test('a Blob is read as a stream: chunks that end inside tensors give the same model; abort mid-stream; the module loads again', async () => {
      const attn = await load(build.simd);
      // Node's Blob streams a Blob of many parts part by part: chunks of 1,000 bytes (and a last, shorter one)
      const parts = (bytes) => new Blob(Array.from({ length: Math.ceil(bytes.length / 1000) }, (_, k) => bytes.slice(k * 1000, (k + 1) * 1000)));
      for (const name of ['llama3', 'deepseek_v2', 'gpt2']) {
        const files = weights(name);
        const e = expected(name);
        const seen = [];
        const fromBytes = await attn.loadPretrained({ config: config(name), weights: files });
        const model = await attn.loadPretrained({ config: config(name), weights: files.map(parts), onProgress: (p) => seen.push(p.loaded) });
        assert.ok(bitIdentical(model.forward(e.ids).logits, fromBytes.forward(e.ids).logits), `${name}: the same logits as from the bytes`);
        assert.ok(seen.length > files.reduce((s, f) => s + f.length, 0) / 1000 / 2, `${name}: progress as the chunks pass (${seen.length})`);
        assert.ok(seen.every((x, k) => k === 0 || x > seen[k - 1]), 'progress only grows');
        assert.equal(seen.at(-1), model.info.weightBytes);
        model.dispose();
        fromBytes.dispose();
      }
      const controller = new AbortController();
      let calls = 0;
      const err = await rejection(() => attn.loadPretrained({ config: config('llama3'), weights: weights('llama3').map(parts), signal: controller.signal,
        onProgress: () => { if (++calls === 5) controller.abort(); } }));
      assert.equal(err.name, 'AbortError');
      const again = await attn.loadPretrained({ config: config('llama3'), weights: weights('llama3').map((f) => new Blob([f])) });
      assertClose(again.forward(expected('llama3').ids).logits, expected('llama3').logits, TOL, 'llama3 after an abort');
      again.dispose();
    });

    test('a streamed file { stream, size } (a download\'s body): the same model from chunks that end inside the header and the tensors; a short, locked or unsized stream is refused by name; a failed load cancels it', async () => {
      const attn = await load(build.simd);
      /** A ReadableStream of `bytes` in chunks of `size` bytes (the first of 3: inside the 8-byte length), noting a cancel. */
      const chunks = (bytes, size = 997, notes = {}) => {
        let at = 0;
        return new ReadableStream({
          pull(controller) {
            const n = at === 0 ? 3 : size;
            if (at >= bytes.length) { controller.close(); return; }
            controller.enqueue(bytes.slice(at, at + n));
            at += n;
          },
          cancel(reason) { notes.cancelled = reason ?? true; },
        });
      };
      for (const name of ['llama3', 'deepseek_v2', 'gpt2']) {
        const files = weights(name);
        const e = expected(name);
        const fromBytes = await attn.loadPretrained({ config: config(name), weights: files });
        const seen = [];
        const model = await attn.loadPretrained({ config: config(name), weights: files.map((f) => ({ stream: chunks(f), size: f.length })),
          onProgress: (p) => seen.push(p.loaded) });
        assert.ok(bitIdentical(model.forward(e.ids).logits, fromBytes.forward(e.ids).logits), `${name}: the same logits as from the bytes`);
        assert.equal(seen.at(-1), model.info.weightBytes);
        model.dispose();
        fromBytes.dispose();
      }
      const [a] = weights('gpt2');
      const streamed = (bytes, size = bytes.length) => ({ config: config('gpt2'), weights: { stream: chunks(bytes), size } });
      // a body cut short: inside the header, then inside the tensors (the file's length says more)
      let err = await rejection(() => attn.loadPretrained(streamed(a.subarray(0, 40), a.length)));
      assert.equal(err.field, 'weights');
      assert.match(err.message, /weights ended after \d+ bytes, inside its header/);
      err = await rejection(() => attn.loadPretrained(streamed(a.subarray(0, a.length >> 1), a.length)));
      assert.match(err.field, /^weights\.\S+/, `the tensor it ended in: ${err.field}`);
      assert.match(err.message, /read \d+ bytes, expected \d+/);
      // refused before a byte is read: its size, a locked stream, a stream that is not one
      err = await rejection(() => attn.loadPretrained(streamed(a, -1)));
      assert.equal(err.field, 'weights.size');
      const locked = chunks(a);
      locked.getReader();
      err = await rejection(() => attn.loadPretrained({ config: config('gpt2'), weights: { stream: locked, size: a.length } }));
      assert.equal(err.field, 'weights.stream');
      assert.match(err.message, /locked/);
      err = await rejection(() => attn.loadPretrained({ config: config('gpt2'), weights: { stream: { getReader() {} }, size: a.length } }));
      assert.equal(err.field, 'weights.stream');
      // a load that fails (a refused config key) after the stream was opened cancels it: its download stops
      const cancelled = {};
      const bad = { ...config('gpt2'), n_head: 3 };
      err = await rejection(() => attn.loadPretrained({ config: bad, weights: { stream: chunks(a, 997, cancelled), size: a.length } }));
      assert.ok(err instanceof Error);
      assert.ok(cancelled.cancelled, 'the stream was cancelled');
      // and the module still loads
      const again = await attn.loadPretrained(streamed(a));
      assertClose(again.forward(expected('gpt2').ids).logits, expected('gpt2').logits, TOL, 'gpt2 after the refusals');
      again.dispose();
    });

    test('weights stay 16-bit in memory: weightBytes is the files\' tensors', async () => {
      const attn = await load(build.simd);
      for (const name of ['llama3', 'gpt2']) {
        const model = await attn.loadPretrained({ config: config(name), weights: weights(name) });
        const c = CASES.find((x) => x.name === name);
        assert.equal(model.info.weightBytes, model.info.params * (c.dtype === 'F32' ? 4 : 2), name);
        model.dispose();
      }
    });

    test('a call estimated above a second of work is refused, naming ids, unless allowLongWork', async () => {
      const attn = await load(build.simd);
      const model = await attn.loadPretrained({ config: config('qwen2'), weights: weights('qwen2') });
      const ids = new Int32Array(6144).fill(1);  // the attention's n^2 terms: above a second on either build
      const refused = (/** @type {any} */ e) => e.name === 'RangeError' && e.field === 'ids' && /s of work/.test(e.message) &&
        /allowLongWork/.test(e.message);
      assert.throws(() => model.forward(ids), refused);
      const s = model.createSession({ maxLen: ids.length });
      assert.throws(() => s.append(ids), refused);
      assert.equal(s.length, 0, 'a refused append leaves the cache as it was');
      assert.equal(s.append(ids, { allowLongWork: true }).logits.length, ids.length * 64);
      assert.equal(s.length, ids.length);
      s.dispose();
      assert.equal(model.forward(ids.subarray(0, 16)).logits.length, 16 * 64, 'a short call is under the cap');
      model.dispose();
    });

    test('refusals name the config key or the tensor, before anything is allocated', async () => {
      const attn = await load(build.simd);
      const file = weights('qwen2')[0];
      const q = 'model.layers.0.self_attn.q_proj.weight';
      const cases = [
        [{ config: { ...config('qwen2'), model_type: 'bert' }, weights: file }, 'RangeError', 'config.model_type'],
        [{ config: { ...config('qwen2'), some_new_setting: 1 }, weights: file }, 'RangeError', 'config.some_new_setting'],
        [{ config: { ...config('qwen2'), num_key_value_heads: 3 }, weights: file }, 'RangeError', 'config.num_key_value_heads'],
        [{ config: { ...config('deepseek_v2'), first_k_dense_replace: 1 }, weights: weights('deepseek_v2') }, 'RangeError', 'config.first_k_dense_replace'],
        // renamed, not deleted: a file must still cover its data exactly once
        [{ config: config('qwen2'), weights: editHeader(file, (h) => { h[`${q}_renamed`] = h[q]; delete h[q]; }) }, 'TypeError', `weights.${q}`],
        [{ config: config('qwen2'), weights: editHeader(file, (h) => { h[q].shape = [16, 64]; }) }, 'RangeError', `weights.${q}`],
        [{ config: config('qwen2'), weights: editHeader(file, (h) => { h[q].dtype = 'I16'; }) }, 'TypeError', `weights.${q}`],
        [{ config: config('qwen2'), weights: file.subarray(0, file.length - 100) }, 'RangeError', 'weights.model.norm.weight'],  // the last tensor in the data
        [{ config: config('qwen2'), weights: file.subarray(0, 5) }, 'RangeError', 'weights'],
        [{ config: config('qwen2'), weights: [file, file] }, 'RangeError', 'weights.model.embed_tokens.weight'],
        [{ config: config('qwen2'), weights: new Float32Array(4) }, 'TypeError', 'weights'],
        [{ config: config('qwen2') }, 'TypeError', 'weights'],
        [{ config: 'qwen2', weights: file }, 'TypeError', 'config'],
        [{ config: config('qwen2'), weights: file, progress: true }, 'TypeError', 'progress'],
      ];
      for (const [options, name, field] of cases) {
        const err = await rejection(() => attn.loadPretrained(options));
        assert.equal(err.name, name, `${field}: ${err.message}`);
        assert.equal(err.field, field, err.message);
      }
      // A checkpoint larger than memory allows: refused from its header, the heap unchanged (the 3.5 GB
      // it declares are a sparse file on disk, read as a Blob: never read at all; below 4 GiB, as
      // Node 20's fs.openAsBlob reports a file's size modulo 2^32).
      const big = { ...config('qwen2'), vocab_size: 650000, hidden_size: 2560, intermediate_size: 2560,
        num_attention_heads: 4, num_key_value_heads: 1 };
      const D = 2560, KV = 640;  // qwen2's tensors at these sizes, by the ends of their names
      const shapes = { 'embed_tokens.weight': [650000, D], 'q_proj.weight': [D, D], 'q_proj.bias': [D], 'k_proj.weight': [KV, D],
        'k_proj.bias': [KV], 'v_proj.weight': [KV, D], 'v_proj.bias': [KV], 'o_proj.weight': [D, D], 'proj.weight': [D, D],
        'layernorm.weight': [D], 'norm.weight': [D] };
      const huge = editHeader(file, (h) => {
        let offset = 0;
        for (const [k, t] of Object.entries(h)) {
          if (k === '__metadata__') continue;
          const shape = shapes[Object.keys(shapes).find((end) => k.endsWith(end))];
          const size = shape.reduce((x, y) => x * y, 1) * 2;
          Object.assign(t, { shape, data_offsets: [offset, offset + size] });
          offset += size;
        }
      });
      const n = Number(new DataView(huge.buffer, huge.byteOffset, 8).getBigUint64(0, true));
      const declared = Object.values(JSON.parse(new TextDecoder().decode(huge.subarray(8, 8 + n))))
        .reduce((end, t) => Math.max(end, /** @type {any} */ (t).data_offsets?.[1] ?? 0), 0);
      const sparse = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attn-huge-')), 'model.safetensors');
      fs.writeFileSync(sparse, huge.subarray(0, 8 + n));
      fs.truncateSync(sparse, 8 + n + declared);
      const before = attn.heapBytes();
      const err = await rejection(async () => attn.loadPretrained({ config: big, weights: await fs.openAsBlob(sparse) }));
      fs.rmSync(path.dirname(sparse), { recursive: true });
      assert.equal(err.name, 'RangeError');
      assert.equal(err.field, 'weights', err.message);
      assert.match(err.message, /MiB/);
      assert.equal(attn.heapBytes(), before);
      // ids and lengths
      const model = await attn.loadPretrained({ config: config('gpt2'), weights: weights('gpt2') });
      for (const [fn, name, field] of [
        [() => model.forward([1, 64]), 'RangeError', 'ids'],
        [() => model.forward([0.5]), 'RangeError', 'ids'],
        [() => model.forward(new Array(33).fill(1)), 'RangeError', 'ids'],
        [() => model.forward('12'), 'TypeError', 'ids'],
        [() => model.forward([1], { attention: true }), 'TypeError', 'attention'],
        [() => model.createSession({ maxLen: 33 }), 'RangeError', 'maxLen'],
        [() => model.createSession({}), 'TypeError', 'maxLen'],
      ]) {
        assert.throws(fn, (e) => e.name === name && e.field === field, `${field}`);
      }
      const s = model.createSession({ maxLen: 3 });
      s.append([1, 2]);
      assert.throws(() => s.append([3, 4]), (e) => e.field === 'ids');
      assert.equal(s.length, 2);
      s.dispose();
      assert.ok(model.forward([1, 2, 3]).logits.length === 3 * 64, 'the model works after every refusal');
      model.dispose();
    });
  });
}

test('the SIMD and scalar builds give the same bits', async () => {
  const [simd, scalar] = [await load(true), await load(false)];
  for (const c of CASES) {
    const e = expected(c.name);
    const outs = [];
    for (const attn of [simd, scalar]) {
      const model = await attn.loadPretrained({ config: config(c.name), weights: weights(c.name) });
      outs.push(model.forward(e.ids, { attentions: true }));
      model.dispose();
    }
    assert.ok(bitIdentical(outs[0].logits, outs[1].logits), `${c.name} logits`);
    outs[0].attentions.forEach((m, l) => assert.ok(bitIdentical(m, outs[1].attentions[l]), `${c.name} maps ${l}`));
  }
});
