// benchmark.cpp — see benchmark.hpp.
#include "attn/benchmark.hpp"

#include "attn/errors.hpp"

namespace attn {

double attention_flops(const Shape& s, int64_t n, int64_t cached, bool causal) {
  const double N = double(n), D = double(s.d), H = double(s.h), dh = double(s.dh);
  const double pairs = causal ? N * double(cached) + N * (N + 1) / 2 : N * (double(cached) + N);
  if (s.variant == Variant::MLA) {
    const double r = double(s.r), dr = double(s.dr);
    // x W_dkv, c W_uk, c W_uv, x wq, x W_qr, x W_kr, o wo; scores over dh + dr, p @ v over dh
    const double proj = 2 * N * (D * r + 2 * r * H * dh + D * H * dh + D * H * dr + D * dr + H * dh * D);
    return proj + 2 * H * pairs * (dh + dr) + 2 * H * pairs * dh;
  }
  const double G = double(s.g);
  const double proj = 2 * N * D * (H * dh + 2 * G * dh) + 2 * N * H * dh * D;
  return proj + 2 * H * pairs * dh * 2;
}

ForwardWorkload make_forward_workload(const RawSpec& raw) {
  ForwardWorkload w;
  w.shape = resolve(raw, Need::Forward);
  w.weights = init_weights(w.shape, w.shape.seed);
  w.x = uninitialised(w.shape.n, w.shape.d);
  fill_uniform(w.x, w.shape.seed, 0, 1.0f);
  w.flops = attention_flops(w.shape, w.shape.n, 0, w.shape.causal);
  return w;
}

DecodeWorkload make_decode_workload(const RawSpec& raw, int64_t cache_len) {
  DecodeWorkload w;
  const Shape s = resolve(raw, Need::Session);
  if (cache_len < 0 || cache_len + 1 > s.max_len) {
    throw_range("cacheLen", "cacheLen (" + fmt(double(cache_len)) + ") must leave room for one token below maxLen (" +
                fmt(double(s.max_len)) + ")");
  }
  w.session = std::make_unique<Session>(s, init_weights(s, s.seed));
  w.session->fill_for_benchmark(cache_len, s.seed);
  w.x = uninitialised(1, s.d);
  fill_uniform(w.x, s.seed, 0, 1.0f);
  w.cache_len = cache_len;
  w.flops = attention_flops(s, 1, cache_len, true);
  return w;
}

void DecodeWorkload::step() {
  session->append(x);
  session->truncate(cache_len);
}

}  // namespace attn
