// train/layers.cpp — forward/backward pairs of the trainable transformer (see layers.hpp).
#include "attn/train/layers.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "attn/block_steps.hpp"
#include "attn/grouped_block.hpp"
#include "attn/kernels.hpp"
#include "attn/latent_block.hpp"
#include "attn/rope.hpp"
#include "attn/simd.hpp"
#include "attn/train/llama_layers.hpp"

namespace attn::train {

// --- vector helpers (simd.hpp: the same operations per lane in the SIMD and scalar builds) ----------
namespace {

// a[0:n] . b[0:n]: kLanes partial sums, added up at the end, then the tail.
inline float dot(const float* a, const float* b, int64_t n) {
  simd::vf acc = simd::splat(0.0f);
  int64_t t = 0;
  for (; t + simd::kLanes <= n; t += simd::kLanes) acc = simd::madd(simd::load(a + t), simd::load(b + t), acc);
  float s = simd::hsum(acc);
  for (; t < n; ++t) s += a[t] * b[t];
  return s;
}

// y[0:n] += alpha x[0:n]
inline void axpy(float* y, float alpha, const float* x, int64_t n) {
  const simd::vf av = simd::splat(alpha);
  int64_t t = 0;
  for (; t + simd::kLanes <= n; t += simd::kLanes) simd::store(y + t, simd::madd(av, simd::load(x + t), simd::load(y + t)));
  for (; t < n; ++t) y[t] += alpha * x[t];
}

// out[j] = a[0:n] . x_j[0:n] for j < count (x_j = x + j*ldx): dot() for each j, four rows per pass
// so that each vector of a is loaded once for four of them; every out[j] is dot()'s bits.
inline void dots(float* out, const float* a, const float* x, int64_t ldx, int64_t count, int64_t n) {
  int64_t j = 0;
  for (; j + 4 <= count; j += 4) {
    simd::vf acc[4];
    ATTN_UNROLL
    for (int r = 0; r < 4; ++r) acc[r] = simd::splat(0.0f);
    int64_t t = 0;
    for (; t + simd::kLanes <= n; t += simd::kLanes) {
      const simd::vf av = simd::load(a + t);
      ATTN_UNROLL
      for (int r = 0; r < 4; ++r) acc[r] = simd::madd(av, simd::load(x + (j + r) * ldx + t), acc[r]);
    }
    for (int r = 0; r < 4; ++r) {
      float sum = simd::hsum(acc[r]);
      for (int64_t u = t; u < n; ++u) sum += a[u] * x[(j + r) * ldx + u];
      out[j + r] = sum;
    }
  }
  for (; j < count; ++j) out[j] = dot(a, x + j * ldx, n);
}

// y[0:n] += sum_j alpha[j] x_j[0:n] for j < count in order (x_j = x + j*ldx): axpy() for each j in
// turn, with y held in registers (chunks of 8 vectors) instead of loaded and stored per j: the bits
// of the axpy sequence.
inline void axpy_rows(float* y, const float* alpha, const float* x, int64_t ldx, int64_t count, int64_t n) {
  constexpr int kChunk = 8;
  int64_t t = 0;
  for (; t + kChunk * simd::kLanes <= n; t += kChunk * simd::kLanes) {
    simd::vf acc[kChunk];
    ATTN_UNROLL
    for (int c = 0; c < kChunk; ++c) acc[c] = simd::load(y + t + c * simd::kLanes);
    for (int64_t j = 0; j < count; ++j) {
      const simd::vf av = simd::splat(alpha[j]);
      const float* xj = x + j * ldx + t;
      ATTN_UNROLL
      for (int c = 0; c < kChunk; ++c) acc[c] = simd::madd(av, simd::load(xj + c * simd::kLanes), acc[c]);
    }
    ATTN_UNROLL
    for (int c = 0; c < kChunk; ++c) simd::store(y + t + c * simd::kLanes, acc[c]);
  }
  for (; t + simd::kLanes <= n; t += simd::kLanes) {
    simd::vf acc = simd::load(y + t);
    for (int64_t j = 0; j < count; ++j) acc = simd::madd(simd::splat(alpha[j]), simd::load(x + j * ldx + t), acc);
    simd::store(y + t, acc);
  }
  for (; t < n; ++t) {
    float acc = y[t];
    for (int64_t j = 0; j < count; ++j) acc += alpha[j] * x[j * ldx + t];
    y[t] = acc;
  }
}

}  // namespace

// --- products ------------------------------------------------------------------------------------
// The naive loops are the reference (tests compare); the products used go through the core's
// packed, register-blocked gemm (kernels.hpp), B packed through strides so a transpose is free.

void mm_nn_naive(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n, bool accumulate) {
  if (!accumulate) std::fill_n(c, m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i) {
    float* ci = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const float aip = a[i * k + p];
      const float* bp = b + p * n;
      for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

void mm_nt_acc_naive(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    const float* ai = a + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const float* bj = b + j * k;
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) acc += ai[p] * bj[p];
      c[i * n + j] += acc;
    }
  }
}

