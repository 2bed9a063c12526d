// safetensors.js: write (and read back) the .safetensors format, float32 only, in plain JS.
//
// Layout (the format's own spec, see ../shared/reference/pytorch-twin.md):
//   bytes 0..7   N, the header length, unsigned 64-bit little-endian
//   bytes 8..8+N a UTF-8 JSON object: name -> { dtype: "F32", shape, data_offsets: [begin, end] }
//                (offsets from the first byte after the header, end exclusive), plus an optional
//                "__metadata__" object of string -> string; padded with spaces to a multiple of 8
//   then         the tensors' raw little-endian float32 data, contiguous, in the header's order.

/**
 * @typedef {{ name: string, shape: number[], data: Float32Array }} NamedTensor
 */

const MAX_HEADER_BYTES = 100 * 1024 * 1024; // the reference reader's cap

/**
 * @param {NamedTensor[]} tensors  row-major, outermost dimension first
 * @param {Record<string, string>} [metadata]
 * @returns {Uint8Array}
 */
export function writeSafetensors(tensors, metadata = {}) {
  const header = {};
  if (Object.keys(metadata).length) {
    for (const [k, v] of Object.entries(metadata)) {
      if (typeof v !== 'string') throw new TypeError(`safetensors metadata '${k}' must be a string, got ${typeof v}`);
    }
    header.__metadata__ = metadata;
  }
  let offset = 0;
  for (const t of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (!(t.data instanceof Float32Array) || t.data.length !== count) {
      throw new RangeError(`tensor '${t.name}' has ${t.data?.length} elements, its shape [${t.shape}] needs ${count}`);
    }
    if (t.name === '__metadata__' || t.name in header) throw new RangeError(`tensor name '${t.name}' is used twice`);
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + 4 * count] };
    offset += 4 * count;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  const bytes = new Uint8Array(8 + padded + offset);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, BigInt(padded), true);
  bytes.fill(0x20, 8, 8 + padded);
  bytes.set(json, 8);
  let at = 8 + padded;
  for (const t of tensors) {
    for (let i = 0; i < t.data.length; i++, at += 4) view.setFloat32(at, t.data[i], true);
  }
  return bytes;
}

/**
 * Reads a float32 .safetensors file, checking it as a hostile input (header inside the file,
 * every range inside the data, range length = 4 * product(shape), ranges disjoint).
 * @param {Uint8Array} bytes
 * @returns {{ tensors: Record<string, { shape: number[], data: Float32Array }>, metadata: Record<string, string> }}
 */
export function readSafetensors(bytes) {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('safetensors: bytes must be a Uint8Array');
  if (bytes.length < 8) throw new RangeError(`safetensors: ${bytes.length} bytes, too short for a header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getBigUint64(0, true);
  if (n > BigInt(Math.min(MAX_HEADER_BYTES, bytes.length - 8))) {
    throw new RangeError(`safetensors: header length ${n} does not fit in the file (${bytes.length} bytes)`);
  }
  const headerEnd = 8 + Number(n);
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, headerEnd)));
  } catch (e) {
    throw new RangeError(`safetensors: the header is not UTF-8 JSON (${e.message})`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw new RangeError('safetensors: the header is not a JSON object');
  }
  const dataBytes = bytes.length - headerEnd;
  const tensors = {};
  const ranges = [];
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    if (t?.dtype !== 'F32') throw new RangeError(`safetensors: tensor '${name}' has dtype ${t?.dtype}, only F32 is read`);
    const shape = t.shape;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new RangeError(`safetensors: tensor '${name}' has a bad shape ${JSON.stringify(shape)}`);
    }
    const [begin, end] = Array.isArray(t.data_offsets) ? t.data_offsets : [];
    const count = shape.reduce((a, b) => a * b, 1);
    if (!Number.isSafeInteger(begin) || !Number.isSafeInteger(end) || begin < 0 || end > dataBytes || end - begin !== 4 * count) {
      throw new RangeError(`safetensors: tensor '${name}' has data_offsets ${JSON.stringify(t.data_offsets)} that do not fit its shape or the file`);
    }
    ranges.push([begin, end, name]);
    const data = new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = view.getFloat32(headerEnd + begin + 4 * i, true);
    tensors[name] = { shape, data };
  }
  ranges.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < ranges.length; i++) {
    if (ranges[i][0] < ranges[i - 1][1]) throw new RangeError(`safetensors: tensors '${ranges[i - 1][2]}' and '${ranges[i][2]}' overlap`);
  }
  const metadata = header.__metadata__ ?? {};
  for (const [k, v] of Object.entries(metadata)) {
    if (typeof v !== 'string') throw new RangeError(`safetensors: metadata '${k}' is not a string`);
  }
  return { tensors, metadata };
}
