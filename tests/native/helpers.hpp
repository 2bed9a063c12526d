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
