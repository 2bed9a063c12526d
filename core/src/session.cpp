// session.cpp — KV-cache decoding (see session.hpp).
#include "attn/session.hpp"

#include <algorithm>
#include <cmath>

#include "attn/attention.hpp"
#include "attn/errors.hpp"
#include "attn/rope.hpp"

namespace attn {

namespace {
PackedB pack(const Matrix& w) {
  const int64_t k = int64_t(w.shape(0)), n = int64_t(w.shape(1));
  return pack_b(w.data(), k, n, n, 1);
}
}  // namespace

Session::Session(const Shape& s, const Weights& w) : shape_(s) {
  if (s.variant == Variant::MLA) {
    const AbsorbedMla m = absorb_mla(s, w);
    mla_q_ = pack(m.w_q);
    mla_ckr_ = pack(m.w_ckr);
    mla_o_ = pack(m.w_o);
    ckr_cache_ = zeros(s.max_len, s.r + s.dr);
  } else {
    wq_ = pack(w.wq);
    wk_ = pack(w.wk);
    wv_ = pack(w.wv);
    wo_ = pack(w.wo);
    k_cache_ = zeros(s.max_len, s.g * s.dh);
    v_cache_ = zeros(s.max_len, s.g * s.dh);
  }
}

int64_t Session::row_width() const {
  return shape_.variant == Variant::MLA ? shape_.r + shape_.dr : shape_.g * shape_.dh;
}

double Session::cache_bytes() const {
  const double per_token = shape_.variant == Variant::MLA ? double(shape_.r + shape_.dr)
                                                          : 2.0 * double(shape_.g * shape_.dh);
  return per_token * double(length_) * 4.0;
}

void Session::truncate(int64_t new_length) {
  if (new_length < 0 || new_length > length_) {
    throw_range("n", "truncate length (" + fmt(double(new_length)) + ") must be between 0 and the session length (" +
                fmt(double(length_)) + ")");
  }
  length_ = new_length;
}

void Session::fill_for_benchmark(int64_t tokens, uint64_t seed) {
  if (tokens < 0 || tokens > shape_.max_len) throw_range("tokens (" + fmt(double(tokens)) + ") exceed maxLen");
  const int64_t w = row_width();
  Matrix* caches[2] = {shape_.variant == Variant::MLA ? &ckr_cache_ : &k_cache_,
                       shape_.variant == Variant::MLA ? nullptr : &v_cache_};
  int id = 100;
  for (Matrix* c : caches) {
    if (!c) continue;
    for (int64_t i = 0; i < tokens; ++i) {
      for (int64_t j = 0; j < w; ++j) (*c)(i, j) = 2.0f * uniform01(seed, id, i, j) - 1.0f;
    }
    ++id;
  }
  length_ = tokens;
}

ForwardResult Session::append(const Matrix& x) {
  const Shape& s = shape_;
  const int64_t k = int64_t(x.shape(0));
  if (k < 1) throw_range("x", "append needs at least one token, got 0");
  if (length_ + k > s.max_len) {
    throw_range("x", "appending " + fmt(double(k)) + " tokens to a session holding " + fmt(double(length_)) +
                " would exceed maxLen (" + fmt(double(s.max_len)) + ")");
  }
  if (session_work_bytes(s, k) > kMaxWorkBytes) {
    throw_range("appending " + fmt(double(k)) + " tokens at once needs about " +
                fmt(std::ceil(session_work_bytes(s, k) / 1048576.0)) + " MiB, above the cap of " +
                fmt(kMaxWorkBytes / 1048576.0) + " MiB: append fewer tokens per call" +
                (s.return_weights ? " or do not ask for returnWeights" : ""));
  }
  const int64_t pos0 = length_, total = length_ + k;
  const int64_t w = row_width();
  ForwardResult r;
  if (s.return_weights) r.weights = Tensor3::from_shape({std::size_t(s.h), std::size_t(k), std::size_t(total)});

  AttendArgs a;
  a.n_q = k;
  a.n_k = total;
  a.n_heads = s.h;
  a.scale = s.scale();
  a.causal = true;
  a.q_offset = pos0;
  a.weights = r.weights ? r.weights->data() : nullptr;

  if (s.variant == Variant::MLA) {
    const int64_t rq = s.r + s.dr;
    Matrix q = matmul(x, mla_q_);                        // (k, H*(r+dr))  [q~_h | qr_h]
    float* rows = ckr_cache_.data() + pos0 * w;          // new cache rows [c | kr]: (k, r+dr)
    gemm_packed(k, rq, s.d, x.data(), s.d, mla_ckr_, rows, w, false);
    if (s.dr > 0) {
      apply_rope(q.data(), k, s.h * rq, s.r, s.h, rq, s.dr, pos0, s.rope_base);
      apply_rope(rows, k, rq, s.r, 1, 0, s.dr, pos0, s.rope_base);
    }
    Matrix o = uninitialised(k, s.h * s.r);              // (k, H*r)
    a.n_kv_heads = 1;
    a.d_qk = rq;
    a.d_v = s.r;
    a.q = q.data(); a.ldq = s.h * rq;
    a.k = ckr_cache_.data(); a.ldk = rq;
    a.v = ckr_cache_.data(); a.ldv = rq;
    a.out = o.data(); a.ldo = s.h * s.r;
    attend(a);
    r.output = matmul(o, mla_o_);                        // (k, D)
  } else {
    Matrix q = matmul(x, wq_);                           // (k, H*dh)
    float* k_rows = k_cache_.data() + pos0 * w;          // (k, G*dh)
    float* v_rows = v_cache_.data() + pos0 * w;
    gemm_packed(k, w, s.d, x.data(), s.d, wk_, k_rows, w, false);
    gemm_packed(k, w, s.d, x.data(), s.d, wv_, v_rows, w, false);
    if (s.rope) {
      apply_rope(q.data(), k, s.h * s.dh, 0, s.h, s.dh, s.dh, pos0, s.rope_base);
      apply_rope(k_rows, k, w, 0, s.g, s.dh, s.dh, pos0, s.rope_base);
    }
    Matrix o = uninitialised(k, s.h * s.dh);             // (k, H*dh)
    a.n_kv_heads = s.g;
    a.d_qk = a.d_v = s.dh;
    a.q = q.data(); a.ldq = s.h * s.dh;
    a.k = k_cache_.data(); a.ldk = w;
    a.v = v_cache_.data(); a.ldv = w;
    a.out = o.data(); a.ldo = s.h * s.dh;
    attend(a);
    r.output = matmul(o, wo_);
  }
  length_ = total;
  return r;
}

}  // namespace attn
