// bindings_train.cpp — Embind verbs of the training lab (docs/api.md, "Training"): read the trainer
// spec, call attn::train::Trainer, copy results out. Every check and cap is the core's
// (train/trainer.cpp, train/costs.cpp, train/model_file.cpp), run before anything is copied.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "attn/train/hf_checkpoint.hpp"
#include "attn/train/trainer.hpp"
#include "js_convert.hpp"

using emscripten::val;
using namespace attn_js;

namespace {

// Task 'tokens''s ids: a numeric array (Int32Array, Uint16Array, an Array of numbers, ...), its length
// checked before it is copied (Trainer::check_tokens_length), each an integer; the core checks each id
// against vocabSize.
std::optional<std::vector<int32_t>> read_token_ids(const val& v, const std::string& field) {
  if (v.isUndefined()) return std::nullopt;
  if (v["length"].isNumber()) attn::train::Trainer::check_tokens_length(v["length"].as<double>());
  const std::size_t n = check_floats(v, field, std::nullopt, "", attn::train::kMaxTokens);
  std::vector<float> f(n);
  copy_floats(v, f.data(), n);
  std::vector<int32_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!(f[i] >= -2147483648.0f && f[i] < 2147483648.0f) || f[i] != std::floor(f[i])) {
      attn::throw_range(field, field + "[" + attn::fmt(double(i)) + "] (" + attn::fmt(f[i]) + ") must be an integer token id");
    }
    ids[i] = static_cast<int32_t>(f[i]);
  }
  return ids;
}

// Walks the field tables (attn::spec_number_fields, attn::train::trainer_number_fields, trainer_flag_fields).
attn::train::TrainerSpec read_trainer_spec(const val& spec) {
  using attn::train::trainer_flag_fields;
  using attn::train::trainer_number_fields;
  require_object(spec, "trainer spec");
  std::set<std::string> keys = {"task", "text", "tokens", "model", "allowLongWork"};
  std::set<std::string> model_keys = {"variant", "rope", "activation", "block"};
  for (const auto& f : trainer_number_fields()) (f.in_model ? model_keys : keys).insert(f.name);
  for (const auto& f : trainer_flag_fields()) model_keys.insert(f.name);
  for (const auto& f : attn::spec_number_fields()) if (f.geometry) model_keys.insert(f.name);
  check_keys(spec, "trainer spec", keys);
  attn::train::TrainerSpec s;
  s.task = string_field(spec, "task");
  const val text = spec["text"];
  if (text.isString()) attn::train::Trainer::check_text_length(text["length"].as<double>());  // before copying it
  s.text = string_field(spec, "text");
  s.tokens = read_token_ids(spec["tokens"], "tokens");
  s.allow_long_work = bool_field(spec, "allowLongWork");
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
  s.block = string_field(model, "block", "model");
  return s;
}

// The caller's Uint8Array as the loader reads it (train/model_file.hpp): ranges copied straight from
// it, so that a file refused on its header is never copied whole into the wasm heap.
class JsSource : public attn::train::ModelSource {
 public:
  explicit JsSource(val bytes) : bytes_(std::move(bytes)), size_(bytes_["length"].as<double>()) {}
  uint64_t size() const override { return uint64_t(size_); }
  void read(uint64_t offset, uint64_t n, uint8_t* dst) const override {
    val(emscripten::typed_memory_view(std::size_t(n), dst))
        .call<void>("set", bytes_.call<val>("subarray", double(offset), double(offset + n)));
  }

 private:
  val bytes_;
  double size_;
};

class JsTrainer {
 public:
  explicit JsTrainer(std::unique_ptr<attn::train::Trainer> t) : t_(std::move(t)) {}

  // createTrainer(spec): a RawTrainer, or the error (guarded).
  static val create(val spec) {
    return guarded([&] { return JsTrainer(std::make_unique<attn::train::Trainer>(read_trainer_spec(spec))); });
  }

