// engine-features.mjs: whether this WebAssembly engine runs the FMA build (relaxed SIMD).
// Imports nothing, so the ES-module loader (attention.mjs) and a classic worker's bundle can both use it.

// The smallest module using the instruction the FMA build is made of:
// (func (param v128) (result v128) local.get 0 local.get 0 local.get 0 f32x4.relaxed_madd)
// f32x4.relaxed_madd is fd 85 02 (the standard opcode; the proposal's prototype fd af 01 is refused
// by current engines, and so is this probe where relaxed SIMD is off, e.g. Node 20 without
// --experimental-wasm-relaxed-simd, Safari).
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 0, 32, 0,
  253, 133, 2, 11,
]);

/** @returns {boolean} whether this engine validates WebAssembly relaxed SIMD (f32x4.relaxed_madd) */
export function engineHasRelaxedSimd() {
  try {
    return WebAssembly.validate(RELAXED_SIMD_PROBE);
  } catch {
    return false;
  }
}
