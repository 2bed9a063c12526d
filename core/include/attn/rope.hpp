// rope.hpp — rotary position embedding, rotate-half convention (GPT-NeoX, Hugging Face Llama).
//
// For a vector x of even width w at position p, for i < w/2, with theta = p * base^(-2i/w):
//   x'[i]       = x[i] cos(theta) - x[i + w/2] sin(theta)
//   x'[i + w/2] = x[i + w/2] cos(theta) + x[i] sin(theta)
// Angles are computed in double precision, then rounded to float.
#pragma once

#include <cstdint>

namespace attn {

// Rotates, in place, n_segments segments of width w in each of `rows` rows of a row-major matrix:
// segment s of row i starts at m[i*ld + col0 + s*segment_stride] and sits at position pos0 + i.
void apply_rope(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments,
                int64_t segment_stride, int64_t w, int64_t pos0, double base);

// apply_rope over `batch` sequences of n rows each: row i of every sequence sits at position pos0 + i.
void apply_rope_batched(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t n_segments,
                        int64_t segment_stride, int64_t w, int64_t pos0, double base);

// The transpose of apply_rope_batched at pos0 = 0 (its backward): a rotation's transpose is the
// rotation by -theta, i.e. position -i for row i.
void apply_rope_transpose_batched(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t n_segments,
                                  int64_t segment_stride, int64_t w, double base);

}  // namespace attn
