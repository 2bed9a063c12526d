// config.hpp — a Hugging Face `config.json`, read and checked into the geometry and the choices of one
// decoder (facts per architecture, with their sources: reference/hf-models.md).
//
// Every key is accounted for: keys that change the computation are read (and refused when they ask
// for something this loader does not compute: a mixture-of-experts layer, an activation it lacks, an
// active sliding window on qwen2/qwen3, an unknown RoPE type), keys known not to change it (token ids,
// dropout, generation settings, bookkeeping) are accepted, and any other key is refused, so that a
// checkpoint is never run with a setting silently ignored. Errors name the key as "config.<key>".
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "attn/rope.hpp"
#include "attn/shape.hpp"

namespace attn::pretrained {

enum class Arch { GPT2, GPTBigCode, Llama, Mistral, Qwen2, Qwen3, DeepseekV2 };
enum class NormKind { LayerNorm, RMSNorm };
enum class MlpKind { GeluTanh, SwiGLU };  // fc -> gelu (tanh form) -> proj  |  down(silu(gate) * up)

struct ModelConfig {
  Arch arch = Arch::Llama;
  std::string model_type;
  std::string tensor_prefix;        // the files' prefix of the base model's tensors ("model.", "transformer.", "")
  int64_t n_layers = 0, d_model = 0, vocab = 0, intermediate = 0;
  int64_t n_heads = 0, n_kv_heads = 0, head_dim = 0;   // MLA: n_kv_heads = heads, head_dim = nope + rope
  int64_t n_positions = 0;          // learned position embeddings (gpt2, gpt_bigcode); 0 with RoPE
  NormKind norm = NormKind::RMSNorm;
  double norm_eps = 1e-6;
  MlpKind mlp = MlpKind::SwiGLU;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  bool qk_norm = false;             // qwen3: RMSNorm per head on q and k before RoPE
  int64_t sliding_window = 0;       // mistral: a query sees its last `sliding_window` keys; 0: all
  bool tied = false;                // logits from the input embedding (no lm_head.weight)
  float softmax_scale = 1.0f;
  bool rope = false;                // rotary positions (all but gpt2 / gpt_bigcode)
  RopeFrequencies rope_freqs;       // over rope_dim() (adjacent pairs for DeepSeek)
  // multi-head latent attention (deepseek_v2)
  bool mla = false;
  int64_t q_lora_rank = 0;          // 0: q_proj; else q_a_proj -> q_a_layernorm -> q_b_proj
  int64_t kv_lora_rank = 0, qk_nope = 0, qk_rope = 0, v_head_dim = 0;

  int64_t rope_dim() const { return mla ? qk_rope : head_dim; }
  int64_t d_v() const { return mla ? v_head_dim : head_dim; }           // value width per head
  // Floats one token adds to one layer's KV cache: K and V of G heads, or MLA's latent and RoPE key
  // (the lesson's accounting of shape()).
  int64_t cache_floats_per_token() const;
  const char* variant() const;      // "mha" | "mqa" | "gqa" | "mla"
  // The lesson's Shape of one layer's attention (shape.hpp): the variant, D, H, G (MLA: H), dHead (MLA:
  // qk_nope), latentRank and ropeDim (MLA); causal, with the softmax scale and sliding window. Which
  // K/V head a query head reads (kv_head_of), the cache per token and the attention over the cache
  // (the decoder layer's) are the lesson's, from this shape.
  attn::Shape shape() const;
};

// `config`: the parsed config.json. Throws attn::Error naming "config.<key>".
ModelConfig read_config(const nlohmann::json& config);

}  // namespace attn::pretrained
