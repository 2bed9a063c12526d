// cost.cpp — the cost model and its rates (see cost.hpp).
#include "attn/cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attn/accounting.hpp"
#include "attn/attention.hpp"
#include "attn/errors.hpp"
#include "attn/weights.hpp"

namespace attn {

namespace {

// Seconds per unit of each kind of work on the project's machine (2 vCPU AMD EPYC, Node 20), from
// bench/calibrate-cost.mjs: the median CPU time of 5 runs of each of 63 calls on the SIMD build, the
// rates fitted to them; the scalar build's are the SIMD rates times the scalar / SIMD ratio of the same
// calls, by the kind that dominates them (gemm 4.4, attend 4.5, scores 3.5, loops 3, bytes 2, seeded and
// checksum 1.2-1.3). docs/reliability.md has the fit and its spread. The native build (tests, the
// fuzzer) uses the SIMD rates, which it outruns. `elementwise` is not separable from the other kinds in
// these calls (its fit is 0): it keeps a floor of 1 ns an element (2 scalar), so no loop counts as free.
struct Rates {
  double gemm, attend, scores, loops, elementwise, bytes, checksum, seeded;
};
#if defined(__wasm__) && !defined(__wasm_simd128__)
constexpr Rates kRates = {2.45e-10, 2.24e-10, 1.85e-8, 1.81e-9, 2e-9, 3.9e-10, 7.8e-9, 3.1e-8};  // wasm scalar
#else
constexpr Rates kRates = {5.564e-11, 4.967e-11, 5.274e-9, 6.044e-10, 1e-9, 1.962e-10, 5.970e-9, 2.585e-8};  // wasm SIMD
#endif

// The walkthrough's plain loops (intermediates_cost): the overhead of one score's short inner loop
// and its share of the stages kept and copied out, in flops of the `loops` rate; fitted at the sizes
// the cap admits (seqLen ~2000 at dModel 64: 130 ns a score), so small passes are overestimated ~2x.
constexpr double kPairLoops = 160;

std::string seconds_text(double s) {
  if (s >= 10) return fmt(std::round(s));
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

double weight_floats(const Shape& s) {
  double total = 0;
  for (const auto& slot : weight_slots(s)) total += double(slot.rows) * double(slot.cols);
  return total;
}

}  // namespace

Work& Work::operator+=(const Work& o) {
  gemm += o.gemm;
  attend += o.attend;
  scores += o.scores;
  loops += o.loops;
  elementwise += o.elementwise;
  bytes += o.bytes;
  checksum += o.checksum;
  seeded += o.seeded;
  return *this;
}

Work Work::operator*(double k) const {
  Work w = *this;
  w.gemm *= k; w.attend *= k; w.scores *= k; w.loops *= k; w.elementwise *= k;
  w.bytes *= k; w.checksum *= k; w.seeded *= k;
  return w;
}

double seconds(const Work& w) {
  return w.gemm * kRates.gemm + w.attend * kRates.attend + w.scores * kRates.scores + w.loops * kRates.loops +
         w.elementwise * kRates.elementwise + w.bytes * kRates.bytes + w.checksum * kRates.checksum +
         w.seeded * kRates.seeded;
}

Work gemm_work(double m, double k, double n, bool packed_here) {
  Work w;
  w.gemm = 2.0 * m * k * n;
  w.bytes = 4.0 * k * n * (packed_here ? 3.0 : 1.0) + 4.0 * m * (k + n);  // B streamed (+ packed: read, written)
  return w;
}

Work kernel_work(int64_t heads, int64_t kv_heads, int64_t n_q, int64_t n_k, int64_t d_qk, int64_t d_v, bool causal,
                 int64_t q_offset) {
  const double dq = double(d_qk), dv = double(d_v);
  auto visible = [&](int64_t i) { return causal ? std::min(n_k, q_offset + i + 1) : n_k; };
  Work w;
  if (n_q < kDirectMaxQueries) {
    // Per query: every visible key's K and V rows, read once per K/V head for its query heads.
    double pairs = 0;
    for (int64_t i = 0; i < n_q; ++i) pairs += double(visible(i));
    w.attend = 2.0 * double(heads) * pairs * (dq + dv);
    w.scores = double(heads) * pairs;
    w.bytes = 4.0 * double(kv_heads) * pairs * (dq + dv);
    return w;
  }
  // Blocks of kQueryBlock queries, each against the keys its last row sees; K^T and V packed per K/V head.
  double computed = 0;
  for (int64_t i0 = 0; i0 < n_q; i0 += kQueryBlock) {
    const int64_t bq = std::min(kQueryBlock, n_q - i0);
    computed += double(bq) * double(visible(i0 + bq - 1));
  }
  w.attend = 2.0 * double(heads) * computed * (dq + dv);
  w.scores = double(heads) * computed;
  w.bytes = 8.0 * double(kv_heads) * double(n_k) * (dq + dv) + 4.0 * double(heads) * double(n_q) * double(n_k);
  return w;
}

double Cost::seconds() const { return attn::seconds(total()); }

Work Cost::total() const {
  Work w;
  for (const auto& t : terms) w += t.work;
  return w;
}

void Cost::add(std::string what, std::string field, const Work& w) {
  terms.push_back({std::move(what), std::move(field), w});
}

void check_sync_time(const Cost& c, bool allow_long_work, const std::string& lift) {
  const double total = c.seconds();
  if (allow_long_work || total <= kMaxSyncSeconds) return;
  const CostTerm* largest = &c.terms.front();
  for (const auto& t : c.terms) {
    if (attn::seconds(t.work) > attn::seconds(largest->work)) largest = &t;
  }
  throw_range(largest->field,
              c.call + " would take about " + seconds_text(total) + " s of work (" + largest->what + ": " +
                  seconds_text(attn::seconds(largest->work)) + " s), above the cap of " + fmt(kMaxSyncSeconds) +
                  " s for a synchronous call: reduce " + largest->field + (c.hint.empty() ? "" : " " + c.hint) +
                  ", or " + lift + " (in a Web Worker, where blocking does not freeze a page)");
}

// ---- the attention module's calls ---------------------------------------------------------------

namespace {

// The block's own steps over n rows (forward_grouped / forward_latent, or an append's projections):
// the projections as separate terms (the fields that scale them), RoPE, the output projection.
void add_projections(Cost& c, const Shape& s, double n, bool packed, const std::string& rows_field) {
  const double D = double(s.d), H = double(s.h), G = double(s.g), dh = double(s.dh);
  Work proj;
  if (s.variant == Variant::MLA) {
    const double r = double(s.r), dr = double(s.dr);
    proj += gemm_work(n, D, r, !packed);            // c = x W_dkv
    proj += gemm_work(n, D, H * dh, !packed);       // q = x wq
    if (dr > 0) {
      proj += gemm_work(n, D, H * dr, !packed);     // qr = x W_qr
      proj += gemm_work(n, D, dr, !packed);         // kr = x W_kr
      proj.elementwise += n * (H + 1.0) * dr;       // RoPE
    }
    proj.bytes += 4.0 * n * H * (dh + double(s.dr)) * 4.0;  // [q_h | qr_h], [k_h | kr] assembled
    Work up = gemm_work(n, r, H * dh, !packed) * 2.0;  // k = c W_uk, v = c W_uv
    c.add("the projections", rows_field, proj);
    c.add("decompressing K and V from the latent", "latentRank", up);
  } else {
    proj += gemm_work(n, D, H * dh, !packed);       // q = x wq
    proj += gemm_work(n, D, G * dh, !packed) * 2.0; // k, v
    if (s.rope) proj.elementwise += n * (H + G) * dh;
    c.add("the projections", rows_field, proj);
  }
  c.add("the output projection", rows_field, gemm_work(n, H * dh, D, !packed));
}

// x copied in and checked, the output copied out and checked; returned weights cost about as much a
// weight as a score (allocated, written, checked, copied out to a new Float32Array).
Work io_work(const Shape& s, double n, double n_k) {
  Work w;
  w.bytes = 4.0 * n * double(s.d) * 4.0;
  if (s.return_weights) w.scores = double(s.h) * n * n_k;
  return w;
}

// Given weights: read out of the caller's typed arrays, copied and checked (about ten bytes moved a
// byte given, calibrated on createLayer); seeded ones: drawn (the last set is kept, see seeded_weights).
Work read_weights_work(const Shape& s, bool seeded) {
  Work w;
  const double floats = weight_floats(s);
  if (seeded) w.seeded = floats;
  else w.bytes = 4.0 * floats * 10.0;
  return w;
}

}  // namespace

Cost forward_cost(const Shape& s, bool seeded, bool packed) {
  Cost c;
  c.call = "this forward pass";
  const std::string rows = packed ? "x" : "seqLen";
  if (!packed) c.add("reading the weights", "dModel", read_weights_work(s, seeded));
  add_projections(c, s, double(s.n), packed, packed ? "x" : "dModel");
  const bool mla = s.variant == Variant::MLA;
  c.add("the attention scores and their softmax", rows,
        kernel_work(s.h, mla ? s.h : s.g, s.n, s.n, s.dh + s.dr, s.dh, s.causal, 0));
  c.add("copying x and the results", rows, io_work(s, double(s.n), double(s.n)));
  if (packed) c.hint = "(fewer rows per call)";
  return c;
}

Cost intermediates_cost(const Shape& s, bool seeded) {
  Cost c = forward_cost(s, seeded);
  c.call = "this forward pass with returnIntermediates";
  const double n = double(s.n), H = double(s.h);
  Work naive;
  // The stage `scores`, q_h . k_g in plain loops: short inner loops, whose per-score overhead (the
  // equivalent of kPairLoops flops, calibrated) outweighs the dot product at small dHead.
  naive.loops = H * n * n * (2.0 * double(s.dh + s.dr) + kPairLoops);
  c.add("the stage scores, in plain loops", "seqLen", naive);
  if (s.variant == Variant::MLA) {
    Work absorbed;
    absorbed.loops = H * n * double(s.r) * (2.0 * double(s.dh) + kPairLoops);  // qAbsorbed = q_h W_uk_h^T
    c.add("the stage qAbsorbed, in plain loops", "latentRank", absorbed);
  }
  Work stages;  // each stage kept, checked and copied out; the weights copied out
  stages.bytes = 3.0 * 4.0 * (H * n * n * 3.0 + n * H * double(s.dh + s.dr + s.r) * 6.0) + 4.0 * weight_floats(s);
  c.add("keeping and copying the stages", "seqLen", stages);
  return c;
}

Cost weights_cost(const Shape& s, bool seeded, bool session) {
  Cost c;
  c.call = session ? "creating this session" : "creating this layer";
  c.add("reading the weights", "dModel", read_weights_work(s, seeded));
  Work pack;
  pack.bytes = 4.0 * weight_floats(s) * 3.0;  // packed (read, written); a layer scans their magnitudes
  c.add("packing the weights", "dModel", pack);
  if (session) {
    Work cache;
    cache.bytes = 4.0 * double(s.max_len) * kv_cache_floats_per_token(s);  // zeroed
    c.add("allocating the cache", "maxLen", cache);
  }
  return c;
}

Cost append_cost(const Shape& s, int64_t k, int64_t cached, const std::string& cache_field) {
  Cost c;
  c.call = "appending " + fmt(double(k)) + " tokens to a cache of " + fmt(double(cached));
  c.hint = "(fewer tokens per call)";
  const double n = double(k), D = double(s.d), H = double(s.h), dh = double(s.dh);
  const int64_t total = cached + k;
  if (s.variant == Variant::MLA) {
    // The absorbed form: q~_h = q_h W_uk_h^T (k, r); scores over [c | kr] (r + dr); o~ = p c (r).
    const double r = double(s.r), dr = double(s.dr);
    Work proj = gemm_work(n, D, H * dh, false) + gemm_work(n, D, r + dr, false);
    if (dr > 0) {
      proj += gemm_work(n, D, H * dr, false);
      proj.elementwise += n * (H + 1.0) * dr;
    }
    Work absorb = gemm_work(n, dh, r, false) * H + gemm_work(n, r, dh, false) * H;  // W_uk_h^T, W_uv_h
    c.add("the projections", "x", proj);
    c.add("absorbing W_uk and W_uv (at latentRank)", "x", absorb);
    c.add("the attention scores over the latent cache (at latentRank + ropeDim)", cache_field,
          kernel_work(s.h, 1, k, total, s.r + s.dr, s.r, true, cached));
  } else {
    Work proj = gemm_work(n, D, H * dh, false) + gemm_work(n, D, double(s.g) * dh, false) * 2.0;
    if (s.rope) proj.elementwise += n * (H + double(s.g)) * dh;
    c.add("the projections", "x", proj);
    c.add("the attention scores over the cache", cache_field, kernel_work(s.h, s.g, k, total, s.dh, s.dh, true, cached));
  }
  c.add("the output projection", "x", gemm_work(n, H * dh, D, false));
  c.add("copying x and the results", "x", io_work(s, n, double(total)));
  return c;
}

}  // namespace attn
