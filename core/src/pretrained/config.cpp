// config.cpp — reading config.json (see config.hpp; the facts: reference/hf-models.md).
#include "attn/pretrained/config.hpp"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "attn/accounting.hpp"
#include "attn/errors.hpp"
#include "attn/spec.hpp"

namespace attn::pretrained {

using nlohmann::json;

const char* ModelConfig::variant() const {
  if (mla) return "mla";
  if (n_kv_heads == n_heads) return "mha";
  return n_kv_heads == 1 ? "mqa" : "gqa";
}

attn::Shape ModelConfig::shape() const {
  attn::Shape s;
  s.variant = mla ? Variant::MLA : n_kv_heads == n_heads ? Variant::MHA : n_kv_heads == 1 ? Variant::MQA : Variant::GQA;
  s.d = d_model;
  s.h = n_heads;
  s.g = mla ? n_heads : n_kv_heads;
  s.dh = mla ? qk_nope : head_dim;
  s.r = mla ? kv_lora_rank : 0;
  s.dr = mla ? qk_rope : 0;
  s.rope = rope && !mla;  // MLA's RoPE is the decoupled key of width dr
  s.causal = true;
  s.window = sliding_window;
  s.softmax_scale = softmax_scale;
  return s;
}

int64_t ModelConfig::cache_floats_per_token() const { return int64_t(kv_cache_floats_per_token(shape())); }

namespace {

// Keys of PretrainedConfig and of the hub's files that do not change a forward pass: token ids,
// generation defaults, dropout (inference runs without it), labels, bookkeeping.
const std::set<std::string>& harmless_keys() {
  static const std::set<std::string> keys = {
      "_name_or_path", "architectures", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id",
      "decoder_start_token_id", "torch_dtype", "dtype", "transformers_version", "use_cache", "initializer_range",
      "id2label", "label2id", "num_labels", "tokenizer_class", "task_specific_params", "return_dict",
      "output_hidden_states", "output_attentions", "torchscript", "use_bfloat16", "tf_legacy_loss", "pruned_heads",
      "chunk_size_feed_forward", "is_encoder_decoder", "is_decoder", "add_cross_attention", "tie_encoder_decoder",
      "cross_attention_hidden_size", "finetuning_task", "prefix", "problem_type", "max_length", "min_length",
      "do_sample", "early_stopping", "num_beams", "num_beam_groups", "diversity_penalty", "temperature", "top_k",
      "top_p", "typical_p", "repetition_penalty", "length_penalty", "no_repeat_ngram_size",
      "encoder_no_repeat_ngram_size", "bad_words_ids", "num_return_sequences", "output_scores",
      "return_dict_in_generate", "forced_bos_token_id", "forced_eos_token_id", "remove_invalid_values",
      "exponential_decay_length_penalty", "suppress_tokens", "begin_suppress_tokens", "max_position_embeddings",
      "attention_dropout", "model_type", "is_llama_config", "pretraining_tp", "attn_pdrop", "embd_pdrop",
      "resid_pdrop", "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels",
      "summary_first_dropout", "n_ctx", "reorder_and_upcast_attn", "attention_softmax_in_fp32",
      "scale_attention_softmax_in_fp32", "inference_runner", "max_batch_size", "max_sequence_length",
      "pad_key_length", "pre_allocate_kv_cache", "validate_runner_input", "mlp_only_layers"};
  return keys;
}

// The keys of one config.json, read once each; finish() refuses any key neither read nor harmless.
class Reader {
 public:
  Reader(const json& c, std::string model_type) : c_(c), model_type_(std::move(model_type)) {}

  static std::string field(const std::string& key) { return "config." + key; }
  // A key given and not null.
  bool has(const std::string& key) const { return c_.contains(key) && !c_[key].is_null(); }
  void ignore(const std::string& key) { read_.insert(key); }

