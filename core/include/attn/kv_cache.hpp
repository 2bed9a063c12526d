// kv_cache.hpp — incremental decoding with a KV cache, for every variant: the Session behind the
// JS createSession().
//
//   MHA / MQA / GQA cache   k, v: (maxLen, G*dh) each          2 * G * dh floats a token
//   MLA caches              [c | kr]: (maxLen, r + dr)         r + dr floats a token
// (the per-token sizes come from accounting.hpp, like every other cache size in the project).
// MLA decodes in the absorbed form (latent_block.hpp), never materialising K or V for cached tokens.
// An append runs the block's own steps (project the new rows, attend, project out) with the new
// rows' keys and values written straight into the cache, so appending a sequence token by token,
// or in chunks, equals the causal forward() over all of it.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/block_steps.hpp"
#include "attn/grouped_block.hpp"
#include "attn/latent_block.hpp"
#include "attn/layer_cache.hpp"
#include "attn/shape.hpp"
#include "attn/weights.hpp"

namespace attn {

class Session {
 public:
  // `s` from resolve(raw, Need::Session) (s.max_len set); weights match weight_slots(s).
  Session(const Shape& s, const Weights& w);

  // x: (k, D), k >= 1 new tokens. Returns their outputs (k, D), and weights (H, k, length) if asked.
  ForwardResult append(const Matrix& x);
  // What append of k tokens checks first (the binding calls it before copying x): the room left,
  // the working memory and the time (cost.hpp); attn::Error (field "x") when refused.
  void check_append(int64_t k) const;

  void reset() { length_ = 0; }
  void truncate(int64_t new_length);   // keep the first new_length tokens (0 <= new_length <= length)
  int64_t length() const { return length_; }
  int64_t max_len() const { return shape_.max_len; }
  double cache_bytes() const;          // at float32, tokens held now
  const Shape& shape() const { return shape_; }

  // Replaces the cache with given rows, as if their tokens had been appended: MHA/MQA/GQA
  // {k, v}, each (tokens, G*dh) after RoPE; MLA {[c | kr]} (tokens, r + dr). For benchmarks
  // (bench/workloads.hpp) and for restoring a saved cache.
  void set_cache(const std::vector<Matrix>& tensors);
  // The number of tensors set_cache takes (2, or 1 for MLA) and their width.
  int64_t cache_tensors() const { return shape_.variant == Variant::MLA ? 1 : 2; }
  int64_t row_width() const;           // floats per token per cache tensor

 private:
  Shape shape_;
  int64_t length_ = 0;
  GroupedProjections grouped_;         // MHA / MQA / GQA
  AbsorbedProjections latent_;         // MLA (absorbed)
  LayerCache cache_;                   // k, v (maxLen, G*dh) or MLA's [c | kr] (maxLen, r + dr)
};

}  // namespace attn
