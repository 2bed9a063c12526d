// helpers.mjs: shared by the node tests (not a test file itself: node --test only runs *.test.mjs).
//
// - loads the built library from $ATTN_LIB_DIR (default <repo>/dist/lib)
// - a small seeded PRNG for inputs and explicit weights
// - relative-error comparison that reports the largest difference
// - a float64 reference of the forward pass (docs/api.md), independent of the core and of the
//   fixture generator, used to check explicit-weight results and sessions

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const LIB_DIR = path.resolve(process.env.ATTN_LIB_DIR || path.join(REPO, 'dist', 'lib'));

/** Both builds: every test file runs once with the SIMD build and once with the scalar one. */
export const BUILDS = [
  { simd: true, name: 'simd build' },
  { simd: false, name: 'scalar build' },
];

let libPromise;
/** @returns {Promise<typeof import('../../wasm/attention.mjs')>} the built attention.mjs module */
export function importLib() {
  libPromise ??= (async () => {
    const file = path.join(LIB_DIR, 'attention.mjs');
    if (!fs.existsSync(file)) {
      throw new Error(`${file} does not exist: run \`npm run build\` first, or set ATTN_LIB_DIR`);
    }
    return import(pathToFileURL(file).href);
  })();
  return libPromise;
}

/** @param {boolean} simd */
export async function load(simd) {
  const { loadAttention } = await importLib();
  return loadAttention({ simd });
}

// ---------------------------------------------------------------------------------------------
// Seeded random numbers (mulberry32)

/** The page's generator (web/src/rng.js): `rng(seed)()` is uniform in [0, 1), the same for the same seed. */
import { rng } from '../../web/src/rng.js';

export { rng };

/** Float32Array of n values uniform in [-scale, scale). */
export function randomArray(n, seed, scale = 1) {
  const r = rng(seed);
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = (2 * r() - 1) * scale;
  return a;
}

// ---------------------------------------------------------------------------------------------
// Comparisons

/** max|got - ref| / max|ref|, with where the largest difference is. */
export function relDiff(got, ref) {
  assert.equal(got.length, ref.length, `length ${got.length}, expected ${ref.length}`);
  let maxRef = 0;
  let maxAbs = 0;
  let at = -1;
  for (let i = 0; i < ref.length; i++) {
    maxRef = Math.max(maxRef, Math.abs(ref[i]));
    const d = Math.abs(got[i] - ref[i]);
    if (!(d <= maxAbs)) {
      maxAbs = d; // NaN lands here too and stays
      at = i;
    }
  }
  const rel = maxRef > 0 ? maxAbs / maxRef : maxAbs;
  return { rel, maxAbs, maxRef, at };
}

/** Asserts a relative error of at most `tol`; the message names `label` and the largest difference. */
export function assertClose(got, ref, tol, label) {
  assert.ok(got != null, `${label}: missing`);
  assert.equal(got.length, ref.length, `${label}: ${got.length} elements, expected ${ref.length}`);
  const d = relDiff(got, ref);
  assert.ok(
    d.rel <= tol,
    `${label}: relative error ${d.rel.toExponential(3)} > ${tol} ` +
      `(max |got - ref| = ${d.maxAbs.toExponential(3)} at index ${d.at}: got ${got[d.at]}, ref ${ref[d.at]}; ` +
      `max |ref| = ${d.maxRef.toExponential(3)})`,
  );
  return d;
}

/** True when both arrays hold exactly the same bits. */
export function bitIdentical(a, b) {
  if (a.length !== b.length) return false;
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return false;
  return true;
}

/** Little-endian float32 from base64. */
export function decodeF32(base64) {
  const bytes = Buffer.from(base64, 'base64');
  assert.equal(bytes.length % 4, 0, 'base64 tensor is not a whole number of float32');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i, true);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Shapes and a float64 reference (docs/api.md)

/** The resolved geometry of a spec, with the documented defaults. */
export function shapeOf(spec) {
  const H = spec.nHeads;
  const dh = spec.dHead ?? spec.dModel / H;
  const G = spec.variant === 'mqa' ? 1 : spec.variant === 'gqa' ? spec.nKvHeads : H;
  const rope = spec.rope === true ? { base: 10000 } : spec.rope ? { base: spec.rope.base ?? 10000 } : null;
  return {
    variant: spec.variant,
    N: spec.seqLen,
    D: spec.dModel,
    H,
    G,
    dh,
    r: spec.latentRank ?? 0,
    dr: spec.variant === 'mla' ? spec.ropeDim ?? 0 : 0,
    rope,
  };
}

/** Weight name -> [rows, cols] for a spec, as in the JS API. */
export function weightShapes(spec) {
  const { variant, D, H, G, dh, r, dr } = shapeOf(spec);
  if (variant !== 'mla') return { wq: [D, H * dh], wk: [D, G * dh], wv: [D, G * dh], wo: [H * dh, D] };
  const w = { wq: [D, H * dh], wDkv: [D, r], wUk: [r, H * dh], wUv: [r, H * dh], wo: [H * dh, D] };
  if (dr > 0) Object.assign(w, { wQr: [D, H * dr], wKr: [D, dr] });
  return w;
}