void mm_tn_acc_naive(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n) {
  for (int64_t p = 0; p < k; ++p) {
    const float* ap = a + p * m;
    const float* bp = b + p * n;
    for (int64_t i = 0; i < m; ++i) {
      const float api = ap[i];
      float* ci = c + i * n;
      for (int64_t j = 0; j < n; ++j) ci[j] += api * bp[j];
    }
  }
}

void mm_nn(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n, bool accumulate) {
  if (m == 0 || n == 0) return;
  const PackedB pb = pack_b(b, k, n, n, 1);                 // B (K, N)
  gemm_packed(m, n, k, a, k, pb, c, n, accumulate);
}

void mm_nt_acc(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n) {
  if (m == 0 || n == 0) return;
  const PackedB pb = pack_b(b, k, n, 1, k);                 // B^T: element (p, j) = b[j*K + p]
  gemm_packed(m, n, k, a, k, pb, c, n, true);
}

void mm_tn_acc(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n) {
  if (m == 0 || n == 0) return;
  // A^T (M, K), every element written below: not zeroed first (a step's logits gradient makes this
  // V x R, e.g. 16 MB for the zoo, and zeroing it took a tenth of a training step)
  const std::unique_ptr<float[]> at(new float[static_cast<std::size_t>(m * k)]);
  // In tiles of kT x kT, so that the rows read and the rows written both stay in a few cache lines
  // (a plain loop writes one float per row of A^T, K floats apart).
  constexpr int64_t kT = 16;
  for (int64_t p0 = 0; p0 < k; p0 += kT) {
    const int64_t p1 = std::min(k, p0 + kT);
    for (int64_t i0 = 0; i0 < m; i0 += kT) {
      const int64_t i1 = std::min(m, i0 + kT);
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t p = p0; p < p1; ++p) at[std::size_t(i * k + p)] = a[p * m + i];
    }
  }
  const PackedB pb = pack_b(b, k, n, n, 1);
  gemm_packed(m, n, k, at.get(), k, pb, c, n, true);
}

// --- embeddings ----------------------------------------------------------------------------------

void embedding_forward(float* out, const int32_t* tokens, const float* wte, int64_t rows, int64_t d) {
  for (int64_t r = 0; r < rows; ++r) std::copy_n(wte + int64_t(tokens[r]) * d, d, out + r * d);
}

void embedding_backward(float* dwte, const float* dout, const int32_t* tokens, int64_t rows, int64_t d) {
  for (int64_t r = 0; r < rows; ++r) {
    // out[r] = wte[tokens[r]]
    float* g = dwte + int64_t(tokens[r]) * d;
    for (int64_t j = 0; j < d; ++j) g[j] += dout[r * d + j];
  }
}

void position_forward(float* out, const float* wpe, int64_t batch, int64_t n, int64_t d) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < d; ++j) out[(b * n + i) * d + j] += wpe[i * d + j];
}

void position_backward(float* dwpe, const float* dout, int64_t batch, int64_t n, int64_t d) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      // out[b*N + i] += wpe[i]
      for (int64_t j = 0; j < d; ++j) dwpe[i * d + j] += dout[(b * n + i) * d + j];
}

// --- LayerNorm -----------------------------------------------------------------------------------

void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, int64_t rows, int64_t d) {
  const float eps = 1e-5f;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    double m = 0;
    for (int64_t j = 0; j < d; ++j) m += xr[j];
    m /= double(d);
    double var = 0;
    for (int64_t j = 0; j < d; ++j) var += (xr[j] - m) * (xr[j] - m);
    var /= double(d);
    const float s = float(1.0 / std::sqrt(var + eps));
    for (int64_t j = 0; j < d; ++j) out[r * d + j] = (xr[j] - float(m)) * s * gamma[j] + beta[j];
    mean[r] = float(m);
    rstd[r] = s;
  }
}

