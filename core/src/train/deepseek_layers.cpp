// train/deepseek_layers.cpp — RoPE on adjacent pairs and DeepSeek-V2's MLA, forward and backward
// (see deepseek_layers.hpp).
#include "attn/train/deepseek_layers.hpp"

#include <algorithm>
#include <cmath>

#include "attn/rope.hpp"
#include "attn/train/layers.hpp"
#include "attn/train/llama_layers.hpp"

namespace attn::train {

// --- RoPE on adjacent pairs ----------------------------------------------------------------------

namespace {

// Turns every segment of row i of each sequence by `sign` * i * inv_freq (rope.hpp's adjacent pairs).
void rope_adjacent(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t heads, int64_t stride,
                   int64_t w, double base, double sign) {
  if (w == 0) return;
  RopeFrequencies f = rope_frequencies(w, base);
  f.adjacent_pairs = true;
  for (double& v : f.inv_freq) v *= sign;  // the rotation by -theta: the transpose
  for (int64_t b = 0; b < batch; ++b) apply_rope(m + b * n * ld, n, ld, col0, heads, stride, w, 0, f);
}

// dst[:, 0:w] (ld_dst) = src[:, col:col+w] (ld_src), or += when `add`.
void columns(float* dst, int64_t ld_dst, const float* src, int64_t ld_src, int64_t col, int64_t rows, int64_t w,
             bool add) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < w; ++j) {
      float& d = dst[i * ld_dst + j];
      d = add ? d + src[i * ld_src + col + j] : src[i * ld_src + col + j];
    }
}

Matrix zeros_like(const Matrix& m) {
  return m.size() == 0 ? Matrix() : zeros(int64_t(m.shape(0)), int64_t(m.shape(1)));
}

}  // namespace

void rope_adjacent_forward(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t heads,
                           int64_t stride, int64_t w, double base) {
  rope_adjacent(m, batch, n, ld, col0, heads, stride, w, base, 1.0);
}

void rope_adjacent_backward(float* dm, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t heads,
                            int64_t stride, int64_t w, double base) {
  // out = R(p) x   =>   dx = R(p)^T dout = R(-p) dout
  rope_adjacent(dm, batch, n, ld, col0, heads, stride, w, base, -1.0);
}

// --- MLA -----------------------------------------------------------------------------------------

float MlaDims::scale() const { return float(1.0 / std::sqrt(double(nope + dr))); }

MlaParams mla_zeros_like(const MlaParams& m) {
  return {zeros_like(m.wq),        zeros_like(m.wq_a),  zeros_like(m.q_a_norm), zeros_like(m.wq_b),
          zeros_like(m.wkv_a),     zeros_like(m.kv_a_norm), zeros_like(m.wkv_b), zeros_like(m.wo)};
}

