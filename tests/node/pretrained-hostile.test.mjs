// attn.loadPretrained and hostile files, on both builds: a safetensors layout that does not cover its
// data exactly once (a key twice, overlapping tensors, a header length a few bytes short, trailing
// bytes, a cut shard, a shard twice) is refused naming the tensor and the file; a forward, a layer's
// stages and a session that overflow float32 on finite weights are refused naming the layer and the
// tensor; a Stop (AbortSignal) lands while a load runs; a config or header over its cap is refused
// before it is parsed, the heap unchanged; weights that are not real buffers are refused by field.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BUILDS, load } from './helpers.mjs';
import { config, weights, rejection } from './pretrained-kit.mjs';


/** @param {Uint8Array} bytes */
function parts(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const text = new TextDecoder().decode(bytes.subarray(8, 8 + n));
  return { n, text, header: JSON.parse(text), data: bytes.subarray(8 + n) };
}

/** A file from a header's text (length as written, or `length`) and data. @param {string} text @param {Uint8Array} data */
function file(text, data, length = -1) {
  const t = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + t.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(length < 0 ? t.length : length), true);
  out.set(t, 8);
  out.set(data, 8 + t.length);
  return out;
}

/** The names of the tensors first and last in the data. @param {any} h */
function firstAndLast(h) {
  const names = Object.keys(h).filter((k) => k !== '__metadata__').sort((a, b) => h[a].data_offsets[0] - h[b].data_offsets[0]);
  return [names[0], names.at(-1)];
}

/** Copies of a checkpoint's files with every element of `name` set to `value` (BF16 or F32). */
function filled(files, name, value) {
  return files.map((f) => {
    const { n, header } = parts(f);
    const t = header[name];
    if (!t) return f;
    const out = f.slice();
    const view = new DataView(out.buffer);
    const bits = new Uint32Array(new Float32Array([value]).buffer)[0];
    const width = t.dtype === 'F32' ? 4 : 2;
    for (let at = 8 + n + t.data_offsets[0]; at < 8 + n + t.data_offsets[1]; at += width) {
      if (width === 4) view.setUint32(at, bits, true);
      else view.setUint16(at, bits >>> 16, true);  // BF16: the top half
    }
    return out;
  });
}