  int64_t integer(const std::string& key, double lo, double hi, std::optional<int64_t> fallback = std::nullopt) {
    read_.insert(key);
    if (!has(key)) {
      if (fallback) return *fallback;
      throw_type(field(key), field(key) + " is required for model_type '" + model_type_ + "'");
    }
    const json& v = c_[key];
    const double x = v.is_number() ? v.get<double>() : NAN;
    if (!v.is_number() || !std::isfinite(x) || x != std::floor(x) || x < lo || x > hi) {
      throw_range(field(key), field(key) + " (" + shown(v) + ") must be an integer between " + fmt(lo) + " and " + fmt(hi));
    }
    return int64_t(x);
  }
  double number(const std::string& key, double lo, double hi, std::optional<double> fallback = std::nullopt,
                bool lo_open = false) {
    read_.insert(key);
    if (!has(key)) {
      if (fallback) return *fallback;
      throw_type(field(key), field(key) + " is required for model_type '" + model_type_ + "'");
    }
    return number_value(c_[key], field(key), lo, hi, lo_open);
  }
  bool boolean(const std::string& key, bool fallback) {
    read_.insert(key);
    if (!has(key)) return fallback;
    if (!c_[key].is_boolean()) throw_type(field(key), field(key) + " must be true or false, got " + shown(c_[key]));
    return c_[key].get<bool>();
  }
  std::optional<std::string> string(const std::string& key) {
    read_.insert(key);
    if (!has(key)) return std::nullopt;
    if (!c_[key].is_string()) throw_type(field(key), field(key) + " must be a string, got " + shown(c_[key]));
    return c_[key].get<std::string>();
  }
  // Refuses `key` when it is given with a value other than `allowed` (the one this loader computes).
  void require_value(const std::string& key, const json& allowed, const std::string& why) {
    read_.insert(key);
    if (has(key) && c_[key] != allowed) {
      throw_range(field(key), field(key) + " (" + shown(c_[key]) + ") is not supported: " + why);
    }
  }
  // The value of `key`, null when absent.
  const json& at(const std::string& key) {
    static const json null_value;
    read_.insert(key);
    return c_.contains(key) ? c_[key] : null_value;
  }
  bool present(const std::string& key) const { return c_.contains(key); }

  void finish() const {
    for (const auto& [key, v] : c_.items()) {
      if (read_.count(key) || harmless_keys().count(key)) continue;
      throw_range(field(key), field(key) + " is a key this loader does not know for model_type '" + model_type_ +
                                  "': it may change the computation, so the checkpoint is not opened");
    }
  }

  static std::string shown(const json& v) {
    const std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
  }
  static double number_value(const json& v, const std::string& name, double lo, double hi, bool lo_open) {
    const double x = v.is_number() ? v.get<double>() : NAN;
    if (!v.is_number() || !std::isfinite(x) || (lo_open ? x <= lo : x < lo) || x > hi) {
      throw_range(name, name + " (" + shown(v) + ") must be a number " +
                            (lo_open ? "greater than " + fmt(lo) + " and at most " : "between " + fmt(lo) + " and ") + fmt(hi));
    }
    return x;
  }

