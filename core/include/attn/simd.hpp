// simd.hpp — the one vector type the kernels use: kLanes floats, via GCC/Clang vector extensions.
//
// wasm (with or without -msimd128): 4 lanes, i.e. one f32x4 per vector with SIMD, 4 scalar ops
// without. Native x86 with AVX: 8 lanes (ymm); otherwise 4.
//
// The kernels' multiply-accumulate is madd(a, b, c) = a * b + c. In the FMA build (ATTN_FMA, wasm
// with -msimd128 -mrelaxed-simd) it is one f32x4.relaxed_madd, which the engine may fuse (one
// rounding: it does wherever the CPU has FMA); in every other build it is a multiply, rounded, then an
// add, the same two operations in f32x4 and in scalar code, so the SIMD and scalar builds agree bit
// for bit and the FMA build agrees with them within rounding (docs/performance.md, tests).
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

// Fully unroll the next loop (its trip count is a compile-time constant): keeps arrays of vectors
// in registers. Without it clang leaves small loops over vector lanes or accumulators rolled and
// spills the accumulators to the stack.
#if defined(__clang__)
#define ATTN_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define ATTN_UNROLL _Pragma("GCC unroll 16")
#else
#define ATTN_UNROLL
#endif

namespace attn::simd {

#if defined(__AVX__) && !defined(__EMSCRIPTEN__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif

typedef float vf __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t vi __attribute__((vector_size(kLanes * sizeof(int32_t))));

inline vf load(const float* p) { vf v; std::memcpy(&v, p, sizeof v); return v; }
inline void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
template <std::size_t... I>
inline vf splat_impl(float x, std::index_sequence<I...>) { return vf{((void)I, x)...}; }
// (x, x, ..., x): an initializer list, which compilers turn into one splat instruction.
inline vf splat(float x) { return splat_impl(x, std::make_index_sequence<kLanes>{}); }

inline float hsum(vf v) {
  float s = v[0];
  ATTN_UNROLL
  for (int i = 1; i < kLanes; ++i) s += v[i];
  return s;
}
inline float hmax(vf v) {
  float m = v[0];
  ATTN_UNROLL
  for (int i = 1; i < kLanes; ++i) m = v[i] > m ? v[i] : m;
  return m;
}
inline vf vmax(vf a, vf b) { return a > b ? a : b; }

// a * b + c, lane by lane (see the top of this file).
#if defined(ATTN_FMA)
#if !defined(__wasm_relaxed_simd__)
#error "ATTN_FMA needs -mrelaxed-simd (the FMA build of CMakeLists.txt)"
#endif
// clang 14 emits the relaxed-SIMD prototype opcode for this builtin; scripts/wasm-relaxed-fix.mjs
// rewrites it into f32x4.relaxed_madd after linking (same operands: a * b + c).
inline vf madd(vf a, vf b, vf c) { return __builtin_wasm_fma_f32x4(a, b, c); }
#else
inline vf madd(vf a, vf b, vf c) { return a * b + c; }
#endif

}  // namespace attn::simd
