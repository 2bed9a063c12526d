// forward.hpp — one attention block over a whole sequence, for every variant, and the steps the
// blocks share. The blocks themselves live in grouped_block.hpp (MHA / MQA / GQA) and
// latent_block.hpp (MLA); the KV cache (kv_cache.hpp) and training (train/layers.hpp) run the same
// steps: project the new rows, attend through the grouped kernel (attention.hpp), project out.
#pragma once

#include <cstdint>
#include <optional>

#include "attn/attention.hpp"
#include "attn/shape.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace attn {

struct ForwardResult {
  Matrix output;                   // (N, D)
  std::optional<Tensor3> weights;  // (H, N, S) when s.return_weights
  float* maps() { return weights ? weights->data() : nullptr; }
};
// A result whose weights, when s.return_weights, are (H, n_q, n_k).
ForwardResult make_forward_result(const Shape& s, int64_t n_q, int64_t n_k);

// x: (N, D). `s` must come from resolve(); weights must match weight_slots(s).
// MLA runs in the naive form (latent_block.hpp); a KV cache decodes it in the absorbed form.
ForwardResult forward(const Shape& s, const Weights& w, const Matrix& x);

// The grouped kernel for one block: fills a's head count (s.h) and scale (s.scale()), writes the
// heads' outputs to a new matrix o (a.n_q, H*a.d_v) and returns it. The caller sets the operands,
// the sizes, causal/q_offset and the optional weights (H, n_q, n_k).
Matrix attend_rows(const Shape& s, AttendArgs a);
// The same, writing the heads' outputs to out (a.n_q rows of stride ldo) instead of a new matrix.
void attend_rows_into(const Shape& s, AttendArgs a, float* out, int64_t ldo);

// attend_rows for the N queries of one sequence over its own N keys (causal when s.causal).
// q: (N, H*d_qk)   k: (N, G*d_qk)   v: rows of width d_v per K/V head at v_data, row stride ldv.
Matrix attend_sequence(const Shape& s, float* weights, int64_t n_kv_heads, int64_t d_qk, int64_t d_v,
                       const Matrix& q, const Matrix& k, const float* v_data, int64_t ldv);

}  // namespace attn
