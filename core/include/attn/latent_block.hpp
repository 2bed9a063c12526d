// latent_block.hpp — multi-head latent attention (MLA, DeepSeek-V2): K and V come from one shared
// latent c of rank r, and a decoupled RoPE part of width dr carries the positions.
//
//   naive form (decompress K and V; what forward() and training run):
//     c = X W_dkv (N, r)   k_h = c W_uk[:, h]   v_h = c W_uv[:, h]   q_h = X wq[:, h]
//     qr_h = rope(X W_qr)[:, h] (N, dr)   kr = rope(X W_kr) (N, dr), shared by all heads
//     s_h = (q_h k_h^T + qr_h kr^T) / sqrt(dh + dr)   out = concat_h(softmax(s_h) v_h) wo
//   i.e. the grouped kernel with G = H over per-head [q_h | qr_h] and [k_h | kr].
//
//   absorbed form (what the KV cache decodes with; K and V are never materialised):
//     q~_h = q_h W_uk[:, h]^T (N, r)     s_h = (q~_h c^T + qr_h kr^T) / sqrt(dh + dr)
//     o~_h = softmax(s_h) c (N, r)       out = concat_h(o~_h W_uv[:, h]) wo   (factor by factor)
//   i.e. MQA with one shared "K/V head" [c | kr] of width r + dr: the cache holds r + dr floats a token.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/block_steps.hpp"
#include "attn/kernels.hpp"
#include "attn/layer_cache.hpp"
#include "attn/shape.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace attn {

// ---- naive form

// The naive form's matrices, packed for the gemm (kernels.hpp): once per call of forward(), once
// per Layer (layer.hpp), once per training step.
struct LatentProjections {
  PackedB w_dkv;  // (D, r)      c = x W_dkv
  PackedB wq;     // (D, H*dh)   q_h = x wq_h
  PackedB w_uk;   // (r, H*dh)   k_h = c W_uk_h
  PackedB w_uv;   // (r, H*dh)   v_h = c W_uv_h
  PackedB w_qr;   // (D, H*dr)   qr_h before RoPE (dr > 0)
  PackedB w_kr;   // (D, dr)     kr before RoPE (dr > 0)
  PackedB wo;     // (H*dh, D)    only when packed with `output`
};
// `output`: also wo (forward; the steps that only project the new rows leave it out).
LatentProjections pack_latent(const Shape& s, const Weights& w, bool output = true);

// The new rows of the naive form: x is `rows` rows of D floats, `batch` sequences of rows/batch
// rows whose first row sits at position pos0 (the decoupled RoPE's positions).
struct LatentRows {
  Matrix c;   // (rows, r)          the latent
  Matrix q;   // (rows, H*(dh+dr))  per head [q_h | rope(qr_h)]
  Matrix k;   // (rows, H*(dh+dr))  per head [k_h | rope(kr)]
  Matrix v;   // (rows, H*dv)       per head v_h (the lesson's dv = dh; a checkpoint's v_head_dim)
  Matrix kr;  // (rows, dr)         rope(X W_kr), shared by all heads (empty when dr = 0)
};
LatentRows project_latent(const Shape& s, const LatentProjections& p, const float* x, int64_t rows, int64_t pos0,
                          int64_t batch = 1);
// The same, packing w's input side first (training, the walkthrough's stages).
LatentRows project_latent(const Shape& s, const Weights& w, const float* x, int64_t rows, int64_t pos0,
                          int64_t batch = 1);

// What makes the naive form's heads and its output over one sequence, whatever holds the weights:
// the lesson's packed float32 matrices (PackedLatentRows) or a checkpoint's (pretrained/decoder_layer.cpp:
// 16-bit, DeepSeek's latent norms, query compression, its RoPE pairs and scaling, v_head_dim).
// `rec`: null, or the walkthrough's record, to which each adds the stages it computes.
class LatentSequenceRows {
 public:
  virtual ~LatentSequenceRows() = default;
  // x: n rows of D floats at positions 0 ..: the heads' q, k (n, H*(dh+dr)) and v (n, H*dv) (LatentRows;
  // c and kr where the weights' holder keeps them).
  virtual LatentRows project(const float* x, int64_t n, StageRecord* rec) const = 0;
  // o (n, H*dv), the heads' outputs side by side -> (n, D).
  virtual Matrix output(const Matrix& o, StageRecord* rec) const = 0;
};

// The lesson's: project_latent(), then wo.
class PackedLatentRows final : public LatentSequenceRows {
 public:
  PackedLatentRows(const Shape& s, const LatentProjections& p) : s_(s), p_(p) {}
  LatentRows project(const float* x, int64_t n, StageRecord* rec) const override;
  Matrix output(const Matrix& o, StageRecord* rec) const override;

 private:
  const Shape& s_;
  const LatentProjections& p_;
};

// The naive form over one sequence x (n rows of D floats): every head's query attends over the
// sequence's own decompressed keys and values, the grouped kernel with G = H (causal when s.causal).
// Returns the outputs (n, D). maps: null, or (H, n, n) for the weights. The lesson's forward() and a
// checkpoint's walkthrough and whole-sequence pass are this block, each with its LatentSequenceRows;
// with a record it also keeps the heads as attended, the scores and the maps.
Matrix latent_block_sequence(const Shape& s, const LatentSequenceRows& p, const float* x, int64_t n, float* maps,
                             StageRecord* rec = nullptr);

