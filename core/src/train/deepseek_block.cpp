// train/deepseek_block.cpp — one dense DeepSeek-V2 decoder block, forward and backward (see deepseek_block.hpp).
#include "attn/train/deepseek_block.hpp"

#include <algorithm>

namespace attn::train {

void deepseek_block_forward(float* out, DeepseekBlockCache& c, const float* x, const MlaDims& s,
                            const DeepseekLayer& p, int64_t batch, int64_t n, double eps) {
  const int64_t rows = batch * n, d = s.d;
  c.x = uninitialised(rows, d);
  std::copy_n(x, rows * d, c.x.data());
  // h = RMSNorm(x) * attn_norm                                        (R, D)
  c.h = uninitialised(rows, d);
  c.rstd = uninitialised(1, rows);
  rmsnorm_forward(c.h.data(), c.rstd.data(), x, p.attn_norm.data(), rows, d, eps);
  // x_mid = x + mla(h)                                                (R, D)
  c.x_mid = uninitialised(rows, d);
  mla_forward(c.x_mid.data(), c.attn, s, p.attn, c.h.data(), batch, n);
  for (int64_t i = 0; i < rows * d; ++i) c.x_mid.data()[i] += x[i];
  // h2 = RMSNorm(x_mid) * mlp_norm                                    (R, D)
  c.h2 = uninitialised(rows, d);
  c.rstd2 = uninitialised(1, rows);
  rmsnorm_forward(c.h2.data(), c.rstd2.data(), c.x_mid.data(), p.mlp_norm.data(), rows, d, eps);
  // out = x_mid + SwiGLU(h2)                                          (R, D)
  swiglu_forward(out, c.mlp, c.h2.data(), p.mlp, rows);
  for (int64_t i = 0; i < rows * d; ++i) out[i] += c.x_mid.data()[i];
}

void deepseek_block_backward(float* dx, DeepseekLayer& grad, const float* dout, const DeepseekBlockCache& c,
                             const MlaDims& s, const DeepseekLayer& p) {
  const int64_t rows = c.attn.batch * c.attn.n, d = s.d;
  // out = x_mid + SwiGLU(h2)   =>   dx_mid = dout + d(SwiGLU path)
  Matrix dx_mid = uninitialised(rows, d);  // (R, D)
  std::copy_n(dout, rows * d, dx_mid.data());
  Matrix dh2 = zeros(rows, d);             // (R, D)
  swiglu_backward(dh2.data(), grad.mlp, dout, c.h2.data(), c.mlp, p.mlp, rows);
  // h2 = RMSNorm(x_mid) * mlp_norm
  rmsnorm_backward(dx_mid.data(), grad.mlp_norm.data(), dh2.data(), c.x_mid.data(), c.rstd2.data(), p.mlp_norm.data(),
                   rows, d);
  // x_mid = x + mla(h)   =>   dx += dx_mid + d(attention path)
  for (int64_t i = 0; i < rows * d; ++i) dx[i] += dx_mid.data()[i];
  Matrix dh = zeros(rows, d);              // (R, D)
  mla_backward(dh.data(), grad.attn, dx_mid.data(), c.h.data(), c.attn, s, p.attn);
  // h = RMSNorm(x) * attn_norm
  rmsnorm_backward(dx, grad.attn_norm.data(), dh.data(), c.x.data(), c.rstd.data(), p.attn_norm.data(), rows, d);
}

}  // namespace attn::train
