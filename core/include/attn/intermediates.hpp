// intermediates.hpp — one forward pass with every stage of the lesson kept, for the walkthrough view.
//
// The same building blocks as forward() (matmul, apply_rope, attend), run stage by stage and kept:
//
//   MHA / MQA / GQA
//     q = X Wq (N, H*dh)      k = X Wk (N, G*dh)      v = X Wv (N, G*dh)          the projections
//     qHeads (H, N, dh)       kHeads (G, N, dh)       vHeads (G, N, dh)           split (+ RoPE on q, k)
//     scores (H, N, N) = q_h k_g^T / sqrt(dh), g = h / (H/G)                     before the causal mask
//     attention (H, N, N) = softmax(masked scores)                               the maps
//     heads (H, N, dh) = attention_h v_g                                         per-head outputs
//     concat (N, H*dh)        output = concat Wo (N, D)
//   MLA adds the latent and its two readings:
//     c = X W_dkv (N, r)      k = c W_uk (N, H*dh)    v = c W_uv (N, H*dh)
//     qRope = rope(X W_qr) (N, H*dr)   kRope = rope(X W_kr) (N, dr)   (ropeDim > 0 only)
//     qHeads (H, N, dh+dr) = [q_h | qr_h]     kHeads (H, N, dh+dr) = [k_h | kr]   vHeads (H, N, dh)
//     cache (N, r+dr) = [c | kRope]: all a KV cache keeps per token
//     qAbsorbed (H, N, r) = q_h W_uk_h^T: the absorbed query (scores = [qAbsorbed_h | qr_h] cache^T / sqrt(dh+dr))
//
// Kept in the one stage record (stage_record.hpp), as a checkpoint's layer keeps its stages. The scores
// here are the lesson's, before the causal mask (the walkthrough draws the mask as a step of its own).
// `output` is computed exactly as forward() computes it (same kernels, same order), so it is
// bit-identical to forward()'s output; `attention` equals forward()'s weights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/forward.hpp"
#include "attn/spec.hpp"
#include "attn/stage_record.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace attn {

// x: (N, D). `s` must come from resolve(); weights must match weight_slots(s). The record's stages in
// the lesson's order (above), its output (N, D), its x the input.
StageRecord forward_intermediates(const Shape& s, const Weights& w, const Matrix& x);

// Float32 bytes the stages take.
double intermediates_bytes(const Shape& s);

// What a pass with returnIntermediates checks before anything is copied or computed (beyond
// resolve()'s checks of the pass alone): the stages with the pass within kMaxWorkBytes (else a
// RangeError, field returnIntermediates), and its time within kMaxSyncSeconds (cost.hpp) unless
// s.allow_long_work. `seeded`: the weights are drawn, not given.
void check_intermediates(const Shape& s, bool seeded);

}  // namespace attn