void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dout, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int64_t rows, int64_t d) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    const float* gr = dout + r * d;
    // xhat = (x - mean) * rstd;  out = xhat * gamma + beta
    // dxhat = dout * gamma;  dgamma += dout * xhat;  dbeta += dout
    double mean_dxhat = 0, mean_dxhat_xhat = 0;
    for (int64_t j = 0; j < d; ++j) {
      const float xhat = (xr[j] - mean[r]) * rstd[r];
      const float dxhat = gr[j] * gamma[j];
      dgamma[j] += gr[j] * xhat;
      dbeta[j] += gr[j];
      mean_dxhat += dxhat;
      mean_dxhat_xhat += dxhat * xhat;
    }
    mean_dxhat /= double(d);
    mean_dxhat_xhat /= double(d);
    // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
    for (int64_t j = 0; j < d; ++j) {
      const float xhat = (xr[j] - mean[r]) * rstd[r];
      const float dxhat = gr[j] * gamma[j];
      dx[r * d + j] += rstd[r] * (dxhat - float(mean_dxhat) - xhat * float(mean_dxhat_xhat));
    }
  }
}

// --- linear --------------------------------------------------------------------------------------

void linear_forward(float* out, const float* x, const float* w, const float* b, int64_t rows,
                    int64_t d_in, int64_t d_out) {
  mm_nn(out, x, w, rows, d_in, d_out, false);
  if (b) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < d_out; ++j) out[r * d_out + j] += b[j];
  }
}

void linear_backward(float* dx, float* dw, float* db, const float* dout, const float* x, const float* w,
                     int64_t rows, int64_t d_in, int64_t d_out) {
  // out = x @ w + b
  if (dx) mm_nt_acc(dx, dout, w, rows, d_out, d_in);  // dx += dout @ w^T   (R, Din)
  mm_tn_acc(dw, x, dout, d_in, rows, d_out);           // dw += x^T @ dout   (Din, Dout)
  if (db) {                                            // db += sum_r dout[r]
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < d_out; ++j) db[j] += dout[r * d_out + j];
  }
}

// --- activations ---------------------------------------------------------------------------------

namespace {
constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2 / pi)

// tanh(u) = 1 - 2 / (exp(2u) + 1), with the core's polynomial exp (kernels.hpp): libm's tanhf was a
// third of a training step with the MLP on. |2u| clamped to 80, where tanh is +-1 in float. The
// vector form does the same operations per lane (the clamp as std::max, then std::min), so its
// lanes equal the scalar form bit for bit.
inline float fast_tanh(float u) {
  const float e = exp_approx(std::min(80.0f, std::max(-80.0f, 2.0f * u)));
  return 1.0f - 2.0f / (e + 1.0f);
}
inline simd::vf fast_tanh(simd::vf u) {
  const simd::vf lo = simd::splat(-80.0f), hi = simd::splat(80.0f), one = simd::splat(1.0f), two = simd::splat(2.0f);
  simd::vf x = two * u;
  x = lo < x ? x : lo;  // std::max(-80, x)
  x = x < hi ? x : hi;  // std::min(80, x)
  return one - two / (exp_approx(x) + one);
}
}  // namespace

void activation_forward(float* out, const float* x, int64_t count, Activation act, float* tanh_keep) {
  int64_t i = 0;
  if (act == Activation::Gelu) {  // whole vectors, then the tail below (the same arithmetic)
    const simd::vf c = simd::splat(kGeluC), a = simd::splat(0.044715f), half = simd::splat(0.5f), one = simd::splat(1.0f);
    for (; i + simd::kLanes <= count; i += simd::kLanes) {
      const simd::vf v = simd::load(x + i);
      const simd::vf t = fast_tanh(c * (v + a * v * v * v));
      simd::store(out + i, half * v * (one + t));
      if (tanh_keep) simd::store(tanh_keep + i, t);
    }
  }
  for (; i < count; ++i) {
    const float v = x[i];
    if (act == Activation::Relu) {
      out[i] = v > 0 ? v : 0.0f;
    } else {
      const float t = fast_tanh(kGeluC * (v + 0.044715f * v * v * v));
      out[i] = 0.5f * v * (1.0f + t);
      if (tanh_keep) tanh_keep[i] = t;
    }
  }
}

