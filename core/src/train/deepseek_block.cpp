// train/deepseek_block.cpp — one dense DeepSeek-V2 decoder block, forward and backward (see
// deepseek_block.hpp): the pre-norm block (prenorm_block.hpp) with MLA (deepseek_layers.hpp).
#include "attn/train/deepseek_block.hpp"

#include "attn/train/prenorm_block.hpp"

namespace attn::train {

void deepseek_block_forward(float* out, DeepseekBlockCache& c, const float* x, const MlaDims& s,
                            const DeepseekLayer& p, int64_t batch, int64_t n, double eps) {
  prenorm_block_forward(out, c, x, batch * n, s.d, p, eps, [&](float* y, MlaCache& ac, const float* h) {
    mla_forward(y, ac, s, p.attn, h, batch, n);
  });
}

void deepseek_block_backward(float* dx, DeepseekLayer& grad, const float* dout, const DeepseekBlockCache& c,
                             const MlaDims& s, const DeepseekLayer& p) {
  prenorm_block_backward(dx, grad, dout, c, c.attn.batch * c.attn.n, s.d, p,
                         [&](float* dh, const float* dy, const float* h, const MlaCache& ac) {
                           mla_backward(dh, grad.attn, dy, h, ac, s, p.attn);
                         });
}

}  // namespace attn::train
