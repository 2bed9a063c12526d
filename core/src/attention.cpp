// attention.cpp — the grouped attention kernel (see attention.hpp).
#include "attn/attention.hpp"

#include <algorithm>
#include <vector>

#include "attn/kernels.hpp"

namespace attn {

using simd::kLanes;
using simd::vf;

namespace {

// Keys visible to query i (0-based within this call).
inline int64_t visible_keys(const AttendArgs& a, int64_t i) {
  return a.causal ? std::min(a.n_k, a.q_offset + i + 1) : a.n_k;
}

float dot(const float* x, const float* y, int64_t n) {
  vf acc0 = simd::splat(0.0f), acc1 = acc0;
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    acc0 += simd::load(x + i) * simd::load(y + i);
    acc1 += simd::load(x + i + kLanes) * simd::load(y + i + kLanes);
  }
  for (; i + kLanes <= n; i += kLanes) acc0 += simd::load(x + i) * simd::load(y + i);
  float s = simd::hsum(acc0 + acc1);
  for (; i < n; ++i) s += x[i] * y[i];
  return s;
}

// y[0:n] += alpha * x[0:n]
void axpy(float alpha, const float* x, float* y, int64_t n) {
  const vf av = simd::splat(alpha);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) simd::store(y + i, simd::load(y + i) + av * simd::load(x + i));
  for (; i < n; ++i) y[i] += alpha * x[i];
}

// Few queries (decoding): for each query and head, dot products against the visible keys read in
// place from K, softmax, then a weighted sum of V rows. No packing: each K/V row is read once per head.
void attend_direct(const AttendArgs& a) {
  const int64_t group = a.n_heads / a.n_kv_heads;
  std::vector<float> scratch(a.weights ? 0 : static_cast<std::size_t>(a.n_k));
  for (int64_t i = 0; i < a.n_q; ++i) {
    const int64_t len = visible_keys(a, i);
    for (int64_t h = 0; h < a.n_heads; ++h) {
      const int64_t g = h / group;
      float* p = a.weights ? a.weights + (h * a.n_q + i) * a.n_k : scratch.data();   // (S,)
      const float* q = a.q + i * a.ldq + h * a.d_qk;                                   // (d_qk,)
      for (int64_t j = 0; j < len; ++j) p[j] = dot(q, a.k + j * a.ldk + g * a.d_qk, a.d_qk);
      softmax_row(p, len, a.n_k, a.scale);
      float* o = a.out + i * a.ldo + h * a.d_v;                                        // (d_v,)
      std::fill(o, o + a.d_v, 0.0f);
      for (int64_t j = 0; j < len; ++j) axpy(p[j], a.v + j * a.ldv + g * a.d_v, o, a.d_v);
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
        for (int64_t i = 0; i < bq; ++i) softmax_row(p + i * a.n_k, visible_keys(a, i0 + i), a.n_k, a.scale);
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
