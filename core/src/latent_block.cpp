// latent_block.cpp — MLA in its naive and absorbed forms (see latent_block.hpp).
#include "attn/latent_block.hpp"

#include "attn/rope.hpp"

namespace attn {

namespace {

// y (rows, N) = x (rows, K) @ w (K, N), x given as `rows` rows of K contiguous floats.
Matrix times(const float* x, int64_t rows, const Matrix& w) {
  const int64_t k = int64_t(w.shape(0)), n = int64_t(w.shape(1));
  Matrix y = uninitialised(rows, n);
  gemm_packed(rows, n, k, x, k, pack_matrix(w), y.data(), n, false);
  return y;
}

}  // namespace

LatentRows project_latent(const Shape& s, const Weights& w, const float* x, int64_t rows, int64_t pos0,
                          int64_t batch) {
  const int64_t dqk = s.dh + s.dr;
  LatentRows o;
  o.c = times(x, rows, w.w_dkv);                    // (rows, r)      the latent
  const Matrix q_nope = times(x, rows, w.wq);       // (rows, H*dh)
  const Matrix k_nope = times(o.c.data(), rows, w.w_uk);  // (rows, H*dh)   decompressed keys
  o.v = times(o.c.data(), rows, w.w_uv);            // (rows, H*dh)   decompressed values
  o.q = uninitialised(rows, s.h * dqk);
  o.k = uninitialised(rows, s.h * dqk);
  for (int64_t h = 0; h < s.h; ++h) {
    copy_columns(q_nope, h * s.dh, o.q, h * dqk, s.dh);
    copy_columns(k_nope, h * s.dh, o.k, h * dqk, s.dh);
  }
  if (s.dr > 0) {
    Matrix qr = times(x, rows, w.w_qr);             // (rows, H*dr)
    o.kr = times(x, rows, w.w_kr);                  // (rows, dr)     shared by all heads
    const int64_t n = rows / batch;
    apply_rope_batched(qr.data(), batch, n, s.h * s.dr, 0, s.h, s.dr, s.dr, pos0, s.rope_base);
    apply_rope_batched(o.kr.data(), batch, n, s.dr, 0, 1, 0, s.dr, pos0, s.rope_base);
    for (int64_t h = 0; h < s.h; ++h) {
      copy_columns(qr, h * s.dr, o.q, h * dqk + s.dh, s.dr);
      copy_columns(o.kr, 0, o.k, h * dqk + s.dh, s.dr);
    }
  }
  return o;
}

ForwardResult forward_latent(const Shape& s, const Weights& w, const Matrix& x) {
  const int64_t dqk = s.dh + s.dr;
  const LatentRows t = project_latent(s, w, x.data(), s.n, 0);
  ForwardResult r = make_forward_result(s, s.n, s.n);
  const Matrix o = attend_sequence(s, r.maps(), s.h, dqk, s.dh, t.q, t.k, t.v.data(), s.h * s.dh);  // (N, H*dh)
  r.output = matmul(o, w.wo);                                                                   // (N, D)
  return r;
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

AbsorbedProjections pack_absorbed(const Shape& s, const Weights& w) {
  const AbsorbedMla m = absorb_mla(s, w);
  return {pack_matrix(m.w_q), pack_matrix(m.w_ckr), pack_matrix(m.w_o)};
}

Matrix project_latent_absorbed(const Shape& s, const AbsorbedProjections& p, const float* x, int64_t rows,
                               float* ckr_out, int64_t ld, int64_t pos0) {
  const int64_t rq = s.r + s.dr;
  Matrix q = uninitialised(rows, s.h * rq);                              // (rows, H*(r+dr))  [q~_h | qr_h]
  gemm_packed(rows, s.h * rq, s.d, x, s.d, p.w_q, q.data(), s.h * rq, false);
  gemm_packed(rows, rq, s.d, x, s.d, p.w_ckr, ckr_out, ld, false);       // (rows, r+dr)      [c | kr]
  if (s.dr > 0) {
    apply_rope(q.data(), rows, s.h * rq, s.r, s.h, rq, s.dr, pos0, s.rope_base);
    apply_rope(ckr_out, rows, ld, s.r, 1, 0, s.dr, pos0, s.rope_base);
  }
  return q;
}

ForwardResult forward_latent_absorbed(const Shape& s, const Weights& w, const Matrix& x) {
  const AbsorbedProjections p = pack_absorbed(s, w);
  const int64_t rq = s.r + s.dr;
  Matrix ckr = uninitialised(s.n, rq);  // (N, r+dr), what a KV cache holds
  const Matrix q = project_latent_absorbed(s, p, x.data(), s.n, ckr.data(), rq, 0);
  ForwardResult r = make_forward_result(s, s.n, s.n);
  // One shared K/V "head": keys [c | kr], values c = the first r columns of the same rows.
  const Matrix o = attend_sequence(s, r.maps(), 1, rq, s.r, q, ckr, ckr.data(), rq);  // (N, H*r)
  r.output = matmul(o, p.w_o);                                                      // (N, D)
  return r;
}

}  // namespace attn
