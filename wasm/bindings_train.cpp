// bindings_train.cpp — Embind verbs of the training lab (docs/api.md, "Training"): read the
// trainer spec, call attn::train::Trainer, copy results out. Value checks live in the core.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attn/train/trainer.hpp"
#include "js_convert.hpp"

using emscripten::val;
using namespace attn_js;

namespace {

// Walks the field tables (attn::spec_number_fields, attn::train::trainer_number_fields, trainer_flag_fields).
attn::train::TrainerSpec read_trainer_spec(const val& spec) {
  using attn::train::trainer_flag_fields;
  using attn::train::trainer_number_fields;
  require_object(spec, "trainer spec");
  std::set<std::string> keys = {"task", "text", "model"};
  std::set<std::string> model_keys = {"variant", "rope", "activation"};
  for (const auto& f : trainer_number_fields()) (f.in_model ? model_keys : keys).insert(f.name);
  for (const auto& f : trainer_flag_fields()) model_keys.insert(f.name);
  for (const auto& f : attn::spec_number_fields()) if (f.geometry) model_keys.insert(f.name);
  check_keys(spec, "trainer spec", keys);
  attn::train::TrainerSpec s;
  s.task = string_field(spec, "task");
  s.text = string_field(spec, "text");
  for (const auto& f : trainer_number_fields()) if (!f.in_model) s.*f.member = number_field(spec, f.name);
  const val model = spec["model"];
  if (model.isUndefined()) attn::throw_type("model", "model is required: { variant, dModel, nHeads, nLayers, ... }");
  require_object(model, "model", "model");
  check_keys(model, "model", model_keys, "model");
  s.model.variant = string_field(model, "variant", "model");
  for (const auto& f : attn::spec_number_fields()) {
    if (f.geometry) s.model.*f.member = number_field(model, f.name, "model");
  }
  s.model.rope.enabled = bool_field(model, "rope", "model").value_or(false);
  for (const auto& f : trainer_number_fields()) if (f.in_model) s.*f.member = number_field(model, f.name, "model");
  for (const auto& f : trainer_flag_fields()) s.*f.member = bool_field(model, f.name, "model");
  s.activation = string_field(model, "activation", "model");
  return s;
}

class JsTrainer {
 public:
  explicit JsTrainer(std::unique_ptr<attn::train::Trainer> t) : t_(std::move(t)) {}

  // createTrainer(spec): a RawTrainer, or the error (guarded).
  static val create(val spec) {
    return guarded([&] { return JsTrainer(std::make_unique<attn::train::Trainer>(read_trainer_spec(spec))); });
  }

  // n: an integer >= 1, and at most kMaxStepTokens training tokens (n * batchSize * seqLen) per call.
  val step(val n_val) {
    return guarded([&] {
      if (!n_val.isNumber()) attn::throw_type("n", "n must be a number, got " + describe(n_val));
      const double n = n_val.as<double>();
      if (!std::isfinite(n) || n != std::floor(n) || n < 1) {
        attn::throw_range("n", "n (" + attn::fmt(n) + ") must be an integer >= 1");
      }
      const double tokens = double(t_->batch_size() * t_->task().seq_len());
      const double max_steps = std::max(1.0, std::floor(attn::kMaxStepTokens / tokens));
      if (n > max_steps) {
        attn::throw_range("n", "n (" + attn::fmt(n) + ") is above the cap of a synchronous step(n): " +
                                   attn::fmt(max_steps) + " steps here (" + attn::fmt(attn::kMaxStepTokens) +
                                   " training tokens per call, batchSize * seqLen = " + attn::fmt(tokens) +
                                   " per step; about a second at the lab's sizes): call step in a loop, or "
                                   "use trainer.train({ steps, signal, onProgress })");
      }
      const auto r = t_->step(static_cast<int64_t>(n));
      val o = val::object();
      o.set("step", double(r.step));
      o.set("loss", r.loss);
      return o;
    });
  }
  // The most steps one step(n) call may run (the cap above).
  double max_steps_per_call() const {
    const double tokens = double(t_->batch_size() * t_->task().seq_len());
    return std::max(1.0, std::floor(attn::kMaxStepTokens / tokens));
  }
  val evaluate() {
    return guarded([&] {
      const auto r = t_->evaluate();
      val o = val::object();
      o.set("loss", r.loss);
      o.set("bitsPerToken", r.bits_per_token);
      o.set("accuracy", r.accuracy);
      return o;
    });
  }
  val head_scores() {
    return guarded([&] {
      val list = val::array();
      for (const auto& h : t_->head_scores()) {
        val o = val::object();
        o.set("layer", double(h.layer));
        o.set("head", double(h.head));
        o.set("previousToken", h.previous_token);
        o.set("induction", h.induction);
        o.set("firstToken", h.first_token);
        o.set("diagonal", h.diagonal);
        list.call<void>("push", o);
      }
      return list;
    });
  }
  val attention(val tokens) {
    return guarded([&] {
      const std::vector<float> f = read_floats(tokens, "tokens");
      std::vector<int32_t> ids;
      for (std::size_t i = 0; i < f.size(); ++i) {
        if (f[i] != static_cast<float>(static_cast<int32_t>(f[i]))) {
          attn::throw_range("tokens", "tokens[" + attn::fmt(double(i)) + "] (" + attn::fmt(f[i]) + ") must be an integer token id");
        }
        ids.push_back(static_cast<int32_t>(f[i]));
      }
      const auto w = t_->attention(ids);  // (layers, H, N, N)
      val o = val::object();
      o.set("weights", to_js(w.data(), w.size()));
      o.set("layers", double(w.shape(0)));
      o.set("heads", double(w.shape(1)));
      o.set("n", double(w.shape(2)));
      return o;
    });
  }
  val export_model() {
    return guarded([&] {
      const std::vector<uint8_t> bytes = t_->export_model();
      return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
    });
  }
  double steps() const { return double(t_->steps()); }
  double vocab_size() const { return double(t_->task().vocab()); }

 private:
  std::unique_ptr<attn::train::Trainer> t_;
};

val load_model_js(val bytes) {
  return guarded([&] {
    if (!bytes.instanceof(val::global("Uint8Array"))) attn::throw_type("bytes", "loadModel needs a Uint8Array, got " + describe(bytes));
    // Size and magic before copying anything into the wasm heap.
    const double n = bytes["length"].as<double>();
    attn::train::Trainer::check_model_prefix(bytes.call<val>("subarray", 0, 8)["length"].as<double>() < 8
                                                 ? std::vector<uint8_t>{}
                                                 : emscripten::convertJSArrayToNumberVector<uint8_t>(
                                                       bytes.call<val>("subarray", 0, 8)),
                                             n);
    std::vector<uint8_t> data(static_cast<std::size_t>(n));
    val(emscripten::typed_memory_view(data.size(), data.data())).call<void>("set", bytes);  // one bulk copy
    return JsTrainer(attn::train::Trainer::load_model(data));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(training) {
  emscripten::class_<JsTrainer>("RawTrainer")
      .function("step", &JsTrainer::step)
      .function("evaluate", &JsTrainer::evaluate)
      .function("headScores", &JsTrainer::head_scores)
      .function("attention", &JsTrainer::attention)
      .function("exportModel", &JsTrainer::export_model)
      .function("steps", &JsTrainer::steps)
      .function("maxStepsPerCall", &JsTrainer::max_steps_per_call)
      .function("vocabSize", &JsTrainer::vocab_size);
  emscripten::function("createTrainer", &JsTrainer::create);
  emscripten::function("loadModel", &load_model_js);
}
