// kernel_bench.cpp — benchmark-only functions of the attention-bench-<build> module (npm run bench
// --kernels): the packed gemm alone, and the build's multiply-add peak, so that a kernel's GFLOP/s can
// be set against what the build can reach at all. Timed inside wasm; each timed call goes through a
// volatile function pointer so the kernels stay in functions V8 tiers up (no on-stack replacement).
#include <emscripten.h>
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "attn/kernels.hpp"
#include "attn/simd.hpp"

namespace {

using emscripten::val;
using attn::simd::vf;

val timings(const std::vector<double>& ms) {
  return val::global("Float64Array").new_(emscripten::typed_memory_view(ms.size(), ms.data()));
}

void check(const char* field, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi)) {
    val::global("RangeError").new_(std::string(field) + " (" + std::to_string(v) + ") must be between " +
                                   std::to_string(lo) + " and " + std::to_string(hi)).throw_();
  }
}

// --- the packed gemm: C (m, n) = A (m, k) @ B (k, n), B packed once -----------------------------
struct Gemm {
  int64_t m, n, k;
  std::vector<float> a, c;
  attn::PackedB b;
};
void run_gemm(Gemm* g) { attn::gemm_packed(g->m, g->n, g->k, g->a.data(), g->k, g->b, g->c.data(), g->n, false); }
void (*volatile g_run_gemm)(Gemm*) = run_gemm;

// benchmarkGemm(m, n, k, warmup, iters): ms per call; 2 m n k floating-point operations each.
val benchmark_gemm(double m, double n, double k, int warmup, int iters) {
  check("m", m, 1, 4096);
  check("n", n, 1, 4096);
  check("k", k, 1, 4096);
  check("iters", iters, 1, 10000);
  Gemm g{int64_t(m), int64_t(n), int64_t(k), {}, {}, {}};
  g.a.resize(std::size_t(g.m * g.k));
  std::vector<float> b(std::size_t(g.k * g.n));
  for (std::size_t i = 0; i < g.a.size(); ++i) g.a[i] = float(int(i * 7919 % 2001) - 1000) * 1e-3f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(int(i * 104729 % 2001) - 1000) * 1e-3f;
  g.c.resize(std::size_t(g.m * g.n));
  g.b = attn::pack_b(b.data(), g.k, g.n, g.n, 1);
  for (int i = 0; i < warmup; ++i) g_run_gemm(&g);
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    const double t0 = emscripten_get_now();
    g_run_gemm(&g);
    ms.push_back(emscripten_get_now() - t0);
  }
  return timings(ms);
}

// --- the peak: independent accumulators acc += x * y in registers ---------------------------------
// A product added to an accumulator, as in the gemm, with enough independent chains to hide the
// latency of the add (unfused) or of the FMA, every operand in a register (x86 has 16 vector
// registers), and one operand bumped each step so that no product is loop-invariant (the compiler
// would hoist it). Two shapes, because one does not fit both builds (on this machine's AMD Zen 4,
// an FMA has 4 cycles of latency, an add 3):
//   7 chains: acc_i += x_i * y, y bumped once a step: 7 products, 8 adds (unfused: add-bound)
//   8 chains: acc_i += x_(i%2) * y, y bumped: 8 FMAs in flight, 12 vector registers (with 15, four x
//             and two y, V8's code generator spilled and the loop ran at half the gemm's rate)
// benchmarkPeak reports the faster of the two: the most multiply-adds per second this build's
// instructions give, which the gemm's micro-kernel can approach.
template <int C, int X, int Y>
float peak_kernel(int64_t reps, float seed) {
  vf acc[C], x[X], y[Y];
  ATTN_UNROLL
  for (int i = 0; i < C; ++i) acc[i] = attn::simd::splat(float(i));  // distinct: no two chains can be merged
  ATTN_UNROLL
  for (int i = 0; i < X; ++i) x[i] = attn::simd::splat(seed * float(i + 1));
  ATTN_UNROLL
  for (int j = 0; j < Y; ++j) y[j] = attn::simd::splat(1e-3f * float(j + 1));
  const vf d = attn::simd::splat(1e-9f);
  for (int64_t r = 0; r < reps; ++r) {
    ATTN_UNROLL
    for (int i = 0; i < C; ++i) acc[i] = attn::simd::madd(x[i % X], y[i / X], acc[i]);
    ATTN_UNROLL
    for (int j = 0; j < Y; ++j) y[j] += d;
  }
  vf s = acc[0];
  ATTN_UNROLL
  for (int i = 1; i < C; ++i) s += acc[i];
  return attn::simd::hsum(s);
}
float (*volatile g_peak7)(int64_t, float) = peak_kernel<7, 7, 1>;
float (*volatile g_peak8)(int64_t, float) = peak_kernel<8, 2, 1>;
volatile float g_sink;

// benchmarkPeak(chains, reps, warmup, iters), chains 7 or 8: ms per call of reps x chains vector
// multiply-adds, i.e. reps * chains * kLanes * 2 floating-point operations (.flops on the array).
val benchmark_peak(int chains, double reps, int warmup, int iters) {
  if (chains != 7 && chains != 8) check("chains", chains, 7, 8);
  check("reps", reps, 1, 1e9);
  check("iters", iters, 1, 10000);
  float (*kernel)(int64_t, float) = chains == 7 ? g_peak7 : g_peak8;
  for (int i = 0; i < warmup; ++i) g_sink = kernel(int64_t(reps), 0.5f);
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    const double t0 = emscripten_get_now();
    g_sink = kernel(int64_t(reps), 0.5f + float(i) * 1e-6f);
    ms.push_back(emscripten_get_now() - t0);
  }
  val out = timings(ms);
  out.set("flops", reps * chains * attn::simd::kLanes * 2.0);
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(kernel_bench) {
  emscripten::function("benchmarkGemm", &benchmark_gemm);
  emscripten::function("benchmarkPeak", &benchmark_peak);
}
