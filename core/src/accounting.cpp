// accounting.cpp — parameter counts, KV-cache bytes and presets (see accounting.hpp).
#include "attn/accounting.hpp"

#include <cmath>

#include "attn/attention.hpp"
#include "attn/weights.hpp"

namespace attn {

ParamCount param_count(const Shape& s) {
  ParamCount p;
  for (const auto& slot : weight_slots(s)) {
    const double n = double(slot.rows) * double(slot.cols);
    const std::string name = slot.name;
    if (name == "wq") p.wq = n;
    else if (name == "wk") p.wk = n;
    else if (name == "wv") p.wv = n;
    else if (name == "wo") p.wo = n;
    else if (name == "wDkv") p.w_dkv = n;
    else if (name == "wUk") p.w_uk = n;
    else if (name == "wUv") p.w_uv = n;
    else if (name == "wQr") p.w_qr = n;
    else if (name == "wKr") p.w_kr = n;
    p.total += n;
  }
  return p;
}

double model_params(const Shape& s, int64_t n_layers, double vocab) {
  const double d = double(s.d);
  return double(n_layers) * (param_count(s).total + 8.0 * d * d) + vocab * d;
}

Shape preset_shape(const Preset& p) {
  Shape s;
  s.variant = p.variant;
  s.d = p.d_model;
  s.h = p.n_heads;
  s.g = p.n_kv_heads;
  s.dh = p.d_head;
  s.r = p.latent_rank;
  s.dr = p.rope_dim;
  return s;
}

double kv_elements_per_token_per_layer(Variant v, int64_t h, int64_t g, int64_t dh, int64_t r, int64_t dr) {
  switch (v) {
    case Variant::MHA: return 2.0 * double(h) * double(dh);
    case Variant::GQA: return 2.0 * double(g) * double(dh);
    case Variant::MQA: return 2.0 * double(dh);
    case Variant::MLA: return double(r) + double(dr);
  }
  return 0;
}

double kv_cache_floats_per_token(const Shape& s) {
  return kv_elements_per_token_per_layer(s.variant, s.h, s.g, s.dh, s.r, s.dr);
}

double attention_flops(const Shape& s, int64_t n, int64_t cached, bool causal) {
  const double N = double(n), D = double(s.d), H = double(s.h), dh = double(s.dh);
  const double pairs = causal ? N * double(cached) + N * (N + 1) / 2 : N * (double(cached) + N);
  if (s.variant == Variant::MLA) {
    const double r = double(s.r), dr = double(s.dr);
    // x W_dkv, c W_uk, c W_uv, x wq, x W_qr, x W_kr, o wo; scores over dh + dr, p @ v over dh
    const double proj = 2 * N * (D * r + 2 * r * H * dh + D * H * dh + D * H * dr + D * dr + H * dh * D);
    return proj + 2 * H * pairs * (dh + dr) + 2 * H * pairs * dh;
  }
  const double G = double(s.g);
  const double proj = 2 * N * D * (H * dh + 2 * G * dh) + 2 * N * H * dh * D;
  return proj + 2 * H * pairs * dh * 2;
}


// From reference/models.md. Traps handled: Llama 2 7B has 32 KV heads (HF config, not Meta's sku
// list); Llama 3.1 405B has 8 (the "mp16" 16 is a sharding artefact); Falcon-7B is MQA with 1 KV
// head (derived configs say 71); DeepSeek-V3's num_key_value_heads (128) does not describe its
// latent cache; PaLM 540B and explicit head_dim models have dHead != dModel / nHeads.
// For MLA presets nKvHeads = nHeads (the heads K and V decompress to); dHead is qk_nope = v_head.
const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = {
      {"gpt2-small", "GPT-2 small", "HF openai-community/gpt2 config", "", Variant::MHA, 768, 12, 12, 64, 12},
      {"bert-base", "BERT-base", "HF google-bert/bert-base-uncased", "encoder only: no decode cache", Variant::MHA, 768, 12, 12, 64, 12},
      {"t5-base", "T5-base", "HF google-t5/t5-base", "12 encoder + 12 decoder layers; nLayers counts the decoder's self-attention cache (cross-attention adds its own)", Variant::MHA, 768, 12, 12, 64, 12},
      {"llama-2-7b", "Llama 2 7B", "HF meta-llama/Llama-2-7b-hf", "32 KV heads per the HF config (Meta's sku list says 8)", Variant::MHA, 4096, 32, 32, 128, 32},
      {"llama-2-70b", "Llama 2 70B", "HF meta-llama/Llama-2-70b-hf", "", Variant::GQA, 8192, 64, 8, 128, 80},
      {"llama-3-8b", "Llama 3 8B", "HF meta-llama/Meta-Llama-3-8B", "", Variant::GQA, 4096, 32, 8, 128, 32},
      {"llama-3-70b", "Llama 3 70B", "HF meta-llama/Meta-Llama-3-70B", "", Variant::GQA, 8192, 64, 8, 128, 80},
      {"llama-3.1-405b", "Llama 3.1 405B", "meta-llama/llama-models sku list", "8 KV heads (the mp16 entry's 16 is a sharding artefact)", Variant::GQA, 16384, 128, 8, 128, 126},
      {"mistral-7b", "Mistral 7B", "mistralai/Mistral-7B-v0.1", "sliding window 4096 caps the cache in practice", Variant::GQA, 4096, 32, 8, 128, 32},
      {"qwen2-7b", "Qwen2-7B", "Qwen/Qwen2-7B config", "", Variant::GQA, 3584, 28, 4, 128, 28},
      {"qwen2.5-72b", "Qwen2.5-72B", "Qwen/Qwen2-72B family config", "", Variant::GQA, 8192, 64, 8, 128, 80},
      {"falcon-7b", "Falcon-7B", "tiiuae/falcon-7b", "multi-query: 1 KV head (derived configs say 71)", Variant::MQA, 4544, 71, 1, 64, 32},
      {"falcon-40b", "Falcon-40B", "tiiuae/falcon-40b", "", Variant::GQA, 8192, 128, 8, 64, 60},
      {"palm-540b", "PaLM 540B", "PaLM paper, Table 1", "dHead 256 is not dModel / nHeads", Variant::MQA, 18432, 48, 1, 256, 118},
      {"deepseek-v2", "DeepSeek-V2", "DeepSeek-V2 report; deepseek-ai config_236B", "q_lora_rank 1536", Variant::MLA, 5120, 128, 128, 128, 60, 512, 64},
      {"deepseek-v2-lite", "DeepSeek-V2-Lite", "DeepSeek-V2 report; config_16B", "no query compression", Variant::MLA, 2048, 16, 16, 128, 27, 512, 64},
      {"deepseek-v3", "DeepSeek-V3", "DeepSeek-V3 config_671B", "num_key_value_heads: 128 in the config does not describe the latent cache; q_lora_rank 1536", Variant::MLA, 7168, 128, 128, 128, 61, 512, 64},
  };
  return table;
}

