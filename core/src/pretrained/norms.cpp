// norms.cpp — RMSNorm and LayerNorm (see norms.hpp).
#include "attn/pretrained/norms.hpp"

#include <cmath>
#include <vector>

namespace attn::pretrained {

void norm_rows(const Norm& norm, const float* x, int64_t rows, int64_t ldx, float* y, int64_t ldy) {
  const int64_t n = norm.width();
  std::vector<float> w(static_cast<std::size_t>(n)), b(norm.bias.empty() ? 0 : static_cast<std::size_t>(n));
  widen_row(norm.weight, 0, w.data());
  if (!b.empty()) widen_row(norm.bias, 0, b.data());
  for (int64_t i = 0; i < rows; ++i) {
    const float* xi = x + i * ldx;
    float* yi = y + i * ldy;
    if (norm.kind == NormKind::RMSNorm) {
      double sq = 0;
      for (int64_t j = 0; j < n; ++j) sq += double(xi[j]) * double(xi[j]);
      const float inv = float(1.0 / std::sqrt(sq / double(n) + norm.eps));
      for (int64_t j = 0; j < n; ++j) yi[j] = w[std::size_t(j)] * (xi[j] * inv);
    } else {
      double sum = 0, sq = 0;
      for (int64_t j = 0; j < n; ++j) sum += xi[j];
      const double mean = sum / double(n);
      for (int64_t j = 0; j < n; ++j) sq += (xi[j] - mean) * (xi[j] - mean);
      const double inv = 1.0 / std::sqrt(sq / double(n) + norm.eps);
      for (int64_t j = 0; j < n; ++j) yi[j] = float((xi[j] - mean) * inv) * w[std::size_t(j)] + b[std::size_t(j)];
    }
  }
}

}  // namespace attn::pretrained
