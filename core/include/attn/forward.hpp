// forward.hpp — one attention block over a whole sequence, for every variant.
//
//   MHA / MQA / GQA:
//     q = X wq (N, H*dh)   k = X wk (N, G*dh)   v = X wv (N, G*dh)   [RoPE on q and k heads]
//     o = attend(q, k, v)  (N, H*dh)            out = o wo (N, D)
//   MLA, naive form (decompress K and V):
//     c = X W_dkv (N, r)   k_h = c W_uk[:, h]   v_h = c W_uv[:, h]   q_h = X wq[:, h]
//     qr_h = rope(X W_qr)[:, h] (N, dr)   kr = rope(X W_kr) (N, dr), shared by all heads
//     s_h = (q_h k_h^T + qr_h kr^T) / sqrt(dh + dr)   out = concat_h(softmax(s_h) v_h) wo
//   MLA, absorbed form (what a session decodes with; K and V are never materialised):
//     q~_h = q_h W_uk[:, h]^T (N, r)     s_h = (q~_h c^T + qr_h kr^T) / sqrt(dh + dr)
//     o~_h = softmax(s_h) c (N, r)       out = concat_h(o~_h) Wo~,  Wo~_h = W_uv[:, h] wo[h] (r, D)
//   i.e. MQA with one shared "K/V head" [c | kr] of width r + dr.
#pragma once

#include <optional>

#include "attn/spec.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace attn {

struct ForwardResult {
  Matrix output;                   // (N, D)
  std::optional<Tensor3> weights;  // (H, N, N) when s.return_weights
};

// x: (N, D). `s` must come from resolve(); weights must match weight_slots(s).
ForwardResult forward(const Shape& s, const Weights& w, const Matrix& x);

// MLA in the absorbed form over a whole sequence (for tests: must equal forward()).
ForwardResult forward_mla_absorbed(const Shape& s, const Weights& w, const Matrix& x);

// The absorbed MLA matrices, built once per set of weights.
struct AbsorbedMla {
  Matrix w_q;     // (D, H*(r+dr)): per head [wq_h W_uk_h^T | W_qr_h]   -> [q~_h | qr_h before RoPE]
  Matrix w_ckr;   // (D, r+dr):     [W_dkv | W_kr]                       -> one cache row [c | kr]
  Matrix w_o;     // (H*r, D):      row block h = W_uv_h wo_h
};
AbsorbedMla absorb_mla(const Shape& s, const Weights& w);

// The steps forward() is made of, shared with forward_intermediates() (intermediates.hpp):
// o (N, H*d_v) = attention of the N queries of one sequence over its N keys; weights: optional (H, N, N).
// q: (N, H*d_qk)   k: (N, G*d_qk)   v: rows of width d_v per K/V head at v_data, row stride ldv.
Matrix attend_sequence(const Shape& s, float* weights, int64_t n_kv_heads, int64_t d_qk, int64_t d_v,
                       const Matrix& q, const Matrix& k, const float* v_data, int64_t ldv);
// Copies `width` columns starting at src_col of each row of src into dst at dst_col.
void copy_columns(const Matrix& src, int64_t src_col, Matrix& dst, int64_t dst_col, int64_t width);

}  // namespace attn
