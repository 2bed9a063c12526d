// rope.cpp — RoPE and its frequency scalings (see rope.hpp).
#include "attn/rope.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attn {

RopeFrequencies rope_frequencies(int64_t w, double base) {
  RopeFrequencies f;
  const int64_t half = w / 2;
  f.inv_freq.resize(static_cast<std::size_t>(half));
  for (int64_t i = 0; i < half; ++i) f.inv_freq[i] = std::pow(base, -2.0 * double(i) / double(w));
  return f;
}

RopeFrequencies rope_frequencies_linear(int64_t w, double base, double factor) {
  RopeFrequencies f = rope_frequencies(w, base);
  for (double& inv : f.inv_freq) inv /= factor;
  return f;
}

RopeFrequencies rope_frequencies_llama3(int64_t w, double base, double factor, double low_freq_factor,
                                        double high_freq_factor, double original_max_positions) {
  RopeFrequencies f = rope_frequencies(w, base);
  const double pi = 3.14159265358979323846;
  const double low_wavelen = original_max_positions / low_freq_factor;    // longer: divided by factor
  const double high_wavelen = original_max_positions / high_freq_factor;  // shorter: kept
  for (double& inv : f.inv_freq) {
    const double wavelen = 2.0 * pi / inv;
    if (wavelen > low_wavelen) {
      inv /= factor;
    } else if (!(wavelen < high_wavelen)) {  // between: blended
      const double s = (original_max_positions / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
      inv = (1.0 - s) * inv / factor + s * inv;
    }
  }
  return f;
}

double yarn_mscale(double scale, double k) { return scale <= 1.0 ? 1.0 : 0.1 * k * std::log(scale) + 1.0; }

RopeFrequencies rope_frequencies_yarn(int64_t w, double base, double factor, double original_max_positions,
                                      double beta_fast, double beta_slow, bool truncate, double attention_factor) {
  RopeFrequencies f = rope_frequencies(w, base);
  f.attention_factor = attention_factor;
  const double pi = 3.14159265358979323846;
  // the dimension whose wavelength makes `rotations` turns over the original context
  auto correction_dim = [&](double rotations) {
    return double(w) * std::log(original_max_positions / (rotations * 2.0 * pi)) / (2.0 * std::log(base));
  };
  double low = correction_dim(beta_fast), high = correction_dim(beta_slow);
  if (truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, double(w - 1));
  if (low == high) high += 0.001;
  for (std::size_t i = 0; i < f.inv_freq.size(); ++i) {
    const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);  // 1: interpolate
    f.inv_freq[i] = f.inv_freq[i] * (1.0 - ramp) + (f.inv_freq[i] / factor) * ramp;
  }
  return f;
}

void apply_rope(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments,
                int64_t segment_stride, int64_t w, int64_t pos0, const RopeFrequencies& f) {
  const int64_t half = w / 2;
  // element i of a pair and its partner: (i, i + w/2), or (2i, 2i + 1) for adjacent pairs
  const int64_t first_step = f.adjacent_pairs ? 2 : 1, partner = f.adjacent_pairs ? 1 : half;
  std::vector<float> cos_t(static_cast<std::size_t>(half)), sin_t(static_cast<std::size_t>(half));
  for (int64_t row = 0; row < rows; ++row) {
    const double p = double(pos0 + row);
    for (int64_t i = 0; i < half; ++i) {
      cos_t[i] = static_cast<float>(std::cos(p * f.inv_freq[i]) * f.attention_factor);
      sin_t[i] = static_cast<float>(std::sin(p * f.inv_freq[i]) * f.attention_factor);
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

void apply_rope(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments,
                int64_t segment_stride, int64_t w, int64_t pos0, double base) {
  apply_rope(m, rows, ld, col0, n_segments, segment_stride, w, pos0, rope_frequencies(w, base));
}

void apply_rope_batched(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t n_segments,
                        int64_t segment_stride, int64_t w, int64_t pos0, double base) {
  const RopeFrequencies f = rope_frequencies(w, base);
  for (int64_t b = 0; b < batch; ++b) apply_rope(m + b * n * ld, n, ld, col0, n_segments, segment_stride, w, pos0, f);
}

void apply_rope_transpose_batched(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t n_segments,
                                  int64_t segment_stride, int64_t w, double base) {
  // x' = R(p) x   =>   dx = R(p)^T dx' = R(-p) dx'
  const RopeFrequencies f = rope_frequencies(w, base);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      apply_rope(m + (b * n + i) * ld, 1, ld, col0, n_segments, segment_stride, w, -i, f);
}

}  // namespace attn
