// weights16.hpp — a checkpoint's weights as the file stores them (float32, float16 or bfloat16),
// widened to float32 inside the kernels, never up front: a 1B-parameter BF16 model stays 2 bytes a
// parameter in memory.
//
//   BF16 -> f32:  bits << 16 (bfloat16 is the top half of a float32)
//   F16  -> f32:  arithmetic (half.hpp), exact for every one of the 65536 values (numpy's table, tested)
// The same source gives one lane of the vector widening or the scalar one, so the SIMD and scalar
// builds widen identically.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "attn/half.hpp"
#include "attn/simd.hpp"

namespace attn::pretrained {

enum class DType { F32, F16, BF16 };
const char* dtype_name(DType t);                   // "F32", "F16", "BF16" (safetensors' names)
inline int64_t dtype_bytes(DType t) { return t == DType::F32 ? 4 : 2; }

inline float bf16_to_f32(uint16_t h) {
  const uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

using attn::f16_to_f32;  // half.hpp

// kLanes consecutive 16-bit values widened to float32 (one vector).
typedef uint16_t vu16 __attribute__((vector_size(simd::kLanes * sizeof(uint16_t))));
typedef uint32_t vu32 __attribute__((vector_size(simd::kLanes * sizeof(uint32_t))));

inline simd::vf load_bf16(const uint16_t* p) {
  vu16 h;
  std::memcpy(&h, p, sizeof h);
  const vu32 bits = __builtin_convertvector(h, vu32) << 16;
  simd::vf f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline simd::vf load_f16(const uint16_t* p) {
  vu16 h;
  std::memcpy(&h, p, sizeof h);
  const vu32 w = __builtin_convertvector(h, vu32);
  const vu32 em = w & 0x7fffu, sign = (w & 0x8000u) << 16, shifted = em << 13;
  simd::vf f;
  std::memcpy(&f, &shifted, sizeof f);
  f *= simd::splat(0x1p112f);
  vu32 bits;
  std::memcpy(&bits, &f, sizeof f);
  bits = em >= 0x7c00u ? (shifted | 0x7f800000u) : bits;
  bits |= sign;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// A row-major matrix of `rows` x `cols` elements of `dtype`, rows `ld` elements apart, in storage a
// model owns (a whole tensor, or rows / columns of one: a fused projection's q, k or v part).
struct WeightView {
  DType dtype = DType::F32;
  const uint8_t* data = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;

  bool empty() const { return data == nullptr; }
  float at(int64_t i, int64_t j) const {
    const uint8_t* p = data + (i * ld + j) * dtype_bytes(dtype);
    if (dtype == DType::F32) { float f; std::memcpy(&f, p, 4); return f; }
    uint16_t h;
    std::memcpy(&h, p, 2);
    return dtype == DType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
  }
  // Rows [r0, r0 + n) / columns [c0, c0 + n) of this matrix.
  WeightView row_range(int64_t r0, int64_t n) const {
    return {dtype, data + r0 * ld * dtype_bytes(dtype), n, cols, ld};
  }
  WeightView col_range(int64_t c0, int64_t n) const { return {dtype, data + c0 * dtype_bytes(dtype), rows, n, ld}; }
};

// dst[0:n] = the n elements of a view's row i, widened (an embedding lookup, a norm's weights).
void widen_row(const WeightView& w, int64_t i, float* dst);

// The index of the first of `n` stored values (dtype, packed) that is Infinity or NaN (its exponent
// bits all ones), or -1: a checkpoint's load checks every weight with it. first_non_finite scans
// blocks branch-free (the compiler vectorises the count) and searches only a block that holds one;
// first_non_finite_naive is its element-by-element twin (tests compare them).
int64_t first_non_finite(const uint8_t* data, int64_t n, DType dtype);
int64_t first_non_finite_naive(const uint8_t* data, int64_t n, DType dtype);

}  // namespace attn::pretrained
