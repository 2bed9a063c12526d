// model-file-kit.mjs: an independent reader and writer of the trainer's .safetensors model file
// (docs/api.md, "The model file") for the Node tests: the checksums of versions 4 (the whole file)
// and 3 (the data and the metadata), and a writer that sorts tensors by name like the core. Not a
// test file itself.

import zlib from 'node:zlib';  // zlib.crc32: Node >= 20.15

/** zlib's CRC-32 of bytes, continuing `crc`. */
export const crc32 = (bytes, crc = 0) => zlib.crc32(bytes, crc);

/** Where the 8 digits of "__metadata__"."crc32" sit in a file: after the first `"crc32":"` of its header. */
export function crcDigitsAt(file) {
  const key = new TextEncoder().encode('"crc32":"');
  const n = Number(new DataView(file.buffer, file.byteOffset, file.byteLength).getBigUint64(0, true));
  for (let i = 8; i + key.length + 8 <= 8 + n; i++) {
    if (key.every((b, j) => file[i + j] === b)) return i + key.length;
  }
  return -1;
}

/** Version 4's "crc32": the CRC-32 of the whole file with its own 8 digits read as "00000000". */
export function checksumOf(file) {
  const zeroed = file.slice();
  zeroed.fill(0x30, crcDigitsAt(file), crcDigitsAt(file) + 8);
  return crc32(zeroed).toString(16).padStart(8, '0');
}

/** Version 3's "crc32": CRC-32 of the data, then "key=value\n" of the other metadata sorted by key. */
export function checksumV3(metadata, data) {
  const keys = Object.keys(metadata).filter((k) => k !== 'crc32').sort();
  const lines = new TextEncoder().encode(keys.map((k) => `${k}=${metadata[k]}\n`).join(''));
  return crc32(lines, crc32(data)).toString(16).padStart(8, '0');
}

/** { headerLength, json (the header text), metadata, tensors: name -> { shape, begin, end, data }, data } */
export function readModelFile(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const json = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n));
  const header = JSON.parse(json);
  const data = bytes.subarray(8 + n);
  const tensors = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = t.data_offsets;
    const copy = data.slice(begin, end);
    tensors[name] = { dtype: t.dtype, shape: t.shape, begin, end, data: new Float32Array(copy.buffer) };
  }
  return { headerLength: n, json, metadata: header.__metadata__, tensors, data };
}

/**
 * A file from metadata and tensors (name -> { shape, data: Float32Array }), in name order; crc32
 * recomputed (version 3's or 4's, by metadata.formatVersion) unless keepCrc.
 */
export function writeModelFile(metadata, tensors, { keepCrc = false } = {}) {
  const names = Object.keys(tensors).sort();
  let size = 0;
  for (const name of names) size += tensors[name].data.byteLength;
  const data = new Uint8Array(size);
  const header = {};
  let at = 0;
  for (const name of names) {
    const t = tensors[name];
    data.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at);
    header[name] = { dtype: t.dtype ?? 'F32', shape: t.shape, data_offsets: [at, at + t.data.byteLength] };
    at += t.data.byteLength;
  }
  const meta = { ...metadata };
  const v3 = meta.formatVersion === '3';
  if (!keepCrc) meta.crc32 = v3 ? checksumV3(meta, data) : '00000000';
  const json = new TextEncoder().encode(JSON.stringify({ __metadata__: meta, ...header }));
  const padded = Math.ceil(json.length / 8) * 8;
  const out = new Uint8Array(8 + padded + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded), true);
  out.fill(0x20, 8, 8 + padded);
  out.set(json, 8);
  out.set(data, 8 + padded);
  if (!keepCrc && !v3) out.set(new TextEncoder().encode(checksumOf(out)), crcDigitsAt(out));
  return out;
}

/** The file with edit(metadata, tensors) applied, rewritten (checksum recomputed). */
export function editModelFile(bytes, edit, options) {
  const f = readModelFile(bytes);
  const meta = { ...f.metadata };
  edit(meta, f.tensors);
  return writeModelFile(meta, f.tensors, options);
}
