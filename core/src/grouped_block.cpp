// grouped_block.cpp — MHA / MQA / GQA (see grouped_block.hpp).
#include "attn/grouped_block.hpp"

#include "attn/rope.hpp"

namespace attn {

GroupedProjections pack_grouped(const Weights& w) {
  return {pack_matrix(w.wq), pack_matrix(w.wk), pack_matrix(w.wv), pack_matrix(w.wo)};
}

void rope_grouped(const Shape& s, float* q, float* k, int64_t ldk, int64_t rows, int64_t pos0, int64_t batch) {
  const int64_t n = rows / batch;
  apply_rope_batched(q, batch, n, s.h * s.dh, 0, s.h, s.dh, s.dh, pos0, s.rope_base);
  apply_rope_batched(k, batch, n, ldk, 0, s.g, s.dh, s.dh, pos0, s.rope_base);
}

Matrix project_grouped(const Shape& s, const GroupedProjections& p, const float* x, int64_t rows, float* k_out,
                       float* v_out, int64_t ld, int64_t pos0, int64_t batch) {
  const int64_t kv = s.g * s.dh;
  Matrix q = uninitialised(rows, s.h * s.dh);                                   // (rows, H*dh)
  gemm_packed(rows, s.h * s.dh, s.d, x, s.d, p.wq, q.data(), s.h * s.dh, false);  // q = x wq
  gemm_packed(rows, kv, s.d, x, s.d, p.wk, k_out, ld, false);                   // k = x wk  (rows, G*dh)
  gemm_packed(rows, kv, s.d, x, s.d, p.wv, v_out, ld, false);                   // v = x wv  (rows, G*dh)
  if (s.rope) rope_grouped(s, q.data(), k_out, ld, rows, pos0, batch);
  return q;
}

Matrix attend_grouped_cache(const Shape& s, const float* q, int64_t ldq, const LayerCache& cache, int64_t rows,
                            int64_t pos0, float* weights, float* scores) {
  const int64_t ld = s.g * s.dh;
  AttendArgs a = attend_args(s, rows, pos0 + rows, s.g, {q, ldq, s.dh}, {cache.k.data(), ld, s.dh},
                             {cache.v.data(), ld, s.dh}, true, pos0, weights);
  a.scores = scores;
  return attend_rows(a);  // (rows, H*dh)
}

Matrix PackedGroupedRows::project(const float* x, int64_t rows, float* k_out, float* v_out, int64_t ld, int64_t pos0,
                                  StageRecord*) const {
  return project_grouped(s_, p_, x, rows, k_out, v_out, ld, pos0);
}

Matrix PackedGroupedRows::output(const Matrix& o, StageRecord*) const { return matmul(o, p_.wo); }

Matrix grouped_block_rows(const Shape& s, const GroupedRows& p, LayerCache& cache, const float* x, int64_t rows,
                          int64_t pos0, float* maps, StageRecord* rec) {
  const int64_t w = s.g * s.dh, wq = s.h * s.dh, keys = pos0 + rows;
  float* k_rows = cache.k.data() + pos0 * w;
  float* v_rows = cache.v.data() + pos0 * w;
  const Matrix q = p.project(x, rows, k_rows, v_rows, w, pos0, rec);  // (rows, H*dh)
  if (rec) {
    rec->split("qHeads", q.data(), rows, wq, s.h, s.dh, s.dh);
    rec->split("kHeads", k_rows, rows, w, s.g, s.dh, s.dh);
    rec->split("vHeads", v_rows, rows, w, s.g, s.dh, s.dh);
  }
  const MapsOut m = maps_out(s.h, rows, keys, maps, rec);
  const Matrix o = attend_grouped_cache(s, q.data(), wq, cache, rows, pos0, m.weights, m.scores);  // (rows, H*dh)
  keep_maps(m, s.h, rows, keys, maps);
  return p.output(o, rec);  // (rows, D)
}

ForwardResult forward_grouped(const Shape& s, const GroupedProjections& p, const Matrix& x) {
  Matrix k = uninitialised(s.n, s.g * s.dh);  // (N, G*dh)
  Matrix v = uninitialised(s.n, s.g * s.dh);  // (N, G*dh)
  const Matrix q = project_grouped(s, p, x.data(), s.n, k.data(), v.data(), s.g * s.dh, 0);  // (N, H*dh)
  ForwardResult r = make_forward_result(s, s.n, s.n);
  const Matrix o = attend_sequence(s, r.maps(), s.g, s.dh, s.dh, q, k, v.data(), s.g * s.dh);  // (N, H*dh)
  r.output = matmul(o, p.wo);                                                                 // (N, D)
  return r;
}

}  // namespace attn
