// intermediates.cpp — forward() stage by stage, keeping every stage (see intermediates.hpp).
#include "attn/intermediates.hpp"

#include <algorithm>

#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/grouped_block.hpp"
#include "attn/kernels.hpp"
#include "attn/latent_block.hpp"

namespace attn {

namespace {

// The stages of a variant, in the lesson's order, with their shapes: what intermediates_bytes()
// counts, and the order forward_intermediates() records them in (tests/native/test_intermediates.cpp).
std::vector<Stage> stage_list(const Shape& s) {
  const int64_t n = s.n, h = s.h, dh = s.dh;
  std::vector<Stage> st;
  auto add = [&](const char* name, std::vector<int64_t> shape) { st.push_back({name, std::move(shape), {}}); };
  if (s.variant != Variant::MLA) {
    const int64_t g = s.g;
    add("q", {n, h * dh});
    add("k", {n, g * dh});
    add("v", {n, g * dh});
    add("qHeads", {h, n, dh});
    add("kHeads", {g, n, dh});
    add("vHeads", {g, n, dh});
  } else {
    const int64_t r = s.r, dr = s.dr;
    add("q", {n, h * dh});
    add("c", {n, r});
    add("k", {n, h * dh});
    add("v", {n, h * dh});
    if (dr > 0) {
      add("qRope", {n, h * dr});
      add("kRope", {n, dr});
    }
    add("qHeads", {h, n, dh + dr});
    add("kHeads", {h, n, dh + dr});
    add("vHeads", {h, n, dh});
    add("cache", {n, r + dr});
    add("qAbsorbed", {h, n, r});
  }
  add("scores", {h, n, n});
  add("attention", {h, n, n});
  add("heads", {h, n, dh});
  add("concat", {n, h * dh});
  return st;
}

int64_t count(const std::vector<int64_t>& shape) {
  int64_t c = 1;
  for (int64_t d : shape) c *= d;
  return c;
}

// scores (H, N, N) into `out`: scale * q_h . k_g for query head h and its K/V head g = h / (H/G),
// unmasked. q: (N, H*d) with head h at column h*d; k: (N, G*d) likewise.
void keep_scores(float* out, const Shape& s, const Matrix& q, const Matrix& k, int64_t n_kv, int64_t d) {
  const int64_t n = s.n, group = s.h / n_kv, ldq = int64_t(q.shape(1)), ldk = int64_t(k.shape(1));
  const float scale = s.scale();
  for (int64_t h = 0; h < s.h; ++h) {
    const int64_t g = h / group;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float dot = 0.0f;
        for (int64_t t = 0; t < d; ++t) dot += q.data()[i * ldq + h * d + t] * k.data()[j * ldk + g * d + t];
        out[(h * n + i) * n + j] = scale * dot;
      }
    }
  }
}

// The stages every variant ends with: the scores, attend_sequence() (forward's own step) keeping the
// maps, each head's output and their concatenation; returns concat (N, H*d_v).
Matrix attend_keep(StageRecord& rec, const Shape& s, int64_t n_kv, int64_t d_qk, int64_t d_v, const Matrix& q,
                   const Matrix& k, const float* v, int64_t ldv) {
  keep_scores(rec.tensor("scores", {s.h, s.n, s.n}), s, q, k, n_kv, d_qk);
  float* maps = rec.tensor("attention", {s.h, s.n, s.n});
  Matrix concat = attend_sequence(s, maps, n_kv, d_qk, d_v, q, k, v, ldv);  // (N, H*d_v)
  rec.split("heads", concat.data(), s.n, s.h * d_v, s.h, d_v, d_v);
  rec.matrix("concat", concat.data(), s.n, s.h * d_v, s.h * d_v);
  return concat;
}

