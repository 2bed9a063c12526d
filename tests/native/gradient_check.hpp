// gradient_check.hpp — central finite differences against an analytic gradient, and seeded random
// tensors (test_train.cpp, test_train_llama.cpp).
//
// Finite differences in float: step eps = 1e-3 (central), and for each tensor, at up to kSamples
// entries, |analytic - numeric| <= 1e-2 * max(|analytic|, |numeric|) + kAbs, kAbs = 5e-4: the float
// round-off of the loss (~1e-7) divided by 2 eps gives numeric errors up to ~1e-4 (measured: 1.1e-4
// on an MLA model; kAbs = 1e-4 fails there). Gradients are O(0.1-1).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "attn/train/tasks.hpp"

namespace gradient_check {

using attn::Matrix;
using attn::train::Rng;

constexpr float kEps = 1e-3f;
constexpr double kRel = 1e-2;
constexpr double kAbs = 5e-4;
constexpr int kSamples = 24;

inline std::vector<float> random_vec(std::size_t n, uint64_t seed, float scale = 1.0f) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = float(2.0 * rng.uniform() - 1.0) * scale;
  return v;
}

inline Matrix random_mat(int64_t rows, int64_t cols, uint64_t seed, float scale = 1.0f) {
  Matrix m = attn::uninitialised(rows, cols);
  auto v = random_vec(std::size_t(rows * cols), seed, scale);
  std::copy(v.begin(), v.end(), m.data());
  return m;
}

// A tensor to check: its values (perturbed in place) and the analytic gradient.
struct Checked {
  std::string name;
  float* value;
  const float* grad;
  int64_t count;
};

// loss(): recomputes the scalar loss from the current values.
inline void check_gradients(const std::string& what, const std::function<double()>& loss, const std::vector<Checked>& ts) {
  for (const auto& t : ts) {
    double worst = 0, worst_a = 0, worst_n = 0;
    int64_t worst_i = -1;
    const int64_t step = std::max<int64_t>(1, t.count / kSamples);
    for (int64_t i = (t.count > kSamples ? 7 % step : 0); i < t.count; i += step) {
      const float saved = t.value[i];
      t.value[i] = saved + kEps;
      const double lp = loss();
      t.value[i] = saved - kEps;
      const double lm = loss();
      t.value[i] = saved;
      const double numeric = (lp - lm) / (2.0 * double(kEps));
      const double analytic = t.grad[i];
      const double excess = std::fabs(analytic - numeric) - (kRel * std::max(std::fabs(analytic), std::fabs(numeric)) + kAbs);
      if (worst_i < 0 || excess > worst) {
        worst = excess;
        worst_i = i;
        worst_a = analytic;
        worst_n = numeric;
      }
    }
    EXPECT_LE(worst, 0.0) << what << ": d/d " << t.name << "[" << worst_i << "] analytic " << worst_a
                          << " numeric " << worst_n;
  }
}

}  // namespace gradient_check
