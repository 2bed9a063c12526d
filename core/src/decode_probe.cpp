// decode_probe.cpp — one generated token's cost at one layer, measured (see decode_probe.hpp).
#include "attn/decode_probe.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>

#include "attn/accounting.hpp"
#include "attn/errors.hpp"
#include "attn/fields.hpp"
#include "attn/forward.hpp"
#include "attn/rope.hpp"
#include "attn/spec.hpp"
#include "attn/weights.hpp"

namespace attn {

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// m <- a deterministic pattern uniform in [-scale, scale): one multiply per element.
void fill_pattern(Matrix& m, uint32_t seed, float scale) {
  float* p = m.data();
  const uint32_t n = uint32_t(m.size());
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t h = (i ^ seed) * 2654435761u;
    p[i] = (float(h >> 8) * (2.0f / 16777216.0f) - 1.0f) * scale;
  }
}

double weight_floats(const Shape& s) {
  double n = 0;
  for (const auto& slot : weight_slots(s)) n += double(slot.rows) * double(slot.cols);
  return n;
}

// The probe's own weights: the pattern, each slot uniform in +-1/sqrt(rows) like the seeded ones.
Weights pattern_weights(const Shape& s) {
  Weights raw;
  uint32_t seed = 1;
  for (const auto& slot : weight_slots(s)) {
    Matrix& m = raw.*(slot.member);
    m = uninitialised(slot.rows, slot.cols);
    fill_pattern(m, seed++, float(1.0 / std::sqrt(double(slot.rows))));
  }
  return raw;
}

}  // namespace

DecodeProbe::DecodeProbe(const Shape& s) : s_(s) {
  pack(pattern_weights(s));  // the raw weights are freed before the cache is allocated
  allocate_buffers();
}

DecodeProbe::DecodeProbe(const Shape& s, const Weights& w) : s_(s) {
  pack(w);
  allocate_buffers();
}

void DecodeProbe::pack(const Weights& w) { proj_ = pack_decode(s_, w); }

void DecodeProbe::allocate_buffers() {
  cache_ = make_layer_cache(s_, s_.max_len);
  if (s_.variant == Variant::MLA) {
    fill_pattern(cache_.ckr, 100, 1.0f);
  } else {
    fill_pattern(cache_.k, 100, 1.0f);
    fill_pattern(cache_.v, 101, 1.0f);
  }
  x_block_ = uninitialised(kRecomputeRows, s_.d);
  fill_pattern(x_block_, 200, 1.0f);
  x_new_ = uninitialised(1, s_.d);
  fill_pattern(x_new_, 201, 1.0f);
}

int64_t DecodeProbe::check_context(double context) const {
  return integer_field("context", context, 0, double(s_.max_len - 1));
}

double DecodeProbe::check_budget(double budget_ms) {
  return number_field("budgetMs", budget_ms, 0, 10000, std::nullopt, true);
}

double DecodeProbe::weight_bytes() const { return 4.0 * weight_floats(s_); }

double DecodeProbe::cache_bytes(int64_t context) const {
  return 4.0 * kv_cache_floats_per_token(s_) * double(context);
}

double DecodeProbe::recompute_flops(int64_t context) const {
  const double width = s_.variant == Variant::MLA ? double(s_.r + s_.dr) : 2.0 * double(s_.g * s_.dh);
  return 2.0 * double(context) * double(s_.d) * width;
}

// The steps of Session::append for one token at position `context`, on this probe's buffers.
Matrix DecodeProbe::step_output(const Matrix& x, int64_t context) {
  check_context(double(context));
  // the new token attends over the cached ones and itself, its own cache row written in place
  return append_rows(s_, proj_, cache_, x.data(), 1, context, nullptr);  // (1, D)
}

void DecodeProbe::set_cache_rows(const std::vector<Matrix>& tensors) {
  const bool mla = s_.variant == Variant::MLA;
  const int64_t w = cache_row_width(s_);
  Matrix* caches[2] = {mla ? &cache_.ckr : &cache_.k, &cache_.v};
  if (tensors.size() != (mla ? 1u : 2u)) throw_range("cache", "a cache of this variant holds " + fmt(mla ? 1.0 : 2.0) + " tensors");
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    if (int64_t(tensors[t].shape(1)) != w || int64_t(tensors[t].shape(0)) > s_.max_len) {
      throw_range("cache", "cache tensor " + fmt(double(t)) + " must have " + fmt(double(w)) + " columns and at most maxLen rows");
    }
    std::copy_n(tensors[t].data(), tensors[t].size(), caches[t]->data());
  }
}

