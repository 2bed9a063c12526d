// session.hpp — incremental decoding with a KV cache, for every variant.
//
//   MHA / MQA / GQA cache   k, v: (maxLen, G*dh) each          bytes = 2 * G * dh * length * 4
//   MLA caches              [c | kr]: (maxLen, r + dr)         bytes = (r + dr) * length * 4
// and decodes in the absorbed form (forward.hpp), never materialising K or V for cached tokens.
// Appending a sequence token by token, or in chunks, equals the causal forward over all of it.
#pragma once

#include <cstdint>
#include <optional>

#include "attn/forward.hpp"
#include "attn/kernels.hpp"
#include "attn/spec.hpp"
#include "attn/weights.hpp"

namespace attn {

class Session {
 public:
  // `s` from resolve(raw, Need::Session) (s.max_len set); weights match weight_slots(s).
  Session(const Shape& s, const Weights& w);

  // x: (k, D), k >= 1 new tokens. Returns their outputs (k, D), and weights (H, k, length) if asked.
  ForwardResult append(const Matrix& x);

  void reset() { length_ = 0; }
  void truncate(int64_t new_length);   // keep the first new_length tokens (0 <= new_length <= length)
  int64_t length() const { return length_; }
  int64_t max_len() const { return shape_.max_len; }
  double cache_bytes() const;          // at float32, tokens held now
  const Shape& shape() const { return shape_; }

  // Benchmarks only: fill the cache with `tokens` seeded random entries, as if they were appended.
  void fill_for_benchmark(int64_t tokens, uint64_t seed);

 private:
  int64_t row_width() const;           // floats per token per cache tensor
  Shape shape_;
  int64_t length_ = 0;
  // MHA / MQA / GQA
  PackedB wq_, wk_, wv_, wo_;
  Matrix k_cache_, v_cache_;           // (maxLen, G*dh)
  // MLA (absorbed)
  PackedB mla_q_, mla_ckr_, mla_o_;
  Matrix ckr_cache_;                   // (maxLen, r + dr)
};

}  // namespace attn
