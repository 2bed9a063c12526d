// decoder_layer.hpp — one pre-norm block of a checkpoint: x += attention(norm1(x)); x += mlp(norm2(x)).
//
// Attention is the lesson's block for every architecture, on the layer's Shape (ModelConfig::shape():
// G = num_key_value_heads, the scale, the sliding window): grouped_block_rows (grouped_block.hpp) or,
// decoding MLA, latent_block_rows (latent_block.hpp), over the lesson's LayerCache; what makes the rows
// from the checkpoint's weights is decoder_layer.cpp's GroupedRows / AbsorbedRows:
//   grouped (MHA / MQA / GQA; gpt2, gpt_bigcode, llama, mistral, qwen2, qwen3):
//     q = x Wq (+ b), k, v = x Wk, x Wv (+ b)   q (N, H*dh), k, v (N, G*dh), k and v straight into the cache
//                                          (three views of a fused [q | k | v] tensor in gpt2, gpt_bigcode)
//     q_h, k_g <- rmsnorm per head (qwen3), then RoPE (rotate-half) on every head
//     (the new k, v rows are the layer's cache rows pos0 .. pos0 + N: grouped_block_rows)
//     o = attend(q, k_cache, v_cache)      causal, a sliding window for mistral; (N, H*dh)
//   latent (MLA, DeepSeek-V2), per head h, dqk = nope + rope:
//     q = x Wq, or q_b(rmsnorm(q_a(x)))    (N, H*dqk), per head [q_nope | q_pe]
//     [c | k_pe] = x Wkv_a (+ b)           c <- rmsnorm(c) (N, r), k_pe (N, rope) shared by all heads
//     q_pe, k_pe <- RoPE on adjacent pairs (DeepSeek's layout), times YaRN's attention factor
//     naive (forward):   [k_nope_h | v_h] = c Wkv_b[h]  ->  attend over [q_nope_h | q_pe_h], [k_nope_h | k_pe], v_h
//     absorbed (decode): q~_h = q_nope_h W_uk_h (N, r)  ->  attend one shared head [c | k_pe] with values c,
//                        then v_h = o~_h W_uv_h^T; the cache holds [c | k_pe] only (r + rope floats a token)
//   out = o Wo (+ b), computed on its own, then added to x.
// The shape legend: N new rows, S cached rows (pos0 + N), H heads, G K/V heads, dh head_dim, r kv_lora_rank.
#pragma once

#include <cstdint>

#include "attn/pretrained/config.hpp"
#include "attn/pretrained/layer_stages.hpp"
#include "attn/pretrained/mlp.hpp"
#include "attn/pretrained/norms.hpp"
#include "attn/layer_cache.hpp"
#include "attn/tensor.hpp"

namespace attn::pretrained {

struct LayerWeights {
  Norm attn_norm, mlp_norm;
  // grouped attention: q, k, v (a fused [q | k | v] tensor, gpt2's and gpt_bigcode's, is read as
  // three views of its columns or rows: fused_qkv)
  Linear q, k, v;
  bool fused_qkv = false;
  Norm q_norm, k_norm;         // qwen3
  // latent attention (MLA)
  Linear q_a, q_b, kv_a, kv_b; // q_a / q_b with query compression, else q
  Norm q_a_norm, kv_a_norm;
  Linear o;
  MlpWeights mlp;
};

// One layer's KV cache is the lesson's (layer_cache.hpp), sized from c.shape(): K and V (maxLen,
// G*dh) each, or MLA's [c | k_pe] (maxLen, kv_lora_rank + qk_rope_head_dim).
using attn::LayerCache;

// x (N, D), the residual stream at positions pos0 .. pos0 + N - 1, updated in place. The new rows'
// keys and values go to `cache` at rows pos0 ..; the attention reads its rows [0, pos0 + N). `maps`:
// null, or (H, N, pos0 + N) for the softmax weights. MLA runs the absorbed form (decoding with a cache).
void decoder_layer(const ModelConfig& c, const LayerWeights& w, Matrix& x, int64_t pos0, LayerCache& cache, float* maps);

// The same over one whole sequence without a cache (x at positions 0 .. N-1): MLA runs the naive form,
// decompressing K and V; the grouped attention keeps its K and V in a cache of N rows. `rec`: null, or
// the record that keeps every stage of the attention as it is computed (layer_stages.hpp).
void decoder_layer_sequence(const ModelConfig& c, const LayerWeights& w, Matrix& x, float* maps,
                            StageRecord* rec = nullptr);

}  // namespace attn::pretrained
