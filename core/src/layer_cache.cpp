// layer_cache.cpp — see layer_cache.hpp.
#include "attn/layer_cache.hpp"

namespace attn {

int64_t cache_row_width(const Shape& s) { return s.variant == Variant::MLA ? s.r + s.dr : s.g * s.dh; }

LayerCache make_layer_cache(const Shape& s, int64_t max_len) {
  LayerCache cache;
  if (s.variant == Variant::MLA) {
    cache.ckr = zeros(max_len, cache_row_width(s));
  } else {
    cache.k = zeros(max_len, cache_row_width(s));
    cache.v = zeros(max_len, cache_row_width(s));
  }
  return cache;
}

}  // namespace attn
