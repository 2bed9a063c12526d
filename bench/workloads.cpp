// workloads.cpp — see workloads.hpp.
#include "workloads.hpp"

#include "attn/errors.hpp"

namespace attn {

// Benchmarks time calls above the cap of a synchronous call (cost.hpp) on purpose.
RawSpec long_work(RawSpec raw) {
  raw.allow_long_work = true;
  return raw;
}

ForwardWorkload make_forward_workload(const RawSpec& raw) {
  ForwardWorkload w;
  w.shape = resolve(long_work(raw), Need::Forward);
  w.weights = init_weights(w.shape, w.shape.seed);
  w.x = uninitialised(w.shape.n, w.shape.d);
  fill_uniform(w.x, w.shape.seed, 0, 1.0f);
  w.flops = attention_flops(w.shape, w.shape.n, 0, w.shape.causal);
  return w;
}

void fill_cache_for_benchmark(Session& session, int64_t tokens, uint64_t seed) {
  if (tokens < 0 || tokens > session.max_len()) throw_range("tokens (" + fmt(double(tokens)) + ") exceed maxLen");
  const int64_t width = session.row_width();
  std::vector<Matrix> rows;
  for (int64_t t = 0; t < session.cache_tensors(); ++t) {
    Matrix m = uninitialised(tokens, width);  // (tokens, row width), seeded ids 100, 101
    for (int64_t i = 0; i < tokens; ++i) {
      for (int64_t j = 0; j < width; ++j) m(i, j) = 2.0f * uniform01(seed, 100 + t, i, j) - 1.0f;
    }
    rows.push_back(std::move(m));
  }
  session.set_cache(rows);
}

DecodeWorkload make_decode_workload(const RawSpec& raw, int64_t cache_len) {
  DecodeWorkload w;
  const Shape s = resolve(long_work(raw), Need::Session);
  if (cache_len < 0 || cache_len + 1 > s.max_len) {
    throw_range("cacheLen", "cacheLen (" + fmt(double(cache_len)) + ") must leave room for one token below maxLen (" +
                fmt(double(s.max_len)) + ")");
  }
  w.session = std::make_unique<Session>(s, init_weights(s, s.seed));
  fill_cache_for_benchmark(*w.session, cache_len, s.seed);
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
