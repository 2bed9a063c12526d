// train/layers.hpp — the layers of the trainable transformer, each a forward/backward pair.
//
// Plain loops over raw pointers (naive and readable, llm.c style). Arguments in a fixed order:
// outputs, inputs, sizes. Every backward ACCUMULATES (+=) into its gradient buffers, so the caller
// zeroes them once per step and a tensor used twice (tied embeddings, residuals) just adds up.
// Token-wise layers see the batch as R = B*N rows. Shape legend (tensor.hpp) plus:
//   B  batch   R  rows = B*N   V  vocabulary   F  MLP hidden width (4D)
//   Gk K/V heads the attention kernel sees: G for MHA/MQA/GQA, H for MLA (decompressed)
//   dqk width of a q/k dot product: dh (MHA/MQA/GQA), dh + dr (MLA)
#pragma once

#include <cstdint>
#include <vector>

#include "attn/spec.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace attn::train {

// --- products: through the packed gemm of kernels.hpp; the *_naive twins are plain loops -------
// C (M, N) (=|+=) A (M, K) @ B (K, N)
void mm_nn(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n, bool accumulate);
// C (M, N) += A (M, K) @ B (N, K)^T
void mm_nt_acc(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n);
// C (M, N) += A (K, M)^T @ B (K, N)
void mm_tn_acc(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n);
void mm_nn_naive(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n, bool accumulate);
void mm_nt_acc_naive(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n);
void mm_tn_acc_naive(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n);

// --- token embedding:  out[r] = wte[tokens[r]]                 out: (R, D)  wte: (V, D) --------
void embedding_forward(float* out, const int32_t* tokens, const float* wte, int64_t rows, int64_t d);
void embedding_backward(float* dwte, const float* dout, const int32_t* tokens, int64_t rows, int64_t d);

// --- learned positions:  out[b*N + i] += wpe[i]               wpe: (Nmax, D), N <= Nmax -------
void position_forward(float* out, const float* wpe, int64_t batch, int64_t n, int64_t d);
void position_backward(float* dwpe, const float* dout, int64_t batch, int64_t n, int64_t d);

// --- LayerNorm over the last axis (eps 1e-5):  out = (x - mean) * rstd * gamma + beta --------
// mean, rstd: (R) kept for the backward.   gamma, beta: (D)
void layernorm_forward(float* out, float* mean, float* rstd, const float* x, const float* gamma,
                       const float* beta, int64_t rows, int64_t d);
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dout, const float* x,
                        const float* mean, const float* rstd, const float* gamma, int64_t rows, int64_t d);

// --- linear:  out (R, Dout) = x (R, Din) @ w (Din, Dout) [+ b (Dout)]  (b may be null) -------
void linear_forward(float* out, const float* x, const float* w, const float* b, int64_t rows,
                    int64_t d_in, int64_t d_out);
// dx (may be null), dw, db (may be null) accumulate.
void linear_backward(float* dx, float* dw, float* db, const float* dout, const float* x, const float* w,
                     int64_t rows, int64_t d_in, int64_t d_out);

// --- activations (elementwise over `count` values) ---------------------------------------------
enum class Activation { Gelu, Relu };  // GELU: the tanh approximation (GPT-2)
// GELU: `tanh_keep` (optional, count floats) receives tanh(u) so that the backward reuses it.
void activation_forward(float* out, const float* x, int64_t count, Activation act, float* tanh_keep = nullptr);
void activation_backward(float* dx, const float* dout, const float* x, int64_t count, Activation act,
                         const float* tanh_kept = nullptr);

// --- MLP:  out = act(x w1 + b1) w2 + b2     w1: (D, F)  b1: (F)  w2: (F, D)  b2: (D) -----------
struct MlpParams { Matrix w1, b1, w2, b2; };  // b1: (1, F), b2: (1, D)
struct MlpCache { Matrix h, a, t; };          // h = x w1 + b1 (R, F)   a = act(h) (R, F)   t: GELU's tanh (R, F)
void mlp_forward(float* out, MlpCache& cache, const float* x, const MlpParams& p, int64_t rows,
                 Activation act);
void mlp_backward(float* dx, MlpParams& grad, const float* dout, const float* x, const MlpCache& cache,
                  const MlpParams& p, int64_t rows, Activation act);

// --- causal attention block, every variant (equations in forward.hpp; identical semantics) ---
// x: (R, D) = B sequences of N tokens; positions restart at 0 in each sequence.
struct AttentionCache {
  int64_t batch = 0, n = 0;
  Matrix q;                   // (R, H*dqk)  after RoPE; MLA: per head [q_h | rope(qr_h)]
  Matrix k;                   // (R, Gk*dqk) after RoPE; MLA: per head [k_h | rope(kr)]
  Matrix v;                   // (R, Gk*dh)
  Matrix c;                   // (R, r)      MLA latent
  std::vector<float> probs;   // (B, H, N, N) softmax weights, zero above the diagonal
  Matrix o;                   // (R, H*dh)   concat of heads before wo
};
// s: a resolved Shape (causal is forced on); its n is ignored (n given here).
void attention_forward(float* out, AttentionCache& cache, const Shape& s, const Weights& w,
                       const float* x, int64_t batch, int64_t n);
// dx accumulates into (R, D); grad: matrices shaped like w (zero-filled by the caller).
void attention_backward(float* dx, Weights& grad, const float* dout, const float* x,
                        const AttentionCache& cache, const Shape& s, const Weights& w);

// --- softmax cross-entropy:  loss = sum_r mask[r] * -log softmax(logits[r])[targets[r]] / sum mask
// probs: (R, V) kept for the backward.  Returns the loss (0 when the mask is all zero).
double cross_entropy_forward(float* probs, const float* logits, const int32_t* targets,
                             const float* mask, int64_t rows, int64_t v);
// dlogits: (R, V), written (not accumulated).
void cross_entropy_backward(float* dlogits, const float* probs, const int32_t* targets,
                            const float* mask, int64_t rows, int64_t v);

}  // namespace attn::train
