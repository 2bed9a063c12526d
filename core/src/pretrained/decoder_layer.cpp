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

// Where the kernel writes N queries' maps and scores (H, N, S): with a record, into its tensors (the
// maps copied to `maps` afterwards, see keep_maps); else the maps to `maps` (or nowhere).
struct MapsOut {
  float* weights = nullptr;
  float* scores = nullptr;
};
MapsOut maps_out(const ModelConfig& c, int64_t n, int64_t s_len, float* maps, StageRecord* rec) {
  if (!rec) return {maps, nullptr};
  float* scores = rec->tensor("scores", {c.n_heads, n, s_len});
  return {rec->tensor("attention", {c.n_heads, n, s_len}), scores};
}

// After attend: the record's maps copied to `maps` (the caller's, when it asked for them too).
void keep_maps(const ModelConfig& c, const MapsOut& m, int64_t n, int64_t s_len, float* maps) {
  if (maps && m.weights != maps) std::copy_n(m.weights, c.n_heads * n * s_len, maps);
}

// out (N, D) += o Wo (+ b): the attention's output added to the residual stream; the record keeps
// each head's output, the concatenation o (N, H*dv) and what is added.
void output_projection(const ModelConfig& c, const LayerWeights& w, const Matrix& o, StageRecord* rec, Matrix& out) {
  const int64_t n = int64_t(o.shape(0)), width = int64_t(o.shape(1)), d = c.d_model;
  if (rec) {
    rec->split("heads", o.data(), n, width, c.n_heads, c.d_v(), c.d_v());
    rec->matrix("concat", o.data(), n, width, width);
  }
  Matrix y = uninitialised(n, d);  // (N, D)
  linear(w.o, o.data(), n, width, y.data(), d);
  for (int64_t i = 0; i < n * d; ++i) out.data()[i] += y.data()[i];
  if (rec) rec->output = std::move(y);
}

// ---- grouped attention (MHA / MQA / GQA): out (N, D) += o_proj(attend(q, k, v)).
void grouped_attention(const ModelConfig& c, const LayerWeights& w, const Matrix& h, int64_t pos0, LayerCache& cache,
                       float* maps, StageRecord* rec, Matrix& out) {
  const int64_t n = int64_t(h.shape(0)), d = c.d_model, dh = c.head_dim;
  const int64_t wq = c.n_heads * dh, wkv = c.n_kv_heads * dh, width = wq + 2 * wkv;
  Matrix qkv = uninitialised(n, width);  // (N, H*dh + 2*G*dh): per row [q | k | v]
  if (!w.qkv.w.empty()) {
    linear(w.qkv, h.data(), n, d, qkv.data(), width);
  } else {
    linear(w.q, h.data(), n, d, qkv.data(), width);
    linear(w.k, h.data(), n, d, qkv.data() + wq, width);
    linear(w.v, h.data(), n, d, qkv.data() + wq + wkv, width);
  }
  float* q = qkv.data();
  float* k = qkv.data() + wq;
  auto keep_qk = [&](const char* q_name, const char* k_name) {
    rec->matrix(q_name, q, n, wq, width);
    rec->matrix(k_name, k, n, wkv, width);
  };
  if (rec) {
    keep_qk("q", "k");
    rec->matrix("v", k + wkv, n, wkv, width);
  }
  if (c.qk_norm) {  // each head's vector of dh floats
    for (int64_t i = 0; i < n; ++i) {
      norm_rows(w.q_norm, q + i * width, c.n_heads, dh, q + i * width, dh);
      norm_rows(w.k_norm, k + i * width, c.n_kv_heads, dh, k + i * width, dh);
    }
    if (rec) keep_qk("qNorm", "kNorm");
  }
  if (c.rope) {
    apply_rope(q, n, width, 0, c.n_heads, dh, dh, pos0, c.rope_freqs);
    apply_rope(k, n, width, 0, c.n_kv_heads, dh, dh, pos0, c.rope_freqs);
    if (rec) keep_qk("qRotated", "kRotated");
  }
  if (rec) {
    rec->split("qHeads", q, n, width, c.n_heads, dh, dh);
    rec->split("kHeads", k, n, width, c.n_kv_heads, dh, dh);
    rec->split("vHeads", k + wkv, n, width, c.n_kv_heads, dh, dh);
  }
  copy_columns(qkv.data(), width, wq, cache.k.data() + pos0 * wkv, wkv, 0, n, wkv);        // k rows -> cache
  copy_columns(qkv.data(), width, wq + wkv, cache.v.data() + pos0 * wkv, wkv, 0, n, wkv);  // v rows -> cache
  const MapsOut m = maps_out(c, n, pos0 + n, maps, rec);
  const Matrix o = attend_grouped_cache(c.shape(), q, width, cache, n, pos0, m.weights, m.scores);  // (N, H*dh)
  keep_maps(c, m, n, pos0 + n, maps);
  output_projection(c, w, o, rec, out);
}

