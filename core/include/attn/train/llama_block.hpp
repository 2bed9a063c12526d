// train/llama_block.hpp — one Llama decoder block, forward and backward, as Hugging Face's
// LlamaDecoderLayer computes it (reference/hf-models.md), for `batch` sequences of n tokens:
//
//   h   = RMSNorm(x) * attn_norm                      (R, D)   input_layernorm
//   x'  = x + attention(h)                            (R, D)   q, k rotated (RoPE, every head, full dh),
//                                                              causal, query head h reads K/V head h / (H/G),
//                                                              no biases (attention in layers.hpp)
//   h2  = RMSNorm(x') * mlp_norm                      (R, D)   post_attention_layernorm
//   out = x' + SwiGLU(h2)                             (R, D)   down(silu(gate(h2)) * up(h2))
//
// The attention's Shape must be a grouped variant (MHA / MQA / GQA) with rope on.
#pragma once

#include <cstdint>

#include "attn/shape.hpp"
#include "attn/tensor.hpp"
#include "attn/train/layers.hpp"
#include "attn/train/llama_layers.hpp"
#include "attn/weights.hpp"

namespace attn::train {

struct LlamaLayer {
  Matrix attn_norm, mlp_norm;  // (1, D) RMSNorm gains
  Weights attn;                // wq (D, H*dh), wk, wv (D, G*dh), wo (H*dh, D)
  SwigluParams mlp;            // w_gate, w_up (D, F), w_down (F, D)
};

struct LlamaBlockCache {
  Matrix x;                    // (R, D) the block's input
  Matrix h, rstd;              // (R, D) RMSNorm(x) * attn_norm,   (1, R)
  AttentionCache attn;
  Matrix x_mid;                // (R, D) after the attention's residual
  Matrix h2, rstd2;            // (R, D) RMSNorm(x_mid) * mlp_norm, (1, R)
  SwigluCache mlp;
};

// out (R, D) = the block applied to x (R, D); may not alias x.
void llama_block_forward(float* out, LlamaBlockCache& cache, const float* x, const Shape& s, const LlamaLayer& p,
                         int64_t batch, int64_t n, double eps);
// dx (R, D) and every gradient in `grad` (shaped like p, zeroed by the caller) accumulate.
void llama_block_backward(float* dx, LlamaLayer& grad, const float* dout, const LlamaBlockCache& cache,
                          const Shape& s, const LlamaLayer& p);

}  // namespace attn::train
