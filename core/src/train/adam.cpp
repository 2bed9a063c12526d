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

namespace {

// One element's AdamW update: its new first and second moments and weight. The one formula both the
// check (non_finite_update) and the update (step) compute, so they agree bit for bit.
struct Updated { float m, v, w; };
inline Updated updated(float w, float g, float m, float v, float b1, float b2, double bc1, double bc2, double lr, double eps,
                       float wd) {
  Updated u;
  u.m = b1 * m + (1.0f - b1) * g;
  u.v = b2 * v + (1.0f - b2) * g * g;
  const double m_hat = double(u.m) / bc1;
  const double v_hat = double(u.v) / bc2;
  u.w = w - float(lr * (m_hat / (std::sqrt(v_hat) + eps) + double(wd) * double(w)));
  return u;
}

}  // namespace

AdamW::AdamW(const AdamConfig& c, const std::vector<ParamRef>& params) : c_(c), params_(params) {
  for (const auto& p : params_) {
    m_.emplace_back(p.value->size(), 0.0f);
    v_.emplace_back(p.value->size(), 0.0f);
  }
}

AdamW::Schedule AdamW::schedule() const {
  return {learning_rate_at(c_, t_), 1.0 - std::pow(c_.beta1, double(t_ + 1)), 1.0 - std::pow(c_.beta2, double(t_ + 1))};
}

std::optional<AdamW::Where> AdamW::non_finite_update() const {
  const Schedule k = schedule();
  const float b1 = float(c_.beta1), b2 = float(c_.beta2);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const float* w = params_[i].value->data();
    const float* g = params_[i].grad->data();
    const float wd = params_[i].decay ? float(c_.weight_decay) : 0.0f;
    for (std::size_t j = 0; j < params_[i].value->size(); ++j) {
      const Updated u = updated(w[j], g[j], m_[i][j], v_[i][j], b1, b2, k.bc1, k.bc2, k.lr, c_.eps, wd);
      if (!std::isfinite(u.m) || !std::isfinite(u.v) || !std::isfinite(u.w)) return Where{i, j, u.w};
    }
  }
  return std::nullopt;
}

void AdamW::step() {
  const Schedule k = schedule();
  const float b1 = float(c_.beta1), b2 = float(c_.beta2);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    float* w = params_[i].value->data();
    const float* g = params_[i].grad->data();
    float* m = m_[i].data();
    float* v = v_[i].data();
    const float wd = params_[i].decay ? float(c_.weight_decay) : 0.0f;
    const std::size_t count = params_[i].value->size();
    for (std::size_t j = 0; j < count; ++j) {
      const Updated u = updated(w[j], g[j], m[j], v[j], b1, b2, k.bc1, k.bc2, k.lr, c_.eps, wd);
      m[j] = u.m;
      v[j] = u.v;
      w[j] = u.w;
    }
  }
  ++t_;
}

}  // namespace attn::train
