// forward.cpp — one attention block over a whole sequence (see forward.hpp for the equations).
#include "attn/forward.hpp"

#include "attn/attention.hpp"
#include "attn/kernels.hpp"
#include "attn/rope.hpp"

namespace attn {

namespace {

float* maps_of(ForwardResult& r) { return r.weights ? r.weights->data() : nullptr; }

ForwardResult make_result(const Shape& s, int64_t n_q, int64_t n_k) {
  ForwardResult r;
  if (s.return_weights) {
    r.weights = Tensor3::from_shape({std::size_t(s.h), std::size_t(n_q), std::size_t(n_k)});
  }
  return r;
}

// MHA / MQA / GQA.
ForwardResult forward_grouped(const Shape& s, const Weights& w, const Matrix& x) {
  Matrix q = matmul(x, w.wq);  // (N, H*dh)
  Matrix k = matmul(x, w.wk);  // (N, G*dh)
  Matrix v = matmul(x, w.wv);  // (N, G*dh)
  if (s.rope) {
    apply_rope(q.data(), s.n, s.h * s.dh, 0, s.h, s.dh, s.dh, 0, s.rope_base);
    apply_rope(k.data(), s.n, s.g * s.dh, 0, s.g, s.dh, s.dh, 0, s.rope_base);
  }
  ForwardResult r = make_result(s, s.n, s.n);
  const Matrix o = attend_sequence(s, maps_of(r), s.g, s.dh, s.dh, q, k, v.data(), s.g * s.dh);  // (N, H*dh)
  r.output = matmul(o, w.wo);  // (N, D)
  return r;
}

// MLA, naive: decompress K and V, concatenate the RoPE parts per head, run the grouped kernel with G = H.
ForwardResult forward_mla_naive(const Shape& s, const Weights& w, const Matrix& x) {
  const int64_t dqk = s.dh + s.dr;
  const Matrix c = matmul(x, w.w_dkv);        // (N, r)      the latent
  const Matrix q_nope = matmul(x, w.wq);      // (N, H*dh)
  const Matrix k_nope = matmul(c, w.w_uk);    // (N, H*dh)   decompressed keys
  const Matrix v = matmul(c, w.w_uv);         // (N, H*dh)   decompressed values
  Matrix q = uninitialised(s.n, s.h * dqk);   // (N, H*(dh+dr)) per head [q_h | qr_h]
  Matrix k = uninitialised(s.n, s.h * dqk);   // (N, H*(dh+dr)) per head [k_h | kr]
  for (int64_t h = 0; h < s.h; ++h) {
    copy_columns(q_nope, h * s.dh, q, h * dqk, s.dh);
    copy_columns(k_nope, h * s.dh, k, h * dqk, s.dh);
  }
  if (s.dr > 0) {
    Matrix qr = matmul(x, w.w_qr);            // (N, H*dr)
    Matrix kr = matmul(x, w.w_kr);            // (N, dr)     shared by all heads
    apply_rope(qr.data(), s.n, s.h * s.dr, 0, s.h, s.dr, s.dr, 0, s.rope_base);
    apply_rope(kr.data(), s.n, s.dr, 0, 1, 0, s.dr, 0, s.rope_base);
    for (int64_t h = 0; h < s.h; ++h) {
      copy_columns(qr, h * s.dr, q, h * dqk + s.dh, s.dr);
      copy_columns(kr, 0, k, h * dqk + s.dh, s.dr);
    }
  }
  ForwardResult r = make_result(s, s.n, s.n);
  const Matrix o = attend_sequence(s, maps_of(r), s.h, dqk, s.dh, q, k, v.data(), s.h * s.dh);  // (N, H*dh)
  r.output = matmul(o, w.wo);
  return r;
}

}  // namespace

void copy_columns(const Matrix& src, int64_t src_col, Matrix& dst, int64_t dst_col, int64_t width) {
  const int64_t rows = int64_t(src.shape(0)), lds = int64_t(src.shape(1)), ldd = int64_t(dst.shape(1));
  for (int64_t i = 0; i < rows; ++i) {
    std::copy_n(src.data() + i * lds + src_col, width, dst.data() + i * ldd + dst_col);
  }
}

Matrix attend_sequence(const Shape& s, float* weights, int64_t n_kv_heads, int64_t d_qk, int64_t d_v,
                       const Matrix& q, const Matrix& k, const float* v_data, int64_t ldv) {
  Matrix o = uninitialised(s.n, s.h * d_v);
  AttendArgs a;
  a.n_q = a.n_k = s.n;
  a.n_heads = s.h;
  a.n_kv_heads = n_kv_heads;
  a.d_qk = d_qk;
  a.d_v = d_v;
  a.q = q.data(); a.ldq = int64_t(q.shape(1));
  a.k = k.data(); a.ldk = int64_t(k.shape(1));
  a.v = v_data; a.ldv = ldv;
  a.scale = s.scale();
  a.causal = s.causal;
  a.out = o.data(); a.ldo = s.h * d_v;
  a.weights = weights;
  attend(a);
  return o;
}

AbsorbedMla absorb_mla(const Shape& s, const Weights& w) {
  const int64_t rq = s.r + s.dr;
  AbsorbedMla m;
  m.w_q = uninitialised(s.d, s.h * rq);
  m.w_ckr = uninitialised(s.d, rq);
  m.w_o = uninitialised(s.h * s.r, s.d);
  // w_q, head h: [ wq_h W_uk_h^T | W_qr_h ]   wq_h: (D, dh)   W_uk_h: (r, dh)
  Matrix wuk_h_t = uninitialised(s.dh, s.r);     // (dh, r)
  Matrix wq_h = uninitialised(s.d, s.dh);        // (D, dh)
  for (int64_t h = 0; h < s.h; ++h) {
    for (int64_t i = 0; i < s.r; ++i) {
      for (int64_t j = 0; j < s.dh; ++j) wuk_h_t(j, i) = w.w_uk(i, h * s.dh + j);
    }
    copy_columns(w.wq, h * s.dh, wq_h, 0, s.dh);
    const Matrix q_abs = matmul(wq_h, wuk_h_t);  // (D, r)
    copy_columns(q_abs, 0, m.w_q, h * rq, s.r);
    if (s.dr > 0) copy_columns(w.w_qr, h * s.dr, m.w_q, h * rq + s.r, s.dr);
  }
  // w_ckr = [ W_dkv | W_kr ]
  copy_columns(w.w_dkv, 0, m.w_ckr, 0, s.r);
  if (s.dr > 0) copy_columns(w.w_kr, 0, m.w_ckr, s.r, s.dr);
  // w_o, row block h = W_uv_h wo_h   W_uv_h: (r, dh)   wo_h: (dh, D) = rows [h*dh, (h+1)*dh) of wo
  Matrix wuv_h = uninitialised(s.r, s.dh);
  for (int64_t h = 0; h < s.h; ++h) {
    copy_columns(w.w_uv, h * s.dh, wuv_h, 0, s.dh);
    const PackedB wo_h = pack_b(w.wo.data() + h * s.dh * s.d, s.dh, s.d, s.d, 1);
    gemm_packed(s.r, s.d, s.dh, wuv_h.data(), s.dh, wo_h, m.w_o.data() + h * s.r * s.d, s.d, false);
  }
  return m;
}

ForwardResult forward_mla_absorbed(const Shape& s, const Weights& w, const Matrix& x) {
  const AbsorbedMla m = absorb_mla(s, w);
  const int64_t rq = s.r + s.dr;
  Matrix q = matmul(x, m.w_q);     // (N, H*(r+dr))  per head [q~_h | qr_h]
  Matrix ckr = matmul(x, m.w_ckr); // (N, r+dr)      [c | kr], what a session caches
  if (s.dr > 0) {
    apply_rope(q.data(), s.n, s.h * rq, s.r, s.h, rq, s.dr, 0, s.rope_base);
    apply_rope(ckr.data(), s.n, rq, s.r, 1, 0, s.dr, 0, s.rope_base);
  }
  ForwardResult r = make_result(s, s.n, s.n);
  // One shared K/V "head": keys [c | kr], values c = the first r columns of the same rows.
  const Matrix o = attend_sequence(s, maps_of(r), 1, rq, s.r, q, ckr, ckr.data(), rq);  // (N, H*r)
  r.output = matmul(o, m.w_o);
  return r;
}

ForwardResult forward(const Shape& s, const Weights& w, const Matrix& x) {
  return s.variant == Variant::MLA ? forward_mla_naive(s, w, x) : forward_grouped(s, w, x);
}

}  // namespace attn
