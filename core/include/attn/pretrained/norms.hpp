// norms.hpp — the normalisations of a checkpoint's blocks, over rows of n floats:
//   RMSNorm    y = w * x / sqrt(mean(x^2) + eps)                   (llama family, DeepSeek)
//   LayerNorm  y = w * (x - mean(x)) / sqrt(var(x) + eps) + b       (gpt2, gpt_bigcode; var biased, as torch)
// Sums run in double precision; weights (and bias) are a checkpoint's (1, n) views.
#pragma once

#include <cstdint>

#include "attn/pretrained/config.hpp"
#include "attn/pretrained/weights16.hpp"

namespace attn::pretrained {

struct Norm {
  NormKind kind = NormKind::RMSNorm;
  WeightView weight, bias;  // bias: LayerNorm only
  double eps = 1e-6;
  int64_t width() const { return weight.cols; }
};

// y (rows of ldy) = norm(x (rows of ldx)), each row `width()` floats; y may be x (in place).
void norm_rows(const Norm& norm, const float* x, int64_t rows, int64_t ldx, float* y, int64_t ldy);

}  // namespace attn::pretrained
