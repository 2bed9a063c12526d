// train/hf_checkpoint.cpp — a Llama or DeepSeek-V2 model as config.json and model.safetensors (see hf_checkpoint.hpp).
#include "attn/train/hf_checkpoint.hpp"

#include <cstring>
#include <map>

#include <nlohmann/json.hpp>

#include "attn/errors.hpp"
#include "attn/half.hpp"

namespace attn::train {

namespace {

// One tensor of the file: its HF shape and values (row-major float32), already in HF's layout.
struct HfTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

// A (1, D) gain as the 1-D tensor (D).
HfTensor vector_of(const Matrix& m) {
  return {{int64_t(m.size())}, std::vector<float>(m.data(), m.data() + m.size())};
}

// A matrix as stored: (rows, cols) as it is.
HfTensor as_is(const Matrix& m) {
  return {{int64_t(m.shape(0)), int64_t(m.shape(1))}, std::vector<float>(m.data(), m.data() + m.size())};
}

// The trainer's (in, out) matrix as nn.Linear's weight (out, in).
HfTensor linear_weight(const Matrix& w) {
  const int64_t in = int64_t(w.shape(0)), out = int64_t(w.shape(1));
  HfTensor t{{out, in}, std::vector<float>(std::size_t(in * out))};
  for (int64_t i = 0; i < in; ++i)
    for (int64_t o = 0; o < out; ++o) t.values[std::size_t(o * in + i)] = w.data()[i * out + o];
  return t;
}

// float16: every tensor as F16 (round to nearest even, half.hpp), else F32.
std::vector<uint8_t> safetensors_file(const std::map<std::string, HfTensor>& tensors, bool float16) {
  const std::size_t width = float16 ? 2 : 4;
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  header["__metadata__"] = {{"format", "pt"}};
  std::size_t at = 0;
  for (const auto& [name, t] : tensors) {  // std::map: sorted by name
    const std::size_t bytes = width * t.values.size();
    header[name] = {{"dtype", float16 ? "F16" : "F32"}, {"shape", t.shape}, {"data_offsets", {at, at + bytes}}};
    at += bytes;
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  std::vector<uint8_t> out(8 + json.size() + at);
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = uint8_t(uint64_t(json.size()) >> (8 * i));
  std::memcpy(out.data() + 8, json.data(), json.size());
  uint8_t* data = out.data() + 8 + json.size();
  for (const auto& [name, t] : tensors) {  // little-endian hosts (x86, wasm)
    if (float16) {
      for (float v : t.values) {
        const uint16_t h = f32_to_f16(v);
        std::memcpy(data, &h, 2);
        data += 2;
      }
    } else {
      std::memcpy(data, t.values.data(), 4 * t.values.size());
      data += 4 * t.values.size();
    }
  }
  return out;
}

// config.json: what every block writes alike, in this order, around the architecture's own fields
// (`head` after model_type, `middle` after num_hidden_layers, `tail` before torch_dtype).
using Json = nlohmann::ordered_json;
Json common_config(const ModelConfig& c, const char* architecture, const char* model_type, double rope_theta,
                   const Json& head, const Json& middle, const Json& tail, bool float16) {
  Json config = {{"architectures", {architecture}}, {"model_type", model_type}};
  auto add = [&](const Json& fields) {
    for (const auto& [k, v] : fields.items()) config[k] = v;
  };
  add(head);
  config["num_hidden_layers"] = c.n_layers;
  add(middle);
  add(Json{{"rms_norm_eps", c.norm_eps}, {"rope_theta", rope_theta}, {"rope_scaling", nullptr}, {"vocab_size", c.vocab},
           {"max_position_embeddings", c.attn.n}, {"tie_word_embeddings", c.tied}, {"hidden_act", "silu"},
           {"attention_bias", false}});
  add(tail);
  config["torch_dtype"] = float16 ? "float16" : "float32";
  return config;
}

// model.embed_tokens, model.norm, lm_head (untied), and per layer the two norms and the SwiGLU MLP.
template <typename Layer>
void common_tensors(const Model& model, const Layer& (Model::*layer)(int64_t) const, std::map<std::string, HfTensor>& t) {
  const ModelConfig& c = model.config();
  t["model.embed_tokens.weight"] = as_is(model.token_embedding());
  for (int64_t l = 0; l < c.n_layers; ++l) {
    const Layer& L = (model.*layer)(l);
    const std::string p = "model.layers." + std::to_string(l) + ".";
    t[p + "input_layernorm.weight"] = vector_of(L.attn_norm);
    t[p + "post_attention_layernorm.weight"] = vector_of(L.mlp_norm);
    t[p + "mlp.gate_proj.weight"] = linear_weight(L.mlp.w_gate);
    t[p + "mlp.up_proj.weight"] = linear_weight(L.mlp.w_up);
    t[p + "mlp.down_proj.weight"] = linear_weight(L.mlp.w_down);
  }
  t["model.norm.weight"] = vector_of(model.final_norm());
  if (!c.tied) t["lm_head.weight"] = linear_weight(model.unembedding());
}

// Block 'deepseek': DeepseekV2ForCausalLM with every layer dense.
HfCheckpoint export_deepseek(const Model& model, bool float16) {
  const ModelConfig& c = model.config();
  const MlaDims m = mla_dims(c);
  const Json config = common_config(c, "DeepseekV2ForCausalLM", "deepseek_v2", m.base,
      {{"hidden_size", m.d}, {"intermediate_size", c.ffn}, {"num_attention_heads", m.h}, {"num_key_value_heads", m.h}},
      {{"q_lora_rank", m.qr > 0 ? Json(m.qr) : Json(nullptr)},
       {"kv_lora_rank", m.r},
       {"qk_nope_head_dim", m.nope},
       {"qk_rope_head_dim", m.dr},
       {"v_head_dim", m.dv},
       {"first_k_dense_replace", c.n_layers},  // every layer dense
       {"n_routed_experts", nullptr}},
      Json::object(), float16);
  std::map<std::string, HfTensor> t;
  common_tensors(model, &Model::deepseek_layer, t);
  for (int64_t l = 0; l < c.n_layers; ++l) {
    const MlaParams& a = model.deepseek_layer(l).attn;
    const std::string p = "model.layers." + std::to_string(l) + ".self_attn.";
    if (m.qr == 0) {
      t[p + "q_proj.weight"] = linear_weight(a.wq);                    // (H*dqk, D)
    } else {
      t[p + "q_a_proj.weight"] = linear_weight(a.wq_a);                // (qr, D)
      t[p + "q_a_layernorm.weight"] = vector_of(a.q_a_norm);          // (qr)
      t[p + "q_b_proj.weight"] = linear_weight(a.wq_b);                // (H*dqk, qr)
    }
    t[p + "kv_a_proj_with_mqa.weight"] = linear_weight(a.wkv_a);       // (r + dr, D)
    t[p + "kv_a_layernorm.weight"] = vector_of(a.kv_a_norm);          // (r)
    t[p + "kv_b_proj.weight"] = linear_weight(a.wkv_b);                // (H*(nope+dv), r)
    t[p + "o_proj.weight"] = linear_weight(a.wo);                      // (D, H*dv)
  }
  return {config.dump(2) + "\n", safetensors_file(t, float16)};
}

}  // namespace

HfCheckpoint export_hf_checkpoint(const Model& model, bool float16) {
  const ModelConfig& c = model.config();
  if (c.block == Block::Deepseek) return export_deepseek(model, float16);
  if (c.block != Block::Llama) {
    throw_range("model.block", "only block 'llama' and 'deepseek' models are saved as Hugging Face checkpoints "
                               "(LlamaForCausalLM, DeepseekV2ForCausalLM); this model has the GPT-style block");
  }
  const Shape& s = c.attn;
  const Json config = common_config(c, "LlamaForCausalLM", "llama", s.rope_base,
      {{"hidden_size", s.d}, {"intermediate_size", c.ffn}, {"num_attention_heads", s.h}, {"num_key_value_heads", s.g},
       {"head_dim", s.dh}},
      Json::object(), {{"mlp_bias", false}}, float16);
  std::map<std::string, HfTensor> t;
  common_tensors(model, &Model::llama_layer, t);
  for (int64_t l = 0; l < c.n_layers; ++l) {
    const Weights& a = model.llama_layer(l).attn;
    const std::string p = "model.layers." + std::to_string(l) + ".self_attn.";
    t[p + "q_proj.weight"] = linear_weight(a.wq);
    t[p + "k_proj.weight"] = linear_weight(a.wk);
    t[p + "v_proj.weight"] = linear_weight(a.wv);
    t[p + "o_proj.weight"] = linear_weight(a.wo);
  }
  return {config.dump(2) + "\n", safetensors_file(t, float16)};
}

}  // namespace attn::train
