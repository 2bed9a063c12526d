// decoder_layer.cpp — one block of a checkpoint (see decoder_layer.hpp).
#include "attn/pretrained/decoder_layer.hpp"

#include <algorithm>

#include "attn/block_steps.hpp"
#include "attn/grouped_block.hpp"
#include "attn/latent_block.hpp"
#include "attn/pretrained/linear.hpp"
#include "attn/rope.hpp"

namespace attn::pretrained {

namespace {

// y (N, D) = o Wo (+ b): the attention's output, before it is added to the residual stream; the
// record keeps each head's output, the concatenation o (N, H*dv) and y.
Matrix output_projection(const ModelConfig& c, const LayerWeights& w, const Matrix& o, StageRecord* rec) {
  const int64_t n = int64_t(o.shape(0)), width = int64_t(o.shape(1)), d = c.d_model;
  if (rec) {
    rec->split("heads", o.data(), n, width, c.n_heads, c.d_v(), c.d_v());
    rec->matrix("concat", o.data(), n, width, width);
  }
  Matrix y = uninitialised(n, d);  // (N, D)
  linear(w.o, o.data(), n, width, y.data(), d);
  if (rec) rec->output = y;
  return y;
}

// out += y, both (N, D).
void add_to(Matrix& out, const Matrix& y) {
  for (std::size_t i = 0; i < y.size(); ++i) out.data()[i] += y.data()[i];
}

// ---- grouped attention (MHA / MQA / GQA): the lesson's grouped block (grouped_block_rows) with the
// checkpoint's projections: q, k, v through its linear layers (their biases added), each head of q and k
// RMS-normed (qwen3), then RoPE as the model applies it; the output through o_proj.
class CheckpointGroupedRows final : public GroupedRows {
 public:
  CheckpointGroupedRows(const ModelConfig& c, const LayerWeights& w) : c_(c), w_(w) {}

  Matrix project(const float* x, int64_t n, float* k, float* v, int64_t ld, int64_t pos0, StageRecord* rec) const override {
    const int64_t d = c_.d_model, dh = c_.head_dim, wq = c_.n_heads * dh, wkv = c_.n_kv_heads * dh;
    Matrix q = uninitialised(n, wq);  // (N, H*dh)
    linear(w_.q, x, n, d, q.data(), wq);
    linear(w_.k, x, n, d, k, ld);     // (N, G*dh) rows of stride ld
    linear(w_.v, x, n, d, v, ld);
    auto keep_qk = [&](const char* q_name, const char* k_name) {
      rec->matrix(q_name, q.data(), n, wq, wq);
      rec->matrix(k_name, k, n, wkv, ld);
    };
    if (rec) {
      keep_qk("q", "k");
      rec->matrix("v", v, n, wkv, ld);
    }
    if (c_.qk_norm) {  // each head's vector of dh floats
      for (int64_t i = 0; i < n; ++i) {
        norm_rows(w_.q_norm, q.data() + i * wq, c_.n_heads, dh, q.data() + i * wq, dh);
        norm_rows(w_.k_norm, k + i * ld, c_.n_kv_heads, dh, k + i * ld, dh);
      }
      if (rec) keep_qk("qNorm", "kNorm");
    }
    if (c_.rope) {
      apply_rope(q.data(), n, wq, 0, c_.n_heads, dh, dh, pos0, c_.rope_freqs);
      apply_rope(k, n, ld, 0, c_.n_kv_heads, dh, dh, pos0, c_.rope_freqs);
      if (rec) keep_qk("qRotated", "kRotated");
    }
    return q;
  }

  Matrix output(const Matrix& o, StageRecord* rec) const override { return output_projection(c_, w_, o, rec); }

