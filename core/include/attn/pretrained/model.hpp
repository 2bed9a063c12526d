// model.hpp — a decoder-only checkpoint in memory: its tensors as stored (weights16.hpp), the views of
// every layer (decoder_layer.hpp), the embeddings and the LM head.
//
//   x = embed[ids] (+ wpe[positions], gpt2 / gpt_bigcode)          (N, D)
//   x = decoder_layer(x) for every layer
//   logits = norm(x) head^T, head = lm_head or the embedding (tied)  (N, V)
// forward() runs one sequence (MLA in its naive form); Session (session.hpp) decodes with a KV cache.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attn/cost.hpp"
#include "attn/pretrained/config.hpp"
#include "attn/pretrained/decoder_layer.hpp"
#include "attn/pretrained/weight_memory.hpp"
#include "attn/pretrained/weights16.hpp"
#include "attn/tensor.hpp"

namespace attn::pretrained {

// A tensor's bytes as the file stores them, row-major.
struct StoredTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::unique_ptr<uint8_t[]> bytes;
  int64_t size = 0;  // bytes
};
// By name, without the file's prefix ("h.0.attn.c_attn.weight", "layers.0.mlp.up_proj.weight", "lm_head.weight").
using TensorStore = std::map<std::string, StoredTensor>;

struct ModelOutput {
  Matrix logits;                    // (N, V)
  std::vector<Tensor3> attentions;  // per layer (H, N, S) when asked
};

class PretrainedModel {
 public:
  PretrainedModel(ModelConfig config, TensorStore tensors);

  const ModelConfig& config() const { return config_; }
  double params() const { return params_; }            // elements of every tensor held
  double weight_bytes() const { return weight_bytes_; }
  // Bytes a token adds to the KV cache of all layers, at the checkpoint's dtype (that of the K/V projections).
  double kv_bytes_per_token() const;

  // ids: N token ids, positions 0 .. N-1 (checked by check_ids). Causal.
  ModelOutput forward(const std::vector<int32_t>& ids, bool attentions) const;
  // The same pass up to `layer` (ids checked as forward's, layer by check_layer), keeping that layer's attention stage by
  // stage (layer_stages.hpp): the very tensors forward computes there.
  StageRecord layer_stages(const std::vector<int32_t>& ids, int64_t layer) const;
  // Refuses a layer that is not an integer in [0, n_layers); returns it.
  int64_t check_layer(double layer) const;
  // Float32 bytes layer_stages keeps for `n` tokens (besides the pass's own working memory).
  double stages_bytes(int64_t n) const;

  // Refuses ids that are not a vocabulary index, or more positions than a learned position table has.
  void check_ids(const std::vector<int32_t>& ids, int64_t pos0) const;
  // Token ids given as numbers (from JS): each an integer of the vocabulary, at most kMaxDim of them.
  std::vector<int32_t> ids_from_numbers(const std::vector<double>& numbers) const;
  // Float32 working memory of one call over `n` new rows after `past` cached ones (maps when asked).
  double work_bytes(int64_t n, int64_t past, bool attentions) const;
  // The estimated work of one call over `n` new rows after `past` cached ones (cost.hpp's terms: the
  // projections, the attention, the MLP, the LM head, the copies out). `session`: an append (MLA in its
  // absorbed form) rather than forward (MLA naive). check_sync_time refuses it above the cap.
  Cost call_cost(int64_t n, int64_t past, bool attentions, bool session) const;

  // The steps Session shares.
  Matrix embed(const std::vector<int32_t>& ids, int64_t pos0) const;   // (N, D)
  Matrix logits(const Matrix& x) const;                                 // final norm and head: (N, V)
  const std::vector<LayerWeights>& layers() const { return layers_; }
  // Refuse a result that overflowed float32 although the weights are finite (model_overflow.cpp): a
  // RangeError naming the layer and, as error.field, its tensor of the largest magnitude.
  void check_layer_output(const Matrix& x, int64_t layer) const;  // x: (N, D) after `layer`
  void check_logits(const Matrix& logits) const;                   // (N, V): names the LM head

 private:
  ModelConfig config_;
  TensorStore tensors_;
  std::vector<LayerWeights> layers_;
  WeightView embed_, positions_, head_;
  Norm final_norm_;
  double params_ = 0, weight_bytes_ = 0;
  WeightReservation held_;  // weight_bytes_ counted in held_weight_bytes() while the model lives

  void refuse_overflow_of(const std::string& what, const Matrix& result, const std::vector<std::string>& tensor_names) const;
};

}  // namespace attn::pretrained
