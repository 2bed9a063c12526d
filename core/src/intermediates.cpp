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

// The stages of a variant, in the lesson's order, with their shapes: the one list that both
// intermediates_bytes() and forward_intermediates() follow.
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

Stage& find(std::vector<Stage>& st, const char* name) {
  return *std::find_if(st.begin(), st.end(), [&](const Stage& x) { return x.name == name; });
}

void keep_matrix(std::vector<Stage>& st, const char* name, const Matrix& m) {
  find(st, name).data.assign(m.begin(), m.end());
}

// (N, ld) matrix -> (heads, N, width): head j is columns [j*stride + offset, j*stride + offset + width).
void keep_split(std::vector<Stage>& st, const char* name, const Matrix& m, int64_t heads, int64_t width,
                int64_t stride, int64_t offset = 0) {
  const int64_t rows = int64_t(m.shape(0)), ld = int64_t(m.shape(1));
  std::vector<float>& out = find(st, name).data;
  out.resize(std::size_t(heads * rows * width));
  for (int64_t j = 0; j < heads; ++j) {
    for (int64_t i = 0; i < rows; ++i) {
      std::copy_n(m.data() + i * ld + j * stride + offset, width, out.data() + (j * rows + i) * width);
    }
  }
}

// scores (H, N, N): scale * q_h . k_g for query head h and its K/V head g = h / (H/G), unmasked.
// q: (N, H*d) with head h at column h*d; k: (N, G*d) likewise.
void keep_scores(std::vector<Stage>& st, const Shape& s, const Matrix& q, const Matrix& k, int64_t n_kv, int64_t d) {
  const int64_t n = s.n, group = s.h / n_kv, ldq = int64_t(q.shape(1)), ldk = int64_t(k.shape(1));
  const float scale = s.scale();
  std::vector<float>& out = find(st, "scores").data;
  out.resize(std::size_t(s.h * n * n));
  for (int64_t h = 0; h < s.h; ++h) {
    const int64_t g = h / group;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float dot = 0.0f;
        for (int64_t t = 0; t < d; ++t) dot += q.data()[i * ldq + h * d + t] * k.data()[j * ldk + g * d + t];
        out[std::size_t((h * n + i) * n + j)] = scale * dot;
      }
    }
  }
}

// attend_sequence() (forward's own step), keeping the maps; returns concat (N, H*d_v).
Matrix attend_keep(std::vector<Stage>& st, const Shape& s, int64_t n_kv, int64_t d_qk, int64_t d_v, const Matrix& q,
                   const Matrix& k, const float* v, int64_t ldv) {
  std::vector<float>& maps = find(st, "attention").data;
  maps.resize(std::size_t(s.h * s.n * s.n));
  return attend_sequence(s, maps.data(), n_kv, d_qk, d_v, q, k, v, ldv);
}

// (N, ld) matrix -> (N, heads*width): the columns [j*stride + offset, +width) of every head j, side by side.
Matrix gather_heads(const Matrix& m, int64_t heads, int64_t width, int64_t stride, int64_t offset) {
  Matrix out = uninitialised(m.shape(0), heads * width);
  for (int64_t j = 0; j < heads; ++j) copy_columns(m, j * stride + offset, out, j * width, width);
  return out;
}

// MHA / MQA / GQA: the grouped block's own steps (grouped_block.hpp), keeping q, k, v before RoPE.
Intermediates grouped(const Shape& s, const Weights& w, const Matrix& x) {
  std::vector<Stage> st = stage_list(s);
  const GroupedProjections p = pack_grouped(w);
  Shape before_rope = s;
  before_rope.rope = false;
  Matrix k = uninitialised(s.n, s.g * s.dh);  // (N, G*dh)
  Matrix v = uninitialised(s.n, s.g * s.dh);  // (N, G*dh)
  Matrix q = project_grouped(before_rope, p, x.data(), s.n, k.data(), v.data(), s.g * s.dh, 0);  // (N, H*dh)
  keep_matrix(st, "q", q);
  keep_matrix(st, "k", k);
  keep_matrix(st, "v", v);
  if (s.rope) rope_grouped(s, q.data(), k.data(), s.g * s.dh, s.n, 0);
  keep_split(st, "qHeads", q, s.h, s.dh, s.dh);
  keep_split(st, "kHeads", k, s.g, s.dh, s.dh);
  keep_split(st, "vHeads", v, s.g, s.dh, s.dh);
  keep_scores(st, s, q, k, s.g, s.dh);
  const Matrix concat = attend_keep(st, s, s.g, s.dh, s.dh, q, k, v.data(), s.g * s.dh);  // (N, H*dh)
  keep_split(st, "heads", concat, s.h, s.dh, s.dh);
  keep_matrix(st, "concat", concat);
  return {matmul(concat, p.wo), std::move(st)};
}

// MLA: the latent block's naive form (latent_block.hpp), plus the absorbed form's cache row and queries.
Intermediates latent(const Shape& s, const Weights& w, const Matrix& x) {
  std::vector<Stage> st = stage_list(s);
  const int64_t dqk = s.dh + s.dr, rq = s.r + s.dr;
  const LatentRows t = project_latent(s, w, x.data(), s.n, 0);
  const Matrix q_nope = gather_heads(t.q, s.h, s.dh, dqk, 0);  // (N, H*dh)
  keep_matrix(st, "q", q_nope);
  keep_matrix(st, "c", t.c);
  keep_matrix(st, "k", gather_heads(t.k, s.h, s.dh, dqk, 0));
  keep_matrix(st, "v", t.v);
  Matrix cache = uninitialised(s.n, rq);      // (N, r+dr)      [c | kr]
  copy_columns(t.c, 0, cache, 0, s.r);
  if (s.dr > 0) {
    keep_matrix(st, "qRope", gather_heads(t.q, s.h, s.dr, dqk, s.dh));  // (N, H*dr) after RoPE
    keep_matrix(st, "kRope", t.kr);                                     // (N, dr)   after RoPE
    copy_columns(t.kr, 0, cache, s.r, s.dr);
  }
  keep_split(st, "qHeads", t.q, s.h, dqk, dqk);
  keep_split(st, "kHeads", t.k, s.h, dqk, dqk);
  keep_split(st, "vHeads", t.v, s.h, s.dh, s.dh);
  keep_matrix(st, "cache", cache);
  // qAbsorbed (H, N, r): head h's query read in latent space, q_h W_uk_h^T.
  std::vector<float>& qa = find(st, "qAbsorbed").data;
  qa.assign(std::size_t(s.h * s.n * s.r), 0.0f);
  for (int64_t h = 0; h < s.h; ++h) {
    for (int64_t i = 0; i < s.n; ++i) {
      for (int64_t a = 0; a < s.r; ++a) {
        float dot = 0.0f;
        for (int64_t j = 0; j < s.dh; ++j) dot += q_nope(i, h * s.dh + j) * w.w_uk(a, h * s.dh + j);
        qa[std::size_t((h * s.n + i) * s.r + a)] = dot;
      }
    }
  }
  keep_scores(st, s, t.q, t.k, s.h, dqk);
  const Matrix concat = attend_keep(st, s, s.h, dqk, s.dh, t.q, t.k, t.v.data(), s.h * s.dh);  // (N, H*dh)
  keep_split(st, "heads", concat, s.h, s.dh, s.dh);
  keep_matrix(st, "concat", concat);
  return {matmul(concat, w.wo), std::move(st)};
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

Intermediates forward_intermediates(const Shape& s, const Weights& w, const Matrix& x) {
  return s.variant == Variant::MLA ? latent(s, w, x) : grouped(s, w, x);
}

}  // namespace attn
