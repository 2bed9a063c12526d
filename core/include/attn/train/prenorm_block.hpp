// train/prenorm_block.hpp — the pre-norm decoder block that the Llama block (llama_block.hpp) and the
// DeepSeek-V2 block (deepseek_block.hpp) share, for any attention: only the attention differs.
//
//   h   = RMSNorm(x) * attn_norm                      (R, D)
//   x'  = x + attention(h)                            (R, D)
//   h2  = RMSNorm(x') * mlp_norm                      (R, D)
//   out = x' + SwiGLU(h2)                             (R, D)   down(silu(gate(h2)) * up(h2))
//
// A layer `p` has attn_norm, mlp_norm (1, D), attn (the attention's parameters) and mlp (SwigluParams);
// a cache has x, h, rstd, attn (the attention's cache), x_mid, h2, rstd2 and mlp (SwigluCache).
// `attend(y, attn_cache, h)` writes the attention of h (R, D) into y (R, D); `attend_back(dh, dy, h,
// attn_cache)` accumulates the attention's parameter gradients and writes dh (R, D) from dy (R, D).
#pragma once

#include <algorithm>
#include <cstdint>

#include "attn/tensor.hpp"
#include "attn/train/llama_layers.hpp"

namespace attn::train {

// out (R, D) = the block applied to x (R, D); may not alias x.
template <class Layer, class Cache, class Attend>
void prenorm_block_forward(float* out, Cache& c, const float* x, int64_t rows, int64_t d, const Layer& p, double eps,
                           Attend attend) {
  c.x = uninitialised(rows, d);
  std::copy_n(x, rows * d, c.x.data());
  // h = RMSNorm(x) * attn_norm                                        (R, D)
  c.h = uninitialised(rows, d);
  c.rstd = uninitialised(1, rows);
  rmsnorm_forward(c.h.data(), c.rstd.data(), x, p.attn_norm.data(), rows, d, eps);
  // x_mid = x + attention(h)                                          (R, D)
  c.x_mid = uninitialised(rows, d);
  attend(c.x_mid.data(), c.attn, c.h.data());
  for (int64_t i = 0; i < rows * d; ++i) c.x_mid.data()[i] += x[i];
  // h2 = RMSNorm(x_mid) * mlp_norm                                    (R, D)
  c.h2 = uninitialised(rows, d);
  c.rstd2 = uninitialised(1, rows);
  rmsnorm_forward(c.h2.data(), c.rstd2.data(), c.x_mid.data(), p.mlp_norm.data(), rows, d, eps);
  // out = x_mid + SwiGLU(h2)                                          (R, D)
  swiglu_forward(out, c.mlp, c.h2.data(), p.mlp, rows);
  for (int64_t i = 0; i < rows * d; ++i) out[i] += c.x_mid.data()[i];
}

// dx (R, D) and every gradient in `grad` (shaped like p, zeroed by the caller) accumulate.
template <class Layer, class Cache, class AttendBack>
void prenorm_block_backward(float* dx, Layer& grad, const float* dout, const Cache& c, int64_t rows, int64_t d,
                            const Layer& p, AttendBack attend_back) {
  // out = x_mid + SwiGLU(h2)   =>   dx_mid = dout + d(SwiGLU path)
  Matrix dx_mid = uninitialised(rows, d);  // (R, D)
  std::copy_n(dout, rows * d, dx_mid.data());
  Matrix dh2 = zeros(rows, d);             // (R, D)
  swiglu_backward(dh2.data(), grad.mlp, dout, c.h2.data(), c.mlp, p.mlp, rows);
  // h2 = RMSNorm(x_mid) * mlp_norm
  rmsnorm_backward(dx_mid.data(), grad.mlp_norm.data(), dh2.data(), c.x_mid.data(), c.rstd2.data(), p.mlp_norm.data(),
                   rows, d);
  // x_mid = x + attention(h)   =>   dx += dx_mid + d(attention path)
  for (int64_t i = 0; i < rows * d; ++i) dx[i] += dx_mid.data()[i];
  Matrix dh = zeros(rows, d);              // (R, D)
  attend_back(dh.data(), dx_mid.data(), c.h.data(), c.attn);
  // h = RMSNorm(x) * attn_norm
  rmsnorm_backward(dx, grad.attn_norm.data(), dh.data(), c.x.data(), c.rstd.data(), p.attn_norm.data(), rows, d);
}

}  // namespace attn::train