// MHA / MQA / GQA: the grouped block's own steps (grouped_block.hpp), keeping q, k, v before RoPE.
StageRecord grouped(const Shape& s, const Weights& w, const Matrix& x) {
  StageRecord rec;
  rec.x = x;
  const GroupedProjections p = pack_grouped(w);
  const int64_t n = s.n, wq = s.h * s.dh, kv = s.g * s.dh;
  Shape before_rope = s;
  before_rope.rope = false;
  Matrix k = uninitialised(n, kv);  // (N, G*dh)
  Matrix v = uninitialised(n, kv);  // (N, G*dh)
  Matrix q = project_grouped(before_rope, p, x.data(), n, k.data(), v.data(), kv, 0);  // (N, H*dh)
  rec.matrix("q", q.data(), n, wq, wq);
  rec.matrix("k", k.data(), n, kv, kv);
  rec.matrix("v", v.data(), n, kv, kv);
  if (s.rope) rope_grouped(s, q.data(), k.data(), kv, n, 0);
  rec.split("qHeads", q.data(), n, wq, s.h, s.dh, s.dh);
  rec.split("kHeads", k.data(), n, kv, s.g, s.dh, s.dh);
  rec.split("vHeads", v.data(), n, kv, s.g, s.dh, s.dh);
  const Matrix concat = attend_keep(rec, s, s.g, s.dh, s.dh, q, k, v.data(), kv);  // (N, H*dh)
  rec.output = matmul(concat, p.wo);
  return rec;
}

// MLA: the latent block's naive form (latent_block.hpp), plus the absorbed form's cache row and queries.
StageRecord latent(const Shape& s, const Weights& w, const Matrix& x) {
  StageRecord rec;
  rec.x = x;
  const int64_t n = s.n, dqk = s.dh + s.dr, rq = s.r + s.dr, wq = s.h * dqk;
  const LatentRows t = project_latent(s, w, x.data(), n, 0);
  rec.gather("q", t.q.data(), n, wq, s.h, s.dh, dqk);      // (N, H*dh): each head's q_h, before its RoPE part
  rec.matrix("c", t.c.data(), n, s.r, s.r);
  rec.gather("k", t.k.data(), n, wq, s.h, s.dh, dqk);      // (N, H*dh)
  rec.matrix("v", t.v.data(), n, s.h * s.dh, s.h * s.dh);
  Matrix cache = uninitialised(n, rq);                     // (N, r+dr)      [c | kr]
  copy_columns(t.c, 0, cache, 0, s.r);
  if (s.dr > 0) {
    rec.gather("qRope", t.q.data(), n, wq, s.h, s.dr, dqk, s.dh);  // (N, H*dr) after RoPE
    rec.matrix("kRope", t.kr.data(), n, s.dr, s.dr);              // (N, dr)   after RoPE
    copy_columns(t.kr, 0, cache, s.r, s.dr);
  }
  rec.split("qHeads", t.q.data(), n, wq, s.h, dqk, dqk);
  rec.split("kHeads", t.k.data(), n, wq, s.h, dqk, dqk);
  rec.split("vHeads", t.v.data(), n, s.h * s.dh, s.h, s.dh, s.dh);
  rec.matrix("cache", cache.data(), n, rq, rq);
  // qAbsorbed (H, N, r): head h's query read in latent space, q_h W_uk_h^T.
  float* qa = rec.tensor("qAbsorbed", {s.h, n, s.r});
  for (int64_t h = 0; h < s.h; ++h) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t a = 0; a < s.r; ++a) {
        float dot = 0.0f;
        for (int64_t j = 0; j < s.dh; ++j) dot += t.q(i, h * dqk + j) * w.w_uk(a, h * s.dh + j);
        qa[(h * n + i) * s.r + a] = dot;
      }
    }
  }
  const Matrix concat = attend_keep(rec, s, s.h, dqk, s.dh, t.q, t.k, t.v.data(), s.h * s.dh);  // (N, H*dh)
  rec.output = matmul(concat, w.wo);
  return rec;
}

}  // namespace

double intermediates_bytes(const Shape& s) {
  double elements = 0;
  for (const Stage& st : stage_list(s)) elements += double(count(st.shape));
  return 4.0 * elements;
}

void check_intermediates(const Shape& s, bool seeded) {
  const double bytes = forward_work_bytes(s) + intermediates_bytes(s);
  if (bytes > kMaxWorkBytes) {
    throw_range("returnIntermediates", "returnIntermediates: the stages of this pass take " + fmt(bytes) +
                " bytes with the pass itself, above the cap of " + fmt(kMaxWorkBytes) +
                " bytes (use a shorter seqLen or fewer heads)");
  }
  check_sync_time(intermediates_cost(s, seeded), s.allow_long_work);
}

StageRecord forward_intermediates(const Shape& s, const Weights& w, const Matrix& x) {
  return s.variant == Variant::MLA ? latent(s, w, x) : grouped(s, w, x);
}

}  // namespace attn
