// pretrained-kit.mjs: the fixtures of tests/fixtures/pretrained/ for the Node tests (not a test file):
// each checkpoint's config and weight files, its expected outputs (read here with a reader of its
// own, not the core's), and a way to rebuild a file with its header edited.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './helpers.mjs';

export const FIXTURES = path.join(REPO, 'tests', 'fixtures', 'pretrained');
export const CASES = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'cases.json'), 'utf8')).cases;

/** @param {string} name */
export function config(name) {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, name, 'config.json'), 'utf8'));
}

/** The weight files of a fixture (model.safetensors, or the shards in name order), as Uint8Arrays. */
export function weights(name) {
  return fs.readdirSync(path.join(FIXTURES, name))
    .filter((f) => f.startsWith('model') && f.endsWith('.safetensors'))
    .sort()
    .map((f) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, name, f))));
}

/** @param {Uint8Array} bytes @returns {{ header: any, n: number }} */
function header(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), n };
}

/** expected.safetensors: { ids: Int32Array, logits: Float32Array, attentions: Float32Array[] }. */
export function expected(name) {
  const bytes = new Uint8Array(fs.readFileSync(path.join(FIXTURES, name, 'expected.safetensors')));
  const { header: h, n } = header(bytes);
  const tensor = (/** @type {string} */ key) => {
    const [b, e] = h[key].data_offsets;
    const slice = bytes.slice(8 + n + b, 8 + n + e);
    return h[key].dtype === 'I32' ? new Int32Array(slice.buffer) : new Float32Array(slice.buffer);
  };
  const attentions = [];
  for (let l = 0; `attentions.${l}` in h; l++) attentions.push(tensor(`attentions.${l}`));
  return { ids: /** @type {Int32Array} */ (tensor('ids')), logits: /** @type {Float32Array} */ (tensor('logits')), attentions };
}

/**
 * The file rebuilt with its header passed through `edit` (the data section unchanged).
 * @param {Uint8Array} bytes @param {(h: any) => void} edit
 */
export function editHeader(bytes, edit) {
  const { header: h, n } = header(bytes);
  edit(h);
  const text = new TextEncoder().encode(JSON.stringify(h));
  const out = new Uint8Array(8 + text.length + bytes.length - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(bytes.subarray(8 + n), 8 + text.length);
  return out;
}

/**
 * stages.safetensors: PyTorch's stages of one layer (the last), named as the core names them:
 * { layer, tensors: { name: { shape, data: Float32Array } } } (scores hold -Infinity where masked).
 */
export function expectedStages(name) {
  const bytes = new Uint8Array(fs.readFileSync(path.join(FIXTURES, name, 'stages.safetensors')));
  const { header: h, n } = header(bytes);
  let layer = -1;
  const tensors = {};
  for (const [key, t] of Object.entries(h)) {
    if (key === '__metadata__') continue;
    const [b, e] = t.data_offsets;
    const slice = bytes.slice(8 + n + b, 8 + n + e);
    if (t.dtype === 'I32') layer = new Int32Array(slice.buffer)[0];
    else tensors[key] = { shape: t.shape, data: new Float32Array(slice.buffer) };
  }
  return { layer, tensors };
}

/** The error `fn` rejects or throws with (fails when it resolves). */
export async function rejection(fn) {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return assert.fail('expected a rejection');
}
