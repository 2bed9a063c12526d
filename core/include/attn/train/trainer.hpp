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

#include "attn/overflow.hpp"
#include "attn/spec.hpp"
#include "attn/train/adam.hpp"
#include "attn/train/costs.hpp"
#include "attn/train/model_file.hpp"
#include "attn/train/model.hpp"
#include "attn/train/probes.hpp"
#include "attn/train/tasks.hpp"

namespace attn::train {

struct TrainerSpec {
  std::optional<std::string> task;          // 'copy' | 'induction' | 'chars' | 'pairs' | 'tokens' (required)
  std::optional<std::string> text;          // 'chars' only (required there)
  // 'tokens' only (required there, with vocabSize): the corpus as token ids, each in [0, vocabSize);
  // at most kMaxTokens, at least 10 (seqLen + 2) (the last 10 % holds a window of seqLen + 1).
  std::optional<std::vector<int32_t>> tokens;
  // model: variant, dModel, nHeads, nKvHeads?, dHead?, latentRank?, ropeDim?, rope? (seqLen/causal ignored)
  RawSpec model;
  std::optional<double> n_layers;           // 1..4, default 1
  std::optional<bool> mlp, layer_norm, tied_embeddings;  // defaults false, true, false
  std::optional<std::string> activation;    // 'gelu' (default) | 'relu'
  // 'gpt' (default) | 'llama' (model.hpp: RMSNorm, RoPE, SwiGLU, no biases, no learned positions)
  // | 'deepseek' (model.hpp: the Llama block with DeepSeek-V2's MLA; variant 'mla': latentRank is
  // kv_lora_rank, dHead qk_nope_head_dim, ropeDim qk_rope_head_dim)
  std::optional<std::string> block;
  std::optional<double> mlp_width;          // 'llama', 'deepseek': the SwiGLU width F (default llama_mlp_width)
  std::optional<double> v_head_dim;         // 'deepseek' only: v_head_dim (default dHead)
  std::optional<double> q_lora_rank;        // 'deepseek' only: q_lora_rank (default none: q = x wq)
  std::optional<double> seq_len, batch_size, learning_rate, seed, vocab_size;  // 32, 16, 3e-3, 0, task's
  std::optional<double> total_steps, warmup_steps, weight_decay;
  // 'chars', 'tokens' only: the fraction of training windows (0..1, default 0) in which a stretch of the
  // window's own text is written again later in it (tasks.hpp, Task::set_repeat_fraction): a copying
  // curriculum, which makes induction heads form in far fewer steps. Held-out windows are never changed.
  std::optional<double> repeat_fraction;
  // 'chars', 'tokens' only: the fraction of training windows (0..1, default 0; with repeat_fraction at
  // most 1 in all) in which a stretch of random ordinary tokens (ids drawn uniformly from those the
  // training text holds) is written, then written again later in the window
  // (Task::set_repeat_random_fraction): the only way to predict its second copy is to copy the first,
  // as an induction head does. Held-out windows are never changed.
  std::optional<double> repeat_random_fraction;
  // 'induction' only: the shortest repeated segment L (an integer from 2 to the longest, Lmax =
  // min((N+1)/2, vocabSize-2); default max(2, Lmax/2)): short segments leave a model no other way to
  // copy than the token right after the earlier copy (Task::set_min_segment).
  std::optional<double> min_segment;
  // Lifts the cap on the time of each synchronous call (kMaxSyncSeconds, cost.hpp): at creation,
  // step(n), evaluate, headScores, attention, exportModel. JS allowLongWork; not saved in a file.
  std::optional<bool> allow_long_work;
};

// The fields of a trainer spec by their JS names, besides the model's geometry (spec_number_fields
// with geometry = true, spec.hpp) and the strings task, text, model.variant, model.activation: the
// one table that the JS reader (wasm/bindings_train.cpp), the model file's reader and its export
// (model_file.cpp) walk, with the ranges the Trainer checks (docs/api.md states the same;
// tests/node/field-ranges.test.mjs compares them). `in_model`: JS gives it inside spec.model.
// `integer`: an integer in [lo, hi], else a number in [lo, hi] (lo itself refused when lo_open).
// vocabSize's lo is the copy task's (induction needs 4); warmupSteps is at most totalSteps too.
struct TrainerNumberField {
  const char* name;
  std::optional<double> TrainerSpec::*member;
  bool in_model;
  bool integer;
  double lo, hi;
  bool lo_open = false;
};
const std::vector<TrainerNumberField>& trainer_number_fields();
const TrainerNumberField& trainer_field(const char* name);
// Flags, all inside spec.model.
struct TrainerFlagField {
  const char* name;
  std::optional<bool> TrainerSpec::*member;
};
const std::vector<TrainerFlagField>& trainer_flag_fields();

// Block 'llama''s default MLP width: 8 dModel / 3 (the parameters of a 4 dModel GELU MLP in three
// matrices), rounded up to a multiple of 8.
int64_t llama_mlp_width(int64_t d_model);
// Block 'llama''s RMSNorm eps (written as rms_norm_eps in its Hugging Face config).
constexpr double kLlamaNormEps = 1e-5;

// The most ids task 'tokens' takes.
constexpr double kMaxTokens = 16000000;
// The largest alphabet of task 'pairs' (its vocabulary is the alphabet squared: 65,536).
constexpr int64_t kMaxPairAlphabet = 256;
// The largest model file load_model reads (the trainer's working-memory cap).
constexpr double kMaxModelBytes = kMaxWorkBytes;
// The heap that exporting a trainer and loading its export while it lives may take: the trainer,
// the file and a second trainer (train/costs.hpp). The training module's heap grows to 2 GiB.
constexpr double kMaxTrainingHeapBytes = 1.5 * 1024.0 * 1024.0 * 1024.0;
// The largest step count a model file may carry (far above any run; keeps step + n exact).
constexpr double kMaxFileStep = 1e12;

struct StepResult { int64_t step; double loss; };

// What export_model writes. The default: everything a trainer needs to continue exactly (float32
// weights, AdamW's moments, a 'chars' text in full). The bundled models' form: the weights only
// (no moments: a loaded copy evaluates and draws maps; trained further, its moments start at zero),
// in float16 (rounded to nearest even), and a 'chars' text as its size and CRC-32 only (textBytes,
// textCrc32: loadModel is given the text, and checks it).
struct ExportOptions {
  bool weights_only = false;
  bool float16 = false;
  bool text_by_reference = false;
};
struct EvalResult { double loss, bits_per_token, accuracy; };

// One layer's attention of a trained model, as the inference core runs it: attn::forward(shape,
// *weights, x) gives the maps attention(tokens) returns for that layer (tests/native/test_train.cpp).
struct LayerView {
  Shape shape;             // the layer's attention over the N tokens: resolved, causal
  Matrix x;                // (N, D) what the layer's attention reads: LN1 of the residual stream (or it)
  const Weights* weights;  // the layer's projections; valid while the trainer lives and is not stepped
};

class Trainer {
 public:
  // file_bytes: when the spec comes from a model file, the bytes left in it for the tensors; a spec
  // whose parameters (and moments) cannot fit in them is refused before the model is allocated.
  // file_bytes_per_param: what each parameter takes there (12: float32 weight and two moments).
  explicit Trainer(const TrainerSpec& spec, double file_bytes = -1, double file_bytes_per_param = 12);