for (const build of BUILDS) {
  describe(build.name, () => {
    test('a layout that does not cover the data exactly once is refused, naming the tensor and the file', async () => {
      const attn = await load(build.simd);
      const qwen = weights('qwen2')[0];
      const { text, header: h, data } = parts(qwen);
      const [first, last] = firstAndLast(h);
      const overlapping = structuredClone(h);
      for (const [k, t] of Object.entries(overlapping)) {
        if (k !== '__metadata__' && k !== first) t.data_offsets = t.data_offsets.map((/** @type {number} */ x) => x - 4);
      }
      const padded = JSON.stringify(h) + ' '.repeat(8);
      const trailing = new Uint8Array(qwen.length + 8);
      trailing.set(qwen);
      const cases = [
        ['a key twice', file(`{"${last}":${JSON.stringify(h[first])},${text.slice(1)}`, data), `weights.${last}`, /appears twice/],
        ['overlapping tensors', file(JSON.stringify(overlapping), data.subarray(0, data.length - 4)), undefined, /overlaps/],
        ['a header length 4 bytes short', file(padded, data, padded.length - 4), `weights.${last}`, /4 bytes after the last tensor/],
        ['a header length 8 bytes short', file(padded, data, padded.length - 8), `weights.${last}`, /8 bytes after the last tensor/],
        ['trailing bytes', trailing, `weights.${last}`, /8 bytes after the last tensor/],
      ];
      for (const [what, bytes, field, message] of cases) {
        const err = await rejection(() => attn.loadPretrained({ config: config('qwen2'), weights: bytes }));
        assert.equal(err.name, 'RangeError', `${what}: ${err.message}`);
        if (field) assert.equal(err.field, field, `${what}: ${err.message}`);
        else assert.match(err.field, /^weights\.model\./, what);
        assert.match(err.message, message, what);
        assert.match(err.message, /^weights: /, `${what}: the message names the file`);
      }
      // shards: a cut one and a repeated one name their files
      const [a, b] = weights('llama3');
      let err = await rejection(() => attn.loadPretrained({ config: config('llama3'), weights: [a, b.subarray(0, b.length - 100)] }));
      assert.match(err.field, /^weights\./);
      assert.match(err.message, /^weights\[1\]: .*truncated/);
      err = await rejection(() => attn.loadPretrained({ config: config('llama3'), weights: [a, b, b] }));
      assert.match(err.message, /in two of the files, weights\[1\] and weights\[2\]/);
      const model = await attn.loadPretrained({ config: config('llama3'), weights: [a, b] });
      assert.ok(model.forward([1, 2]).logits.every(Number.isFinite), 'the module works after every refusal');
      model.dispose();
    });

    test('a forward that overflows float32 on finite weights is refused, naming the layer and the tensor', async () => {
      const attn = await load(build.simd);
      const ids = [1, 5, 9, 13];
      const q = 'model.layers.1.self_attn.q_proj.weight';
      let files = filled(weights('llama3'), q, 1e30);
      files = filled(files, 'model.layers.1.self_attn.k_proj.weight', 1e29);
      let model = await attn.loadPretrained({ config: config('llama3'), weights: files });
      for (const [what, fn] of [
        ['forward', () => model.forward(ids, { attentions: true })],
        ['stages', () => model.stages(ids, { layer: 1 })],
        ['append', () => model.createSession({ maxLen: 8 }).append(ids)],
      ]) {
        const err = await rejection(fn);
        assert.equal(err.name, 'RangeError', `${what}: ${err.message}`);
        assert.equal(err.field, `weights.${q}`, `${what}: ${err.message}`);
        assert.match(err.message, /layer 1's output overflowed float32/, what);
      }
      assert.ok(model.stages(ids, { layer: 0 }).output.every(Number.isFinite), 'layer 0 is fine');
      model.dispose();
      model = await attn.loadPretrained({ config: config('llama3'), weights: filled(weights('llama3'), 'lm_head.weight', 3e38) });
      for (const fn of [() => model.forward(ids), () => model.createSession({ maxLen: 8 }).append([1])]) {
        const err = await rejection(fn);
        assert.equal(err.field, 'weights.lm_head.weight', err.message);
        assert.match(err.message, /the logits overflowed float32/);
      }
      model.dispose();
    });

    test('a Stop lands while a load runs: it yields to the event loop between steps', async () => {
      const attn = await load(build.simd);
      const files = weights('llama3');
      const controller = new AbortController();
      const loading = attn.loadPretrained({ config: config('llama3'), weights: files, signal: controller.signal });
      setTimeout(() => controller.abort(), 0);  // a task, as a click on Stop would be
      const err = await rejection(() => loading);
      assert.equal(err.name, 'AbortError');
      const model = await attn.loadPretrained({ config: config('llama3'), weights: files });
      model.dispose();
    });

    test('a config or a header over its cap is refused before it is parsed, the heap unchanged', async () => {
      const attn = await load(build.simd);
      (await attn.loadPretrained({ config: config('gpt2'), weights: weights('gpt2') })).dispose();  // the module is loaded
      const before = attn.heapBytes();
      const limits = { maxConfigBytes: 1048576, maxHeaderBytes: 1048576 };  // docs/api.md
      let err = await rejection(() => attn.loadPretrained({ config: { ...config('qwen2'), note: 'x'.repeat(5e6) }, weights: weights('qwen2') }));
      assert.equal(err.name, 'RangeError');
      assert.equal(err.field, 'config', err.message);
      assert.match(err.message, new RegExp(String(limits.maxConfigBytes)));
      assert.equal(attn.heapBytes(), before, 'nothing of the config reached the heap');
      const checked = await rejection(() => attn.checkPretrainedConfig({ ...config('qwen2'), note: 'x'.repeat(5e6) }));
      assert.deepEqual([checked.name, checked.field, checked.message], [err.name, err.field, err.message], 'checked alone: the same refusal');
      const long = new Uint8Array(8 + limits.maxHeaderBytes + 16);
      new DataView(long.buffer).setBigUint64(0, BigInt(limits.maxHeaderBytes + 8), true);
      err = await rejection(() => attn.loadPretrained({ config: config('qwen2'), weights: long }));
      assert.equal(err.field, 'weights', err.message);
      assert.match(err.message, new RegExp(String(limits.maxHeaderBytes)));
      assert.equal(attn.heapBytes(), before, 'nor of the header');
    });

    test('weights that are not real buffers (detached, a Proxy) are refused, naming the field', async () => {
      const attn = await load(build.simd);
      const qwen = weights('qwen2')[0];
      const detached = qwen.slice().buffer;
      structuredClone(detached, { transfer: [detached] });
      const gone = qwen.slice();
      structuredClone(gone.buffer, { transfer: [gone.buffer] });
      for (const [what, w] of [['a detached ArrayBuffer', detached], ['a view of one', gone], ['a Proxy of a Uint8Array', new Proxy(qwen, {})],
        ['a Proxy of an ArrayBuffer', new Proxy(qwen.slice().buffer, {})]]) {
        const err = await rejection(() => attn.loadPretrained({ config: config('qwen2'), weights: w }));
        assert.equal(err.name, 'TypeError', `${what}: ${err.message}`);
        assert.equal(err.field, 'weights', `${what}: ${err.message}`);
      }
      // Node's Blob reads through a Proxy (its getters do not check the receiver; browsers' do, and
      // refuse it as above): it either loads as the Blob itself or is refused naming the field
      try {
        (await attn.loadPretrained({ config: config('qwen2'), weights: new Proxy(new Blob([qwen]), {}) })).dispose();
      } catch (e) {
        assert.equal(/** @type {any} */ (e).field, 'weights', String(e));
      }
    });
  });
}
