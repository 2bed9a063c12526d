// train/adam.cpp — AdamW and its schedule (see adam.hpp).
#include "attn/train/adam.hpp"

#include <cmath>

namespace attn::train {

double learning_rate_at(const AdamConfig& c, int64_t t) {
  if (t < c.warmup_steps) return c.lr * double(t + 1) / double(c.warmup_steps);
  if (c.total_steps <= c.warmup_steps) return c.lr;
  if (t >= c.total_steps) return c.lr * c.min_ratio;
  const double progress = double(t - c.warmup_steps) / double(c.total_steps - c.warmup_steps);
  const double cosine = 0.5 * (1.0 + std::cos(3.14159265358979323846 * progress));
  return c.lr * (c.min_ratio + (1.0 - c.min_ratio) * cosine);
}

AdamW::AdamW(const AdamConfig& c, const std::vector<ParamRef>& params) : c_(c), params_(params) {
  for (const auto& p : params_) {
    m_.emplace_back(p.value->size(), 0.0f);
    v_.emplace_back(p.value->size(), 0.0f);
  }
}

void AdamW::step() {
  const double lr = learning_rate_at(c_, t_);
  const double bc1 = 1.0 - std::pow(c_.beta1, double(t_ + 1));
  const double bc2 = 1.0 - std::pow(c_.beta2, double(t_ + 1));
  const float b1 = float(c_.beta1), b2 = float(c_.beta2);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    float* w = params_[i].value->data();
    const float* g = params_[i].grad->data();
    float* m = m_[i].data();
    float* v = v_[i].data();
    const float wd = params_[i].decay ? float(c_.weight_decay) : 0.0f;
    const std::size_t count = params_[i].value->size();
    for (std::size_t j = 0; j < count; ++j) {
      m[j] = b1 * m[j] + (1.0f - b1) * g[j];
      v[j] = b2 * v[j] + (1.0f - b2) * g[j] * g[j];
      const double m_hat = double(m[j]) / bc1;
      const double v_hat = double(v[j]) / bc2;
      w[j] -= float(lr * (m_hat / (std::sqrt(v_hat) + c_.eps) + double(wd) * double(w[j])));
    }
  }
  ++t_;
}

}  // namespace attn::train
