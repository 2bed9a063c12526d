// model-file-kit.mjs: an independent reader and writer of the trainer's .safetensors model file
// (docs/api.md, "The model file") for the Node tests: CRC-32, the checksum over the data and the
// metadata, and a writer that sorts tensors by name like the core. Not a test file itself.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** zlib's CRC-32 of bytes, continuing `crc`. */
export function crc32(bytes, crc = 0) {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The "crc32" metadata value: CRC-32 of the data, then "key=value\n" of the other metadata sorted by key. */
export function checksum(metadata, data) {
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

/** A file from metadata and tensors (name -> { shape, data: Float32Array }); crc32 recomputed unless keepCrc. */
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
  if (!keepCrc) meta.crc32 = checksum(meta, data);
  let json = new TextEncoder().encode(JSON.stringify({ __metadata__: meta, ...header }));
  const padded = Math.ceil(json.length / 8) * 8;
  const out = new Uint8Array(8 + padded + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded), true);
  out.fill(0x20, 8, 8 + padded);
  out.set(json, 8);
  out.set(data, 8 + padded);
  return out;
}

/** The file with edit(metadata, tensors) applied, rewritten (checksum recomputed). */
export function editModelFile(bytes, edit, options) {
  const f = readModelFile(bytes);
  const meta = { ...f.metadata };
  edit(meta, f.tensors);
  return writeModelFile(meta, f.tensors, options);
}