 private:
  const json& c_;
  std::string model_type_;
  std::set<std::string> read_;
};

constexpr double kMaxLayers = 1024;

// rope_theta and rope_scaling (transformers 4) or rope_parameters (transformers 5), into frequencies
// over `w` dimensions. DeepSeek's softmax factor m(factor, mscale_all_dim)^2 is returned in *mla_scale.
RopeFrequencies read_rope(Reader& r, int64_t w, int64_t max_positions, double* mla_scale) {
  double theta = 10000.0;
  json scaling;  // null: none
  std::string where = "rope_scaling";
  if (r.has("rope_parameters")) {
    const json& p = r.at("rope_parameters");
    if (!p.is_object()) throw_type("config.rope_parameters", "config.rope_parameters must be an object");
    if (p.contains("rope_theta")) {
      theta = Reader::number_value(p["rope_theta"], "config.rope_parameters.rope_theta", 1.0, 1e12, false);
    }
    scaling = p;
    scaling.erase("rope_theta");
    where = "rope_parameters";
    r.ignore("rope_theta");
    r.ignore("rope_scaling");
  } else {
    theta = r.number("rope_theta", 1.0, 1e12, 10000.0);
    if (r.has("rope_scaling")) scaling = r.at("rope_scaling");
    r.ignore("rope_scaling");
  }
  if (scaling.is_null()) return rope_frequencies(w, theta);
  const std::string f = "config." + where;
  if (!scaling.is_object()) throw_type(f, f + " must be an object or null, got " + Reader::shown(scaling));
  std::string type = "default";
  std::string type_key = scaling.contains("rope_type") ? "rope_type" : scaling.contains("type") ? "type" : "";
  if (!type_key.empty()) {
    if (!scaling[type_key].is_string()) throw_type(f + "." + type_key, f + "." + type_key + " must be a string");
    type = scaling[type_key].get<std::string>();
  }
  std::set<std::string> known = {"rope_type", "type"};
  auto num = [&](const std::string& key, double lo, double hi, std::optional<double> fallback) {
    known.insert(key);
    if (!scaling.contains(key) || scaling[key].is_null()) {
      if (fallback) return *fallback;
      throw_type(f + "." + key, f + "." + key + " is required for rope_type '" + type + "'");
    }
    return Reader::number_value(scaling[key], f + "." + key, lo, hi, false);
  };
  RopeFrequencies out;
  if (type == "default") {
    out = rope_frequencies(w, theta);
  } else if (type == "linear") {
    out = rope_frequencies_linear(w, theta, num("factor", 1.0, 1e6, std::nullopt));
  } else if (type == "llama3") {
    const double factor = num("factor", 1.0, 1e6, std::nullopt), low = num("low_freq_factor", 1e-6, 1e6, std::nullopt);
    const double high = num("high_freq_factor", 1e-6, 1e6, std::nullopt);
    const double old = num("original_max_position_embeddings", 1.0, 1e9, std::nullopt);
    if (!(high > low)) {
      throw_range(f + ".high_freq_factor", f + ".high_freq_factor (" + fmt(high) + ") must be greater than low_freq_factor (" + fmt(low) + ")");
    }
    out = rope_frequencies_llama3(w, theta, factor, low, high, old);
  } else if (type == "yarn") {
    const double factor = num("factor", 1.0, 1e6, std::nullopt);
    const double ompe = num("original_max_position_embeddings", 1.0, 1e9, double(max_positions));
    // Python's `x or default`: a 0 counts as absent, as in transformers
    double beta_fast = num("beta_fast", 0.0, 1e6, 32.0), beta_slow = num("beta_slow", 0.0, 1e6, 1.0);
    if (beta_fast == 0) beta_fast = 32.0;
    if (beta_slow == 0) beta_slow = 1.0;
    const double mscale = num("mscale", 0.0, 1e6, 0.0), mscale_all = num("mscale_all_dim", 0.0, 1e6, 0.0);
    known.insert("truncate");
    bool truncate = true;
    if (scaling.contains("truncate") && !scaling["truncate"].is_null()) {
      if (!scaling["truncate"].is_boolean()) throw_type(f + ".truncate", f + ".truncate must be true or false");
      truncate = scaling["truncate"].get<bool>();
    }
    double attention_factor;
    if (scaling.contains("attention_factor") && !scaling["attention_factor"].is_null()) {
      attention_factor = num("attention_factor", 0.0, 1e6, std::nullopt);
    } else {
      known.insert("attention_factor");
      attention_factor = mscale != 0 && mscale_all != 0 ? yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all)
                                                        : yarn_mscale(factor, 1.0);
    }
    out = rope_frequencies_yarn(w, theta, factor, ompe, beta_fast, beta_slow, truncate, attention_factor);
    if (mla_scale && mscale_all != 0) *mla_scale = yarn_mscale(factor, mscale_all) * yarn_mscale(factor, mscale_all);
  } else {
    throw_range(f + "." + type_key, f + "." + type_key + " ('" + type +
                                        "') is not supported: RoPE types 'default', 'linear', 'llama3' and 'yarn' are");
  }
  for (const auto& [key, v] : scaling.items()) {
    if (!known.count(key)) {
      throw_range(f + "." + key, f + "." + key + " is not a key of rope_type '" + type + "' this loader knows");
    }
  }
  out.type = type;
  return out;
}

void read_gpt2_like(Reader& r, ModelConfig& m) {
  const bool bigcode = m.arch == Arch::GPTBigCode;
  m.d_model = r.integer("n_embd", 1, kMaxDim);
  m.n_heads = r.integer("n_head", 1, kMaxDim);
  m.n_layers = r.integer("n_layer", 1, kMaxLayers);
  m.n_positions = r.integer("n_positions", 1, kMaxDim);
  m.vocab = r.integer("vocab_size", 1, kMaxDim * 8);
  m.intermediate = r.integer("n_inner", 1, kMaxDim, 4 * m.d_model);
  if (m.d_model % m.n_heads != 0) {
    throw_range("config.n_head", "config.n_head (" + fmt(double(m.n_heads)) + ") must divide n_embd (" +
                                     fmt(double(m.d_model)) + ")");
  }
  m.head_dim = m.d_model / m.n_heads;
  const std::string act = r.string("activation_function").value_or(bigcode ? "gelu_pytorch_tanh" : "gelu_new");
  if (act != "gelu_new" && act != "gelu_pytorch_tanh") {
    throw_range("config.activation_function", "config.activation_function ('" + act +
                "') is not supported: 'gelu_new' and 'gelu_pytorch_tanh' (the tanh form of GELU) are");
  }
  m.norm = NormKind::LayerNorm;
  m.norm_eps = r.number("layer_norm_epsilon", 0.0, 1.0, 1e-5);
  m.mlp = MlpKind::GeluTanh;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.tied = r.boolean("tie_word_embeddings", true);
  const bool scaled = r.boolean("scale_attn_weights", true);
  m.softmax_scale = scaled ? float(1.0 / std::sqrt(double(m.head_dim))) : 1.0f;
  r.require_value("scale_attn_by_inverse_layer_idx", false, "scores divided by the layer's index + 1 are not computed");
  if (bigcode) {
    m.n_kv_heads = r.boolean("multi_query", true) ? 1 : m.n_heads;  // multi_query false: one K/V head per query head (MHA)
  } else {
    m.n_kv_heads = m.n_heads;
  }
}

// The keys llama-like models and DeepSeek share: sizes, RMSNorm, the SwiGLU MLP, the head's tying.
void read_decoder_sizes(Reader& r, ModelConfig& m) {
  m.d_model = r.integer("hidden_size", 1, kMaxDim);
  m.n_heads = r.integer("num_attention_heads", 1, kMaxDim);
  m.n_layers = r.integer("num_hidden_layers", 1, kMaxLayers);
  m.intermediate = r.integer("intermediate_size", 1, kMaxDim);
  m.vocab = r.integer("vocab_size", 1, kMaxDim * 8);
  m.n_kv_heads = r.integer("num_key_value_heads", 1, kMaxDim, m.n_heads);
  m.norm = NormKind::RMSNorm;
  m.norm_eps = r.number("rms_norm_eps", 0.0, 1.0, 1e-6);
  m.mlp = MlpKind::SwiGLU;
  const std::string act = r.string("hidden_act").value_or("silu");
  if (act != "silu") throw_range("config.hidden_act", "config.hidden_act ('" + act + "') is not supported: 'silu' is");
  m.tied = r.boolean("tie_word_embeddings", false);
}

void read_llama_like(Reader& r, ModelConfig& m) {
  read_decoder_sizes(r, m);
  if (m.n_heads % m.n_kv_heads != 0) {
    throw_range("config.num_key_value_heads", "config.num_attention_heads (" + fmt(double(m.n_heads)) +
                ") must be divisible by config.num_key_value_heads (" + fmt(double(m.n_kv_heads)) + ")");
  }
  if (!r.has("head_dim") && m.arch != Arch::Qwen3 && m.d_model % m.n_heads != 0) {
    throw_range("config.num_attention_heads", "config.num_attention_heads (" + fmt(double(m.n_heads)) +
                ") must divide hidden_size (" + fmt(double(m.d_model)) + ") when head_dim is not given");
  }
  m.head_dim = r.integer("head_dim", 2, kMaxDim, m.arch == Arch::Qwen3 ? 128 : m.d_model / std::max<int64_t>(m.n_heads, 1));
  if (m.head_dim % 2 != 0) throw_range("config.head_dim", "config.head_dim (" + fmt(double(m.head_dim)) + ") must be even (RoPE turns pairs)");
  r.require_value("rope_interleaved", false, "interleaved RoPE is not computed for model_type '" + m.model_type + "'");
  r.require_value("partial_rotary_factor", 1.0, "RoPE over part of each head is not computed");
  const bool attention_bias = m.arch == Arch::Llama || m.arch == Arch::Qwen3 ? r.boolean("attention_bias", false) : false;
  m.qkv_bias = m.arch == Arch::Qwen2 || attention_bias;
  m.o_bias = attention_bias;
  m.mlp_bias = m.arch == Arch::Llama ? r.boolean("mlp_bias", false) : false;
  m.qk_norm = m.arch == Arch::Qwen3;
  if (m.arch == Arch::Mistral) {  // absent: 4096 (MistralConfig's default); null: no window
    m.sliding_window = r.has("sliding_window") ? r.integer("sliding_window", 1, 1e9) : r.present("sliding_window") ? 0 : 4096;
    r.ignore("sliding_window");
  }
  if (m.arch == Arch::Qwen2 || m.arch == Arch::Qwen3) {
    r.require_value("use_sliding_window", false, "sliding-window layers are not computed for model_type '" + m.model_type + "'");
    r.ignore("sliding_window");     // inactive without use_sliding_window
    r.ignore("max_window_layers");
  }
  if (r.has("layer_types")) {
    const json& t = r.at("layer_types");
    bool all_full = t.is_array();
    for (const auto& e : t) all_full = all_full && e == "full_attention";
    if (!all_full) {
      throw_range("config.layer_types", "config.layer_types: only 'full_attention' layers are computed for model_type '" +
                                            m.model_type + "'");
    }
    if (t.size() != std::size_t(m.n_layers)) {
      throw_range("config.layer_types", "config.layer_types lists " + fmt(double(t.size())) + " layers, but num_hidden_layers is " +
                                            fmt(double(m.n_layers)) + ": one entry per layer");
    }
  }
  m.rope = true;
  m.softmax_scale = float(1.0 / std::sqrt(double(m.head_dim)));
  m.rope_freqs = read_rope(r, m.head_dim, r.integer("max_position_embeddings", 1, 1e9, 2048), nullptr);
}

void read_deepseek(Reader& r, ModelConfig& m) {
  read_decoder_sizes(r, m);
  if (m.n_kv_heads != m.n_heads) {
    throw_range("config.num_key_value_heads", "config.num_key_value_heads (" + fmt(double(m.n_kv_heads)) +
                ") must equal num_attention_heads (" + fmt(double(m.n_heads)) + "): MLA decompresses K and V for every head");
  }
  m.mla = true;
  m.q_lora_rank = r.has("q_lora_rank") ? r.integer("q_lora_rank", 1, kMaxDim) : (r.ignore("q_lora_rank"), 0);
  m.kv_lora_rank = r.integer("kv_lora_rank", 1, kMaxDim);
  m.qk_nope = r.integer("qk_nope_head_dim", 0, kMaxDim);
  m.qk_rope = r.integer("qk_rope_head_dim", 2, kMaxDim);
  if (m.qk_rope % 2 != 0) throw_range("config.qk_rope_head_dim", "config.qk_rope_head_dim (" + fmt(double(m.qk_rope)) + ") must be even");
  m.v_head_dim = r.integer("v_head_dim", 1, kMaxDim);
  m.head_dim = m.qk_nope + m.qk_rope;
  const bool bias = r.boolean("attention_bias", false);
  m.qkv_bias = m.o_bias = bias;  // on q_a_proj (or none on q_proj), kv_a_proj_with_mqa and o_proj
  // Mixture-of-experts layers: i >= first_k_dense_replace with i % moe_layer_freq == 0, when experts exist.
  const bool experts = r.has("n_routed_experts") && r.integer("n_routed_experts", 0, 1e6) > 0;
  r.ignore("n_routed_experts");
  const int64_t first_dense = r.integer("first_k_dense_replace", 0, 1e9, 0);
  const int64_t freq = r.integer("moe_layer_freq", 1, 1e9, 1);
  for (int64_t i = first_dense; experts && i < m.n_layers; ++i) {
    if (i % freq == 0) {
      throw_range("config.first_k_dense_replace",
                  "layer " + fmt(double(i)) + " is a mixture-of-experts layer (config.first_k_dense_replace = " +
                      fmt(double(first_dense)) + " < num_hidden_layers = " + fmt(double(m.n_layers)) +
                      ", n_routed_experts set): only checkpoints whose layers all have dense MLPs are opened");
    }
  }
  for (const char* k : {"n_shared_experts", "num_experts_per_tok", "moe_intermediate_size", "topk_method", "n_group",
                        "topk_group", "routed_scaling_factor", "scoring_func", "aux_loss_alpha", "seq_aux",
                        "norm_topk_prob", "ep_size"}) {
    r.ignore(k);  // the experts' settings: no layer uses them
  }
  m.rope = true;
  double mla_scale = 1.0;
  m.rope_freqs = read_rope(r, m.qk_rope, r.integer("max_position_embeddings", 1, 1e9, 2048), &mla_scale);
  m.rope_freqs.adjacent_pairs = true;
  m.softmax_scale = float(mla_scale / std::sqrt(double(m.head_dim)));
}

}  // namespace