void mla_forward(float* out, MlaCache& c, const MlaDims& s, const MlaParams& w, const float* x, int64_t batch,
                 int64_t n) {
  const int64_t rows = batch * n, d = s.d, h = s.h, nope = s.nope, dr = s.dr, dv = s.dv, r = s.r;
  const int64_t dqk = s.dqk(), kvw = nope + dv;
  const float scale = s.scale();
  c.batch = batch;
  c.n = n;
  // q = x wq   |   q = RMSNorm(x wq_a) * q_a_norm  wq_b                              (R, H*dqk)
  c.q = uninitialised(rows, h * dqk);
  if (s.qr == 0) {
    linear_forward(c.q.data(), x, w.wq.data(), nullptr, rows, d, h * dqk);
  } else {
    c.qa = uninitialised(rows, s.qr);                                                  // (R, qr)
    c.qan = uninitialised(rows, s.qr);                                                 // (R, qr)
    c.rstd_q = uninitialised(1, rows);
    linear_forward(c.qa.data(), x, w.wq_a.data(), nullptr, rows, d, s.qr);
    rmsnorm_forward(c.qan.data(), c.rstd_q.data(), c.qa.data(), w.q_a_norm.data(), rows, s.qr, kMlaLatentNormEps);
    linear_forward(c.q.data(), c.qan.data(), w.wq_b.data(), nullptr, rows, s.qr, h * dqk);
  }
  // q_h = [q_nope_h | rope(q_rope_h)]
  rope_adjacent_forward(c.q.data(), batch, n, h * dqk, nope, h, dqk, dr, s.base);
  // [c | k_pe] = x wkv_a                                                               (R, r + dr)
  Matrix ckr = uninitialised(rows, r + dr);
  linear_forward(ckr.data(), x, w.wkv_a.data(), nullptr, rows, d, r + dr);
  c.c = uninitialised(rows, r);                                                        // (R, r)
  columns(c.c.data(), r, ckr.data(), r + dr, 0, rows, r, false);
  c.kpe = uninitialised(rows, dr);                                                     // (R, dr)
  columns(c.kpe.data(), dr, ckr.data(), r + dr, r, rows, dr, false);
  rope_adjacent_forward(c.kpe.data(), batch, n, dr, 0, 1, dr, dr, s.base);            // kpe = rope(k_pe)
  // cn = RMSNorm(c) * kv_a_norm                                                        (R, r)
  c.cn = uninitialised(rows, r);
  c.rstd_c = uninitialised(1, rows);
  rmsnorm_forward(c.cn.data(), c.rstd_c.data(), c.c.data(), w.kv_a_norm.data(), rows, r, kMlaLatentNormEps);
  // [k_nope_h | v_h] = cn wkv_b                                                        (R, H*(nope+dv))
  c.kv = uninitialised(rows, h * kvw);
  linear_forward(c.kv.data(), c.cn.data(), w.wkv_b.data(), nullptr, rows, r, h * kvw);
  // Per sequence b, head hh, query i: s_ij = scale (q_nope_i . k_nope_j + q_rope_i . kpe_j), j <= i;
  // p_i = softmax(s_i) (kept, (B, H, N, N));  o_i = sum_j p_ij v_j                      (R, H*dv)
  c.probs.assign(std::size_t(batch * h * n * n), 0.0f);
  c.o = zeros(rows, h * dv);
  std::vector<double> sc(static_cast<std::size_t>(n));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t hh = 0; hh < h; ++hh) {
      float* p = c.probs.data() + (b * h + hh) * n * n;
      for (int64_t i = 0; i < n; ++i) {
        const float* qi = c.q.data() + (b * n + i) * h * dqk + hh * dqk;
        double mx = -INFINITY;
        for (int64_t j = 0; j <= i; ++j) {
          const float* kj = c.kv.data() + (b * n + j) * h * kvw + hh * kvw;
          const float* pej = c.kpe.data() + (b * n + j) * dr;
          float dot = 0.0f;
          for (int64_t t = 0; t < nope; ++t) dot += qi[t] * kj[t];
          for (int64_t t = 0; t < dr; ++t) dot += qi[nope + t] * pej[t];
          sc[std::size_t(j)] = double(scale * dot);
          mx = std::max(mx, sc[std::size_t(j)]);
        }
        double sum = 0;
        for (int64_t j = 0; j <= i; ++j) sum += (sc[std::size_t(j)] = std::exp(sc[std::size_t(j)] - mx));
        float* oi = c.o.data() + (b * n + i) * h * dv + hh * dv;
        for (int64_t j = 0; j <= i; ++j) {
          const float pij = float(sc[std::size_t(j)] / sum);
          p[i * n + j] = pij;
          const float* vj = c.kv.data() + (b * n + j) * h * kvw + hh * kvw + nope;
          for (int64_t t = 0; t < dv; ++t) oi[t] += pij * vj[t];
        }
      }
    }
  }
  // out = o wo                                                                         (R, D)
  linear_forward(out, c.o.data(), w.wo.data(), nullptr, rows, h * dv, d);
}

