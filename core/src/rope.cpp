// rope.cpp — RoPE and its frequency scalings (see rope.hpp).
#include "attn/rope.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attn {

RopeFrequencies rope_frequencies(int64_t w, double base) {
  RopeFrequencies f;
  f.base = base;
  const int64_t half = w / 2;
  f.inv_freq.resize(static_cast<std::size_t>(half));
  for (int64_t i = 0; i < half; ++i) f.inv_freq[i] = std::pow(base, -2.0 * double(i) / double(w));
  return f;
}

namespace {

// The rotation itself; pairs (i, i + w/2), or (2i, 2i + 1) with Adjacent. Two instances, so that a
// module using only the default form (the lesson's blocks) links only that one.
template <bool Adjacent>
void rotate(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments, int64_t segment_stride, int64_t w,
            int64_t pos0, const std::vector<double>& inv_freq, double factor) {
  const int64_t half = w / 2;
  constexpr int64_t first_step = Adjacent ? 2 : 1;
  const int64_t partner = Adjacent ? 1 : half;
  std::vector<float> cos_t(static_cast<std::size_t>(half)), sin_t(static_cast<std::size_t>(half));
  for (int64_t row = 0; row < rows; ++row) {
    const double p = double(pos0 + row);
    for (int64_t i = 0; i < half; ++i) {
      cos_t[i] = static_cast<float>(std::cos(p * inv_freq[i]) * factor);
      sin_t[i] = static_cast<float>(std::sin(p * inv_freq[i]) * factor);
    }
    for (int64_t s = 0; s < n_segments; ++s) {
      float* x = m + row * ld + col0 + s * segment_stride;
      for (int64_t i = 0; i < half; ++i) {
        float* xa = x + i * first_step;
        const float a = xa[0], b = xa[partner];
        xa[0] = a * cos_t[i] - b * sin_t[i];
        xa[partner] = b * cos_t[i] + a * sin_t[i];
      }
    }
  }
}

}  // namespace

void apply_rope(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments,
                int64_t segment_stride, int64_t w, int64_t pos0, const RopeFrequencies& f) {
  if (f.adjacent_pairs) {
    rotate<true>(m, rows, ld, col0, n_segments, segment_stride, w, pos0, f.inv_freq, f.attention_factor);
  } else {
    rotate<false>(m, rows, ld, col0, n_segments, segment_stride, w, pos0, f.inv_freq, f.attention_factor);
  }
}

void apply_rope(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments,
                int64_t segment_stride, int64_t w, int64_t pos0, double base) {
  rotate<false>(m, rows, ld, col0, n_segments, segment_stride, w, pos0, rope_frequencies(w, base).inv_freq, 1.0);
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