 private:
  const ModelConfig& c_;
  const LayerWeights& w_;
};

// ---- MLA: the queries (N, H*dqk), per head [q_nope | rope(q_pe)], and the latent rows [c | rope(k_pe)]
// (N, r + rope) written to ckr (row stride ldc).
Matrix latent_queries(const ModelConfig& c, const LayerWeights& w, const float* x, int64_t n, int64_t pos0, float* ckr,
                      int64_t ldc, StageRecord* rec) {
  const int64_t d = c.d_model, dqk = c.head_dim, r = c.kv_lora_rank, heads = c.n_heads;
  Matrix q = uninitialised(n, heads * dqk);
  if (c.q_lora_rank > 0) {
    Matrix qa = uninitialised(n, c.q_lora_rank);  // (N, q_lora_rank)
    linear(w.q_a, x, n, d, qa.data(), c.q_lora_rank);
    norm_rows(w.q_a_norm, qa.data(), n, c.q_lora_rank, qa.data(), c.q_lora_rank);
    if (rec) rec->matrix("cq", qa.data(), n, c.q_lora_rank, c.q_lora_rank);
    linear(w.q_b, qa.data(), n, c.q_lora_rank, q.data(), heads * dqk);
  } else {
    linear(w.q, x, n, d, q.data(), heads * dqk);
  }
  if (rec) rec->gather("q", q.data(), n, heads * dqk, heads, c.qk_nope, dqk);
  linear(w.kv_a, x, n, d, ckr, ldc);  // [c | k_pe] before the norm and RoPE
  if (rec) rec->matrix("c", ckr, n, r, ldc);
  norm_rows(w.kv_a_norm, ckr, n, ldc, ckr, ldc);
  if (rec) rec->matrix("cNorm", ckr, n, r, ldc);
  apply_rope(q.data(), n, heads * dqk, c.qk_nope, heads, dqk, c.qk_rope, pos0, c.rope_freqs);
  apply_rope(ckr, n, ldc, r, 1, 0, c.qk_rope, pos0, c.rope_freqs);
  if (rec) {
    rec->gather("qRope", q.data(), n, heads * dqk, heads, c.qk_rope, dqk, c.qk_nope);
    rec->matrix("kRope", ckr + r, n, c.qk_rope, ldc);
  }
  return q;
}

// The absorbed queries (N, H*(r + rope)), per head [q~_h | q_pe_h] with q~_h = q_nope_h W_uk_h (N, r):
// W_uk folded into the query, so that the scores read the cached [c | k_pe] directly.
Matrix absorbed_queries(const ModelConfig& c, const LayerWeights& w, const Matrix& q) {
  const int64_t n = int64_t(q.shape(0)), heads = c.n_heads, dqk = c.head_dim, nope = c.qk_nope;
  const int64_t r = c.kv_lora_rank, rq = r + c.qk_rope, kvw = nope + c.v_head_dim;
  Matrix qa = uninitialised(n, heads * rq);
  for (int64_t hh = 0; hh < heads; ++hh) {
    const WeightView w_uk = w.kv_b.w.row_range(hh * kvw, nope);  // (nope, r)
    matmul_w(n, q.data() + hh * dqk, heads * dqk, w_uk, qa.data() + hh * rq, heads * rq);
    copy_columns(q.data(), heads * dqk, hh * dqk + nope, qa.data(), heads * rq, hh * rq + r, n, c.qk_rope);
  }
  return qa;
}

// Naive form: the lesson's latent block over one sequence (latent_block_sequence) with the checkpoint's
// weights: K and V decompressed from the latent for every head, per head k_h = [k_nope_h | k_pe] and v_h
// of width v_head_dim; the output through o_proj.
class CheckpointLatentRows final : public LatentSequenceRows {
 public:
  CheckpointLatentRows(const ModelConfig& c, const LayerWeights& w) : c_(c), w_(w) {}

  LatentRows project(const float* x, int64_t n, StageRecord* rec) const override {
    const int64_t heads = c_.n_heads, dqk = c_.head_dim, dv = c_.v_head_dim;
    const int64_t r = c_.kv_lora_rank, rq = r + c_.qk_rope, nope = c_.qk_nope, kvw = nope + dv;
    LatentRows t;
    Matrix ckr = uninitialised(n, rq);                        // (N, r + rope)
    t.q = latent_queries(c_, w_, x, n, 0, ckr.data(), rq, rec);
    Matrix kv = uninitialised(n, heads * kvw);                // (N, H*(nope + dv)): per head [k_nope | v]
    linear(w_.kv_b, ckr.data(), n, rq, kv.data(), heads * kvw);
    t.k = uninitialised(n, heads * dqk);
    t.v = uninitialised(n, heads * dv);
    for (int64_t hh = 0; hh < heads; ++hh) {
      copy_columns(kv, hh * kvw, t.k, hh * dqk, nope);        // k_h = [k_nope_h | k_pe]
      copy_columns(ckr, r, t.k, hh * dqk + nope, c_.qk_rope);
      copy_columns(kv, hh * kvw + nope, t.v, hh * dv, dv);    // v_h
    }
    if (rec) {
      rec->gather("k", kv.data(), n, heads * kvw, heads, nope, kvw);
      rec->gather("v", kv.data(), n, heads * kvw, heads, dv, kvw, nope);
      rec->matrix("cache", ckr.data(), n, rq, rq);
      const Matrix qa = absorbed_queries(c_, w_, t.q);        // (N, H*(r + rope))
      rec->split("qAbsorbed", qa.data(), n, heads * rq, heads, r, rq);
    }
    return t;
  }

