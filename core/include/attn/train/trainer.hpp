// train/trainer.hpp — a seeded training run: spec -> model + data; step, evaluate, inspect, export.
// The class's members live in three files, one concept each: trainer.cpp (spec checks, the training
// loop, evaluation), probes.cpp (head scores, attention maps), model_file.cpp (export / load).
//
// Mirrors attn.createTrainer(spec) of docs/api.md ("Training"). Every field is kept as given
// (optionals, numbers as doubles) and checked here; a bad spec throws attn::Error naming the field
// and its value. The attention geometry is checked by attn::resolve (spec.hpp), causal always.
// Beyond the JS table: totalSteps (cosine decay horizon, default 2000), warmupSteps (default
// min(100, totalSteps / 10)), weightDecay (default 0.01), activation ('gelu' | 'relu', default gelu).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/spec.hpp"
#include "attn/train/adam.hpp"
#include "attn/train/model.hpp"
#include "attn/train/probes.hpp"
#include "attn/train/tasks.hpp"

namespace attn::train {

struct TrainerSpec {
  std::optional<std::string> task;          // 'copy' | 'induction' | 'chars'   (required)
  std::optional<std::string> text;          // 'chars' only (required there)
  // model: variant, dModel, nHeads, nKvHeads?, dHead?, latentRank?, ropeDim?, rope? (seqLen/causal ignored)
  RawSpec model;
  std::optional<double> n_layers;           // 1..4, default 1
  std::optional<bool> mlp, layer_norm, tied_embeddings;  // defaults false, true, false
  std::optional<std::string> activation;    // 'gelu' (default) | 'relu'
  std::optional<double> seq_len, batch_size, learning_rate, seed, vocab_size;  // 32, 16, 3e-3, 0, task's
  std::optional<double> total_steps, warmup_steps, weight_decay;
};

// The fields of a trainer spec by their JS names, besides the model's geometry (spec_number_fields
// with geometry = true, spec.hpp) and the strings task, text, model.variant, model.activation: the
// one table that the JS reader (wasm/bindings_train.cpp), the model file's reader and its export
// (model_file.cpp) walk. `in_model`: JS gives it inside spec.model.
struct TrainerNumberField {
  const char* name;
  std::optional<double> TrainerSpec::*member;
  bool in_model;
};
const std::vector<TrainerNumberField>& trainer_number_fields();
// Flags, all inside spec.model.
struct TrainerFlagField {
  const char* name;
  std::optional<bool> TrainerSpec::*member;
};
const std::vector<TrainerFlagField>& trainer_flag_fields();

// The largest model file load_model reads (the trainer's working-memory cap).
constexpr double kMaxModelBytes = kMaxWorkBytes;
// The largest step count a model file may carry (far above any run; keeps step + n exact).
constexpr double kMaxFileStep = 1e12;

struct StepResult { int64_t step; double loss; };
struct EvalResult { double loss, bits_per_token, accuracy; };

class Trainer {
 public:
  // file_bytes: when the spec comes from a model file, the bytes left in it for the tensors; a spec
  // whose parameters (and moments) cannot fit in them is refused before the model is allocated.
  explicit Trainer(const TrainerSpec& spec, double file_bytes = -1);

  // n optimiser steps; loss = mean training cross-entropy of the last step (nats per token).
  StepResult step(int64_t n = 1);
  // On the fixed held-out set (256 sequences; chars: up to 256 evenly spaced validation windows).
  EvalResult evaluate();
  // probes.cpp. Per layer and head, mean attention weight (probes.hpp): previousToken on key i-1,
  // diagonal on key i, firstToken on key 0 (queries i >= 1, on held-out task data); induction: from
  // the second occurrence of a token to the key right after its first one (64 induction-style
  // sequences). Refuses maps that overflowed float32 (as attention() does).
  std::vector<HeadScore> head_scores();
  // Attention weights for one sequence of 1..seqLen tokens: (layers, H, N, N).
  xt::xtensor<float, 4> attention(const std::vector<int32_t>& tokens);

  // model_file.cpp. The spec (with the text for 'chars'), the step count, the data stream's state,
  // the weights and AdamW's moments: a loaded trainer evaluates and continues training exactly like
  // the original. export_model writes a .safetensors file (the config in "__metadata__", a CRC-32;
  // docs/api.md, "The model file"); load_model reads it and the older ATTNTRN2 / ATTNTRN1 files. It
  // checks the checksum, every header field's type and range, every tensor for finite values, and
  // throws attn::Error (field "bytes") naming what is wrong, before allocating anything the file
  // cannot hold.
  std::vector<uint8_t> export_model() const;
  static std::unique_ptr<Trainer> load_model(const std::vector<uint8_t>& bytes);
  // Checks what can be checked before the bytes are copied: total size <= kMaxModelBytes and the
  // first 8 bytes (`prefix`, or fewer when the file is shorter): a magic ATTNTRN2 / ATTNTRN1, or a
  // safetensors header length that fits the file and the header cap.
  static void check_model_prefix(const std::vector<uint8_t>& prefix, double total_bytes);

  Model& model() { return *model_; }
  const Task& task() const { return *task_; }
  int64_t steps() const { return adam_->steps(); }
  int64_t batch_size() const { return batch_size_; }
  const TrainerSpec& spec() const { return spec_; }

 private:
  // Throws attn::Error when the loss or a gradient is not finite (float32 overflow), naming the
  // largest weight; called before AdamW updates the weights.
  void refuse_non_finite(double loss);
  // "the largest is |name| = value", over every parameter, for overflow messages.
  std::string largest_weight();
  // Masked loss and accuracy of the model on a batch, in chunks of at most batchSize sequences.
  EvalResult measure(const Batch& b);
  // Throws when layer maps of the last forward hold a non-finite weight (float32 overflow).
  void refuse_non_finite_maps();
  // model_file.cpp: the two readers behind load_model.
  static std::unique_ptr<Trainer> load_safetensors(const std::vector<uint8_t>& bytes);
  static std::unique_ptr<Trainer> load_attntrn(const std::vector<uint8_t>& bytes);

  TrainerSpec spec_;
  ModelConfig cfg_;
  int64_t batch_size_ = 0;
  uint64_t seed_ = 0;
  std::unique_ptr<Task> task_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<AdamW> adam_;
  Rng rng_;
  Batch eval_;
};

}  // namespace attn::train