void mla_backward(float* dx, MlaParams& grad, const float* dout, const float* x, const MlaCache& c,
                  const MlaDims& s, const MlaParams& w) {
  const int64_t batch = c.batch, n = c.n, rows = batch * n, d = s.d, h = s.h, nope = s.nope, dr = s.dr;
  const int64_t dv = s.dv, r = s.r, dqk = s.dqk(), kvw = nope + dv;
  const float scale = s.scale();
  // out = o wo
  Matrix d_o = zeros(rows, h * dv);          // (R, H*dv)
  linear_backward(d_o.data(), grad.wo.data(), nullptr, dout, c.o.data(), w.wo.data(), rows, h * dv, d);
  Matrix dq = zeros(rows, h * dqk);          // (R, H*dqk)
  Matrix dkv = zeros(rows, h * kvw);         // (R, H*(nope+dv))
  Matrix dkpe = zeros(rows, dr);             // (R, dr): shared by every head, its gradient sums over them
  std::vector<float> dp(static_cast<std::size_t>(n));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t hh = 0; hh < h; ++hh) {
      const float* p = c.probs.data() + (b * h + hh) * n * n;
      for (int64_t i = 0; i < n; ++i) {
        const float* pi = p + i * n;
        const float* doi = d_o.data() + (b * n + i) * h * dv + hh * dv;
        // o_i = sum_j p_ij v_j   =>   dp_ij = do_i . v_j,   dv_j += p_ij do_i
        float sum_pdp = 0.0f;
        for (int64_t j = 0; j <= i; ++j) {
          const float* vj = c.kv.data() + (b * n + j) * h * kvw + hh * kvw + nope;
          float* dvj = dkv.data() + (b * n + j) * h * kvw + hh * kvw + nope;
          float acc = 0.0f;
          for (int64_t t = 0; t < dv; ++t) {
            acc += doi[t] * vj[t];
            dvj[t] += pi[j] * doi[t];
          }
          dp[std::size_t(j)] = acc;
          sum_pdp += pi[j] * acc;
        }
        // p_i = softmax(s_i)   =>   ds_ij = p_ij (dp_ij - sum_j' p_ij' dp_ij')
        // s_ij = scale (q_nope_i . k_nope_j + q_rope_i . kpe_j)
        //   =>   dq_i += scale ds_ij [k_nope_j | kpe_j],   dk_nope_j += scale ds_ij q_nope_i,   dkpe_j += scale ds_ij q_rope_i
        const float* qi = c.q.data() + (b * n + i) * h * dqk + hh * dqk;
        float* dqi = dq.data() + (b * n + i) * h * dqk + hh * dqk;
        for (int64_t j = 0; j <= i; ++j) {
          const float ds = scale * pi[j] * (dp[std::size_t(j)] - sum_pdp);
          const float* kj = c.kv.data() + (b * n + j) * h * kvw + hh * kvw;
          const float* pej = c.kpe.data() + (b * n + j) * dr;
          float* dkj = dkv.data() + (b * n + j) * h * kvw + hh * kvw;
          float* dpej = dkpe.data() + (b * n + j) * dr;
          for (int64_t t = 0; t < nope; ++t) {
            dqi[t] += ds * kj[t];
            dkj[t] += ds * qi[t];
          }
          for (int64_t t = 0; t < dr; ++t) {
            dqi[nope + t] += ds * pej[t];
            dpej[t] += ds * qi[nope + t];
          }
        }
      }
    }
  }
  // [k_nope_h | v_h] = cn wkv_b
  Matrix dcn = zeros(rows, r);               // (R, r)
  linear_backward(dcn.data(), grad.wkv_b.data(), nullptr, dkv.data(), c.cn.data(), w.wkv_b.data(), rows, r, h * kvw);
  // cn = RMSNorm(c) * kv_a_norm;  kpe = rope(k_pe)   =>   d[c | k_pe]                 (R, r + dr)
  Matrix dc = zeros(rows, r);                // (R, r)
  rmsnorm_backward(dc.data(), grad.kv_a_norm.data(), dcn.data(), c.c.data(), c.rstd_c.data(), w.kv_a_norm.data(), rows, r);
  rope_adjacent_backward(dkpe.data(), batch, n, dr, 0, 1, dr, dr, s.base);
  Matrix dckr = uninitialised(rows, r + dr);
  for (int64_t i = 0; i < rows; ++i) {
    std::copy_n(dc.data() + i * r, r, dckr.data() + i * (r + dr));
    std::copy_n(dkpe.data() + i * dr, dr, dckr.data() + i * (r + dr) + r);
  }
  // [c | k_pe] = x wkv_a
  linear_backward(dx, grad.wkv_a.data(), nullptr, dckr.data(), x, w.wkv_a.data(), rows, d, r + dr);
  // q_h = [q_nope_h | rope(q_rope_h)]
  rope_adjacent_backward(dq.data(), batch, n, h * dqk, nope, h, dqk, dr, s.base);
  if (s.qr == 0) {
    // q = x wq
    linear_backward(dx, grad.wq.data(), nullptr, dq.data(), x, w.wq.data(), rows, d, h * dqk);
    return;
  }
  // q = qan wq_b
  Matrix dqan = zeros(rows, s.qr);           // (R, qr)
  linear_backward(dqan.data(), grad.wq_b.data(), nullptr, dq.data(), c.qan.data(), w.wq_b.data(), rows, s.qr, h * dqk);
  // qan = RMSNorm(qa) * q_a_norm
  Matrix dqa = zeros(rows, s.qr);            // (R, qr)
  rmsnorm_backward(dqa.data(), grad.q_a_norm.data(), dqan.data(), c.qa.data(), c.rstd_q.data(), w.q_a_norm.data(), rows, s.qr);
  // qa = x wq_a
  linear_backward(dx, grad.wq_a.data(), nullptr, dqa.data(), x, w.wq_a.data(), rows, d, s.qr);
}

}  // namespace attn::train