  // n optimiser steps; loss = mean training cross-entropy of the last step (nats per token). n is
  // at most max_steps_per_call() (else a RangeError, field "n").
  StepResult step(int64_t n = 1);
  // The most steps one step(n) runs: about kMaxSyncSeconds of work (cost.hpp), at least 1
  // (without the cap when the spec had allowLongWork).
  int64_t max_steps_per_call() const;
  // The estimates of this trainer's calls (train/costs.hpp).
  const TrainerCosts& costs() const { return costs_; }
  // On the fixed held-out set (256 sequences; chars: up to 256 evenly spaced validation windows).
  EvalResult evaluate();
  // probes.cpp. Per layer and head, mean attention weight (probes.hpp): previousToken on key i-1,
  // diagonal on key i, firstToken on key 0 (queries i >= 1, on held-out task data); induction: from
  // the second occurrence of a token to the key right after its first one (64 induction-style
  // sequences). Refuses maps that overflowed float32 (as attention() does).
  std::vector<HeadRoles> head_scores();
  // The sequences those scores read (zoo_train --probe writes them, so that tests re-measure a
  // shipped model through another forward): the held-out set of evaluate() and previous/diagonal/
  // first (its first 64 rows), and the induction probe (an empty Batch when the vocabulary is too small).
  const Batch& eval_set() const { return eval_; }
  Batch induction_probe() const;
  // Attention weights for one sequence of 1..seqLen tokens: (layers, H, N, N).
  xt::xtensor<float, 4> attention(const std::vector<int32_t>& tokens);
  // What attention() checks of its input's length (the binding calls it before copying the tokens).
  void check_attention_length(double n) const;
  // probes.cpp. Layer `layer` (0 to nLayers - 1, else a RangeError naming "layer") of a forward over
  // 1..seqLen tokens: the walkthrough and the decoding session of a trained model run the inference
  // core on it.
  LayerView layer(const std::vector<int32_t>& tokens, int64_t layer);
  // The model's probabilities for the token after the sequence: (V), the softmax of the last
  // position's logits.
  std::vector<float> next_token_probs(const std::vector<int32_t>& tokens);
  // Refuses a 'chars' text before it is copied: its UTF-16 length (each unit at least one byte of
  // UTF-8) above kMaxTextBytes. The byte count is checked again once it is UTF-8.
  static void check_text_length(double utf16_units);

