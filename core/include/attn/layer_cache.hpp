// layer_cache.hpp — one attention layer's KV cache, for every variant: what the lesson's Session
// (kv_cache.hpp) and a checkpoint's session (pretrained/session.hpp) keep per layer, sized from the
// layer's Shape.
//
//   MHA / MQA / GQA   k, v: (maxLen, G*dh) each, after RoPE     2 * G * dh floats a token
//   MLA               ckr:  (maxLen, r + dr), per row [c | kr]   r + dr floats a token (absorbed form)
// The floats per token are accounting.hpp's kv_cache_floats_per_token(s).
#pragma once

#include <cstdint>

#include "attn/shape.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct LayerCache {
  Matrix k, v;  // MHA / MQA / GQA
  Matrix ckr;   // MLA
};

// A zeroed cache of max_len rows for a layer of shape s.
LayerCache make_layer_cache(const Shape& s, int64_t max_len);

// Floats per row of each of the cache's tensors: G*dh (k and v), or r + dr (MLA's one).
int64_t cache_row_width(const Shape& s);

}  // namespace attn
