// train/hf_checkpoint.cpp — a trained model (Llama, DeepSeek-V2 or the GPT-style block) as config.json and
// model.safetensors (see hf_checkpoint.hpp).
#include "attn/train/hf_checkpoint.hpp"

#include <cstring>
#include <map>

#include <nlohmann/json.hpp>

#include "attn/errors.hpp"
#include "attn/train/tasks.hpp"
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

// (rows, cols) side by side: [a | b | c] along the columns.
Matrix columns_of(const std::vector<const Matrix*>& parts) {
  const int64_t rows = int64_t(parts[0]->shape(0));
  int64_t cols = 0;
  for (const Matrix* p : parts) cols += int64_t(p->shape(1));
  Matrix out = zeros(rows, cols);
  int64_t at = 0;
  for (const Matrix* p : parts) {
    const int64_t w = int64_t(p->shape(1));
    for (int64_t r = 0; r < rows; ++r) std::memcpy(out.data() + r * cols + at, p->data() + r * w, sizeof(float) * std::size_t(w));
    at += w;
  }
  return out;
}

HfTensor zero_vector(int64_t n) { return {{n}, std::vector<float>(std::size_t(n), 0.0f)}; }

// The GPT-style block: GPT2LMHeadModel (MHA) or GPTBigCodeForCausalLM (MQA), hf_checkpoint.hpp.
HfCheckpoint export_gpt(const Model& model, const std::string& type, bool float16) {
  const ModelConfig& c = model.config();
  const Shape& s = c.attn;
  const int64_t d = s.d, f = 4 * d, kv = s.g * s.dh;
  const bool bigcode = type == "gpt_bigcode";
  Json config = {{"architectures", {bigcode ? "GPTBigCodeForCausalLM" : "GPT2LMHeadModel"}}, {"model_type", type},
                 {"n_embd", d}, {"n_head", s.h}, {"n_layer", c.n_layers}, {"n_positions", s.n}, {"n_inner", f},
                 {"vocab_size", c.vocab}, {"activation_function", bigcode ? "gelu_pytorch_tanh" : "gelu_new"},
                 {"layer_norm_epsilon", 1e-5}, {"scale_attn_weights", true}, {"tie_word_embeddings", c.tied}};
  if (bigcode) config["multi_query"] = true;
  config["torch_dtype"] = float16 ? "float16" : "float32";
  // gpt2's Conv1D keeps (in, out), the trainer's layout; gpt_bigcode's nn.Linear (out, in)
  auto weight = [&](const Matrix& w) { return bigcode ? linear_weight(w) : as_is(w); };
  std::map<std::string, HfTensor> t;
  t["transformer.wte.weight"] = as_is(model.token_embedding());
  t["transformer.wpe.weight"] = as_is(model.position_embedding());
  for (int64_t l = 0; l < c.n_layers; ++l) {
    const Layer& L = model.gpt_layer(l);
    const std::string p = "transformer.h." + std::to_string(l) + ".";
    t[p + "ln_1.weight"] = vector_of(L.ln1_g);
    t[p + "ln_1.bias"] = vector_of(L.ln1_b);
    t[p + "attn.c_attn.weight"] = weight(columns_of({&L.attn.wq, &L.attn.wk, &L.attn.wv}));  // (D, D + 2 G dh)
    t[p + "attn.c_attn.bias"] = zero_vector(d + 2 * kv);
    t[p + "attn.c_proj.weight"] = weight(L.attn.wo);
    t[p + "attn.c_proj.bias"] = zero_vector(d);
    t[p + "ln_2.weight"] = vector_of(L.ln2_g);
    t[p + "ln_2.bias"] = vector_of(L.ln2_b);
    if (c.mlp) {
      t[p + "mlp.c_fc.weight"] = weight(L.mlp.w1);
      t[p + "mlp.c_fc.bias"] = vector_of(L.mlp.b1);
      t[p + "mlp.c_proj.weight"] = weight(L.mlp.w2);
      t[p + "mlp.c_proj.bias"] = vector_of(L.mlp.b2);
    } else {  // no MLP: a zero one, whose output is 0
      t[p + "mlp.c_fc.weight"] = weight(zeros(d, f));
      t[p + "mlp.c_fc.bias"] = zero_vector(f);
      t[p + "mlp.c_proj.weight"] = weight(zeros(f, d));
      t[p + "mlp.c_proj.bias"] = zero_vector(d);
    }
  }
  t["transformer.ln_f.weight"] = vector_of(model.final_norm());
  t["transformer.ln_f.bias"] = vector_of(model.final_norm_bias());
  if (!c.tied) t["lm_head.weight"] = linear_weight(model.unembedding());  // (V, D)
  return {config.dump(2) + "\n", safetensors_file(t, float16)};
}

}  // namespace

