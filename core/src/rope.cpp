// rope.cpp — rotate-half RoPE (see rope.hpp).
#include "attn/rope.hpp"

#include <cmath>
#include <vector>

namespace attn {

void apply_rope(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments,
                int64_t segment_stride, int64_t w, int64_t pos0, double base) {
  const int64_t half = w / 2;
  std::vector<double> inv_freq(static_cast<std::size_t>(half));
  for (int64_t i = 0; i < half; ++i) inv_freq[i] = std::pow(base, -2.0 * double(i) / double(w));
  std::vector<float> cos_t(static_cast<std::size_t>(half)), sin_t(static_cast<std::size_t>(half));
  for (int64_t row = 0; row < rows; ++row) {
    const double p = double(pos0 + row);
    for (int64_t i = 0; i < half; ++i) {
      cos_t[i] = static_cast<float>(std::cos(p * inv_freq[i]));
      sin_t[i] = static_cast<float>(std::sin(p * inv_freq[i]));
    }
    for (int64_t s = 0; s < n_segments; ++s) {
      float* x = m + row * ld + col0 + s * segment_stride;
      for (int64_t i = 0; i < half; ++i) {
        const float a = x[i], b = x[i + half];
        x[i] = a * cos_t[i] - b * sin_t[i];
        x[i + half] = b * cos_t[i] + a * sin_t[i];
      }
    }
  }
}

void apply_rope_batched(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t n_segments,
                        int64_t segment_stride, int64_t w, int64_t pos0, double base) {
  for (int64_t b = 0; b < batch; ++b) apply_rope(m + b * n * ld, n, ld, col0, n_segments, segment_stride, w, pos0, base);
}

void apply_rope_transpose_batched(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t n_segments,
                                  int64_t segment_stride, int64_t w, double base) {
  // x' = R(p) x   =>   dx = R(p)^T dx' = R(-p) dx'
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      apply_rope(m + (b * n + i) * ld, 1, ld, col0, n_segments, segment_stride, w, -i, base);
}

}  // namespace attn