const float* DecodeProbe::cache_row(int64_t i, int tensor) const {
  if (s_.variant == Variant::MLA) return cache_.ckr.data() + i * cache_row_width(s_);
  return (tensor == 0 ? cache_.k : cache_.v).data() + i * cache_row_width(s_);
}

DecodeStepTiming DecodeProbe::cached_step(double context_arg, double budget_arg) {
  const int64_t context = check_context(context_arg);
  const double budget_ms = check_budget(budget_arg);
  step_output(x_new_, context);  // untimed: brings the weights' first pages in, as any step would
  std::vector<double> ms;
  const double end = now_ms() + budget_ms;
  do {
    const double t0 = now_ms();
    step_output(x_new_, context);
    ms.push_back(now_ms() - t0);
  } while (now_ms() < end);
  return {median(ms), int64_t(ms.size())};
}

// k = x wk, v = x wv (RoPE on k), or [c | kr] = x w_ckr (RoPE on kr), for cache rows [from, from + rows).
void DecodeProbe::recompute_rows(int64_t from, int64_t rows) {
  const int64_t w = cache_row_width(s_);
  if (s_.variant == Variant::MLA) {
    float* out = cache_.ckr.data() + from * w;
    gemm_packed(rows, w, s_.d, x_block_.data(), s_.d, proj_.latent.w_ckr, out, w, false);
    if (s_.dr > 0) apply_rope(out, rows, w, s_.r, 1, 0, s_.dr, from, s_.rope_base);
    return;
  }
  float* k = cache_.k.data() + from * w;
  gemm_packed(rows, w, s_.d, x_block_.data(), s_.d, proj_.grouped.wk, k, w, false);
  gemm_packed(rows, w, s_.d, x_block_.data(), s_.d, proj_.grouped.wv, cache_.v.data() + from * w, w, false);
  if (s_.rope) apply_rope(k, rows, w, 0, s_.g, s_.dh, s_.dh, from, s_.rope_base);
}

RecomputeProgress DecodeProbe::uncached_step(double context_arg, double budget_arg) {
  const int64_t context = check_context(context_arg);
  const double budget_ms = check_budget(budget_arg);
  if (progress_.context != context || progress_.done) progress_ = {context, 0, 0.0, false};
  const double end = now_ms() + budget_ms;
  while (progress_.rows < context) {  // at least one chunk per call, then while the budget lasts
    const int64_t rows = std::min(kRecomputeRows, context - progress_.rows);
    const double t0 = now_ms();
    recompute_rows(progress_.rows, rows);
    progress_.ms += now_ms() - t0;
    progress_.rows += rows;
    if (now_ms() >= end) break;
  }
  if (progress_.rows == context) {
    const double t0 = now_ms();
    step_output(x_new_, context);
    progress_.ms += now_ms() - t0;
    progress_.done = true;
  }
  return progress_;
}

double DecodeProbe::copy_bandwidth(double budget_arg) {
  const double budget_ms = check_budget(budget_arg);
  constexpr std::size_t kBytes = std::size_t(64) << 20;
  const std::unique_ptr<char[]> src(new char[kBytes]), dst(new char[kBytes]);
  std::memset(src.get(), 1, kBytes);  // every page touched before timing
  std::memset(dst.get(), 0, kBytes);
  double best = 0;
  const double end = now_ms() + budget_ms;
  for (int i = 0; i < 2 || now_ms() < end; ++i) {
    const double t0 = now_ms();
    std::memcpy(dst.get(), src.get(), kBytes);
    const double ms = now_ms() - t0;
    if (ms > 0) best = std::max(best, double(kBytes) / (ms * 1e-3));
    src[std::size_t(i) % kBytes] = char(i);  // the next copy is not the same bytes
  }
  return best;
}

}  // namespace attn
