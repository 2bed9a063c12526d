// kernels.hpp — the hot loops: packed, register-blocked matrix multiply and softmax.
//
// Written with GCC/Clang vector extensions (simd.hpp): with -msimd128 they compile to wasm f32x4
// ops; without it the same source is lowered to scalar code that performs the same operations in
// the same order per lane, so the SIMD and scalar builds compute the same numbers. The FMA build
// (-mrelaxed-simd) multiplies and accumulates with f32x4.relaxed_madd (simd::madd): the same sums in
// the same order, each product added without rounding it first.
// The naive twins these are tested against live in tests/native/reference.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "attn/simd.hpp"
#include "attn/tensor.hpp"

namespace attn {

// B (K, N) packed into column panels of kNR columns: panel p holds B[0:K, p*kNR:(p+1)*kNR] as
// K rows of kNR floats, contiguous, zero-padded past column N. B is read through element strides,
// B(k, n) = b[k*row_stride + n*col_stride], so a transposed operand (K^T) packs for free.
struct PackedB {
  int64_t k = 0, n = 0, panels = 0;
  // (panels, k, kNR). Allocated without zero-filling: pack_b writes every element (the padding of the
  // last panel included), so a call pays one pass over B, not two.
  std::unique_ptr<float[]> data;
};
// The micro-tile (register blocking): kMR rows x kNV vectors of accumulators. The tile does not
// change any sum (each C element still adds its k products in order), only the speed; ATTN_GEMM_MR /
// ATTN_GEMM_NV override it for scripts/bench-gemm-tiles.mjs, which measures the choices.
#ifndef ATTN_GEMM_NV
#define ATTN_GEMM_NV 2
#endif
#ifndef ATTN_GEMM_MR
#define ATTN_GEMM_MR 4
#endif
constexpr int kNV = ATTN_GEMM_NV;            // vectors per micro-tile row
constexpr int64_t kNR = kNV * simd::kLanes;  // columns per micro-tile
constexpr int64_t kMR = ATTN_GEMM_MR;        // rows per micro-tile (at most 6: see gemm_packed)

PackedB pack_b(const float* b, int64_t k, int64_t n, int64_t row_stride, int64_t col_stride);
// A whole row-major matrix W (K, N), packed as the right-hand operand.
PackedB pack_matrix(const Matrix& w);

// C[0:m, 0:n] (=|+=) A[0:m, 0:k] @ B[0:k, 0:n], with B packed (n <= b.n, k <= b.k: a prefix).
void gemm_packed(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const PackedB& b,
                 float* c, int64_t ldc, bool accumulate);

// y[0:n] (=|+=) x[0:k] @ B[0:k, 0:n]: one row (decoding), the matrix-vector product. Streams the
// packed panels once, kGemvPanels at a time (kGemvPanels * kNV accumulators, one broadcast of x[k]
// per kGemvPanels * kNR columns), so it runs at memory speed; gemm_packed takes it when m == 1.
constexpr int kGemvPanels = 4;
void gemv_packed(int64_t n, int64_t k, const float* x, const PackedB& b, float* y, bool accumulate);

// Y (M, N) = X (M, K) @ W (K, N).
Matrix matmul(const Matrix& x, const Matrix& w);
Matrix matmul(const Matrix& x, const PackedB& w);

// row[0:len] <- softmax(scale * row[0:len]) and row[len:total] <- 0.
void softmax_row(float* row, int64_t len, int64_t total, float scale);

// exp with a Cephes-style polynomial (max rel. error ~2e-7 on [-87, 88]): the scalar form, and the
// vector form softmax_row and GELU use; a lane of the vector form equals the scalar form bit for bit.
float exp_approx(float x);
simd::vf exp_approx(simd::vf x);

}  // namespace attn
