// train/hf_checkpoint.hpp — a trained model saved as a Hugging Face checkpoint, which the checkpoint
// loader (pretrained/), PyTorch and `transformers` open as they open a model from the Hub.
//
// Block 'llama' is written as LlamaForCausalLM (reference/hf-models.md, "llama"):
//   config.json        model_type "llama", hidden_size D, intermediate_size F, num_attention_heads H,
//                      num_key_value_heads G, head_dim dh, num_hidden_layers L, rms_norm_eps,
//                      rope_theta, vocab_size V, max_position_embeddings (the trainer's seqLen),
//                      tie_word_embeddings, hidden_act "silu", attention_bias / mlp_bias false
//   model.safetensors  float32 (or float16 on request), names and layouts of HF (nn.Linear weights (out, in): the trainer's
//                      (in, out) matrices transposed):
//     model.embed_tokens.weight                     (V, D)     wte
//     model.layers.i.input_layernorm.weight         (D)        ln1
//     model.layers.i.self_attn.q_proj.weight        (H*dh, D)  wq^T     k_proj, v_proj (G*dh, D)
//     model.layers.i.self_attn.o_proj.weight        (D, H*dh)  wo^T
//     model.layers.i.post_attention_layernorm.weight (D)       ln2
//     model.layers.i.mlp.gate_proj.weight           (F, D)     w_gate^T  up_proj (F, D), down_proj (D, F)
//     model.norm.weight                             (D)        lnf
//     lm_head.weight                                (V, D)     unembed^T (absent when tied)
//   The file: u64 little-endian header length, the JSON header ({"__metadata__": {"format": "pt"}},
//   tensors sorted by name, offsets contiguous), space padding to a multiple of 8, the data.
//
// Block 'deepseek' is written as DeepseekV2ForCausalLM, every layer dense (reference/hf-models.md,
// "deepseek_v2"): config.json model_type "deepseek_v2", as above (num_key_value_heads = H, no head_dim)
// plus q_lora_rank (null: none), kv_lora_rank r, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
// first_k_dense_replace = num_hidden_layers, n_routed_experts null; the attention's tensors
// (prefix model.layers.i.self_attn.):
//     q_proj.weight (H*(nope+dr), D) wq^T, per head [nope | rope]   (q_lora_rank null), or
//     q_a_proj.weight (qr, D) wq_a^T, q_a_layernorm.weight (qr), q_b_proj.weight (H*(nope+dr), qr) wq_b^T
//     kv_a_proj_with_mqa.weight (r + dr, D) wkv_a^T: [latent | k_pe];  kv_a_layernorm.weight (r)
//     kv_b_proj.weight (H*(nope+dv), r) wkv_b^T, per head [k_nope | v];  o_proj.weight (D, H*dv) wo^T
// The GPT-style block (LayerNorm, learned positions, no RoPE, the tanh form of GELU, d_head = D / H)
// is written as GPT2LMHeadModel with MHA, as GPTBigCodeForCausalLM (multi_query true) with MQA
// (reference/hf-models.md, "gpt2", "gpt_bigcode"): config.json n_embd, n_head, n_layer, n_positions
// (the trainer's seqLen), n_inner 4 D, vocab_size, activation_function (gelu_new, gelu_pytorch_tanh),
// layer_norm_epsilon 1e-5, tie_word_embeddings; tensors (prefix transformer.): wte.weight (V, D),
// wpe.weight (N, D), h.i.ln_1 / ln_2 .weight, .bias (D), ln_f.weight, .bias (D), lm_head.weight (V, D)
// when untied, and per layer
//     gpt2 (Conv1D, (in, out)):  attn.c_attn.weight (D, 3D) [wq | wk | wv], attn.c_proj.weight (D, D) wo,
//                                mlp.c_fc.weight (D, 4D) w1, mlp.c_proj.weight (4D, D) w2
//     gpt_bigcode (nn.Linear, (out, in)): attn.c_attn.weight (D + 2 dh, D) [wq | wk | wv]^T,
//                                attn.c_proj.weight (D, D) wo^T, mlp.c_fc.weight (4D, D), mlp.c_proj.weight (D, 4D)
// and their biases (the attention's zero: the block has none; a model without the MLP has a zero MLP,
// whose output is 0, as its LayerNorm's).
// The trainer's tokens are the vocabulary's ids as they are: no tokenizer is written here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/train/model.hpp"

namespace attn::train {

struct HfCheckpoint {
  std::string config_json;            // config.json
  std::vector<uint8_t> safetensors;   // model.safetensors
};

// The model_type a model is saved as: "llama", "deepseek_v2", "gpt2" or "gpt_bigcode". Throws
// (attn::Error naming the field) for a GPT-style model no Hugging Face architecture computes: GQA or
// MLA (model.variant), RoPE (model.rope), no LayerNorm (model.layerNorm), ReLU (model.activation), or
// d_head other than D / H (model.dHead).
std::string hf_model_type(const ModelConfig& c);

// float16: the tensors as F16 and torch_dtype "float16" (half the bytes: the zoo ships these), else F32.
// input_symbols: where the model's task reads only the vocabulary's first ids (the pairs task: A of
// A^2 ids, the rest only ever targets), how many; config.json then says so as "input_vocab_size" (an
// extra key, which transformers keeps as an attribute), so that a viewer draws its probes from those
// ids. 0, or the whole vocabulary: no such key. Throws as hf_model_type.
HfCheckpoint export_hf_checkpoint(const Model& model, bool float16 = false, int64_t input_symbols = 0);

// The tokenizer.json of a 'chars' model: the Hugging Face tokenizers' BPE model without merges and
// without a normalizer or pre-tokenizer, whose vocabulary is the model's alphabet (id -> Unicode code
// point, as the chars task numbers it: tasks.hpp, alphabet()). Each character of a text is then its own
// token, with the id the model was trained on; a character outside the alphabet has no id (the
// tokenizers drop it). Throws (attn::Error, field "alphabet") for an empty alphabet.
std::string char_tokenizer_json(const std::vector<uint32_t>& alphabet);

}  // namespace attn::train
