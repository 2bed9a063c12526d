// checkpoint.cpp — planning and filling a checkpoint's tensors (see checkpoint.hpp).
#include "attn/pretrained/checkpoint.hpp"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "attn/errors.hpp"

namespace attn::pretrained {

std::vector<TensorNeed> needed_tensors(const ModelConfig& c) {
  std::vector<TensorNeed> t;
  const int64_t d = c.d_model, h = c.n_heads, g = c.n_kv_heads, dh = c.head_dim, in = c.intermediate, v = c.vocab;
  auto add = [&](std::string name, std::vector<int64_t> shape) { t.push_back({std::move(name), std::move(shape), true}); };
  if (c.arch == Arch::GPT2 || c.arch == Arch::GPTBigCode) {
    const bool conv = c.arch == Arch::GPT2;  // Conv1D (in, out); gpt_bigcode: nn.Linear (out, in)
    auto w = [&](int64_t i, int64_t o) { return conv ? std::vector<int64_t>{i, o} : std::vector<int64_t>{o, i}; };
    const int64_t qkv = d + 2 * g * dh;
    add("wte.weight", {v, d});
    add("wpe.weight", {c.n_positions, d});
    for (int64_t l = 0; l < c.n_layers; ++l) {
      const std::string p = "h." + std::to_string(l) + ".";
      add(p + "ln_1.weight", {d});
      add(p + "ln_1.bias", {d});
      add(p + "attn.c_attn.weight", w(d, qkv));
      add(p + "attn.c_attn.bias", {qkv});
      add(p + "attn.c_proj.weight", w(d, d));
      add(p + "attn.c_proj.bias", {d});
      add(p + "ln_2.weight", {d});
      add(p + "ln_2.bias", {d});
      add(p + "mlp.c_fc.weight", w(d, in));
      add(p + "mlp.c_fc.bias", {in});
      add(p + "mlp.c_proj.weight", w(in, d));
      add(p + "mlp.c_proj.bias", {d});
    }
    add("ln_f.weight", {d});
    add("ln_f.bias", {d});
  } else {
    add("embed_tokens.weight", {v, d});
    for (int64_t l = 0; l < c.n_layers; ++l) {
      const std::string p = "layers." + std::to_string(l) + ".", a = p + "self_attn.";
      add(p + "input_layernorm.weight", {d});
      if (c.mla) {
        const int64_t qk = c.head_dim, r = c.kv_lora_rank;
        if (c.q_lora_rank > 0) {
          add(a + "q_a_proj.weight", {c.q_lora_rank, d});
          if (c.qkv_bias) add(a + "q_a_proj.bias", {c.q_lora_rank});
          add(a + "q_a_layernorm.weight", {c.q_lora_rank});
          add(a + "q_b_proj.weight", {h * qk, c.q_lora_rank});
        } else {
          add(a + "q_proj.weight", {h * qk, d});
        }
        add(a + "kv_a_proj_with_mqa.weight", {r + c.qk_rope, d});
        if (c.qkv_bias) add(a + "kv_a_proj_with_mqa.bias", {r + c.qk_rope});
        add(a + "kv_a_layernorm.weight", {r});
        add(a + "kv_b_proj.weight", {h * (c.qk_nope + c.v_head_dim), r});
        add(a + "o_proj.weight", {d, h * c.v_head_dim});
      } else {
        add(a + "q_proj.weight", {h * dh, d});
        add(a + "k_proj.weight", {g * dh, d});
        add(a + "v_proj.weight", {g * dh, d});
        if (c.qkv_bias) {
          add(a + "q_proj.bias", {h * dh});
          add(a + "k_proj.bias", {g * dh});
          add(a + "v_proj.bias", {g * dh});
        }
        if (c.qk_norm) {
          add(a + "q_norm.weight", {dh});
          add(a + "k_norm.weight", {dh});
        }
        add(a + "o_proj.weight", {d, h * dh});
      }
      if (c.o_bias) add(a + "o_proj.bias", {d});
      add(p + "post_attention_layernorm.weight", {d});
      add(p + "mlp.gate_proj.weight", {in, d});
      add(p + "mlp.up_proj.weight", {in, d});
      add(p + "mlp.down_proj.weight", {d, in});
      if (c.mlp_bias) {
        add(p + "mlp.gate_proj.bias", {in});
        add(p + "mlp.up_proj.bias", {in});
        add(p + "mlp.down_proj.bias", {d});
      }
    }
    add("norm.weight", {d});
  }
  if (!c.tied) t.push_back({"lm_head.weight", {v, d}, false});
  return t;
}

namespace {

std::string shape_text(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + fmt(double(s[i]));
  return out + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

CheckpointLoader::CheckpointLoader(const nlohmann::json& config, const std::vector<SafetensorsIndex>& files)
    : config_(read_config(config)) {
  // Every tensor of every file, by name (a name in two files is refused, naming both).
  auto file_field = [&](int i) { return files.size() == 1 ? std::string("weights") : "weights[" + std::to_string(i) + "]"; };
  std::map<std::string, const TensorEntry*> by_name;
  for (const auto& f : files) {
    for (const auto& e : f.tensors) {
      const auto [it, added] = by_name.emplace(e.name, &e);
      if (!added) {
        throw_range("weights." + e.name, "weights." + e.name + " is in two of the files, " + file_field(it->second->file) +
                                             " and " + file_field(e.file) + ": pass each shard once");
      }
    }
  }
  // The files' prefix: the one under which the embedding is found (default: the architecture's usual one).
  const bool gpt = config_.arch == Arch::GPT2 || config_.arch == Arch::GPTBigCode;
  const std::vector<std::string> prefixes = gpt ? (config_.arch == Arch::GPT2 ? std::vector<std::string>{"", "transformer."}
                                                                              : std::vector<std::string>{"transformer.", ""})
                                                : std::vector<std::string>{"model.", ""};
  const std::string embed = gpt ? "wte.weight" : "embed_tokens.weight";
  std::string prefix = prefixes[0];
  for (const auto& p : prefixes) {
    if (by_name.count(p + embed)) {
      prefix = p;
      break;
    }
  }
  struct Found { const TensorNeed* need; const TensorEntry* entry; std::string name; };
  const std::vector<TensorNeed> needs = needed_tensors(config_);
  std::vector<Found> found;
  for (const auto& n : needs) {
    const std::string name = (n.prefixed ? prefix : "") + n.name, field = "weights." + name;
    const auto it = by_name.find(name);
    if (it == by_name.end()) {
      throw_type(field, field + " is missing: model_type '" + config_.model_type + "' with this config needs it, " +
                            shape_text(n.shape) + (files.size() > 1 ? " (in none of the " + fmt(double(files.size())) + " files)" : ""));
    }
    const TensorEntry& e = *it->second;
    if (!e.dtype) {
      throw_type(field, field + " has dtype " + e.dtype_name + ": the loader reads F32, F16 and BF16");
    }
    if (e.shape != n.shape) {
      throw_range(field, field + " has shape " + shape_text(e.shape) + ", expected " + shape_text(n.shape) +
                             " from the config");
    }
    found.push_back({&n, &e, name});
    bytes_ += double(e.end - e.begin);
  }
  if (bytes_ > kMaxCheckpointBytes) {
    throw_range("weights", "the checkpoint's tensors take " + fmt(std::ceil(bytes_ / 1048576.0)) +
                               " MiB, more than the " + fmt(kMaxCheckpointBytes / 1048576.0) +
                               " MiB of weights the 4 GiB WebAssembly memory can hold beside its work");
  }
  // The weights of the models (and loaders) still alive count too: a second checkpoint that would not
  // fit beside them is refused here, from the headers alone.
  const double held = held_weight_bytes();
  if (held + bytes_ > kMaxCheckpointBytes) {
    throw_range("weights", "the checkpoint's tensors take " + fmt(std::ceil(bytes_ / 1048576.0)) + " MiB, and the " +
                               fmt(std::ceil(held / 1048576.0)) + " MiB of weights already loaded in this module (models not disposed) " +
                               "leave room for " + fmt(std::floor(std::max(0.0, kMaxCheckpointBytes - held) / 1048576.0)) +
                               " MiB of the " + fmt(kMaxCheckpointBytes / 1048576.0) + " MiB: dispose models you no longer use");
  }
  for (const auto& f : found) {
    const int64_t size = files[std::size_t(f.entry->file)].file_size;
    if (f.entry->end > size) {
      throw_range("weights." + f.name, "weights." + f.name + " ends at byte " + fmt(double(f.entry->end)) +
                                           ", past the end of its file (" + fmt(double(size)) + " bytes): a truncated file");
    }
  }
  // Nothing was allocated until here. The weights count as held from now on (returned when the loader
  // is dropped, or handed to the model by finish()).
  reservation_.set(bytes_);
  config_.tensor_prefix = prefix;
  for (const auto& f : found) {
    StoredTensor t;
    t.dtype = *f.entry->dtype;
    t.shape = f.entry->shape;
    t.size = f.entry->end - f.entry->begin;
    t.bytes = allocate_weights(t.size, "weights." + f.name);
    copies_.push_back({f.name, f.entry->file, f.entry->begin, f.entry->end});
    keys_.push_back(f.need->name);
    tensors_.emplace(f.need->name, std::move(t));
  }
}

uint8_t* CheckpointLoader::destination(std::size_t i) { return tensors_.at(keys_.at(i)).bytes.get(); }

std::unique_ptr<PretrainedModel> CheckpointLoader::finish() {
  for (std::size_t i = 0; i < copies_.size(); ++i) {
    const StoredTensor& t = tensors_.at(keys_[i]);
    const int64_t at = first_non_finite(t.bytes.get(), t.size / dtype_bytes(t.dtype), t.dtype);
    if (at >= 0) {
      throw_range("weights." + copies_[i].name, "weights." + copies_[i].name + " holds a non-finite value (Infinity or NaN) at element " +
                                                    fmt(double(at)));
    }
  }
  copies_.clear();
  keys_.clear();
  auto model = std::make_unique<PretrainedModel>(config_, std::move(tensors_));
  reservation_.set(0);  // the model holds them now
  return model;
}

}  // namespace attn::pretrained