  // n: an integer from 1 to maxStepsPerCall (the core's cap).
  val step(val n_val) {
    return guarded([&] {
      if (!n_val.isNumber()) attn::throw_type("n", "n must be a number, got " + describe(n_val));
      const double n = n_val.as<double>();
      if (!std::isfinite(n) || n != std::floor(n) || n < 1) {
        attn::throw_range("n", "n (" + attn::fmt(n) + ") must be an integer >= 1");
      }
      const auto r = t_->step(n > 1e15 ? int64_t(1e15) : static_cast<int64_t>(n));
      val o = val::object();
      o.set("step", double(r.step));
      o.set("loss", r.loss);
      return o;
    });
  }
  double max_steps_per_call() const { return double(t_->max_steps_per_call()); }
  double step_seconds() const { return t_->costs().step.seconds(); }
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
    return guarded([&] { return roles_to_js(t_->head_scores()); });
  }
  val attention(val tokens) {
    return guarded([&] {
      const auto w = t_->attention(read_tokens(tokens));  // (layers, H, N, N)
      val o = val::object();
      o.set("weights", to_js(w.data(), w.size()));
      o.set("layers", double(w.shape(0)));
      o.set("heads", double(w.shape(1)));
      o.set("n", double(w.shape(2)));
      return o;
    });
  }
  // layer(tokens, layer): { spec, x, weights } such that attn.forward({ ...spec, x, weights }) is
  // that layer's attention over the tokens (docs/api.md, "Training").
  val layer(val tokens, val layer_val) {
    return guarded([&] {
      if (!layer_val.isNumber()) attn::throw_type("layer", "layer must be a number, got " + describe(layer_val));
      const double l = layer_val.as<double>();
      if (!std::isfinite(l) || l != std::floor(l) || l < 0 || l > 1e6) {
        attn::throw_range("layer", "layer (" + attn::fmt(l) + ") must be an integer between 0 and nLayers - 1");
      }
      const attn::train::LayerView v = t_->layer(read_tokens(tokens), int64_t(l));
      const attn::Shape& s = v.shape;
      val spec = val::object();
      spec.set("variant", std::string(attn::variant_name(s.variant)));
      spec.set("seqLen", double(s.n));
      spec.set("dModel", double(s.d));
      spec.set("nHeads", double(s.h));
      if (s.variant != attn::Variant::MLA) spec.set("nKvHeads", double(s.g));
      spec.set("dHead", double(s.dh));
      if (s.variant == attn::Variant::MLA) {
        spec.set("latentRank", double(s.r));
        spec.set("ropeDim", double(s.dr));
      }
      const bool rope = s.variant == attn::Variant::MLA ? s.dr > 0 : s.rope;
      if (rope) {
        val r = val::object();
        r.set("base", s.rope_base);
        spec.set("rope", r);
      } else {
        spec.set("rope", false);
      }
      spec.set("causal", true);
      val weights = val::object();
      for (const auto& slot : attn::weight_slots(s)) {
        const attn::Matrix& m = (*v.weights).*(slot.member);  // (rows, cols)
        weights.set(slot.name, to_js(m.data(), m.size()));
      }
      val o = val::object();
      o.set("spec", spec);
      o.set("x", to_js(v.x.data(), v.x.size()));
      o.set("weights", weights);
      return o;
    });
  }
  val next_token_probs(val tokens) {
    return guarded([&] {
      const std::vector<float> p = t_->next_token_probs(read_tokens(tokens));
      return to_js(p.data(), p.size());
    });
  }
  val export_model() {
    return guarded([&] {
      const std::vector<uint8_t> bytes = t_->export_model();
      return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
    });
  }
  // exportCheckpoint(): { config: the config.json text, safetensors: model.safetensors, tokenizer?: a 'chars'
  // model's tokenizer.json } (hf_checkpoint.hpp: blocks 'llama', 'deepseek', and the GPT-style block's MHA and MQA).
  val export_checkpoint() {
    return guarded([&] {
      // the pairs task reads only its alphabet's A ids of its A^2: config.json says so (input_vocab_size)
      const attn::train::HfCheckpoint ck = attn::train::export_hf_checkpoint(t_->model(), false, t_->task().symbols());
      val o = val::object();
      o.set("config", ck.config_json);
      o.set("safetensors", val::global("Uint8Array").new_(emscripten::typed_memory_view(ck.safetensors.size(), ck.safetensors.data())));
      // a 'chars' model: its characters as a tokenizer.json, so that a viewer reads text, not ids
      if (!t_->task().alphabet().empty()) o.set("tokenizer", attn::train::char_tokenizer_json(t_->task().alphabet()));
      return o;
    });
  }
  // checkpointType: the model_type exportCheckpoint() writes ('llama', 'deepseek_v2', 'gpt2', 'gpt_bigcode'),
  // or '' where it would refuse.
  std::string checkpoint_type() const {
    try {
      return attn::train::hf_model_type(t_->model().config());
    } catch (const attn::Error&) {
      return "";
    }
  }
  double steps() const { return double(t_->steps()); }
  double vocab_size() const { return double(t_->task().vocab()); }
  // Internal (bench/calibrate-cost.mjs): the cost model's estimates of this trainer's calls.
  val costs() const {
    const auto& c = t_->costs();
    val o = val::object();
    o.set("create", cost_to_js(c.create));
    o.set("step", cost_to_js(c.step));
    o.set("evaluate", cost_to_js(c.evaluate));
    o.set("headScores", cost_to_js(c.head_scores));
    o.set("attention", cost_to_js(c.attention));
    o.set("exportModel", cost_to_js(c.export_model));
    o.set("loadModel", cost_to_js(c.load_model));
    return o;
  }

 private:
  // A numeric array of token ids: its length checked before it is copied, each an integer.
  std::vector<int32_t> read_tokens(const val& tokens) const {
    const std::size_t n = check_floats(tokens, "tokens");
    t_->check_attention_length(double(n));  // before copying
    std::vector<float> f(n);
    copy_floats(tokens, f.data(), n);
    std::vector<int32_t> ids;
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (f[i] != static_cast<float>(static_cast<int32_t>(f[i]))) {
        attn::throw_range("tokens", "tokens[" + attn::fmt(double(i)) + "] (" + attn::fmt(f[i]) + ") must be an integer token id");
      }
      ids.push_back(static_cast<int32_t>(f[i]));
    }
    return ids;
  }

  std::unique_ptr<attn::train::Trainer> t_;
};

