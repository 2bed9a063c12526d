// block_steps.hpp — the steps every attention block shares: a block's result, and attending the
// new rows' queries over keys and values through the grouped kernel (attention.hpp). The blocks
// (grouped_block.hpp: MHA / MQA / GQA; latent_block.hpp: MLA), the KV cache (kv_cache.hpp) and
// training (train/layers.hpp) all attend through attend_args() and attend_rows().
#pragma once

#include <cstdint>
#include <optional>

#include "attn/attention.hpp"
#include "attn/shape.hpp"
#include "attn/stage_record.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct ForwardResult {
  Matrix output;                   // (N, D)
  std::optional<Tensor3> weights;  // (H, N, S) when s.return_weights
  float* maps() { return weights ? weights->data() : nullptr; }
};
// A result whose weights, when s.return_weights, are (H, n_q, n_k).
ForwardResult make_forward_result(const Shape& s, int64_t n_q, int64_t n_k);

// Rows of per-head vectors in a row-major buffer: head j of row i at data[i * ld + j * width].
struct HeadRows {
  const float* data;
  int64_t ld;     // row stride
  int64_t width;  // floats per head (d_qk for queries and keys, d_v for values)
};

// The one builder of the grouped kernel's arguments: n_q queries q (H heads, s.h) over n_k keys k
// and values v (n_kv_heads heads each); head count, scale (s.scale()) and sliding window from s.
// causal: key j visible to query i iff j <= q_offset + i (and j > q_offset + i - s.window with a window).
// weights: optional (H, n_q, n_k).
AttendArgs attend_args(const Shape& s, int64_t n_q, int64_t n_k, int64_t n_kv_heads, HeadRows q, HeadRows k,
                       HeadRows v, bool causal, int64_t q_offset = 0, float* weights = nullptr);

// Runs the kernel on `a`, writing the heads' outputs to out (a.n_q rows of stride ldo) ...
void attend_rows_into(const AttendArgs& a, float* out, int64_t ldo);
// ... or to a new matrix o (a.n_q, H*a.d_v), returned.
Matrix attend_rows(const AttendArgs& a);

// Where the kernel writes n_q queries' maps and scores (H, n_q, n_k): with a record, into new stages
// "scores" and "attention" of it (the maps copied to `maps` afterwards: keep_maps); else the maps to
// `maps` (or nowhere) and no scores.
struct MapsOut {
  float* weights = nullptr;
  float* scores = nullptr;
};
MapsOut maps_out(int64_t h, int64_t n_q, int64_t n_k, float* maps, StageRecord* rec);
// After the kernel: the record's maps copied to `maps` (the caller's, when it asked for them too).
void keep_maps(const MapsOut& m, int64_t h, int64_t n_q, int64_t n_k, float* maps);

// attend_rows for the N queries of one sequence over its own N keys (causal when s.causal).
// q: (N, H*d_qk)   k: (N, G*d_qk)   v: rows of width d_v per K/V head at v_data, row stride ldv.
Matrix attend_sequence(const Shape& s, float* weights, int64_t n_kv_heads, int64_t d_qk, int64_t d_v,
                       const Matrix& q, const Matrix& k, const float* v_data, int64_t ldv);

}  // namespace attn
