// weights16.cpp — see weights16.hpp.
#include "attn/pretrained/weights16.hpp"

namespace attn::pretrained {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
  }
  return "?";
}

void widen_row(const WeightView& w, int64_t i, float* dst) {
  const uint8_t* row = w.data + i * w.ld * dtype_bytes(w.dtype);
  if (w.dtype == DType::F32) {
    std::memcpy(dst, row, std::size_t(w.cols) * 4);
    return;
  }
  for (int64_t j = 0; j < w.cols; ++j) {
    uint16_t h;
    std::memcpy(&h, row + 2 * j, 2);
    dst[j] = w.dtype == DType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
  }
}

namespace {

// The exponent's bits of each dtype: all ones is Infinity or NaN.
constexpr uint32_t kExpF32 = 0x7f800000u;
constexpr uint16_t kExpF16 = 0x7c00u, kExpBF16 = 0x7f80u;

template <typename U>
bool all_ones_at(const uint8_t* data, int64_t i, U exp) {
  U v;
  std::memcpy(&v, data + sizeof(U) * std::size_t(i), sizeof(U));
  return (v & exp) == exp;
}

template <typename U>
int64_t first_all_ones(const uint8_t* data, int64_t n, U exp) {
  constexpr int64_t kBlock = 2048;
  for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
    const int64_t b1 = b0 + kBlock < n ? b0 + kBlock : n;
    U found = 0;  // 1 if any value of the block is all ones (an OR over the block)
    for (int64_t i = b0; i < b1; ++i) found = U(found | U(all_ones_at(data, i, exp)));
    if (found) {
      for (int64_t i = b0; i < b1; ++i)
        if (all_ones_at(data, i, exp)) return i;
    }
  }
  return -1;
}

}  // namespace

int64_t first_non_finite(const uint8_t* data, int64_t n, DType dtype) {
  switch (dtype) {
    case DType::F32: return first_all_ones<uint32_t>(data, n, kExpF32);
    case DType::F16: return first_all_ones<uint16_t>(data, n, kExpF16);
    case DType::BF16: return first_all_ones<uint16_t>(data, n, kExpBF16);
  }
  return -1;
}

int64_t first_non_finite_naive(const uint8_t* data, int64_t n, DType dtype) {
  for (int64_t i = 0; i < n; ++i) {
    const bool bad = dtype == DType::F32 ? all_ones_at<uint32_t>(data, i, kExpF32)
                                         : all_ones_at<uint16_t>(data, i, dtype == DType::BF16 ? kExpBF16 : kExpF16);
    if (bad) return i;
  }
  return -1;
}

}  // namespace attn::pretrained
