// decode_probe.hpp — what generating one token costs at one layer, measured where it runs: the numbers
// behind "decoding is memory-bound, so GQA shrinks the cache". One layer of a real shape (Llama 3
// 8B's: D 4096, H 32, G 8, dh 128), any variant, at context lengths up to max_len - 1:
//
//   cached step     one new token against `context` cached tokens: project it (q, its own k and v,
//                   or MLA's cache row [c | kr]), attend over the cache, project out. The steps of
//                   Session::append (kv_cache.cpp) on this probe's own buffers (a test checks that
//                   both give the same output); it reads every weight once and the cache rows.
//   without cache   the same step after recomputing the keys and values of all `context` earlier
//                   tokens from their inputs (k = x wk and v = x wv with RoPE, or MLA's
//                   [c | kr] = x [W_dkv | W_kr]): a gemm of `context` rows, compute-bound, timed
//                   in budgeted chunks (calls of about budget_ms) that the caller sums.
//   copy bandwidth  memcpy of 64 MiB: the floor is bytes read / bandwidth.
//
// Memory, allocated at construction only, what a Session of the shape holds (resolve(raw,
// Need::Session) checks it against kMaxWorkBytes): the packed weights (twice while they are
// packed) and a cache of max_len tokens (MHA at D 4096 and 8K tokens:
// 256 + 256 MiB; GQA G 8: 160 + 64 MiB), plus a block of kRecomputeRows input rows, reused for
// every recomputed row (the recompute does ~1000 flops per input byte, so where
// those rows are read from does not change its time). Values are a cheap deterministic pattern:
// they do not change the time, and a seeded draw of 64 M weights would take longer than a call.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/kv_cache.hpp"
#include "attn/shape.hpp"
#include "attn/weights.hpp"

namespace attn {

struct DecodeStepTiming {
  double ms_per_token = 0;  // median over the timed steps
  int64_t steps = 0;        // timed steps (after one untimed)
};

struct RecomputeProgress {
  int64_t context = 0;      // the context being recomputed
  int64_t rows = 0;         // earlier tokens recomputed so far (0 .. context)
  double ms = 0;            // their time so far; once done, plus one cached step
  bool done = false;
};

class DecodeProbe {
 public:
  // s: resolved with Need::Session (s.max_len = the largest context + 1), whose memory check covers
  // the probe's. Weights, cache and inputs a pattern; or the given weights (tests compare the step
  // with a Session's).
  explicit DecodeProbe(const Shape& s);
  DecodeProbe(const Shape& s, const Weights& w);

  // One token against `context` cached tokens (an integer, 0 <= context < max_len), timed for about
  // budget_ms (0 < budget_ms <= 10000) after one untimed step (at least one timed step). A bad
  // argument throws attn::Error naming it ("context", "budgetMs").
  DecodeStepTiming cached_step(double context, double budget_ms);
  // The step without a cache, in chunks: each call recomputes rows for about budget_ms and returns
  // the progress; a call for another context starts over. Once every row is recomputed, the call
  // also times the step itself (over the recomputed cache) and reports done.
  RecomputeProgress uncached_step(double context, double budget_ms);

  // One cached step's output for token x (1, D) at `context` (tests compare it with a Session).
  Matrix step_output(const Matrix& x, int64_t context);
  // Sets cache rows [0, rows) as Session::set_cache does: {k, v} (rows, G*dh), or MLA {[c | kr]}.
  void set_cache_rows(const std::vector<Matrix>& tensors);
  // Cache row i of tensor 0 (k, or MLA's [c | kr]) or 1 (v), and the recompute's input rows
  // (kRecomputeRows, D): row i is recomputed from input row i % kRecomputeRows. For tests.
  const float* cache_row(int64_t i, int tensor) const;
  const Matrix& recompute_inputs() const { return x_block_; }

  const Shape& shape() const { return s_; }
  // Bytes one cached step reads: every weight once, and the cache rows of `context` tokens.
  double weight_bytes() const;
  double cache_bytes(int64_t context) const;
  // Floating-point operations of recomputing `context` rows (without cache, before the step).
  double recompute_flops(int64_t context) const;

  // Bytes read per second by memcpy of 64 MiB into another 64 MiB, best of the copies made in about
  // budget_ms (at least two). Allocates the two buffers for the call.
  static double copy_bandwidth(double budget_ms);
  // budget_ms checked: 0 < budget_ms <= 10000.
  static double check_budget(double budget_ms);

 private:
  int64_t check_context(double context) const;
  void pack(const Weights& w);
  void allocate_buffers();  // the cache, the input rows
  // The cache rows [from, from + rows) recomputed from the input block.
  void recompute_rows(int64_t from, int64_t rows);

  Shape s_;
  DecodeProjections proj_;        // as a session decodes (kv_cache.hpp)
  LayerCache cache_;              // k, v (max_len, G*dh), or MLA's [c | kr] (max_len, r + dr)
  Matrix x_block_;                // (kRecomputeRows, D): inputs of recomputed rows
  Matrix x_new_;                  // (1, D): the generated token's input
  RecomputeProgress progress_;
};

// Input rows per recompute block (and the gemm's row count per chunk).
constexpr int64_t kRecomputeRows = 256;

}  // namespace attn