// ---- MLA: the queries (N, H*dqk), per head [q_nope | rope(q_pe)], and the latent rows [c | rope(k_pe)]
// (N, r + rope) written to ckr (row stride ldc).
Matrix latent_queries(const ModelConfig& c, const LayerWeights& w, const Matrix& h, int64_t pos0, float* ckr,
                      int64_t ldc, StageRecord* rec) {
  const int64_t n = int64_t(h.shape(0)), d = c.d_model, dqk = c.head_dim, r = c.kv_lora_rank, heads = c.n_heads;
  Matrix q = uninitialised(n, heads * dqk);
  if (c.q_lora_rank > 0) {
    Matrix qa = uninitialised(n, c.q_lora_rank);  // (N, q_lora_rank)
    linear(w.q_a, h.data(), n, d, qa.data(), c.q_lora_rank);
    norm_rows(w.q_a_norm, qa.data(), n, c.q_lora_rank, qa.data(), c.q_lora_rank);
    if (rec) rec->matrix("cq", qa.data(), n, c.q_lora_rank, c.q_lora_rank);
    linear(w.q_b, qa.data(), n, c.q_lora_rank, q.data(), heads * dqk);
  } else {
    linear(w.q, h.data(), n, d, q.data(), heads * dqk);
  }
  if (rec) rec->gather("q", q.data(), n, heads * dqk, heads, c.qk_nope, dqk);
  linear(w.kv_a, h.data(), n, d, ckr, ldc);  // [c | k_pe] before the norm and RoPE
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

// Naive form over one sequence: decompress K and V from the latent for every head.
void latent_attention_naive(const ModelConfig& c, const LayerWeights& w, const Matrix& h, float* maps, StageRecord* rec,
                            Matrix& out) {
  const int64_t n = int64_t(h.shape(0)), heads = c.n_heads, dqk = c.head_dim, dv = c.v_head_dim;
  const int64_t r = c.kv_lora_rank, rq = r + c.qk_rope, nope = c.qk_nope, kvw = nope + dv;
  Matrix ckr = uninitialised(n, rq);                        // (N, r + rope)
  const Matrix q = latent_queries(c, w, h, 0, ckr.data(), rq, rec);
  Matrix kv = uninitialised(n, heads * kvw);                // (N, H*(nope + dv)): per head [k_nope | v]
  linear(w.kv_b, ckr.data(), n, rq, kv.data(), heads * kvw);
  Matrix k = uninitialised(n, heads * dqk), v = uninitialised(n, heads * dv);
  for (int64_t hh = 0; hh < heads; ++hh) {
    copy_columns(kv, hh * kvw, k, hh * dqk, nope);          // k_h = [k_nope_h | k_pe]
    copy_columns(ckr, r, k, hh * dqk + nope, c.qk_rope);
    copy_columns(kv, hh * kvw + nope, v, hh * dv, dv);      // v_h
  }
  if (rec) {
    rec->gather("k", kv.data(), n, heads * kvw, heads, nope, kvw);
    rec->gather("v", kv.data(), n, heads * kvw, heads, dv, kvw, nope);
    rec->split("qHeads", q.data(), n, heads * dqk, heads, dqk, dqk);
    rec->split("kHeads", k.data(), n, heads * dqk, heads, dqk, dqk);
    rec->split("vHeads", v.data(), n, heads * dv, heads, dv, dv);
    rec->matrix("cache", ckr.data(), n, rq, rq);
    const Matrix qa = absorbed_queries(c, w, q);            // (N, H*(r + rope))
    rec->split("qAbsorbed", qa.data(), n, heads * rq, heads, r, rq);
  }
  // the lesson's naive form: the grouped kernel with G = H over per-head [k_nope_h | k_pe] and v_h
  const MapsOut m = maps_out(c, n, n, maps, rec);
  AttendArgs a = attend_args(c.shape(), n, n, heads, {q.data(), heads * dqk, dqk}, {k.data(), heads * dqk, dqk},
                             {v.data(), heads * dv, dv}, true, 0, m.weights);
  a.scores = m.scores;
  const Matrix o = attend_rows(a);                          // (N, H*dv)
  keep_maps(c, m, n, n, maps);
  output_projection(c, w, o, rec, out);
}

// Absorbed form: one shared K/V head [c | k_pe] in the cache; W_uk folded into the queries and W_uv
// into the output, head by head (factor by factor, never multiplied out).
void latent_attention_absorbed(const ModelConfig& c, const LayerWeights& w, const Matrix& h, int64_t pos0,
                               LayerCache& cache, float* maps, Matrix& out) {
  const int64_t n = int64_t(h.shape(0)), heads = c.n_heads, dv = c.v_head_dim;
  const int64_t r = c.kv_lora_rank, rq = r + c.qk_rope, nope = c.qk_nope, kvw = nope + dv;
  float* rows = cache.ckr.data() + pos0 * rq;                       // the new cache rows
  const Matrix q = latent_queries(c, w, h, pos0, rows, rq, nullptr);  // (N, H*dqk)
  const Matrix qa = absorbed_queries(c, w, q);                       // (N, H*(r + rope)): per head [q~_h | q_pe_h]
  const Matrix ol = attend_latent_cache(c.shape(), qa.data(), heads * rq, cache, n, pos0, maps);  // (N, H*r): per head softmax(s_h) c
  Matrix o = uninitialised(n, heads * dv);                   // (N, H*dv): v_h = o~_h W_uv_h^T
  for (int64_t hh = 0; hh < heads; ++hh) {
    const WeightView w_uv = w.kv_b.w.row_range(hh * kvw + nope, dv);  // (dv, r)
    matmul_wt(n, ol.data() + hh * r, heads * r, w_uv, o.data() + hh * dv, heads * dv);
  }
  output_projection(c, w, o, nullptr, out);
}

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
  if (c.mla) {
    latent_attention_absorbed(c, w, h, pos0, cache, maps, x);
  } else {
    grouped_attention(c, w, h, pos0, cache, maps, nullptr, x);
  }
  mlp_half(w, x);
}

void decoder_layer_sequence(const ModelConfig& c, const LayerWeights& w, Matrix& x, float* maps, StageRecord* rec) {
  const int64_t n = int64_t(x.shape(0)), d = c.d_model;
  Matrix h = uninitialised(n, d);
  norm_rows(w.attn_norm, x.data(), n, d, h.data(), d);
  if (rec) rec->x = h;
  if (c.mla) {
    latent_attention_naive(c, w, h, maps, rec, x);
  } else {
    LayerCache cache = make_layer_cache(c.shape(), n);
    grouped_attention(c, w, h, 0, cache, maps, rec, x);
  }
  mlp_half(w, x);
}

}  // namespace attn::pretrained
