// train/costs.hpp — what a trainer needs, from its configuration alone (known before anything is
// allocated): its parameters, the memory of a step, of its export and of loading that export, and
// the time of each of its synchronous calls (cost.hpp: the same kinds of work and rates as the
// attention module's calls). The Trainer refuses, at creation, a configuration whose calls would
// not fit (trainer.cpp).
#pragma once

#include <cstdint>

#include "attn/cost.hpp"
#include "attn/train/model.hpp"

namespace attn::train {

// Floats of the model's parameters, exactly Model::param_count() (embeddings, LayerNorms, biases).
double model_param_floats(const ModelConfig& cfg);

// Float32 bytes of one training step's activations and gradients of activations (roughly, generous).
double step_activation_bytes(const ModelConfig& cfg, int64_t batch);

// The heap a trainer takes: parameters, gradients and AdamW's two moments (16 bytes a parameter)
// and a step's activations.
double trainer_heap_bytes(const ModelConfig& cfg, int64_t batch);
// The bytes of its model file (exportModel): three tensors a parameter, and the header.
double model_file_bytes(const ModelConfig& cfg, double text_bytes);

// The estimates of every synchronous call of a trainer with this configuration.
struct TrainerCosts {
  Cost create;        // createTrainer: the model drawn from its seed, the moments zeroed, the data
  Cost step;          // one step(1): forward, backward, AdamW
  Cost evaluate;      // evaluate(): 256 held-out sequences forward
  Cost head_scores;   // headScores(): 64 held-out and 64 induction-style sequences forward
  Cost attention;     // attention(tokens) of seqLen tokens
  Cost export_model;  // exportModel()
  Cost load_model;    // loadModel() of that export
};
// n: seqLen; text_bytes: the 'chars' text (0 for the other tasks).
TrainerCosts trainer_costs(const ModelConfig& cfg, int64_t batch, double text_bytes);

}  // namespace attn::train