  // model_file.cpp. The spec (with the text for 'chars'), the step count, the data stream's state,
  // the weights and AdamW's moments: a loaded trainer evaluates and continues training exactly like
  // the original. export_model writes a .safetensors file (the config in "__metadata__", a CRC-32
  // of the whole file; docs/api.md, "The model file"); load_model reads it, the version-3 files and
  // the older ATTNTRN2 / ATTNTRN1 files. It checks the size and the first bytes, then the header
  // (every field's type and range, the tensors' layout), builds the trainer only when the file can
  // hold its tensors (and the trainer's own caps admit it), reads the tensors straight into it, then
  // the checksum and every tensor for finite values; it throws attn::Error (field "bytes") naming
  // what is wrong. A file refused on its header is not read further.
  std::vector<uint8_t> export_model(const ExportOptions& options = {}) const;
  // allow_long_work: the loaded trainer's calls are not capped in time (as allowLongWork in a spec).
  // text: the 'chars' text of a file written with text_by_reference (its size and CRC-32 must match;
  // field "text" otherwise); refused for any other file. tokens: the ids of a task 'tokens' file (a
  // file keeps them by reference only: tokenCount and tokensCrc32, which must match; field "tokens"),
  // required for such a file and refused for any other.
  static std::unique_ptr<Trainer> load_model(const ModelSource& file, bool allow_long_work = false,
                                             const std::optional<std::string>& text = std::nullopt,
                                             const std::optional<std::vector<int32_t>>& tokens = std::nullopt);
  static std::unique_ptr<Trainer> load_model(const std::vector<uint8_t>& bytes, bool allow_long_work = false,
                                             const std::optional<std::string>& text = std::nullopt,
                                             const std::optional<std::vector<int32_t>>& tokens = std::nullopt);
  // What createTrainer checks of a 'tokens' array before it is copied: at most kMaxTokens ids.
  static void check_tokens_length(double count);
  // The CRC-32 of token ids as a model file records them (each id as 4 bytes, little-endian): 8 hex digits.
  static std::string tokens_crc32(const std::vector<int32_t>& tokens);
  // The first check: total size <= kMaxModelBytes and the first 8 bytes (`prefix`, or fewer when
  // the file is shorter): a magic ATTNTRN2 / ATTNTRN1, or a safetensors header length that fits the
  // file and the header cap.
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
  // Throws attn::Error when the AdamW update about to be applied would leave a weight or a moment
  // non-finite, naming the parameter; called before AdamW updates anything.
  void refuse_non_finite_update();
  // The parameters as the inputs of an overflow check (overflow.hpp).
  std::vector<Values> weights();
  // Masked loss and accuracy of the model on a batch, in chunks of at most batchSize sequences.
  EvalResult measure(const Batch& b);
  // Throws when layer maps of the last forward hold a non-finite weight (float32 overflow).
  void refuse_non_finite_maps();
  // The checks of attention(), layer() and next_token_probs(): 1..seqLen ids below vocabSize
  // (RangeError naming "tokens"); then one forward over them (no targets).
  void forward_tokens(const std::vector<int32_t>& tokens);
  // model_file.cpp: the two readers behind load_model.
  static std::unique_ptr<Trainer> load_safetensors(const ModelSource& file, bool allow_long_work,
                                                   const std::optional<std::string>& text,
                                                   const std::optional<std::vector<int32_t>>& tokens);
  static std::unique_ptr<Trainer> load_attntrn(const ModelSource& file, bool allow_long_work);

  TrainerSpec spec_;
  ModelConfig cfg_;
  int64_t batch_size_ = 0;
  uint64_t seed_ = 0;
  std::unique_ptr<Task> task_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<AdamW> adam_;
  Rng rng_;
  Batch eval_;
  TrainerCosts costs_;
  bool allow_long_work_ = false;
};

}  // namespace attn::train
