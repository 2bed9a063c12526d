// attention.hpp — the grouped attention kernel: MHA, MQA and GQA are one kernel (and so are both
// forms of MLA, which reduce to it, see forward.hpp).
//
//   for every query head h:   g = h / (H / G)                   (contiguous groups: repeat_interleave)
//     s = q_h k_g^T            (N, S)     q_h: (N, d_qk)  k_g: (S, d_qk)
//     p = softmax(scale * s)   (N, S)     key j visible to query i iff !causal or j <= q_offset + i,
//                                         and, with a sliding window W, j > q_offset + i - W
//     o_h = p v_g              (N, d_v)   v_g: (S, d_v)
//
// Operands are strided views into row-major buffers (head h at column h*d_qk, K/V head g at g*d_qk),
// so projections, caches and the MLA latent are used in place, without copies.
#pragma once

#include <cstdint>

namespace attn {

struct AttendArgs {
  int64_t n_q = 0, n_k = 0;               // N queries, S keys
  int64_t n_heads = 0, n_kv_heads = 0;    // H, G (G divides H)
  int64_t d_qk = 0, d_v = 0;              // widths of q/k and of v per head
  const float* q = nullptr; int64_t ldq = 0;  // (N, H*d_qk)
  const float* k = nullptr; int64_t ldk = 0;  // (S, G*d_qk)
  const float* v = nullptr; int64_t ldv = 0;  // (S, G*d_v)
  float scale = 1.0f;
  bool causal = false;
  int64_t q_offset = 0;                   // position of query 0 (a session's cache length)
  int64_t window = 0;                     // causal only: a query sees its last `window` keys (0: all)
  float* out = nullptr; int64_t ldo = 0;      // (N, H*d_v)
  float* weights = nullptr;               // optional (H, N, S): the softmax probabilities
  float* scores = nullptr;                // optional (H, N, S): scale * q_h . k_j, the softmax's input, for the
                                          // visible keys; -infinity for the masked ones
};

// Optimised: blocked over queries, K^T and V packed once per K/V head, scores and p @ v through
// the register-blocked gemm; few queries (decoding) take a direct path instead: per query row, key
// tiles in cache-row order, each K/V tile read once for all the query heads of its group (scores,
// a softmax per head, then p @ v), no packing.
void attend(const AttendArgs& a);

// Queries below this count take the direct path (no packing), as in decoding.
constexpr int64_t kDirectMaxQueries = 8;
// Queries per block of the blocked path: scores for a block are (kQueryBlock, S) floats.
constexpr int64_t kQueryBlock = 32;

}  // namespace attn
