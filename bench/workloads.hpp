// workloads.hpp — what the native benchmark (bench_core.cpp) and the wasm benchmark binding share:
// the workloads' setup (seeded weights, input and cache). Not part of the core library: built into
// attn_bench and into the wasm modules' benchmark-only functions. The FLOP count behind GFLOP/s is
// the core's attention_flops (accounting.hpp).
#pragma once

#include <cstdint>
#include <memory>

#include "attn/accounting.hpp"
#include "attn/forward.hpp"
#include "attn/kv_cache.hpp"
#include "attn/spec.hpp"

namespace attn {

// A forward pass ready to time: weights from s.seed, x (N, D) uniform in [-1, 1).
struct ForwardWorkload {
  Shape shape;
  Weights weights;
  Matrix x;
  double flops;
};
ForwardWorkload make_forward_workload(const RawSpec& raw);

// Fills a session's cache with `tokens` seeded rows, uniform in [-1, 1), as if they had been
// appended (appending 4095 tokens of D = 4096 through the API would take minutes).
void fill_cache_for_benchmark(Session& session, int64_t tokens, uint64_t seed);

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
