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

}  // namespace attn::pretrained
