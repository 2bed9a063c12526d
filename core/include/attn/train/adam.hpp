// train/adam.hpp — AdamW (decoupled weight decay) with a warm-up + cosine learning-rate schedule.
//
//   lr(t) = lr * (t + 1) / warmup                                   t < warmup
//         = lr * (0.1 + 0.9 * 0.5 * (1 + cos(pi * (t - warmup) / (total - warmup))))   warmup <= t < total
//         = lr * 0.1                                                t >= total
//   m = b1 m + (1 - b1) g       v = b2 v + (1 - b2) g^2
//   w -= lr(t) * ( m / (1 - b1^(t+1)) / (sqrt(v / (1 - b2^(t+1))) + eps) + wd * w )   (wd only where decay)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/train/model.hpp"

namespace attn::train {

struct AdamConfig {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0.01;
  int64_t warmup_steps = 0;   // linear warm-up over these steps
  int64_t total_steps = 0;    // cosine decay to min_ratio * lr at this step (0: no decay)
  double min_ratio = 0.1;
};

// The learning rate of step t (0-based).
double learning_rate_at(const AdamConfig& c, int64_t t);

class AdamW {
 public:
  AdamW(const AdamConfig& c, const std::vector<ParamRef>& params);
  void step();                       // one update of every parameter from its gradient
  // Where the next step() would leave a moment or a weight non-finite (float32 overflow: a moment
  // far out of scale with its gradient, e.g. from a model file), or nothing: checked before a step
  // is applied, so a trainer is never left non-finite. `param`: its index in the params given.
  struct Where { std::size_t param, index; float weight; };
  std::optional<Where> non_finite_update() const;
  int64_t steps() const { return t_; }
  void set_steps(int64_t t) { t_ = t; }
  const AdamConfig& config() const { return c_; }
  // The moments of parameter i (same order as the params given), for export/load.
  std::vector<float>& first_moment(std::size_t i) { return m_[i]; }
  std::vector<float>& second_moment(std::size_t i) { return v_[i]; }

 private:
  AdamConfig c_;
  // The next step's learning rate and bias corrections.
  struct Schedule { double lr, bc1, bc2; };
  Schedule schedule() const;

  std::vector<ParamRef> params_;
  std::vector<std::vector<float>> m_, v_;
  int64_t t_ = 0;
};

}  // namespace attn::train
