// session.hpp — decoding a checkpoint with a KV cache: every layer keeps the K and V rows of its G
// heads (maxLen, G*dh each), or MLA's latent and RoPE key [c | k_pe] (maxLen, r + rope), and an append
// runs only the new tokens through the layers. Appending ids one by one, or in chunks, gives the rows
// of the model's forward() logits (MLA: the absorbed form against forward's naive one).
// The cache is float32 and holds every position up to maxLen (with a sliding window too: the
// attention then reads only the window's rows).
#pragma once

#include <cstdint>
#include <vector>

#include "attn/pretrained/decoder_layer.hpp"
#include "attn/pretrained/model.hpp"

namespace attn::pretrained {

class Session {
 public:
  // max_len in [1, kMaxDim] (and at most n_positions with learned positions); the model outlives it.
  Session(const PretrainedModel& model, int64_t max_len);

  // ids: k >= 1 new tokens (checked against the room left and the vocabulary). Logits (k, V) and,
  // when asked, each layer's maps (H, k, length after the append).
  ModelOutput append(const std::vector<int32_t>& ids, bool attentions);

  int64_t length() const { return length_; }
  int64_t max_len() const { return max_len_; }
  double cache_bytes() const;   // float32 bytes the cache holds now (length tokens)
  void reset() { length_ = 0; }

 private:
  const PretrainedModel& model_;
  int64_t max_len_ = 0, length_ = 0;
  std::vector<LayerCache> caches_;
};

// Refuses a session length outside [1, kMaxDim], past learned positions, or whose cache would take
// more than kMaxWorkBytes.
void check_session_length(const ModelConfig& c, double max_len);

}  // namespace attn::pretrained
