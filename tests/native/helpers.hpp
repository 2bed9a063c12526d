// helpers.hpp — small shared pieces of the native tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/forward.hpp"
#include "attn/spec.hpp"
#include "attn/weights.hpp"

namespace testing_helpers {

// max|got - want| / max|want|: the relative error the golden tests bound by 1e-4.
template <class A, class B>
double rel_error(const A& got, const B& want) {
  double diff = 0, scale = 0;
  auto g = got.begin();
  for (auto w = want.begin(); w != want.end(); ++w, ++g) {
    diff = std::max(diff, std::fabs(double(*g) - double(*w)));
    scale = std::max(scale, std::fabs(double(*w)));
  }
  return scale > 0 ? diff / scale : diff;
}

inline attn::Matrix random_matrix(int64_t rows, int64_t cols, uint64_t seed) {
  attn::Matrix m = attn::uninitialised(rows, cols);
  attn::fill_uniform(m, seed, 0, 1.0f);
  return m;
}

struct Geometry {
  const char* variant;
  int64_t n, d, h, g, dh, r, dr;
  bool rope, causal;
};

// Every variant at odd and even sizes, with and without RoPE, causal or not (N = seqLen of a forward
// pass): the invariant tests run each, and the layer tests run each one through a Layer.
inline const Geometry kVariantGeometries[] = {
    {"mha", 1, 8, 2, 0, 0, 0, 0, false, true},     {"mha", 12, 24, 4, 0, 0, 0, 0, false, false},
    {"mha", 20, 16, 4, 0, 6, 0, 0, true, true},    {"mqa", 9, 16, 4, 0, 0, 0, 0, false, true},
    {"mqa", 35, 32, 8, 1, 5, 0, 0, false, false},  {"gqa", 17, 24, 6, 2, 0, 0, 0, true, true},
    {"gqa", 66, 64, 8, 4, 0, 0, 0, false, true},   {"gqa", 5, 12, 6, 3, 4, 0, 0, true, false},
    {"mla", 7, 16, 4, 0, 4, 6, 0, false, true},    {"mla", 19, 24, 3, 0, 8, 10, 4, false, true},
    {"mla", 40, 32, 4, 0, 8, 12, 4, false, false}, {"mla", 1, 12, 2, 0, 6, 5, 2, false, false},
};

inline attn::RawSpec raw_spec(const Geometry& c) {
  attn::RawSpec raw;
  raw.variant = std::string(c.variant);
  raw.seq_len = double(c.n);
  raw.d_model = double(c.d);
  raw.n_heads = double(c.h);
  if (c.g) raw.n_kv_heads = double(c.g);
  if (c.dh) raw.d_head = double(c.dh);
  if (c.r) raw.latent_rank = double(c.r);
  if (c.dr) raw.rope_dim = double(c.dr);
  raw.rope.enabled = c.rope;
  raw.causal = c.causal;
  return raw;
}

}  // namespace testing_helpers
