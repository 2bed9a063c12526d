// linear.hpp — matrix products with a checkpoint's weights (weights16.hpp), widened inside the kernels.
//
//   matmul_wt:  y (m, n) (=|+=) x (m, k) @ W^T,  W (n, k)   nn.Linear's (out, in) layout
//   matmul_w:   y (m, n) (=|+=) x (m, k) @ W,    W (k, n)   GPT-2's Conv1D (in, out) layout, MLA's W_uk
// Few rows (decoding, m < kDirectRows) stream W once, widening each vector of it as it is read:
// matmul_wt as dot products of W's rows with x, matmul_w as rows of W scaled by x[k] and summed.
// BF16 rows of matmul_wt (decoding's products in llama / qwen checkpoints) are widened a whole vector of
// words at a time (x laid out as even | odd elements per block: linear.cpp), which takes fewer
// instructions per weight than load_bf16; the other dtypes keep the per-vector widening.
// More rows widen a block of W's columns into the packed panels of the core's register-blocked gemm
// (kernels.hpp) and run it; the panels hold one block at a time (about kBlockBytes), never all of W.
// The naive twins (a double-precision loop over WeightView::at) are in tests/native/test_pretrained_linear.cpp.
#pragma once

#include <cstdint>

#include "attn/pretrained/weights16.hpp"

namespace attn::pretrained {

constexpr int64_t kDirectRows = 4;              // fewer rows than this: the streaming path
constexpr int64_t kBlockBytes = 512 * 1024;     // the packed block of the gemm path

void matmul_wt(int64_t m, const float* x, int64_t ldx, const WeightView& w, float* y, int64_t ldy,
               bool accumulate = false);
void matmul_w(int64_t m, const float* x, int64_t ldx, const WeightView& w, float* y, int64_t ldy,
              bool accumulate = false);

// y[i, 0:n] += bias[0:n] for `rows` rows of stride ldy (bias: a (1, n) view; empty: nothing).
void add_bias(float* y, int64_t rows, int64_t ldy, const WeightView& bias);

}  // namespace attn::pretrained