void activation_backward(float* dx, const float* dout, const float* x, int64_t count, Activation act,
                         const float* tanh_kept) {
  for (int64_t i = 0; i < count; ++i) {
    const float v = x[i];
    if (act == Activation::Relu) {
      // out = max(x, 0)
      dx[i] += v > 0 ? dout[i] : 0.0f;
    } else {
      // out = 0.5 x (1 + tanh(u)),  u = c (x + 0.044715 x^3)
      const float u = kGeluC * (v + 0.044715f * v * v * v);
      const float t = tanh_kept ? tanh_kept[i] : fast_tanh(u);
      const float du = kGeluC * (1.0f + 3.0f * 0.044715f * v * v);
      dx[i] += dout[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * du);
    }
  }
}

// --- MLP -----------------------------------------------------------------------------------------

void mlp_forward(float* out, MlpCache& cache, const float* x, const MlpParams& p, int64_t rows,
                 Activation act) {
  const int64_t d = int64_t(p.w1.shape(0)), f = int64_t(p.w1.shape(1));
  cache.h = uninitialised(rows, f);
  cache.a = uninitialised(rows, f);
  if (act == Activation::Gelu) cache.t = uninitialised(rows, f);
  linear_forward(cache.h.data(), x, p.w1.data(), p.b1.data(), rows, d, f);  // h = x w1 + b1  (R, F)
  activation_forward(cache.a.data(), cache.h.data(), rows * f, act,         // a = act(h)     (R, F)
                     act == Activation::Gelu ? cache.t.data() : nullptr);
  linear_forward(out, cache.a.data(), p.w2.data(), p.b2.data(), rows, f, d);  // out = a w2 + b2 (R, D)
}

void mlp_backward(float* dx, MlpParams& grad, const float* dout, const float* x, const MlpCache& cache,
                  const MlpParams& p, int64_t rows, Activation act) {
  const int64_t d = int64_t(p.w1.shape(0)), f = int64_t(p.w1.shape(1));
  Matrix da = zeros(rows, f);  // (R, F)
  Matrix dh = zeros(rows, f);  // (R, F)
  // out = a w2 + b2
  linear_backward(da.data(), grad.w2.data(), grad.b2.data(), dout, cache.a.data(), p.w2.data(), rows, f, d);
  // a = act(h)
  activation_backward(dh.data(), da.data(), cache.h.data(), rows * f, act,
                      act == Activation::Gelu ? cache.t.data() : nullptr);
  // h = x w1 + b1
  linear_backward(dx, grad.w1.data(), grad.b1.data(), dh.data(), x, p.w1.data(), rows, d, f);
}

// --- attention -----------------------------------------------------------------------------------

namespace {

bool is_mla(const Shape& s) { return s.variant == Variant::MLA; }

// The geometry the kernel sees: Gk K/V heads of q/k width dqk.
int64_t kernel_kv_heads(const Shape& s) { return is_mla(s) ? s.h : s.g; }

}  // namespace

// The inference block's own steps (grouped_block.hpp, latent_block.hpp, forward.hpp), for `batch`
// sequences at once: project the new rows, attend per sequence through the grouped kernel keeping
// the softmax weights for the backward, project out.
void attention_forward(float* out, AttentionCache& c, const Shape& s, const Weights& w, const float* x,
                       int64_t batch, int64_t n) {
  const int64_t rows = batch * n, h = s.h, dh = s.dh;
  const int64_t gk = kernel_kv_heads(s), dqk = s.dh + s.dr;
  c.batch = batch;
  c.n = n;
  if (!is_mla(s)) {
    const GroupedProjections p = pack_grouped(w);
    c.k = uninitialised(rows, s.g * dh);                                        // (R, G*dh) after RoPE
    c.v = uninitialised(rows, s.g * dh);                                        // (R, G*dh)
    c.q = project_grouped(s, p, x, rows, c.k.data(), c.v.data(), s.g * dh, 0, batch);  // (R, H*dh) after RoPE
  } else {
    LatentRows t = project_latent(s, w, x, rows, 0, batch);
    c.c = std::move(t.c);                                                       // (R, r)
    c.q = std::move(t.q);                                                       // (R, H*dqk) [q_h | qr_h]
    c.k = std::move(t.k);                                                       // (R, H*dqk) [k_h | kr]
    c.v = std::move(t.v);                                                       // (R, H*dh)
  }
  // Per sequence b: p = softmax(scale * q_h k_g^T) causal (H, N, N), kept;  o_h = p v_g (N, dh)
  c.probs.assign(std::size_t(batch * h * n * n), 0.0f);
  c.o = uninitialised(rows, h * dh);
  for (int64_t b = 0; b < batch; ++b) {
    const AttendArgs a = attend_args(s, n, n, gk, {c.q.data() + b * n * h * dqk, h * dqk, dqk},
                                     {c.k.data() + b * n * gk * dqk, gk * dqk, dqk},
                                     {c.v.data() + b * n * gk * dh, gk * dh, dh}, true, 0,
                                     c.probs.data() + b * h * n * n);
    attend_rows_into(a, c.o.data() + b * n * h * dh, h * dh);                  // rows of o (N, H*dh)
  }
  linear_forward(out, c.o.data(), w.wo.data(), nullptr, rows, h * dh, s.d);     // out = o wo  (R, D)
}

