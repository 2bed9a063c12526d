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

// The projections a cache decodes with: the grouped block's (MHA / MQA / GQA), or the latent block's
// absorbed form (MLA).
struct DecodeProjections {
  GroupedProjections grouped;
  AbsorbedProjections latent;
};
DecodeProjections pack_decode(const Shape& s, const Weights& w);

// One append's steps, which a Session and the decode probe (decode_probe.hpp) share: `rows` new rows
// x (rows, D) at positions pos0 .. pos0 + rows - 1; their keys and values (MLA: [c | kr]) are written
// to the cache's rows pos0 .., and their queries attend over its first pos0 + rows rows (causally).
// Returns their outputs (rows, D); maps: null, or (H, rows, pos0 + rows) for the weights.
Matrix append_rows(const Shape& s, const DecodeProjections& p, LayerCache& cache, const float* x, int64_t rows,
                   int64_t pos0, float* maps);

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
  DecodeProjections proj_;
  LayerCache cache_;                   // k, v (maxLen, G*dh) or MLA's [c | kr] (maxLen, r + dr)
};

}  // namespace attn
