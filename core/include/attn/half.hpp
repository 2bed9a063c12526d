// half.hpp — IEEE float16 <-> float32, one value at a time (the bundled models are stored in float16;
// checkpoints may be).
//   F16 -> f32:  arithmetic, exact for every one of the 65536 values (numpy's table, tested):
//                em = bits & 0x7fff;  f = as_float(em << 13) * 2^112  (normals and subnormals)
//                em >= 0x7c00 (Inf, NaN): exponent 255, the mantissa kept;  then the sign bit.
//   f32 -> F16:  rounded to nearest, ties to even (numpy's astype(float16)); above 65504 -> Inf.
#pragma once

#include <cstdint>
#include <cstring>

namespace attn {

inline float f16_to_f32(uint16_t h) {
  const uint32_t em = h & 0x7fffu, sign = uint32_t(h & 0x8000u) << 16;
  uint32_t bits = em << 13;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  f *= 0x1p112f;
  std::memcpy(&bits, &f, sizeof f);
  if (em >= 0x7c00u) bits = (em << 13) | 0x7f800000u;
  bits |= sign;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint16_t f32_to_f16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN stays NaN
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to above 65504: Inf
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (or zero), rounded to nearest even
    float a;
    std::memcpy(&a, &abs, sizeof a);
    // a * 2^24 is the value in units of the smallest subnormal; the FPU's float addition rounds
    // to nearest even at that integer grid when 0.5 * 2^23 is added (2^23: floats' integer range)
    const float scaled = a * 0x1p24f + 0x1p23f;
    uint32_t s;
    std::memcpy(&s, &scaled, sizeof s);
    return uint16_t(sign | (s - 0x4b000000u));
  }
  // normal: rebias the exponent (127 -> 15), round the 13 dropped bits to nearest even
  const uint32_t rebased = abs - 0x38000000u;
  const uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return uint16_t(sign | (rounded >> 13));
}

}  // namespace attn