// Internal (tests/node/field-ranges.test.mjs): the ranges of the trainer's number fields.
val field_ranges_js() {
  val list = val::array();
  for (const auto& f : attn::train::trainer_number_fields()) {
    val o = val::object();
    o.set("name", std::string(f.name));
    o.set("lo", f.lo);
    o.set("hi", f.hi);
    o.set("integer", f.integer);
    o.set("loOpen", f.lo_open);
    list.call<void>("push", o);
  }
  return list;
}

// loadModel(bytes, allowLongWork, text, tokens): attention-api.mjs has checked that bytes is a live,
// plain Uint8Array, text a string or undefined (its length checked before it is copied) and tokens a
// live numeric array or undefined.
val load_model_js(val bytes, bool allow_long_work, val text, val tokens) {
  return guarded([&] {
    std::optional<std::string> t;
    if (text.isString()) {
      attn::train::Trainer::check_text_length(text["length"].as<double>());
      t = text.as<std::string>();
    }
    const auto ids = read_token_ids(tokens, "tokens");
    return JsTrainer(attn::train::Trainer::load_model(JsSource(bytes), allow_long_work, t, ids));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(training) {
  emscripten::class_<JsTrainer>("RawTrainer")
      .function("step", &JsTrainer::step)
      .function("evaluate", &JsTrainer::evaluate)
      .function("headScores", &JsTrainer::head_scores)
      .function("attention", &JsTrainer::attention)
      .function("layer", &JsTrainer::layer)
      .function("nextTokenProbs", &JsTrainer::next_token_probs)
      .function("exportModel", &JsTrainer::export_model)
      .function("exportCheckpoint", &JsTrainer::export_checkpoint)
      .function("checkpointType", &JsTrainer::checkpoint_type)
      .function("steps", &JsTrainer::steps)
      .function("maxStepsPerCall", &JsTrainer::max_steps_per_call)
      .function("stepSeconds", &JsTrainer::step_seconds)
      .function("vocabSize", &JsTrainer::vocab_size)
      .function("_costs", &JsTrainer::costs);
  emscripten::function("createTrainer", &JsTrainer::create);
  emscripten::function("loadModel", &load_model_js);
  emscripten::function("_fieldRanges", &field_ranges_js);
}