  Matrix output(const Matrix& o, StageRecord* rec) const override { return output_projection(c_, w_, o, rec); }

 private:
  const ModelConfig& c_;
  const LayerWeights& w_;
};

// Absorbed form: the lesson's latent block (latent_block_rows) with the checkpoint's weights: one shared
// K/V head [c | k_pe] in the cache; W_uk folded into the queries and W_uv into the output, head by head
// (factor by factor, never multiplied out).
class CheckpointAbsorbedRows final : public AbsorbedRows {
 public:
  CheckpointAbsorbedRows(const ModelConfig& c, const LayerWeights& w) : c_(c), w_(w) {}

  Matrix project(const float* x, int64_t n, float* ckr, int64_t ld, int64_t pos0) const override {
    const Matrix q = latent_queries(c_, w_, x, n, pos0, ckr, ld, nullptr);  // (N, H*dqk)
    return absorbed_queries(c_, w_, q);                                      // (N, H*(r + rope)): per head [q~_h | q_pe_h]
  }

  Matrix output(const Matrix& ol) const override {  // ol (N, H*r): per head softmax(s_h) c
    const int64_t n = int64_t(ol.shape(0)), heads = c_.n_heads, dv = c_.v_head_dim, r = c_.kv_lora_rank;
    const int64_t nope = c_.qk_nope, kvw = nope + dv;
    Matrix o = uninitialised(n, heads * dv);  // (N, H*dv): v_h = o~_h W_uv_h^T
    for (int64_t hh = 0; hh < heads; ++hh) {
      const WeightView w_uv = w_.kv_b.w.row_range(hh * kvw + nope, dv);  // (dv, r)
      matmul_wt(n, ol.data() + hh * r, heads * r, w_uv, o.data() + hh * dv, heads * dv);
    }
    return output_projection(c_, w_, o, nullptr);
  }

 private:
  const ModelConfig& c_;
  const LayerWeights& w_;
};

void mlp_half(const LayerWeights& w, Matrix& x) {
  const int64_t n = int64_t(x.shape(0)), d = int64_t(x.shape(1));
  Matrix h = uninitialised(n, d);
  norm_rows(w.mlp_norm, x.data(), n, d, h.data(), d);
  mlp_add(w.mlp, h.data(), n, x.data());
}

}  // namespace

void decoder_layer(const ModelConfig& c, const LayerWeights& w, Matrix& x, int64_t pos0, LayerCache& cache, float* maps) {
  const int64_t n = int64_t(x.shape(0)), d = c.d_model;
  Matrix h = uninitialised(n, d);
  norm_rows(w.attn_norm, x.data(), n, d, h.data(), d);
  const Shape s = c.shape();  // G = num_key_value_heads, as the form's nKvHeads in the lesson's Shape
  if (c.mla) {
    add_to(x, latent_block_rows(s, CheckpointAbsorbedRows(c, w), cache, h.data(), n, pos0, maps));
  } else {
    add_to(x, grouped_block_rows(s, CheckpointGroupedRows(c, w), cache, h.data(), n, pos0, maps));
  }
  mlp_half(w, x);
}

void decoder_layer_sequence(const ModelConfig& c, const LayerWeights& w, Matrix& x, float* maps, StageRecord* rec) {
  const int64_t n = int64_t(x.shape(0)), d = c.d_model;
  Matrix h = uninitialised(n, d);
  norm_rows(w.attn_norm, x.data(), n, d, h.data(), d);
  if (rec) rec->x = h;
  const Shape s = c.shape();
  if (c.mla) {
    add_to(x, latent_block_sequence(s, CheckpointLatentRows(c, w), h.data(), n, maps, rec));
  } else {
    LayerCache cache = make_layer_cache(s, n);  // the sequence's own keys and values
    add_to(x, grouped_block_rows(s, CheckpointGroupedRows(c, w), cache, h.data(), n, 0, maps, rec));
  }
  mlp_half(w, x);
}

}  // namespace attn::pretrained