void attention_backward(float* dx, Weights& grad, const float* dout, const float* x, const AttentionCache& c,
                        const Shape& s, const Weights& w) {
  const int64_t batch = c.batch, n = c.n, rows = batch * n, d = s.d, h = s.h, dh = s.dh, dr = s.dr;
  const int64_t gk = kernel_kv_heads(s), dqk = s.dh + s.dr;
  const int64_t group = h / gk, ldq = h * dqk, ldk = gk * dqk, ldv = gk * dh, ldo = h * dh;
  const float scale = s.scale();

  // out = o wo
  Matrix d_o = zeros(rows, h * dh);  // (R, H*dh)
  linear_backward(d_o.data(), grad.wo.data(), nullptr, dout, c.o.data(), w.wo.data(), rows, h * dh, d);

  Matrix dq = zeros(rows, h * dqk);   // (R, H*dqk)
  Matrix dk = zeros(rows, gk * dqk);  // (R, Gk*dqk)
  Matrix dv = zeros(rows, gk * dh);   // (R, Gk*dh)
  std::vector<float> dp(static_cast<std::size_t>(n));  // dp_ij of one query row
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t hh = 0; hh < h; ++hh) {
      const int64_t g = hh / group;
      const float* p = c.probs.data() + (b * h + hh) * n * n;
      for (int64_t i = 0; i < n; ++i) {
        const float* pi = p + i * n;
        const float* doi = d_o.data() + (b * n + i) * ldo + hh * dh;
        // o_i = sum_j p_ij v_j   =>   dp_ij = do_i . v_j,   dv_j += p_ij do_i
        dots(dp.data(), doi, c.v.data() + b * n * ldv + g * dh, ldv, i + 1, dh);
        float sum_pdp = 0.0f;
        for (int64_t j = 0; j <= i; ++j) {
          axpy(dv.data() + (b * n + j) * ldv + g * dh, pi[j], doi, dh);
          sum_pdp += pi[j] * dp[j];
        }
        // p_i = softmax(s_i)   =>   ds_ij = p_ij (dp_ij - sum_j' p_ij' dp_ij')   (into dp)
        // s_ij = scale * q_i . k_j   =>   dq_i += scale ds_ij k_j,   dk_j += scale ds_ij q_i
        for (int64_t j = 0; j <= i; ++j) dp[j] = scale * pi[j] * (dp[j] - sum_pdp);
        const float* qi = c.q.data() + (b * n + i) * ldq + hh * dqk;
        axpy_rows(dq.data() + (b * n + i) * ldq + hh * dqk, dp.data(), c.k.data() + b * n * ldk + g * dqk, ldk, i + 1, dqk);
        for (int64_t j = 0; j <= i; ++j) axpy(dk.data() + (b * n + j) * ldk + g * dqk, dp[j], qi, dqk);
      }
    }
  }

  if (!is_mla(s)) {
    if (s.rope) {
      // q, k = rope(q), rope(k)   (rotated in project_grouped: the rotation of rope_forward)
      rope_backward(dq.data(), batch, n, h * dh, h, dh, s.rope_base);
      rope_backward(dk.data(), batch, n, s.g * dh, s.g, dh, s.rope_base);
    }
    // q = x wq
    linear_backward(dx, grad.wq.data(), nullptr, dq.data(), x, w.wq.data(), rows, d, h * dh);
    // k = x wk
    linear_backward(dx, grad.wk.data(), nullptr, dk.data(), x, w.wk.data(), rows, d, s.g * dh);
    // v = x wv
    linear_backward(dx, grad.wv.data(), nullptr, dv.data(), x, w.wv.data(), rows, d, s.g * dh);
    return;
  }

  // MLA: split the per-head gradients back into their sources.
  Matrix dq_nope = uninitialised(rows, h * dh);
  Matrix dk_nope = uninitialised(rows, h * dh);
  for (int64_t hh = 0; hh < h; ++hh) {
    copy_columns(dq.data(), ldq, hh * dqk, dq_nope.data(), h * dh, hh * dh, rows, dh, false);
    copy_columns(dk.data(), ldk, hh * dqk, dk_nope.data(), h * dh, hh * dh, rows, dh, false);
  }
  Matrix dc = zeros(rows, s.r);  // (R, r)
  // q_h = x wq[:, h]
  linear_backward(dx, grad.wq.data(), nullptr, dq_nope.data(), x, w.wq.data(), rows, d, h * dh);
  // k_h = c W_uk[:, h]
  linear_backward(dc.data(), grad.w_uk.data(), nullptr, dk_nope.data(), c.c.data(), w.w_uk.data(), rows, s.r, h * dh);
  // v_h = c W_uv[:, h]
  linear_backward(dc.data(), grad.w_uv.data(), nullptr, dv.data(), c.c.data(), w.w_uv.data(), rows, s.r, h * dh);
  // c = x W_dkv
  linear_backward(dx, grad.w_dkv.data(), nullptr, dc.data(), x, w.w_dkv.data(), rows, d, s.r);
  if (dr > 0) {
    Matrix dqr = uninitialised(rows, h * dr);
    Matrix dkr = zeros(rows, dr);  // kr is shared by all heads: its gradient sums over them
    for (int64_t hh = 0; hh < h; ++hh) {
      copy_columns(dq.data(), ldq, hh * dqk + dh, dqr.data(), h * dr, hh * dr, rows, dr, false);
      copy_columns(dk.data(), ldk, hh * dqk + dh, dkr.data(), dr, 0, rows, dr, true);
    }
    // qr = rope(x W_qr)
    apply_rope_transpose_batched(dqr.data(), batch, n, h * dr, 0, h, dr, dr, s.rope_base);
    linear_backward(dx, grad.w_qr.data(), nullptr, dqr.data(), x, w.w_qr.data(), rows, d, h * dr);
    // kr = rope(x W_kr)
    apply_rope_transpose_batched(dkr.data(), batch, n, dr, 0, 1, 0, dr, s.rope_base);
    linear_backward(dx, grad.w_kr.data(), nullptr, dkr.data(), x, w.w_kr.data(), rows, d, dr);
  }
}

