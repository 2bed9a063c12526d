// forward.cpp — the variant dispatch and the attention step every block shares (see forward.hpp).
#include "attn/forward.hpp"

#include "attn/layer.hpp"

namespace attn {

ForwardResult make_forward_result(const Shape& s, int64_t n_q, int64_t n_k) {
  ForwardResult r;
  if (s.return_weights) {
    r.weights = Tensor3::from_shape({std::size_t(s.h), std::size_t(n_q), std::size_t(n_k)});
  }
  return r;
}

ForwardResult forward(const Shape& s, const Weights& w, const Matrix& x) {
  return forward(s, pack_block(s, w), x);
}

void attend_rows_into(const Shape& s, AttendArgs a, float* out, int64_t ldo) {
  a.n_heads = s.h;
  a.scale = s.scale();
  a.out = out;
  a.ldo = ldo;
  attend(a);
}

Matrix attend_rows(const Shape& s, AttendArgs a) {
  Matrix o = uninitialised(a.n_q, s.h * a.d_v);  // (n_q, H*d_v)
  attend_rows_into(s, a, o.data(), s.h * a.d_v);
  return o;
}

Matrix attend_sequence(const Shape& s, float* weights, int64_t n_kv_heads, int64_t d_qk, int64_t d_v,
                       const Matrix& q, const Matrix& k, const float* v_data, int64_t ldv) {
  AttendArgs a;
  a.n_q = a.n_k = s.n;
  a.n_kv_heads = n_kv_heads;
  a.d_qk = d_qk;
  a.d_v = d_v;
  a.q = q.data(); a.ldq = int64_t(q.shape(1));
  a.k = k.data(); a.ldk = int64_t(k.shape(1));
  a.v = v_data; a.ldv = ldv;
  a.causal = s.causal;
  a.weights = weights;
  return attend_rows(s, a);
}

}  // namespace attn
