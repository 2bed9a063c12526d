// latent_block.cpp — MLA in its naive and absorbed forms (see latent_block.hpp).
#include "attn/latent_block.hpp"

#include "attn/rope.hpp"

namespace attn {

namespace {

// y (rows, N) = x (rows, K) @ w (K, N), x given as `rows` rows of K contiguous floats.
Matrix times(const float* x, int64_t rows, const PackedB& w) {
  Matrix y = uninitialised(rows, w.n);
  gemm_packed(rows, w.n, w.k, x, w.k, w, y.data(), w.n, false);
  return y;
}

}  // namespace

LatentProjections pack_latent(const Shape& s, const Weights& w, bool output) {
  LatentProjections p;
  p.w_dkv = pack_matrix(w.w_dkv);
  p.wq = pack_matrix(w.wq);
  p.w_uk = pack_matrix(w.w_uk);
  p.w_uv = pack_matrix(w.w_uv);
  if (s.dr > 0) {
    p.w_qr = pack_matrix(w.w_qr);
    p.w_kr = pack_matrix(w.w_kr);
  }
  if (output) p.wo = pack_matrix(w.wo);
  return p;
}

LatentRows project_latent(const Shape& s, const Weights& w, const float* x, int64_t rows, int64_t pos0,
                          int64_t batch) {
  return project_latent(s, pack_latent(s, w, false), x, rows, pos0, batch);
}

LatentRows project_latent(const Shape& s, const LatentProjections& p, const float* x, int64_t rows, int64_t pos0,
                          int64_t batch) {
  const int64_t dqk = s.dh + s.dr;
  LatentRows o;
  o.c = times(x, rows, p.w_dkv);                    // (rows, r)      the latent
  const Matrix q_nope = times(x, rows, p.wq);       // (rows, H*dh)
  const Matrix k_nope = times(o.c.data(), rows, p.w_uk);  // (rows, H*dh)   decompressed keys
  o.v = times(o.c.data(), rows, p.w_uv);            // (rows, H*dh)   decompressed values
  o.q = uninitialised(rows, s.h * dqk);
  o.k = uninitialised(rows, s.h * dqk);
  for (int64_t h = 0; h < s.h; ++h) {
    copy_columns(q_nope, h * s.dh, o.q, h * dqk, s.dh);
    copy_columns(k_nope, h * s.dh, o.k, h * dqk, s.dh);
  }
  if (s.dr > 0) {
    Matrix qr = times(x, rows, p.w_qr);             // (rows, H*dr)
    o.kr = times(x, rows, p.w_kr);                  // (rows, dr)     shared by all heads
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

LatentRows PackedLatentRows::project(const float* x, int64_t n, StageRecord*) const {
  return project_latent(s_, p_, x, n, 0);
}

Matrix PackedLatentRows::output(const Matrix& o, StageRecord*) const { return matmul(o, p_.wo); }

Matrix latent_block_sequence(const Shape& s, const LatentSequenceRows& p, const float* x, int64_t n, float* maps,
                             StageRecord* rec) {
  const LatentRows t = p.project(x, n, rec);
  const int64_t dqk = s.dh + s.dr, wqk = s.h * dqk, wv = int64_t(t.v.shape(1)), dv = wv / s.h;
  if (rec) {
    rec->split("qHeads", t.q.data(), n, wqk, s.h, dqk, dqk);
    rec->split("kHeads", t.k.data(), n, wqk, s.h, dqk, dqk);
    rec->split("vHeads", t.v.data(), n, wv, s.h, dv, dv);
  }
  const MapsOut m = maps_out(s.h, n, n, maps, rec);
  AttendArgs a = attend_args(s, n, n, s.h, {t.q.data(), wqk, dqk}, {t.k.data(), wqk, dqk}, {t.v.data(), wv, dv},
                             s.causal, 0, m.weights);
  a.scores = m.scores;
  const Matrix o = attend_rows(a);  // (n, H*dv)
  keep_maps(m, s.h, n, n, maps);
  return p.output(o, rec);          // (n, D)
}

ForwardResult forward_latent(const Shape& s, const LatentProjections& p, const Matrix& x) {
  ForwardResult r = make_forward_result(s, s.n, s.n);
  r.output = latent_block_sequence(s, PackedLatentRows(s, p), x.data(), s.n, r.maps());  // (N, D)
  return r;
}

AbsorbedProjections pack_absorbed(const Shape& s, const Weights& w) {
  AbsorbedProjections p;
  p.wq = pack_matrix(w.wq);
  p.w_ckr = pack_matrix([&] {
    Matrix ckr = uninitialised(s.d, s.r + s.dr);  // [W_dkv | W_kr]
    copy_columns(w.w_dkv, 0, ckr, 0, s.r);
    if (s.dr > 0) copy_columns(w.w_kr, 0, ckr, s.r, s.dr);
    return ckr;
  }());
  if (s.dr > 0) p.w_qr = pack_matrix(w.w_qr);
  p.wo = pack_matrix(w.wo);
  const int64_t hdh = s.h * s.dh;
  for (int64_t h = 0; h < s.h; ++h) {
    // W_uk_h^T (dh, r): element (j, i) = W_uk[i, h*dh + j], packed through strides
    p.uk_t.push_back(pack_b(w.w_uk.data() + h * s.dh, s.dh, s.r, 1, hdh));
    // W_uv_h (r, dh): rows of W_uv, columns [h*dh, (h+1)*dh)
    p.uv.push_back(pack_b(w.w_uv.data() + h * s.dh, s.r, s.dh, hdh, 1));
  }
  return p;
}

Matrix project_latent_absorbed(const Shape& s, const AbsorbedProjections& p, const float* x, int64_t rows,
                               float* ckr_out, int64_t ld, int64_t pos0) {
  const int64_t rq = s.r + s.dr, hdh = s.h * s.dh;
  Matrix q_nope = uninitialised(rows, hdh);                                // (rows, H*dh)  q_h = x wq_h
  gemm_packed(rows, hdh, s.d, x, s.d, p.wq, q_nope.data(), hdh, false);
  Matrix q = uninitialised(rows, s.h * rq);                                // (rows, H*(r+dr))  [q~_h | qr_h]
  for (int64_t h = 0; h < s.h; ++h) {                                      // q~_h = q_h W_uk_h^T  (rows, r)
    gemm_packed(rows, s.r, s.dh, q_nope.data() + h * s.dh, hdh, p.uk_t[std::size_t(h)], q.data() + h * rq,
                s.h * rq, false);
  }
  if (s.dr > 0) {
    Matrix qr = uninitialised(rows, s.h * s.dr);                           // (rows, H*dr)
    gemm_packed(rows, s.h * s.dr, s.d, x, s.d, p.w_qr, qr.data(), s.h * s.dr, false);
    for (int64_t h = 0; h < s.h; ++h) {
      copy_columns(qr.data(), s.h * s.dr, h * s.dr, q.data(), s.h * rq, h * rq + s.r, rows, s.dr);
    }
  }
  gemm_packed(rows, rq, s.d, x, s.d, p.w_ckr, ckr_out, ld, false);        // (rows, r+dr)  [c | kr]
  if (s.dr > 0) {
    apply_rope(q.data(), rows, s.h * rq, s.r, s.h, rq, s.dr, pos0, s.rope_base);
    apply_rope(ckr_out, rows, ld, s.r, 1, 0, s.dr, pos0, s.rope_base);
  }
  return q;
}

Matrix attend_latent_cache(const Shape& s, const float* qa, int64_t ldq, const LayerCache& cache, int64_t rows,
                           int64_t pos0, float* weights) {
  const int64_t rq = s.r + s.dr;
  const AttendArgs a = attend_args(s, rows, pos0 + rows, 1, {qa, ldq, rq}, {cache.ckr.data(), rq, rq},
                                   {cache.ckr.data(), rq, s.r}, true, pos0, weights);
  return attend_rows(a);  // (rows, H*r)
}

Matrix PackedAbsorbedRows::project(const float* x, int64_t rows, float* ckr_out, int64_t ld, int64_t pos0) const {
  return project_latent_absorbed(s_, p_, x, rows, ckr_out, ld, pos0);
}

Matrix PackedAbsorbedRows::output(const Matrix& o_latent) const { return output_latent_absorbed(s_, p_, o_latent); }

Matrix latent_block_rows(const Shape& s, const AbsorbedRows& p, LayerCache& cache, const float* x, int64_t rows,
                         int64_t pos0, float* maps) {
  const int64_t w = s.r + s.dr;
  const Matrix q = p.project(x, rows, cache.ckr.data() + pos0 * w, w, pos0);              // (rows, H*(r+dr))
  return p.output(attend_latent_cache(s, q.data(), s.h * w, cache, rows, pos0, maps));  // (rows, H*r) -> (rows, D)
}

Matrix output_latent_absorbed(const Shape& s, const AbsorbedProjections& p, const Matrix& o_latent) {
  const int64_t rows = int64_t(o_latent.shape(0)), hdh = s.h * s.dh;
  Matrix v = uninitialised(rows, hdh);                                     // (rows, H*dh)  v_h = o~_h W_uv_h
  for (int64_t h = 0; h < s.h; ++h) {
    gemm_packed(rows, s.dh, s.r, o_latent.data() + h * s.r, s.h * s.r, p.uv[std::size_t(h)], v.data() + h * s.dh,
                hdh, false);
  }
  return matmul(v, p.wo);                                                  // (rows, D)
}

ForwardResult forward_latent_absorbed(const Shape& s, const Weights& w, const Matrix& x) {
  const AbsorbedProjections p = pack_absorbed(s, w);
  const int64_t rq = s.r + s.dr;
  Matrix ckr = uninitialised(s.n, rq);  // (N, r+dr), what a KV cache holds
  const Matrix q = project_latent_absorbed(s, p, x.data(), s.n, ckr.data(), rq, 0);
  ForwardResult r = make_forward_result(s, s.n, s.n);
  // One shared K/V "head": keys [c | kr], values c = the first r columns of the same rows.
  const Matrix o = attend_sequence(s, r.maps(), 1, rq, s.r, q, ckr, ckr.data(), rq);  // (N, H*r)
  r.output = output_latent_absorbed(s, p, o);                                       // (N, D)
  return r;
}

}  // namespace attn