std::string hf_model_type(const ModelConfig& c) {
  if (c.block == Block::Llama) return "llama";
  if (c.block == Block::Deepseek) return "deepseek_v2";
  const Shape& s = c.attn;
  const std::string why = " (GPT2LMHeadModel, GPTBigCodeForCausalLM) compute; it would not open as the model it is";
  if (s.variant != Variant::MHA && s.variant != Variant::MQA) {
    throw_range("model.variant", "variant ('" + std::string(variant_name(s.variant)) + "') of the GPT-style block is not saved as a "
                "Hugging Face checkpoint: only MHA and MQA are what its architectures" + why);
  }
  if (s.rope) throw_range("model.rope", "rope (true) is not saved as a Hugging Face checkpoint of the GPT-style block: "
                                        "learned positions only are what its architectures" + why);
  if (!c.layer_norm) throw_range("model.layerNorm", "layerNorm (false) is not saved as a Hugging Face checkpoint: "
                                                    "LayerNorms are what its architectures" + why);
  if (c.mlp && c.activation != Activation::Gelu) {
    throw_range("model.activation", "activation ('relu') is not saved as a Hugging Face checkpoint: the tanh form of GELU is "
                                    "what its architectures" + why);
  }
  if (s.dh * s.h != s.d) {
    throw_range("model.dHead", "dHead (" + fmt(double(s.dh)) + ") is not saved as a Hugging Face checkpoint: dModel / nHeads (" +
                fmt(double(s.d / s.h)) + ") is what its architectures" + why);
  }
  return s.variant == Variant::MHA ? "gpt2" : "gpt_bigcode";
}

namespace {

HfCheckpoint export_any(const Model& model, bool float16) {
  const ModelConfig& c = model.config();
  const std::string type = hf_model_type(c);
  if (c.block == Block::Deepseek) return export_deepseek(model, float16);
  if (c.block == Block::Gpt) return export_gpt(model, type, float16);
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

}  // namespace

HfCheckpoint export_hf_checkpoint(const Model& model, bool float16, int64_t input_symbols) {
  HfCheckpoint ck = export_any(model, float16);
  const int64_t vocab = model.config().vocab;
  if (input_symbols < 0 || input_symbols > vocab)
    throw_range("vocabSize", "input_symbols (" + fmt(double(input_symbols)) + ") is not between 0 and the vocabulary's " + fmt(double(vocab)));
  if (input_symbols > 0 && input_symbols < vocab) {
    Json config = Json::parse(ck.config_json);
    config["input_vocab_size"] = input_symbols;
    ck.config_json = config.dump(2) + "\n";
  }
  return ck;
}

std::string char_tokenizer_json(const std::vector<uint32_t>& alphabet) {
  if (alphabet.empty()) throw_range("alphabet", "a character tokenizer needs at least one character; the alphabet is empty");
  Json vocab = Json::object();
  for (std::size_t id = 0; id < alphabet.size(); ++id) vocab[encode_utf8({alphabet[id]})] = id;
  const Json model = {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", nullptr},
                      {"end_of_word_suffix", nullptr}, {"fuse_unk", false}, {"byte_fallback", false},
                      {"ignore_merges", false}, {"vocab", vocab}, {"merges", Json::array()}};
  const Json tokenizer = {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}, {"added_tokens", Json::array()},
                          {"normalizer", nullptr}, {"pre_tokenizer", nullptr}, {"post_processor", nullptr},
                          {"decoder", nullptr}, {"model", model}};
  return tokenizer.dump(2) + "\n";
}

}  // namespace attn::train
