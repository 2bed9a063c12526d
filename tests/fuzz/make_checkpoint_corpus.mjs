// make_checkpoint_corpus.mjs: writes the hostile-checkpoint seeds of the fuzzer's checkpoint mode
// (mode byte 0xAB: config.json's text, a NUL byte, a .safetensors file), tests/fuzz/corpus/
// pretrained_hostile_*, from the fixtures of tests/fixtures/pretrained/: each a file that once loaded
// as another model or overflowed silently, and that the loader now refuses (so that mutations start
// from the edges of the checks):
//   duplicate_key     a tensor key twice (a JSON reader keeps the last one)
//   overlap           tensors that overlap by 4 bytes
//   gap               4 bytes between two tensors
//   header_short_4/8  the header length 4 / 8 bytes short: every tensor shifted
//   trailing          8 bytes after the last tensor
//   qk_overflow       q and k projections near 1e30 (finite in BF16): the scores overflow float32
//   head_overflow     an LM head near 3e38 (BF16): the logits overflow float32
//   layer_types       a layer_types list one entry too long
//   long_model_type   a model_type of 64 KiB (the message quotes 40 characters of it)
// Needs only the fixtures (no build): node tests/fuzz/make_checkpoint_corpus.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(HERE, '..', 'fixtures', 'pretrained');
const OUT = path.join(HERE, 'corpus');

/** @param {string} name */
const configText = (name) => fs.readFileSync(path.join(FIXTURES, name, 'config.json'), 'utf8');
/** @param {string} name */
const weights = (name) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, name, 'model.safetensors')));

/** @param {Uint8Array} bytes */
function parts(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.subarray(8 + n) };
}

/** @param {string} text @param {Uint8Array} data @param {number} [length] */
function file(text, data, length) {
  const t = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + t.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(length ?? t.length), true);
  out.set(t, 8);
  out.set(data, 8 + t.length);
  return out;
}

/** Writes mode 0xAB, the config, NUL, the file. @param {string} name @param {string} config @param {Uint8Array} bytes */
function write(name, config, bytes) {
  const c = new TextEncoder().encode(config);
  const out = new Uint8Array(2 + c.length + bytes.length);
  out[0] = 0xab;
  out.set(c, 1);
  out.set(bytes, 2 + c.length);
  fs.writeFileSync(path.join(OUT, `pretrained_hostile_${name}`), out);
}

/** Every element of tensor `name` set to `value` (BF16: the float32's top half). */
function filled(bytes, name, value) {
  const { header } = parts(bytes);
  const n = bytes.length - parts(bytes).data.length;
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  const bits = new Uint32Array(new Float32Array([value]).buffer)[0];
  const t = header[name];
  const width = t.dtype === 'F32' ? 4 : 2;
  for (let at = n + t.data_offsets[0]; at < n + t.data_offsets[1]; at += width) {
    if (width === 4) view.setUint32(at, bits, true);
    else view.setUint16(at, bits >>> 16, true);
  }
  return out;
}

const qwen = weights('qwen2');
const { header: h, data } = parts(qwen);
const names = Object.keys(h).filter((k) => k !== '__metadata__').sort((a, b) => h[a].data_offsets[0] - h[b].data_offsets[0]);
const [first, last] = [names[0], names.at(-1)];
const shifted = (/** @type {number} */ by) => {
  const e = structuredClone(h);
  for (const k of names.slice(1)) e[k].data_offsets = e[k].data_offsets.map((/** @type {number} */ x) => x + by);
  return JSON.stringify(e);
};
const qwenConfig = configText('qwen2');
const text = JSON.stringify(h);
write('duplicate_key', qwenConfig, file(`{"${last}":${JSON.stringify(h[first])},${text.slice(1)}`, data));
write('overlap', qwenConfig, file(shifted(-4), data.subarray(0, data.length - 4)));
const gapData = new Uint8Array(data.length + 4);
gapData.set(data);
write('gap', qwenConfig, file(shifted(4), gapData));
for (const by of [4, 8]) write(`header_short_${by}`, qwenConfig, file(text + ' '.repeat(8), data, text.length + 8 - by));
const trailing = new Uint8Array(qwen.length + 8).fill(7);
trailing.set(qwen);
write('trailing', qwenConfig, trailing);
write('qk_overflow', qwenConfig, filled(filled(qwen, 'model.layers.1.self_attn.q_proj.weight', 1e30), 'model.layers.1.self_attn.k_proj.weight', 1e29));
write('head_overflow', configText('deepseek_v2'), filled(weights('deepseek_v2'), 'lm_head.weight', 3e38));
const layers = JSON.parse(qwenConfig).num_hidden_layers;
write('layer_types', JSON.stringify({ ...JSON.parse(qwenConfig), layer_types: Array(layers + 1).fill('full_attention') }), qwen);
write('long_model_type', JSON.stringify({ ...JSON.parse(qwenConfig), model_type: 'x'.repeat(65536) }), qwen);
console.log('wrote', fs.readdirSync(OUT).filter((f) => f.startsWith('pretrained_hostile_')).length, 'seeds');
