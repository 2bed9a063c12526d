// tensor.hpp — the tensor types of the core.
//
// Everything is float32, row-major, heads first. Shape legend used in every header:
//   N  queries (new tokens)      S  keys (cache length)     D  d_model
//   H  n_heads                   G  n_kv_heads               dh d_head
//   r  MLA latent rank           dr MLA decoupled RoPE width
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <xtensor/xtensor.hpp>

namespace attn {

using Matrix = xt::xtensor<float, 2>;   // (rows, cols) row-major
using Tensor3 = xt::xtensor<float, 3>;  // e.g. attention weights (H, N, S)

// A (rows, cols) matrix of zeros.
inline Matrix zeros(std::size_t rows, std::size_t cols) {
  Matrix m = Matrix::from_shape({rows, cols});
  m.fill(0.0f);
  return m;
}

// A (rows, cols) matrix whose every element the caller overwrites before reading.
inline Matrix uninitialised(std::size_t rows, std::size_t cols) {
  return Matrix::from_shape({rows, cols});
}

// For each of `rows` rows: dst[i, dst_col : dst_col + width] = src[i, src_col : src_col + width]
// (or += with add), rows of stride lds and ldd: splitting heads out of a matrix and back.
inline void copy_columns(const float* src, int64_t lds, int64_t src_col, float* dst, int64_t ldd, int64_t dst_col,
                         int64_t rows, int64_t width, bool add = false) {
  for (int64_t i = 0; i < rows; ++i) {
    const float* a = src + i * lds + src_col;
    float* b = dst + i * ldd + dst_col;
    if (add) {
      for (int64_t j = 0; j < width; ++j) b[j] += a[j];
    } else {
      std::copy_n(a, width, b);
    }
  }
}
// The same for whole matrices (every row of src).
inline void copy_columns(const Matrix& src, int64_t src_col, Matrix& dst, int64_t dst_col, int64_t width) {
  copy_columns(src.data(), int64_t(src.shape(1)), src_col, dst.data(), int64_t(dst.shape(1)), dst_col,
               int64_t(src.shape(0)), width);
}

}  // namespace attn
