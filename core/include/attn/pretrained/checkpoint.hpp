// checkpoint.hpp — from a config and the safetensors indexes to a model in memory, in three steps:
//
//   1. CheckpointLoader(config, indexes): reads the config, lists the tensors the architecture needs
//      with their shapes (needed_tensors), finds each in the files (with or without the `transformer.`
//      / `model.` prefix), checks dtype, shape and bounds, and the total size against
//      kMaxCheckpointBytes (the weights of the models still alive included: weight_memory.hpp),
//      before allocating anything; then allocates each tensor's storage.
//   2. The caller copies each tensor's bytes (copies()[i]: a file and a byte range) to destination(i):
//      tensor by tensor, so that a file never has to be held whole (the JS API reads Blobs by slices).
//   3. finish(): every value finite, then the model (model.hpp).
// Tensors the architecture does not read (e.g. GPT-2's attn.bias mask buffers) are ignored, whatever
// their dtype. Errors name the tensor ("weights.<name>") or the config key ("config.<key>").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "attn/pretrained/config.hpp"
#include "attn/pretrained/model.hpp"
#include "attn/pretrained/safetensors.hpp"
#include "attn/pretrained/weight_memory.hpp"

namespace attn::pretrained {

// The weights a model may hold: 3 GiB, so that a 1B-parameter BF16 checkpoint (about 2.5 GB) fits in
// the 4 GiB of a wasm32 heap beside its working memory.
constexpr double kMaxCheckpointBytes = 3.0 * 1024 * 1024 * 1024;
// The longest config.json read (bytes of JSON), checked before it is parsed: real ones have a few KB.
constexpr double kMaxConfigBytes = 1024 * 1024;

struct TensorNeed {
  std::string name;             // without prefix
  std::vector<int64_t> shape;
  bool prefixed = true;         // false: lm_head.weight, saved beside the base model's prefix
};
std::vector<TensorNeed> needed_tensors(const ModelConfig& c);

class CheckpointLoader {
 public:
  CheckpointLoader(const nlohmann::json& config, const std::vector<SafetensorsIndex>& files);

  struct Copy {
    std::string name;           // as saved in the file (the prefix included)
    int file = 0;
    int64_t begin = 0, end = 0; // bytes of the file
  };
  const std::vector<Copy>& copies() const { return copies_; }
  uint8_t* destination(std::size_t i);
  const ModelConfig& config() const { return config_; }
  double bytes() const { return bytes_; }

  // Checks every tensor's values (finite) and builds the model; the loader is empty afterwards.
  std::unique_ptr<PretrainedModel> finish();

 private:
  ModelConfig config_;
  std::vector<Copy> copies_;
  std::vector<std::string> keys_;  // copies_[i] fills tensors_[keys_[i]]
  TensorStore tensors_;
  double bytes_ = 0;
  WeightReservation reservation_;  // the tensors allocated, until finish() hands them to the model
};

}  // namespace attn::pretrained
