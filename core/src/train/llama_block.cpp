// train/llama_block.cpp — one Llama decoder block, forward and backward (see llama_block.hpp): the
// pre-norm block (prenorm_block.hpp) with the lesson's grouped attention.
#include "attn/train/llama_block.hpp"

#include "attn/train/prenorm_block.hpp"

namespace attn::train {

void llama_block_forward(float* out, LlamaBlockCache& c, const float* x, const Shape& s, const LlamaLayer& p,
                         int64_t batch, int64_t n, double eps) {
  prenorm_block_forward(out, c, x, batch * n, s.d, p, eps, [&](float* y, AttentionCache& ac, const float* h) {
    attention_forward(y, ac, s, p.attn, h, batch, n);
  });
}

void llama_block_backward(float* dx, LlamaLayer& grad, const float* dout, const LlamaBlockCache& c, const Shape& s,
                          const LlamaLayer& p) {
  prenorm_block_backward(dx, grad, dout, c, c.attn.batch * c.attn.n, s.d, p,
                         [&](float* dh, const float* dy, const float* h, const AttentionCache& ac) {
                           attention_backward(dh, grad.attn, dy, h, ac, s, p.attn);
                         });
}

}  // namespace attn::train
