// attention.cpp — the grouped attention kernel (see attention.hpp).
#include "attn/attention.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "attn/kernels.hpp"

namespace attn {

using simd::kLanes;
using simd::vf;

namespace {

constexpr int kMaxGroupBlock = 2;  // query heads per pass over a key block

// Keys visible to query i (0-based within this call): [first_visible_key, visible_keys).
inline int64_t visible_keys(const AttendArgs& a, int64_t i) {
  return a.causal ? std::min(a.n_k, a.q_offset + i + 1) : a.n_k;
}
inline int64_t first_visible_key(const AttendArgs& a, int64_t i) {
  return a.causal && a.window > 0 ? std::max<int64_t>(0, a.q_offset + i + 1 - a.window) : 0;
}

// row[0:len] <- softmax over the visible keys [first, len), zeros elsewhere (and past len to total).
// `scores`: null, or the row of a.scores (n_k floats) that receives scale * row[j], the softmax's input,
// for the visible keys and -infinity for the masked ones (before the softmax overwrites row).
inline void softmax_visible(float* row, int64_t first, int64_t len, int64_t total, float scale, float* scores = nullptr,
                            int64_t n_k = 0) {
  if (scores) {
    std::fill(scores, scores + n_k, -std::numeric_limits<float>::infinity());
    for (int64_t j = first; j < len; ++j) scores[j] = row[j] * scale;
  }
  softmax_row(row + first, len - first, total - first, scale);
  std::fill(row, row + first, 0.0f);
}

// Row i of head h of a.scores, or null.
inline float* scores_row(const AttendArgs& a, int64_t h, int64_t i) {
  return a.scores ? a.scores + (h * a.n_q + i) * a.n_k : nullptr;
}

// ---- few queries (decoding): one query row against the keys of one K/V head, for all the query
// heads of its group, so that each K and V row is read from memory once per group, not per head.
//
//   pass 1   s_h[j] = q_h . k_j            for the group's heads h, keys j < len   (tiles of keys)
//   pass 2   p_h = softmax(scale * s_h)                                          (two-pass softmax)
//   pass 3   o_h = sum_j p_h[j] v_j                                              (tiles of keys)
// A tile of keys (K or V rows of one head) stays in L1 while every head of the group uses it. Its
// size (key_tile) depends on how many query heads share a K/V head: measured in wasm SIMD at 4096
// cached tokens (docs/performance.md), tiles of 4 keys run GQA (4 heads per K/V head) 6-10 % faster
// than tiles of 16 and ~5 % faster than tiles of 8; MHA (1 head per K/V head) runs ~5 % faster with
// tiles of 8 than of 4; MLA's absorbed decode (all 32 heads on one K/V head) 5-9 % faster with tiles
// of 16 than of 4. Tiles change no result: every sum runs over the keys in order.
inline int64_t key_tile(int64_t group) { return group >= 8 ? 16 : group == 1 ? 8 : 4; }

// p[hb][kb] = q[hb] . k_kb for HB heads and KB keys (rows k + kb*ldk), d floats each.
// HB * KB accumulator vectors, one horizontal sum each at the end.
template <int HB, int KB>
inline void dot_block(int64_t d, const float* const* q, const float* k, int64_t ldk, float* const* p, int64_t j) {
  vf acc[HB][KB];
  ATTN_UNROLL
  for (int hb = 0; hb < HB; ++hb) {
    ATTN_UNROLL
    for (int kb = 0; kb < KB; ++kb) acc[hb][kb] = simd::splat(0.0f);
  }
  int64_t c = 0;
  for (; c + kLanes <= d; c += kLanes) {
    vf kv[KB];
    ATTN_UNROLL
    for (int kb = 0; kb < KB; ++kb) kv[kb] = simd::load(k + kb * ldk + c);
    ATTN_UNROLL
    for (int hb = 0; hb < HB; ++hb) {
      const vf qv = simd::load(q[hb] + c);
      ATTN_UNROLL
      for (int kb = 0; kb < KB; ++kb) acc[hb][kb] = simd::madd(qv, kv[kb], acc[hb][kb]);
    }
  }
  ATTN_UNROLL
  for (int hb = 0; hb < HB; ++hb) {
    ATTN_UNROLL
    for (int kb = 0; kb < KB; ++kb) {
      float s = simd::hsum(acc[hb][kb]);
      for (int64_t t = c; t < d; ++t) s += q[hb][t] * k[kb * ldk + t];
      p[hb][j + kb] = s;
    }
  }
}

// Scores of HB heads against keys [j0, j1) of one K/V head (rows k + j*ldk).
template <int HB>
void scores_tile(int64_t d, const float* const* q, const float* k, int64_t ldk, float* const* p, int64_t j0, int64_t j1) {
  constexpr int KB = HB == 1 ? 4 : 2 * 4 / HB;  // HB * KB <= 8 accumulators: registers to spare in wasm
  int64_t j = j0;
  for (; j + KB <= j1; j += KB) dot_block<HB, KB>(d, q, k + j * ldk, ldk, p, j);
  for (; j < j1; ++j) dot_block<HB, 1>(d, q, k + j * ldk, ldk, p, j);
}

// o[0:NV*kLanes] (=|+=) sum_{j in [j0, j1)} p[j] v_j[0:NV*kLanes], rows v + j*ldv.
template <int NV>
inline void pv_block(const float* p, const float* v, int64_t ldv, float* o, int64_t j0, int64_t j1, bool first) {
  vf acc[NV];
  ATTN_UNROLL
  for (int c = 0; c < NV; ++c) acc[c] = first ? simd::splat(0.0f) : simd::load(o + c * kLanes);
  for (int64_t j = j0; j < j1; ++j) {
    const vf pj = simd::splat(p[j]);
    const float* vj = v + j * ldv;
    ATTN_UNROLL
    for (int c = 0; c < NV; ++c) acc[c] = simd::madd(pj, simd::load(vj + c * kLanes), acc[c]);
  }
  ATTN_UNROLL
  for (int c = 0; c < NV; ++c) simd::store(o + c * kLanes, acc[c]);
}

// o[0:d] (=|+=) sum_{j in [j0, j1)} p[j] v_j[0:d]: column chunks of 8 vectors, then the rest.
void pv_tile(int64_t d, const float* p, const float* v, int64_t ldv, float* o, int64_t j0, int64_t j1, bool first) {
  constexpr int64_t kChunk = 8 * kLanes;
  int64_t c = 0;
  for (; c + kChunk <= d; c += kChunk) pv_block<8>(p, v + c, ldv, o + c, j0, j1, first);
  for (; c + kLanes <= d; c += kLanes) pv_block<1>(p, v + c, ldv, o + c, j0, j1, first);
  for (; c < d; ++c) {
    float s = first ? 0.0f : o[c];
    for (int64_t j = j0; j < j1; ++j) s += p[j] * v[j * ldv + c];
    o[c] = s;
  }
}

// o_hb[0:NV*kLanes] (=|+=) sum_{j in [j0, j1)} p_hb[j] v_j[0:NV*kLanes] for HB query heads that share
// one V head: each V vector is loaded once for the HB heads (pv_block loads it once per head). Every
// o_hb[c] sums over j in the same order as pv_block, so the results are the same bits.
template <int HB, int NV>
inline void pv_block_heads(const float* const* p, const float* v, int64_t ldv, float* const* o, int64_t j0,
                           int64_t j1, bool first) {
  vf acc[HB][NV];
  ATTN_UNROLL
  for (int hb = 0; hb < HB; ++hb) {
    ATTN_UNROLL
    for (int c = 0; c < NV; ++c) acc[hb][c] = first ? simd::splat(0.0f) : simd::load(o[hb] + c * kLanes);
  }
  for (int64_t j = j0; j < j1; ++j) {
    const float* vj = v + j * ldv;
    vf vv[NV];
    ATTN_UNROLL
    for (int c = 0; c < NV; ++c) vv[c] = simd::load(vj + c * kLanes);
    ATTN_UNROLL
    for (int hb = 0; hb < HB; ++hb) {
      const vf pj = simd::splat(p[hb][j]);
      ATTN_UNROLL
      for (int c = 0; c < NV; ++c) acc[hb][c] = simd::madd(pj, vv[c], acc[hb][c]);
    }
  }
  ATTN_UNROLL
  for (int hb = 0; hb < HB; ++hb) {
    ATTN_UNROLL
    for (int c = 0; c < NV; ++c) simd::store(o[hb] + c * kLanes, acc[hb][c]);
  }
}

// pv_tile for the `n` query heads h of one group (weights p[h], outputs o[h], one V head): column
// chunks of kPvHeadCols vectors for blocks of kPvHeads heads, the rest through pv_tile.
constexpr int kPvHeads = 4;
constexpr int kPvHeadCols = 2;  // kPvHeads * kPvHeadCols accumulators + kPvHeadCols V vectors + a splat
void pv_tile_heads(int64_t d, const float* const* p, int64_t n, const float* v, int64_t ldv, float* const* o,
                   int64_t j0, int64_t j1, bool first) {
  constexpr int64_t kChunk = kPvHeadCols * kLanes;
  const int64_t blocked = n / kPvHeads * kPvHeads, cols = d / kChunk * kChunk;
  for (int64_t h = 0; h < blocked; h += kPvHeads) {
    for (int64_t c = 0; c < cols; c += kChunk) {
      float* oc[kPvHeads];
      for (int hb = 0; hb < kPvHeads; ++hb) oc[hb] = o[h + hb] + c;
      pv_block_heads<kPvHeads, kPvHeadCols>(p + h, v + c, ldv, oc, j0, j1, first);
    }
    for (int hb = 0; hb < kPvHeads; ++hb) {  // the last columns of these heads
      if (cols < d) pv_tile(d - cols, p[h + hb], v + cols, ldv, o[h + hb] + cols, j0, j1, first);
    }
  }
  for (int64_t h = blocked; h < n; ++h) pv_tile(d, p[h], v, ldv, o[h], j0, j1, first);
}

// Pass 1 for query row i, K/V head g, keys [j0, j1): scores of the group's heads into p[h0 ..].
void scores_group(const AttendArgs& a, int64_t i, int64_t g, int64_t j0, int64_t j1, float* const* p) {
  const int64_t group = a.n_heads / a.n_kv_heads, h0 = g * group;
  const float* k = a.k + g * a.d_qk;  // (len, d_qk), row stride ldk
  const float* q[kMaxGroupBlock];
  for (int64_t hb = 0; hb < group; hb += 2) {
    q[0] = a.q + i * a.ldq + (h0 + hb) * a.d_qk;
    if (hb + 1 < group) {
      q[1] = q[0] + a.d_qk;
      scores_tile<2>(a.d_qk, q, k, a.ldk, p + h0 + hb, j0, j1);
    } else {
      scores_tile<1>(a.d_qk, q, k, a.ldk, p + h0 + hb, j0, j1);
    }
  }
}

// Few queries (decoding): per query row, the three passes over all keys. Tiles of keys are the
// outer loop and K/V heads the inner one, so the cache is read row after row, sequentially (a
// loop over heads outside would jump a whole cache row, G*dh floats, from key to key: no hardware
// prefetch, a TLB miss per key), and each head's tile is reused from L1 by all its query heads.
void attend_direct(const AttendArgs& a) {
  const int64_t group = a.n_heads / a.n_kv_heads, tile = key_tile(group);
  std::vector<float> scratch(a.weights ? 0 : static_cast<std::size_t>(a.n_heads * a.n_k));
  std::vector<float*> p(static_cast<std::size_t>(a.n_heads));  // (H, S): the weights rows, or scratch
  std::vector<float*> o(static_cast<std::size_t>(a.n_heads));  // (H, d_v): the output rows of query i
  for (int64_t i = 0; i < a.n_q; ++i) {
    const int64_t first = first_visible_key(a, i), len = visible_keys(a, i);
    for (int64_t h = 0; h < a.n_heads; ++h) {
      p[std::size_t(h)] = a.weights ? a.weights + (h * a.n_q + i) * a.n_k : scratch.data() + h * a.n_k;
      o[std::size_t(h)] = a.out + i * a.ldo + h * a.d_v;
    }
    for (int64_t j0 = first; j0 < len; j0 += tile) {  // pass 1
      const int64_t j1 = std::min(len, j0 + tile);
      for (int64_t g = 0; g < a.n_kv_heads; ++g) scores_group(a, i, g, j0, j1, p.data());
    }
    for (int64_t h = 0; h < a.n_heads; ++h) {  // pass 2
      softmax_visible(p[std::size_t(h)], first, len, a.weights ? a.n_k : len, a.scale, scores_row(a, h, i), a.n_k);
    }
    for (int64_t j0 = first; j0 < len; j0 += tile) {  // pass 3
      const int64_t j1 = std::min(len, j0 + tile);
      for (int64_t g = 0; g < a.n_kv_heads; ++g) {  // the group's heads share each V vector they load
        const std::size_t h0 = std::size_t(g * group);
        pv_tile_heads(a.d_v, p.data() + h0, group, a.v + g * a.d_v, a.ldv, o.data() + h0, j0, j1, j0 == first);
      }
    }
  }
}

// Many queries: per K/V head, pack k_g^T (d_qk, S) and v_g (S, d_v) once; per query head of the
// group and block of kQueryBlock queries, scores = q_block k_g^T through the packed gemm (only the
// keys the block can see), a softmax per row, then o_block = p v_g.
void attend_blocked(const AttendArgs& a) {
  const int64_t group = a.n_heads / a.n_kv_heads;
  std::vector<float> scratch(a.weights ? 0 : static_cast<std::size_t>(kQueryBlock * a.n_k));
  for (int64_t g = 0; g < a.n_kv_heads; ++g) {
    const PackedB kt = pack_b(a.k + g * a.d_qk, a.d_qk, a.n_k, 1, a.ldk);  // k_g^T: (d_qk, S)
    const PackedB vg = pack_b(a.v + g * a.d_v, a.n_k, a.d_v, a.ldv, 1);    // v_g:   (S, d_v)
    for (int64_t h = g * group; h < (g + 1) * group; ++h) {
      for (int64_t i0 = 0; i0 < a.n_q; i0 += kQueryBlock) {
        const int64_t bq = std::min(kQueryBlock, a.n_q - i0);
        const int64_t keys = visible_keys(a, i0 + bq - 1);  // the last row of the block sees most
        float* p = a.weights ? a.weights + (h * a.n_q + i0) * a.n_k : scratch.data();  // (bq, S)
        gemm_packed(bq, keys, a.d_qk, a.q + i0 * a.ldq + h * a.d_qk, a.ldq, kt, p, a.n_k, false);
        for (int64_t i = 0; i < bq; ++i) {
          softmax_visible(p + i * a.n_k, first_visible_key(a, i0 + i), visible_keys(a, i0 + i), a.n_k, a.scale,
                          scores_row(a, h, i0 + i), a.n_k);
        }
        gemm_packed(bq, a.d_v, keys, p, a.n_k, vg, a.out + i0 * a.ldo + h * a.d_v, a.ldo, false);
      }
    }
  }
}

}  // namespace

void attend(const AttendArgs& a) {
  if (a.n_q < kDirectMaxQueries) {
    attend_direct(a);
  } else {
    attend_blocked(a);
  }
}

}  // namespace attn
