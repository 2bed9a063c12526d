// benchmark.hpp — what the native benchmark and the wasm benchmark binding share: the workloads'
// setup (seeded weights and input) and the FLOP count behind GFLOP/s.
#pragma once

#include <memory>

#include "attn/forward.hpp"
#include "attn/session.hpp"
#include "attn/spec.hpp"

namespace attn {

// Floating-point operations (multiply + add = 2) of n new tokens attending to `cached` earlier
// tokens plus themselves (causally when `causal`): projections, scores, p @ v, output projection.
// A causal pass counts only visible keys (N(N+1)/2 per head). MLA counts the naive form.
double attention_flops(const Shape& s, int64_t n, int64_t cached, bool causal);

// A forward pass ready to time: weights from s.seed, x (N, D) uniform in [-1, 1).
struct ForwardWorkload {
  Shape shape;
  Weights weights;
  Matrix x;
  double flops;
};
ForwardWorkload make_forward_workload(const RawSpec& raw);

// A decode step ready to time: a session whose cache holds `cache_len` seeded tokens; time
// step() = append one token, then truncate back to cache_len.
struct DecodeWorkload {
  std::unique_ptr<Session> session;
  Matrix x;          // (1, D)
  int64_t cache_len;
  double flops;
  void step();
};
DecodeWorkload make_decode_workload(const RawSpec& raw, int64_t cache_len);

}  // namespace attn