ModelConfig read_config(const json& c) {
  if (!c.is_object()) throw_type("config", "config must be the parsed config.json (an object)");
  if (!c.contains("model_type") || !c["model_type"].is_string()) {
    throw_type("config.model_type", "config.model_type is required (a string such as 'llama')");
  }
  static const std::map<std::string, Arch> archs = {
      {"gpt2", Arch::GPT2}, {"gpt_bigcode", Arch::GPTBigCode}, {"llama", Arch::Llama}, {"mistral", Arch::Mistral},
      {"qwen2", Arch::Qwen2}, {"qwen3", Arch::Qwen3}, {"deepseek_v2", Arch::DeepseekV2}};
  ModelConfig m;
  m.model_type = c["model_type"].get<std::string>();
  const auto a = archs.find(m.model_type);
  if (a == archs.end()) {
    throw_range("config.model_type", "config.model_type (" + attn::quoted(m.model_type) +
                                         ") is not supported: 'gpt2', 'gpt_bigcode', 'llama', 'mistral', 'qwen2', "
                                         "'qwen3' and 'deepseek_v2' are");
  }
  m.arch = a->second;
  Reader r(c, m.model_type);
  switch (m.arch) {
    case Arch::GPT2:
    case Arch::GPTBigCode: read_gpt2_like(r, m); break;
    case Arch::DeepseekV2: read_deepseek(r, m); break;
    default: read_llama_like(r, m); break;
  }
  // The trainer's extra key (train/hf_checkpoint.hpp): how many of the first ids the model's task read.
  // The computation does not change; the page draws its probes from those ids.
  if (r.present("input_vocab_size")) r.integer("input_vocab_size", 1, double(m.vocab));
  r.finish();
  return m;
}

}  // namespace attn::pretrained
