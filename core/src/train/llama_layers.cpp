// train/llama_layers.cpp — RMSNorm, RoPE and the SwiGLU MLP, forward and backward (see llama_layers.hpp).
#include "attn/train/llama_layers.hpp"

#include <cmath>

#include "attn/rope.hpp"
#include "attn/train/layers.hpp"

namespace attn::train {

// --- RMSNorm -------------------------------------------------------------------------------------

void rmsnorm_forward(float* out, float* rstd, const float* x, const float* gamma, int64_t rows, int64_t d,
                     double eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    double ms = 0;
    for (int64_t j = 0; j < d; ++j) ms += double(xr[j]) * double(xr[j]);
    ms /= double(d);
    const float s = float(1.0 / std::sqrt(ms + eps));
    for (int64_t j = 0; j < d; ++j) out[r * d + j] = xr[j] * s * gamma[j];
    rstd[r] = s;
  }
}

void rmsnorm_backward(float* dx, float* dgamma, const float* dout, const float* x, const float* rstd,
                      const float* gamma, int64_t rows, int64_t d) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    const float* gr = dout + r * d;
    // xhat = x * rstd;  out = xhat * gamma
    // dxhat = dout * gamma;  dgamma += dout * xhat
    double mean_dxhat_xhat = 0;
    for (int64_t j = 0; j < d; ++j) {
      const float xhat = xr[j] * rstd[r];
      const float dxhat = gr[j] * gamma[j];
      dgamma[j] += gr[j] * xhat;
      mean_dxhat_xhat += double(dxhat) * double(xhat);
    }
    mean_dxhat_xhat /= double(d);
    // rstd = 1 / sqrt(mean(x^2) + eps)   =>   dx = rstd * (dxhat - xhat * mean(dxhat * xhat))
    for (int64_t j = 0; j < d; ++j) {
      const float xhat = xr[j] * rstd[r];
      dx[r * d + j] += rstd[r] * (gr[j] * gamma[j] - xhat * float(mean_dxhat_xhat));
    }
  }
}

// --- RoPE ----------------------------------------------------------------------------------------

void rope_forward(float* m, int64_t batch, int64_t n, int64_t ld, int64_t heads, int64_t w, double base) {
  apply_rope_batched(m, batch, n, ld, 0, heads, w, w, 0, base);
}

void rope_backward(float* dm, int64_t batch, int64_t n, int64_t ld, int64_t heads, int64_t w, double base) {
  // out = R(p) x   =>   dx = R(p)^T dout = R(-p) dout
  apply_rope_transpose_batched(dm, batch, n, ld, 0, heads, w, w, base);
}

// --- SwiGLU --------------------------------------------------------------------------------------

float silu(float u) { return u / (1.0f + std::exp(-u)); }

void swiglu_forward(float* out, SwigluCache& c, const float* x, const SwigluParams& p, int64_t rows) {
  const int64_t d = int64_t(p.w_gate.shape(0)), f = int64_t(p.w_gate.shape(1));
  c.g = uninitialised(rows, f);
  c.u = uninitialised(rows, f);
  c.a = uninitialised(rows, f);
  linear_forward(c.g.data(), x, p.w_gate.data(), nullptr, rows, d, f);  // g = x w_gate   (R, F)
  linear_forward(c.u.data(), x, p.w_up.data(), nullptr, rows, d, f);    // u = x w_up     (R, F)
  const float* g = c.g.data();
  const float* u = c.u.data();
  float* a = c.a.data();
  for (int64_t i = 0; i < rows * f; ++i) a[i] = silu(g[i]) * u[i];      // a = silu(g) * u (R, F)
  linear_forward(out, a, p.w_down.data(), nullptr, rows, f, d);         // out = a w_down (R, D)
}

void swiglu_backward(float* dx, SwigluParams& grad, const float* dout, const float* x, const SwigluCache& c,
                     const SwigluParams& p, int64_t rows) {
  const int64_t d = int64_t(p.w_gate.shape(0)), f = int64_t(p.w_gate.shape(1));
  Matrix da = zeros(rows, f);  // (R, F)
  // out = a w_down
  linear_backward(da.data(), grad.w_down.data(), nullptr, dout, c.a.data(), p.w_down.data(), rows, f, d);
  Matrix dg = uninitialised(rows, f);  // (R, F)
  Matrix du = uninitialised(rows, f);  // (R, F)
  const float* g = c.g.data();
  const float* u = c.u.data();
  for (int64_t i = 0; i < rows * f; ++i) {
    // a = silu(g) * u,  silu(g) = g s,  s = sigmoid(g)   =>   du = da silu(g),  dg = da u s (1 + g (1 - s))
    const float s = 1.0f / (1.0f + std::exp(-g[i]));
    du.data()[i] = da.data()[i] * g[i] * s;
    dg.data()[i] = da.data()[i] * u[i] * s * (1.0f + g[i] * (1.0f - s));
  }
  // u = x w_up
  linear_backward(dx, grad.w_up.data(), nullptr, du.data(), x, p.w_up.data(), rows, d, f);
  // g = x w_gate
  linear_backward(dx, grad.w_gate.data(), nullptr, dg.data(), x, p.w_gate.data(), rows, d, f);
}

}  // namespace attn::train