// The whole block over one sequence x (N, D), naive form.
ForwardResult forward_latent(const Shape& s, const LatentProjections& p, const Matrix& x);

// ---- absorbed form

// The absorbed form's matrices, packed once per set of weights (a KV cache session). The absorption
// is applied factor by factor, never multiplied out: W_uk_h^T after wq_h, W_uv_h before wo_h. The
// products wq_h W_uk_h^T (D, r) and W_uv_h wo_h (r, D) would be H*r*D floats each, 3.5x the factors
// at DeepSeek-V2's sizes, and a decoding step streams every weight once (docs/performance.md).
struct AbsorbedProjections {
  PackedB wq;                 // (D, H*dh)    q_h = x wq_h
  std::vector<PackedB> uk_t;  // H x (dh, r)  q~_h = q_h W_uk_h^T
  PackedB w_qr;               // (D, H*dr)    qr_h before RoPE (dr > 0)
  PackedB w_ckr;              // (D, r+dr)    [W_dkv | W_kr] -> one cache row [c | kr]
  std::vector<PackedB> uv;    // H x (r, dh)  v_h = o~_h W_uv_h
  PackedB wo;                 // (H*dh, D)
};
AbsorbedProjections pack_absorbed(const Shape& s, const Weights& w);

// The new rows of the absorbed form, the step forward_latent_absorbed() and the KV cache share:
// returns q (rows, H*(r+dr)), per head [q~_h | rope(qr_h)]; writes the cache rows [c | rope(kr)]
// (rows, r+dr) to ckr_out with row stride ld. Row i sits at position pos0 + i.
Matrix project_latent_absorbed(const Shape& s, const AbsorbedProjections& p, const float* x, int64_t rows,
                               float* ckr_out, int64_t ld, int64_t pos0);

// The absorbed form's attention of `rows` new queries at positions pos0 .. over the first pos0 + rows
// rows of a layer's cache [c | kr] (their own rows written there already): one shared K/V head, keys
// [c | kr], values c. qa (rows, H*(r+dr), row stride ldq), per head [q~_h | qr_h] -> o~ (rows, H*r),
// per head softmax(s_h) c. The lesson's Session and a checkpoint's decoder layer both attend through
// it. weights: optional (H, rows, pos0 + rows).
Matrix attend_latent_cache(const Shape& s, const float* qa, int64_t ldq, const LayerCache& cache, int64_t rows,
                           int64_t pos0, float* weights);

// What makes the absorbed form's new rows and its output, whatever holds the weights: the lesson's
// packed float32 matrices (PackedAbsorbedRows) or a checkpoint's (pretrained/decoder_layer.cpp: 16-bit,
// DeepSeek's latent norm, query compression, its RoPE pairs and scaling).
class AbsorbedRows {
 public:
  virtual ~AbsorbedRows() = default;
  // x: `rows` rows of D floats at positions pos0 ..: writes their cache rows [c | rope(kr)] (rows, r+dr)
  // to ckr_out (row stride ld); returns their queries (rows, H*(r+dr)), per head [q~_h | rope(qr_h)].
  virtual Matrix project(const float* x, int64_t rows, float* ckr_out, int64_t ld, int64_t pos0) const = 0;
  // o~ (rows, H*r), per head softmax(s_h) c -> (rows, D): v_h = o~_h W_uv_h, then wo.
  virtual Matrix output(const Matrix& o_latent) const = 0;
};

// The lesson's: project_latent_absorbed(), output_latent_absorbed().
class PackedAbsorbedRows final : public AbsorbedRows {
 public:
  PackedAbsorbedRows(const Shape& s, const AbsorbedProjections& p) : s_(s), p_(p) {}
  Matrix project(const float* x, int64_t rows, float* ckr_out, int64_t ld, int64_t pos0) const override;
  Matrix output(const Matrix& o_latent) const override;

 private:
  const Shape& s_;
  const AbsorbedProjections& p_;
};

// The absorbed form over `rows` new rows x at positions pos0 .. with a layer's cache: their rows
// [c | kr] written to the cache's rows pos0 .., their queries attending over its first pos0 + rows rows
// (attend_latent_cache). Returns their outputs (rows, D); maps: null, or (H, rows, pos0 + rows). The
// lesson's Session and a checkpoint's decoder layer decode MLA through it, each with its AbsorbedRows.
Matrix latent_block_rows(const Shape& s, const AbsorbedRows& p, LayerCache& cache, const float* x, int64_t rows,
                         int64_t pos0, float* maps);

// The absorbed form's output: o~ (rows, H*r), per head softmax(s_h) [c], -> (rows, D).
Matrix output_latent_absorbed(const Shape& s, const AbsorbedProjections& p, const Matrix& o_latent);

// The whole block over one sequence in the absorbed form (tests: must equal forward_latent()).
ForwardResult forward_latent_absorbed(const Shape& s, const Weights& w, const Matrix& x);

}  // namespace attn
