// mlp.hpp — the feed-forward half of a block, and the linear layer it is made of.
//
//   GELU (gpt2, gpt_bigcode):  out = proj(gelu_tanh(fc(x)))        gelu_tanh(u) = u/2 (1 + tanh(sqrt(2/pi) (u + 0.044715 u^3)))
//   SwiGLU (llama family):     out = down(silu(gate(x)) * up(x))    silu(u) = u / (1 + e^-u)
#pragma once

#include <cstdint>

#include "attn/pretrained/config.hpp"
#include "attn/pretrained/weights16.hpp"

namespace attn::pretrained {

// y = x W^T + b with W (out, in) (nn.Linear), or y = x W + b with W (in, out) (GPT-2's Conv1D).
struct Linear {
  WeightView w, bias;       // bias: (1, out), or empty
  bool in_out = false;      // true: W is (in, out)
  int64_t in() const { return in_out ? w.rows : w.cols; }
  int64_t out() const { return in_out ? w.cols : w.rows; }
};
// y (rows, out) (=|+=) x (rows, in) through the layer; with accumulate the bias is added to what y holds.
void linear(const Linear& l, const float* x, int64_t rows, int64_t ldx, float* y, int64_t ldy, bool accumulate = false);

struct MlpWeights {
  MlpKind kind = MlpKind::SwiGLU;
  Linear fc, proj;          // GELU
  Linear gate, up, down;    // SwiGLU
};
// out (rows, D) += mlp(x (rows, D)): the residual stream, updated in place.
void mlp_add(const MlpWeights& w, const float* x, int64_t rows, float* out);

}  // namespace attn::pretrained
