// bindings_bench.cpp — benchmark verbs, only in build-wasm/attention-bench-<build>.mjs (npm run bench
// and bench:peers load it; the page's module leaves them out: 3.7 KB of gzip on the first map).
// Timed inside wasm, so that JS call overhead and copies are not measured. Each timed call goes
// through a volatile function pointer, so the kernels stay in functions that V8 tiers up.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <vector>

#include "attn/accounting.hpp"
#include "attn/errors.hpp"
#include "bindings.hpp"
#include "js_convert.hpp"
#include "workloads.hpp"  // bench/

namespace attn_js {

namespace {

val timings_to_js(const std::vector<double>& ms) {
  return val::global("Float64Array").new_(emscripten::typed_memory_view(ms.size(), ms.data()));
}

void check_counts(int warmup, int iters) {
  if (warmup < 0 || warmup > 1000) attn::throw_range("warmup", "warmup (" + attn::fmt(warmup) + ") must be between 0 and 1000");
  if (iters < 1 || iters > 10000) attn::throw_range("iters", "iters (" + attn::fmt(iters) + ") must be between 1 and 10000");
}

void run_forward(const attn::ForwardWorkload* w) { attn::forward(w->shape, w->weights, w->x); }
void (*volatile g_run_forward)(const attn::ForwardWorkload*) = run_forward;
void run_decode(attn::DecodeWorkload* w) { w->step(); }
void (*volatile g_run_decode)(attn::DecodeWorkload*) = run_decode;

// benchmarkForward(spec, warmup, iters) -> Float64Array of per-iteration milliseconds.
val benchmark_forward_js(val spec, int warmup, int iters) {
  return guarded([&] {
    check_counts(warmup, iters);
    const attn::ForwardWorkload w = attn::make_forward_workload(read_spec(spec, "benchmark spec"));
    for (int i = 0; i < warmup; ++i) g_run_forward(&w);
    std::vector<double> ms;
    for (int i = 0; i < iters; ++i) {
      const double t0 = emscripten_get_now();
      g_run_forward(&w);
      ms.push_back(emscripten_get_now() - t0);
    }
    return timings_to_js(ms);
  });
}

// benchmarkDecode(spec, cacheLen, warmup, iters): a session whose cache holds cacheLen seeded tokens;
// each iteration appends one token and truncates back.
val benchmark_decode_js(val spec, double cache_len, int warmup, int iters) {
  return guarded([&] {
    check_counts(warmup, iters);
    attn::RawSpec raw = read_spec(spec, "benchmark spec");
    raw.causal = true;
    attn::DecodeWorkload w = attn::make_decode_workload(raw, int64_t(cache_len));
    for (int i = 0; i < warmup; ++i) g_run_decode(&w);
    std::vector<double> ms;
    for (int i = 0; i < iters; ++i) {
      const double t0 = emscripten_get_now();
      g_run_decode(&w);
      ms.push_back(emscripten_get_now() - t0);
    }
    return timings_to_js(ms);
  });
}

// Floating-point operations of one benchmarkForward call (no maxLen) or benchmarkDecode step.
val flops_js(val spec, double cache_len) {
  return guarded([&] {
    attn::RawSpec raw = read_spec(spec, "benchmark spec");
    raw.allow_long_work = true;
    if (!raw.max_len) {
      const attn::Shape s = attn::resolve(raw, attn::Need::Forward);
      return attn::attention_flops(s, s.n, 0, s.causal);
    }
    raw.causal = true;
    const attn::Shape s = attn::resolve(raw, attn::Need::Session);
    return attn::attention_flops(s, 1, int64_t(cache_len), true);
  });
}

// fillForBenchmark(session, tokens, seed): `tokens` seeded cache rows (bench/workloads.hpp).
val fill_for_benchmark_js(JsSession& s, double tokens, double seed) {
  return guarded([&] { attn::fill_cache_for_benchmark(s.session(), int64_t(tokens), uint64_t(seed)); });
}

}  // namespace

}  // namespace attn_js

EMSCRIPTEN_BINDINGS(attention_bench) {
  using namespace attn_js;
  emscripten::function("benchmarkForward", &benchmark_forward_js);
  emscripten::function("benchmarkDecode", &benchmark_decode_js);
  emscripten::function("benchmarkFlops", &flops_js);
  emscripten::function("fillForBenchmark", &fill_for_benchmark_js);
}
