// train/deepseek_block.hpp — one dense DeepSeek-V2 decoder block, forward and backward, as Hugging
// Face's DeepseekV2DecoderLayer computes it with a dense MLP (reference/hf-models.md, "deepseek_v2"),
// for `batch` sequences of n tokens: the Llama block (llama_block.hpp) with MLA as its attention.
//
//   h   = RMSNorm(x) * attn_norm                      (R, D)   input_layernorm
//   x'  = x + mla(h)                                  (R, D)   deepseek_layers.hpp: latent KV, decoupled
//                                                              RoPE key (adjacent pairs), causal, no biases
//   h2  = RMSNorm(x') * mlp_norm                      (R, D)   post_attention_layernorm
//   out = x' + SwiGLU(h2)                             (R, D)   down(silu(gate(h2)) * up(h2))
#pragma once

#include <cstdint>

#include "attn/tensor.hpp"
#include "attn/train/deepseek_layers.hpp"
#include "attn/train/llama_layers.hpp"

namespace attn::train {

struct DeepseekLayer {
  Matrix attn_norm, mlp_norm;  // (1, D) RMSNorm gains
  MlaParams attn;              // deepseek_layers.hpp
  SwigluParams mlp;            // w_gate, w_up (D, F), w_down (F, D)
};

struct DeepseekBlockCache {
  Matrix x;                    // (R, D) the block's input
  Matrix h, rstd;              // (R, D) RMSNorm(x) * attn_norm,   (1, R)
  MlaCache attn;
  Matrix x_mid;                // (R, D) after the attention's residual
  Matrix h2, rstd2;            // (R, D) RMSNorm(x_mid) * mlp_norm, (1, R)
  SwigluCache mlp;
};

// out (R, D) = the block applied to x (R, D); may not alias x. eps: rms_norm_eps of the two norms.
void deepseek_block_forward(float* out, DeepseekBlockCache& cache, const float* x, const MlaDims& s,
                            const DeepseekLayer& p, int64_t batch, int64_t n, double eps);
// dx (R, D) and every gradient in `grad` (shaped like p, zeroed by the caller) accumulate.
void deepseek_block_backward(float* dx, DeepseekLayer& grad, const float* dout, const DeepseekBlockCache& cache,
                             const MlaDims& s, const DeepseekLayer& p);

}  // namespace attn::train
