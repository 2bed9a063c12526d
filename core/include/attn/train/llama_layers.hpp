// train/llama_layers.hpp — the layers a Llama block adds to the trainer: RMSNorm, RoPE as a layer
// of its own, the SwiGLU MLP. Forward/backward pairs with the conventions of layers.hpp: outputs,
// inputs, sizes; every backward ACCUMULATES (+=) into its gradient buffers (RoPE's backward, which
// works in place, is the exception: it turns the gradient it is given). Semantics are Hugging
// Face's LlamaForCausalLM (reference/hf-models.md: LlamaRMSNorm, rotate-half RoPE, LlamaMLP).
// Shape legend of layers.hpp: R rows = B*N, D width, F the MLP's hidden width (intermediate_size).
#pragma once

#include <cstdint>

#include "attn/tensor.hpp"

namespace attn::train {

// --- RMSNorm over the last axis:  out = x * rstd * gamma,   rstd = 1 / sqrt(mean(x^2) + eps) ------
// rstd: (R) kept for the backward.   gamma: (D).   Sums in double precision.
void rmsnorm_forward(float* out, float* rstd, const float* x, const float* gamma, int64_t rows, int64_t d,
                     double eps);
// dx (R, D) and dgamma (D) accumulate.
void rmsnorm_backward(float* dx, float* dgamma, const float* dout, const float* x, const float* rstd,
                      const float* gamma, int64_t rows, int64_t d);

// --- RoPE, rotate-half (rope.hpp), in place on `heads` segments of width w (even) per row ---------
// m: `batch` sequences of n rows, rows ld floats apart, head j at columns [j*w, (j+1)*w); row i of a
// sequence sits at position i. inv_freq_k = base^(-2k/w), angles in double precision.
void rope_forward(float* m, int64_t batch, int64_t n, int64_t ld, int64_t heads, int64_t w, double base);
// The gradient through it, in place: the transpose of the rotation (the rotation by -theta).
void rope_backward(float* dm, int64_t batch, int64_t n, int64_t ld, int64_t heads, int64_t w, double base);

// --- SiLU:  silu(u) = u * sigmoid(u) ---------------------------------------------------------------
float silu(float u);

// --- SwiGLU MLP, no biases:  out = (silu(x w_gate) * (x w_up)) w_down -------------------------------
// w_gate, w_up: (D, F)   w_down: (F, D)   (the trainer's (in, out) layout: HF stores them transposed)
struct SwigluParams { Matrix w_gate, w_up, w_down; };
struct SwigluCache { Matrix g, u, a; };  // g = x w_gate, u = x w_up, a = silu(g) * u: (R, F) each
void swiglu_forward(float* out, SwigluCache& cache, const float* x, const SwigluParams& p, int64_t rows);
// dx (R, D; may be null) and the three weight gradients accumulate.
void swiglu_backward(float* dx, SwigluParams& grad, const float* dout, const float* x, const SwigluCache& cache,
                     const SwigluParams& p, int64_t rows);

}  // namespace attn::train
