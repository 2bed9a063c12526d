// layer_stages.hpp — one layer's attention of a checkpoint, stage by stage, as its forward computes it.
//
// decoder_layer_sequence (decoder_layer.hpp) takes an optional StageRecord (the core's, stage_record.hpp)
// and, as it computes, copies each stage into it: the stages are the forward's own tensors, not a second
// computation. Names follow the lesson's intermediates (intermediates.hpp) where the meaning is the same;
// a checkpoint adds its own.
// The shape legend: N tokens, D d_model, H heads, G K/V heads, dh head_dim (MLA: qk_nope), dv the value
// width (MLA: v_head_dim, else dh), dr the RoPE width (MLA: qk_rope), r kv_lora_rank, rq q_lora_rank.
//
//   grouped (gpt2, gpt_bigcode, llama, mistral, qwen2, qwen3)
//     x (N, D)                  the layer's input after its norm (input_layernorm / ln_1)
//     q (N, H*dh), k, v (N, G*dh)   the projections, their biases added (gpt2, gpt_bigcode, qwen2)
//     qNorm (N, H*dh), kNorm (N, G*dh)      qwen3: RMSNorm over each head's dh floats
//     qRotated (N, H*dh), kRotated (N, G*dh) RoPE as the model applies it (all but gpt2, gpt_bigcode)
//     qHeads (H, N, dh), kHeads (G, N, dh), vHeads (G, N, dh)   what the attention reads, split per head
//   latent (deepseek_v2)
//     x (N, D)
//     cq (N, rq)                q_a_layernorm(q_a_proj(x)): the query latent (query compression only)
//     q (N, H*dh)               the queries' no-RoPE part, per head
//     c (N, r)                  the latent kv_a_proj_with_mqa(x)[:, :r], before its norm
//     cNorm (N, r)              kv_a_layernorm(c): what K and V are read from, and what is cached
//     k (N, H*dh), v (N, H*dv)  the up-projections: cNorm kv_b_proj, per head [k_nope | v]
//     qRope (N, H*dr), kRope (N, dr)   the RoPE parts after RoPE (adjacent pairs), kRope shared by all heads
//     qHeads (H, N, dh+dr) = [q_h | qRope_h], kHeads (H, N, dh+dr) = [k_h | kRope], vHeads (H, N, dv)
//     cache (N, r+dr) = [cNorm | kRope]   what a session caches per token
//     qAbsorbed (H, N, r)       q_h W_uk_h: the absorbed query, as a session computes it
//   both
//     scores (H, N, N)          scale * q_h . k_g, the softmax's input; -infinity where masked (causal,
//                               and outside a sliding window)
//     attention (H, N, N)       the softmax: the layer's maps, as forward returns them
//     heads (H, N, dv), concat (N, H*dv)   each head's output, and side by side
//     output (N, D)             concat o_proj (+ its bias): what the attention adds to the residual stream
#pragma once

#include "attn/stage_record.hpp"

namespace attn::pretrained {

using attn::StageRecord;

}  // namespace attn::pretrained