// --- cross-entropy -------------------------------------------------------------------------------

double cross_entropy_forward(float* probs, const float* logits, const int32_t* targets, const float* mask,
                             int64_t rows, int64_t v) {
  double loss = 0, total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* l = logits + r * v;
    float* p = probs + r * v;
    float mx = -INFINITY;
    for (int64_t j = 0; j < v; ++j) mx = std::max(mx, l[j]);
    double sum = 0;
    for (int64_t j = 0; j < v; ++j) {
      p[j] = std::exp(l[j] - mx);
      sum += p[j];
    }
    const float inv = float(1.0 / sum);
    for (int64_t j = 0; j < v; ++j) p[j] *= inv;
    if (mask[r] != 0.0f) {
      // -log p[t] = log(sum) - (l[t] - mx), in double for the gradient checks
      loss += double(mask[r]) * (std::log(sum) - double(l[targets[r]] - mx));
      total += mask[r];
    }
  }
  return total > 0 ? loss / total : 0.0;
}

void cross_entropy_backward(float* dlogits, const float* probs, const int32_t* targets, const float* mask,
                            int64_t rows, int64_t v) {
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) total += mask[r];
  const float inv = total > 0 ? float(1.0 / total) : 0.0f;
  for (int64_t r = 0; r < rows; ++r) {
    // loss = sum_r mask_r * -log softmax(logits_r)[t_r] / sum(mask)
    // dlogits_r = mask_r / sum(mask) * (p_r - onehot(t_r))
    const float wr = mask[r] * inv;
    for (int64_t j = 0; j < v; ++j) dlogits[r * v + j] = wr * (probs[r * v + j] - (j == targets[r] ? 1.0f : 0.0f));
  }
}

}  // namespace attn::train
