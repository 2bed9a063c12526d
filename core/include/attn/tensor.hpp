// tensor.hpp — the tensor types of the core.
//
// Everything is float32, row-major, heads first. Shape legend used in every header:
//   N  queries (new tokens)      S  keys (cache length)     D  d_model
//   H  n_heads                   G  n_kv_heads               dh d_head
//   r  MLA latent rank           dr MLA decoupled RoPE width
#pragma once

#include <cstddef>
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

}  // namespace attn
