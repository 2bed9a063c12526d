// cost.hpp — how long a call will take, counted loop by loop before it runs, and the cap on a
// synchronous call (about a second of work on the project's machine, lifted by allowLongWork).
//
// Every loop a call runs is counted in one of a few kinds of work (Work below); each kind runs at
// its own speed, measured on both WebAssembly builds by bench/calibrate-cost.mjs and kept in
// cost.cpp (docs/reliability.md, "What a call may cost"). An estimate is a list of terms (what the
// loops are, the field that scales them, their work), so that a refusal names the field to reduce.
// The attention module's calls are estimated here; training's in train/trainer.cpp, from the same
// pieces (gemm_work, kernel_work) and the same rates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/shape.hpp"

namespace attn {

// The work of some loops, by kind.
struct Work {
  double gemm = 0;         // flops (2 per multiply-add) through the packed gemm (kernels.hpp)
  double attend = 0;       // flops of the attention kernel's dot products, q.k and p v (attention.hpp)
  double scores = 0;       // score elements the kernel writes and normalises (the softmax)
  double loops = 0;        // flops in plain loops (the walkthrough's scores, training's backward, LayerNorm)
  double elementwise = 0;  // elements through an exp, tanh or sqrt (GELU, cross-entropy, AdamW, RoPE)
  double bytes = 0;        // bytes moved: copies in and out, packing, zero fills, finiteness scans
  double checksum = 0;     // bytes through CRC-32 or the JSON reader (model files)
  double seeded = 0;       // floats drawn by the seeded initialisation (weights.hpp)

  Work& operator+=(const Work& o);
  Work operator*(double k) const;
};
inline Work operator+(Work a, const Work& b) { return a += b; }

// Seconds the work takes on this build (the rates of cost.cpp: SIMD or scalar wasm; the native
// build uses the SIMD rates, which it outruns).
double seconds(const Work& w);

// C (m, n) = A (m, k) @ B (k, n) through the packed gemm, B packed for the call (`packed_here`) or
// before: the products, B streamed once per call, the packing.
Work gemm_work(double m, double k, double n, bool packed_here = true);

// The grouped kernel (attention.hpp) on n_q queries over n_k keys (causally from q_offset): its
// dot products, the score elements it writes, and what it packs or streams.
Work kernel_work(int64_t heads, int64_t kv_heads, int64_t n_q, int64_t n_k, int64_t d_qk, int64_t d_v, bool causal,
                 int64_t q_offset);

// One term of an estimate: what the loops do (for messages), the field that scales them (the one
// to reduce: error.field of a refusal) and their work.
struct CostTerm {
  std::string what;
  std::string field;
  Work work;
};

struct Cost {
  std::string call;              // "this forward pass", "appending 4096 tokens", "one training step"
  std::vector<CostTerm> terms;
  // A short hint after "reduce <field>", e.g. "or append fewer tokens per call".
  std::string hint;
  double seconds() const;
  Work total() const;
  void add(std::string what, std::string field, const Work& w);
};

// The cap of one synchronous call, in estimated seconds of work.
constexpr double kMaxSyncSeconds = 1.0;

// Refuses a call whose estimate is above kMaxSyncSeconds, unless allow_long_work: a RangeError
// whose field is the largest term's, saying what it is and how long the call would take.
// `lift`: how to lift the cap ("pass allowLongWork: true", "allowLongWork: true in the trainer spec").
void check_sync_time(const Cost& c, bool allow_long_work, const std::string& lift = "pass allowLongWork: true");

// ---- the attention module's calls -------------------------------------------------------------
// Inputs are x (s.n rows) and the weights: given (copied and checked) or seeded (drawn, `seeded`).

// forward (and resolveShape of a forward spec): copies, seeded or copied weights, packing, the
// projections, the kernel, the output and the finiteness check. `packed`: a Layer's forward (its
// weights were read and packed at creation).
Cost forward_cost(const Shape& s, bool seeded, bool packed = false);
// forward with returnIntermediates: the pass, plus the walkthrough's naive scores (and MLA's
// absorbed queries) in plain loops and every stage copied out.
Cost intermediates_cost(const Shape& s, bool seeded);
// createLayer / createSession: the weights read or drawn, packed, checked; a session's cache zeroed.
Cost weights_cost(const Shape& s, bool seeded, bool session);
// session.append of k tokens to a cache holding `cached` (MLA: the absorbed form, at latentRank).
// `cache_field`: the field its scores term names ("x": append fewer tokens; "maxLen" at creation).
Cost append_cost(const Shape& s, int64_t k, int64_t cached, const std::string& cache_field = "x");

}  // namespace attn
