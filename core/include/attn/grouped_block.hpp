// grouped_block.hpp — the grouped attention block: MHA, MQA and GQA are one block with G K/V heads.
//
//   q = X wq (N, H*dh)   k = X wk (N, G*dh)   v = X wv (N, G*dh)   RoPE on every q and k head (optional)
//   o = attend(q, k, v)  (N, H*dh): query head h reads K/V head h / (H/G)   (attention.hpp)
//   out = o wo (N, D)
// MHA is G = H, MQA is G = 1, GQA anything between that divides H.
#pragma once

#include <cstdint>

#include "attn/block_steps.hpp"
#include "attn/kernels.hpp"
#include "attn/layer_cache.hpp"
#include "attn/shape.hpp"
#include "attn/stage_record.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace attn {

// The block's projections packed for the gemm (kernels.hpp): once per call of forward(), once per
// Layer (layer.hpp) or KV-cache session, once per training step.
struct GroupedProjections {
  PackedB wq, wk, wv, wo;
};
GroupedProjections pack_grouped(const Weights& w);

// The new rows' projections, the step forward(), the KV cache's append and training share.
// x: `rows` rows of D floats, made of `batch` sequences of rows/batch rows each, whose first row is
// at position pos0. Returns q (rows, H*dh); writes k and v (rows, G*dh) to k_out and v_out with row
// stride ld. With s.rope, q and k are rotated (rope_grouped).
Matrix project_grouped(const Shape& s, const GroupedProjections& p, const float* x, int64_t rows, float* k_out,
                       float* v_out, int64_t ld, int64_t pos0, int64_t batch = 1);

// RoPE on every head of q (rows, H*dh) and k (rows of stride ldk, G*dh used), per sequence as above.
void rope_grouped(const Shape& s, float* q, float* k, int64_t ldk, int64_t rows, int64_t pos0, int64_t batch = 1);

// The attention of `rows` new queries at positions pos0 .. pos0 + rows - 1 over the first pos0 + rows
// rows of a layer's cache (their own keys and values written there already), causal, with s's scale
// and window: q (rows, H*dh, row stride ldq) -> o (rows, H*dh), query head h reading K/V head
// s.kv_head_of(h). The lesson's Session and a checkpoint's decoder layer (pretrained/decoder_layer.hpp)
// both attend through it. weights, scores: optional (H, rows, pos0 + rows) (attention.hpp).
Matrix attend_grouped_cache(const Shape& s, const float* q, int64_t ldq, const LayerCache& cache, int64_t rows,
                            int64_t pos0, float* weights, float* scores = nullptr);

// What makes a grouped block's new rows and its output, whatever holds its weights: the lesson's
// packed float32 projections (PackedGroupedRows) or a checkpoint's (pretrained/decoder_layer.cpp:
// 16-bit weights widened in the kernels, biases, q/k norms, its RoPE). `rec`: null, or the
// walkthrough's record, to which each adds the stages it computes.
class GroupedRows {
 public:
  virtual ~GroupedRows() = default;
  // x: `rows` rows of D floats at positions pos0 ..: returns q (rows, H*dh) and writes k, v
  // (rows, G*dh) to k_out, v_out (row stride ld), RoPE applied to q and k where the block has it.
  virtual Matrix project(const float* x, int64_t rows, float* k_out, float* v_out, int64_t ld, int64_t pos0,
                         StageRecord* rec) const = 0;
  // o (rows, H*dh), the heads' outputs side by side -> (rows, D).
  virtual Matrix output(const Matrix& o, StageRecord* rec) const = 0;
};

// The lesson's: project_grouped(), then wo.
class PackedGroupedRows final : public GroupedRows {
 public:
  PackedGroupedRows(const Shape& s, const GroupedProjections& p) : s_(s), p_(p) {}
  Matrix project(const float* x, int64_t rows, float* k_out, float* v_out, int64_t ld, int64_t pos0,
                 StageRecord* rec) const override;
  Matrix output(const Matrix& o, StageRecord* rec) const override;

 private:
  const Shape& s_;
  const GroupedProjections& p_;
};

// The grouped block over `rows` new rows x at positions pos0 .. with a layer's cache: their keys and
// values written to the cache's rows pos0 .., their queries attending over its first pos0 + rows rows
// (attend_grouped_cache). Returns their outputs (rows, D). maps: null, or (H, rows, pos0 + rows) for
// the weights. The lesson's Session (kv_cache.hpp) and a checkpoint's decoder layer are this block,
// each with its GroupedRows; with a record it also keeps the heads as attended, the scores and the maps.
Matrix grouped_block_rows(const Shape& s, const GroupedRows& p, LayerCache& cache, const float* x, int64_t rows,
                          int64_t pos0, float* maps, StageRecord* rec = nullptr);

// The whole block over one sequence x (N, D).
ForwardResult forward_grouped(const Shape& s, const GroupedProjections& p, const Matrix& x);

}  // namespace attn
