// block_steps.cpp — see block_steps.hpp.
#include "attn/block_steps.hpp"

#include <algorithm>

namespace attn {

ForwardResult make_forward_result(const Shape& s, int64_t n_q, int64_t n_k) {
  ForwardResult r;
  if (s.return_weights) {
    r.weights = Tensor3::from_shape({std::size_t(s.h), std::size_t(n_q), std::size_t(n_k)});
  }
  return r;
}

AttendArgs attend_args(const Shape& s, int64_t n_q, int64_t n_k, int64_t n_kv_heads, HeadRows q, HeadRows k,
                       HeadRows v, bool causal, int64_t q_offset, float* weights) {
  AttendArgs a;
  a.n_q = n_q;
  a.n_k = n_k;
  a.n_heads = s.h;
  a.n_kv_heads = n_kv_heads;
  a.d_qk = q.width;
  a.d_v = v.width;
  a.q = q.data; a.ldq = q.ld;
  a.k = k.data; a.ldk = k.ld;
  a.v = v.data; a.ldv = v.ld;
  a.scale = s.scale();
  a.causal = causal;
  a.window = causal ? s.window : 0;
  a.q_offset = q_offset;
  a.weights = weights;
  return a;
}

void attend_rows_into(const AttendArgs& a, float* out, int64_t ldo) {
  AttendArgs b = a;
  b.out = out;
  b.ldo = ldo;
  attend(b);
}

Matrix attend_rows(const AttendArgs& a) {
  Matrix o = uninitialised(a.n_q, a.n_heads * a.d_v);  // (n_q, H*d_v)
  attend_rows_into(a, o.data(), a.n_heads * a.d_v);
  return o;
}

MapsOut maps_out(int64_t h, int64_t n_q, int64_t n_k, float* maps, StageRecord* rec) {
  if (!rec) return {maps, nullptr};
  float* scores = rec->tensor("scores", {h, n_q, n_k});
  return {rec->tensor("attention", {h, n_q, n_k}), scores};
}

void keep_maps(const MapsOut& m, int64_t h, int64_t n_q, int64_t n_k, float* maps) {
  if (maps && m.weights != maps) std::copy_n(m.weights, h * n_q * n_k, maps);
}

Matrix attend_sequence(const Shape& s, float* weights, int64_t n_kv_heads, int64_t d_qk, int64_t d_v,
                       const Matrix& q, const Matrix& k, const float* v_data, int64_t ldv) {
  return attend_rows(attend_args(s, s.n, s.n, n_kv_heads, {q.data(), int64_t(q.shape(1)), d_qk},
                                 {k.data(), int64_t(k.shape(1)), d_qk}, {v_data, ldv, d_v}, s.causal, 0, weights));
}

}  // namespace attn
