// forward.hpp — one attention block over a whole sequence, for every variant: the dispatch to the
// blocks, grouped_block.hpp (MHA / MQA / GQA) and latent_block.hpp (MLA), which run the shared steps
// of block_steps.hpp. A Layer (layer.hpp) packs the weights once and runs forward() over them.
#pragma once

#include "attn/block_steps.hpp"
#include "attn/grouped_block.hpp"
#include "attn/latent_block.hpp"
#include "attn/shape.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace attn {

// The weights of one block packed for the gemm (kernels.hpp). One of the two is filled, by variant.
struct PackedBlock {
  GroupedProjections grouped;  // MHA / MQA / GQA
  LatentProjections latent;    // MLA, naive form (as forward() runs it)
};
PackedBlock pack_block(const Shape& s, const Weights& w);

// x: (N, D). `s` must come from resolve(); weights must match weight_slots(s).
// MLA runs in the naive form (latent_block.hpp); a KV cache decodes it in the absorbed form.
ForwardResult forward(const Shape& s, const Weights& w, const Matrix& x);
// forward() over weights packed by pack_block(s, w): the same steps, the same bits.
ForwardResult forward(const Shape& s, const PackedBlock& p, const Matrix& x);

}  // namespace attn
