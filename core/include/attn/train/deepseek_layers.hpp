// train/deepseek_layers.hpp — what a DeepSeek-V2 block adds to the Llama layers (llama_layers.hpp):
// RoPE on adjacent pairs, and multi-head latent attention (MLA) as Hugging Face's
// DeepseekV2Attention computes it (reference/hf-models.md, "deepseek_v2"). Forward/backward pairs
// with the conventions of layers.hpp (outputs, inputs, sizes; every backward ACCUMULATES, except
// RoPE's, which turns the gradient it is given in place). Plain loops: naive and readable.
// Shape legend of layers.hpp, plus:
//   H heads   nope qk_nope_head_dim   dr qk_rope_head_dim   dqk = nope + dr   dv v_head_dim
//   r kv_lora_rank (the latent)   qr q_lora_rank (query compression; 0: none)
#pragma once

#include <cstdint>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::train {

// --- RoPE on adjacent pairs (DeepSeek's checkpoints, HF's complex-number form) -------------------
// In place on `heads` segments of width w (even) per row, segment j at column col0 + j*stride:
// pair (2i, 2i+1) of a row at position p turns by p * base^(-2i/w). m: `batch` sequences of n rows,
// rows ld floats apart, row i of a sequence at position i. Angles in double precision.
void rope_adjacent_forward(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t heads,
                           int64_t stride, int64_t w, double base);
// The gradient through it, in place: the rotation by -theta (the transpose).
void rope_adjacent_backward(float* dm, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t heads,
                            int64_t stride, int64_t w, double base);

// --- MLA's sizes ---------------------------------------------------------------------------------
struct MlaDims {
  int64_t d = 0, h = 0, nope = 0, dr = 0, dv = 0, r = 0, qr = 0;  // qr = 0: q straight from x
  double base = 10000.0;                                           // rope_theta
  int64_t dqk() const { return nope + dr; }
  float scale() const;                                             // 1 / sqrt(nope + dr)
};
constexpr double kMlaLatentNormEps = 1e-6;  // q_a_layernorm, kv_a_layernorm: HF's fixed eps

// --- MLA's parameters, the trainer's (in, out) layout (HF's nn.Linear weights transposed) --------
struct MlaParams {
  Matrix wq;         // (D, H*dqk)       q_proj; per head [nope | rope]          (qr = 0 only)
  Matrix wq_a;       // (D, qr)          q_a_proj                               (qr > 0 only)
  Matrix q_a_norm;   // (1, qr)          q_a_layernorm                          (qr > 0 only)
  Matrix wq_b;       // (qr, H*dqk)      q_b_proj; per head [nope | rope]       (qr > 0 only)
  Matrix wkv_a;      // (D, r + dr)      kv_a_proj_with_mqa: [latent c | k_pe]
  Matrix kv_a_norm;  // (1, r)           kv_a_layernorm
  Matrix wkv_b;      // (r, H*(nope+dv)) kv_b_proj; per head [k_nope | v]
  Matrix wo;         // (H*dv, D)        o_proj
};
// Zeroed matrices shaped like the parameters of `m` (a gradient buffer).
MlaParams mla_zeros_like(const MlaParams& m);

struct MlaCache {
  int64_t batch = 0, n = 0;
  Matrix qa, qan, rstd_q;     // (R, qr) x wq_a, its RMSNorm * q_a_norm, (1, R)   (qr > 0)
  Matrix q;                   // (R, H*dqk)  per head [q_nope | rope(q_rope)]
  Matrix c, cn, rstd_c;       // (R, r) the latent before / after RMSNorm * kv_a_norm, (1, R)
  Matrix kpe;                 // (R, dr)     rope(k_pe), shared by every head
  Matrix kv;                  // (R, H*(nope+dv)) cn wkv_b: per head [k_nope | v]
  std::vector<float> probs;   // (B, H, N, N) softmax weights, zero above the diagonal
  Matrix o;                   // (R, H*dv)   concat of heads before wo
};

// out (R, D) = MLA(x (R, D)), causal, `batch` sequences of n tokens from position 0:
//   q    = x wq | RMSNorm(x wq_a) * q_a_norm wq_b           (R, H*dqk), rope on each head's last dr
//   [c | k_pe] = x wkv_a;  cn = RMSNorm(c) * kv_a_norm;  kpe = rope(k_pe)
//   [k_nope_h | v_h] = cn wkv_b;  k_h = [k_nope_h | kpe]
//   p_h = softmax(scale q_h k_h^T) causal;  o_h = p_h v_h;  out = o wo
void mla_forward(float* out, MlaCache& cache, const MlaDims& s, const MlaParams& w, const float* x, int64_t batch,
                 int64_t n);
// dx (R, D) and every gradient in `grad` (shaped like w, zeroed by the caller) accumulate.
void mla_backward(float* dx, MlaParams& grad, const float* dout, const float* x, const MlaCache& cache,
                  const MlaDims& s, const MlaParams& w);

}  // namespace attn::train