namespace {
double weight_floats(const Shape& s) {
  double total = 0;
  for (const auto& slot : weight_slots(s)) total += double(slot.rows) * double(slot.cols);
  return total;
}
}  // namespace

// Counted generously: weights twice (given + packed), the projections, the attention output,
// the scores of one query block, and the (H, N, N) weights when they are returned.
double forward_work_bytes(const Shape& s) {
  const double n = double(s.n), h = double(s.h);
  const double per_token = 2.0 * double(s.d) + 3.0 * h * double(s.d_qk() + s.dh + s.r) + double(s.r + s.dr);
  double floats = 2.0 * weight_floats(s) + n * per_token + double(kQueryBlock) * n * h;
  if (s.return_weights) floats += h * n * n;
  return 4.0 * floats;
}

double session_work_bytes(const Shape& s, int64_t new_tokens) {
  const double cache_row = kv_cache_floats_per_token(s);
  const double len = double(s.max_len);
  const double k = double(new_tokens);
  const double per_token = 2.0 * double(s.d) + 3.0 * double(s.h) * double(s.d_qk() + s.dh + s.r);
  double floats = 2.0 * weight_floats(s) + len * cache_row + k * per_token + double(s.h) * k * len;
  return 4.0 * floats;
}

}  // namespace attn