/** Explicit random weights for a spec, each uniform in +-1/sqrt(rows). */
export function randomWeights(spec, seed) {
  const out = {};
  let k = 0;
  for (const [name, [rows, cols]] of Object.entries(weightShapes(spec))) {
    out[name] = randomArray(rows * cols, seed * 101 + ++k, 1 / Math.sqrt(rows));
  }
  return out;
}

/** (n, k) @ (k, m) in float64. */
function matmul(a, b, n, k, m) {
  const c = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < k; p++) {
      const aip = a[i * k + p];
      if (aip === 0) continue;
      for (let j = 0; j < m; j++) c[i * m + j] += aip * b[p * m + j];
    }
  }
  return c;
}

/** Rotate-half RoPE, in place, on `segments` segments of width w in each row (row i at position i). */
function rope(m, rows, ld, segments, w, base) {
  const half = w / 2;
  for (let p = 0; p < rows; p++) {
    for (let s = 0; s < segments; s++) {
      const o = p * ld + s * w;
      for (let i = 0; i < half; i++) {
        const theta = p * Math.pow(base, (-2 * i) / w);
        const c = Math.cos(theta);
        const sn = Math.sin(theta);
        const a = m[o + i];
        const b = m[o + i + half];
        m[o + i] = a * c - b * sn;
        m[o + i + half] = b * c + a * sn;
      }
    }
  }
}

/**
 * The forward pass of docs/api.md in float64, on explicit weights.
 * @returns {{ output: Float64Array, weights: Float64Array }} weights (H, N, N)
 */
export function referenceForward(spec, x, w) {
  const { variant, N, D, H, G, dh, r, dr, rope: ropeOpt } = shapeOf(spec);
  const q = matmul(x, w.wq, N, D, H * dh); // (N, H*dh)
  let k, v, qr, kr, kvHeads, ldkv;
  if (variant === 'mla') {
    const c = matmul(x, w.wDkv, N, D, r); // (N, r)
    k = matmul(c, w.wUk, N, r, H * dh); // (N, H*dh)
    v = matmul(c, w.wUv, N, r, H * dh);
    kvHeads = H;
    if (dr > 0) {
      qr = matmul(x, w.wQr, N, D, H * dr); // (N, H*dr)
      kr = matmul(x, w.wKr, N, D, dr); // (N, dr)
      rope(qr, N, H * dr, H, dr, 10000);
      rope(kr, N, dr, 1, dr, 10000);
    }
  } else {
    k = matmul(x, w.wk, N, D, G * dh); // (N, G*dh)
    v = matmul(x, w.wv, N, D, G * dh);
    kvHeads = G;
    if (ropeOpt) {
      rope(q, N, H * dh, H, dh, ropeOpt.base);
      rope(k, N, G * dh, G, dh, ropeOpt.base);
    }
  }
  ldkv = kvHeads * dh;
  const scale = 1 / Math.sqrt(dh + dr);
  const group = H / kvHeads;
  const probs = new Float64Array(H * N * N); // (H, N, N)
  const o = new Float64Array(N * H * dh); // (N, H*dh)
  const s = new Float64Array(N);
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / group);
    for (let i = 0; i < N; i++) {
      const last = spec.causal ? i : N - 1;
      let max = -Infinity;
      for (let j = 0; j <= last; j++) {
        let dot = 0;
        for (let d = 0; d < dh; d++) dot += q[i * H * dh + h * dh + d] * k[j * ldkv + g * dh + d];
        for (let d = 0; d < dr; d++) dot += qr[i * H * dr + h * dr + d] * kr[j * dr + d];
        s[j] = dot * scale;
        max = Math.max(max, s[j]);
      }
      let sum = 0;
      for (let j = 0; j <= last; j++) sum += (s[j] = Math.exp(s[j] - max));
      for (let j = 0; j <= last; j++) {
        const p = s[j] / sum;
        probs[h * N * N + i * N + j] = p;
        for (let d = 0; d < dh; d++) o[i * H * dh + h * dh + d] += p * v[j * ldkv + g * dh + d];
      }
    }
  }
  return { output: matmul(o, w.wo, N, H * dh, D), weights: probs };
}

/** Asserts that fn throws an instance of Class with error.field === field and a message matching every pattern. */
export function throwsField(fn, Class, field, patterns = []) {
  let error;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error, 'did not throw');
  assert.ok(error instanceof Class, `threw ${error?.name}: ${error?.message}, expected ${Class.name}`);
  assert.equal(error.field, field, `error.field of: ${error.message}`);
  for (const p of patterns) assert.match(error.message, p);
  return error;
}
