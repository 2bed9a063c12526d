// intermediates.cpp — forward() stage by stage, keeping every stage (see intermediates.hpp).
#include "attn/intermediates.hpp"

#include <algorithm>

#include "attn/kernels.hpp"
#include "attn/rope.hpp"

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

Intermediates grouped(const Shape& s, const Weights& w, const Matrix& x) {
  std::vector<Stage> st = stage_list(s);
  Matrix q = matmul(x, w.wq);  // (N, H*dh)
  Matrix k = matmul(x, w.wk);  // (N, G*dh)
  Matrix v = matmul(x, w.wv);  // (N, G*dh)
  keep_matrix(st, "q", q);
  keep_matrix(st, "k", k);
  keep_matrix(st, "v", v);
  if (s.rope) {
    apply_rope(q.data(), s.n, s.h * s.dh, 0, s.h, s.dh, s.dh, 0, s.rope_base);
    apply_rope(k.data(), s.n, s.g * s.dh, 0, s.g, s.dh, s.dh, 0, s.rope_base);
  }
  keep_split(st, "qHeads", q, s.h, s.dh, s.dh);
  keep_split(st, "kHeads", k, s.g, s.dh, s.dh);
  keep_split(st, "vHeads", v, s.g, s.dh, s.dh);
  keep_scores(st, s, q, k, s.g, s.dh);
  const Matrix concat = attend_keep(st, s, s.g, s.dh, s.dh, q, k, v.data(), s.g * s.dh);  // (N, H*dh)
  keep_split(st, "heads", concat, s.h, s.dh, s.dh);
  keep_matrix(st, "concat", concat);
  return {matmul(concat, w.wo), std::move(st)};
}

Intermediates latent(const Shape& s, const Weights& w, const Matrix& x) {
  std::vector<Stage> st = stage_list(s);
  const int64_t dqk = s.dh + s.dr, rq = s.r + s.dr;
  const Matrix c = matmul(x, w.w_dkv);        // (N, r)
  const Matrix q_nope = matmul(x, w.wq);      // (N, H*dh)
  const Matrix k_nope = matmul(c, w.w_uk);    // (N, H*dh)
  const Matrix v = matmul(c, w.w_uv);         // (N, H*dh)
  keep_matrix(st, "q", q_nope);
  keep_matrix(st, "c", c);
  keep_matrix(st, "k", k_nope);
  keep_matrix(st, "v", v);
  Matrix q = uninitialised(s.n, s.h * dqk);   // (N, H*(dh+dr)) per head [q_h | qr_h]
  Matrix k = uninitialised(s.n, s.h * dqk);   // (N, H*(dh+dr)) per head [k_h | kr]
  Matrix cache = uninitialised(s.n, rq);      // (N, r+dr)      [c | kr]
  copy_columns(c, 0, cache, 0, s.r);
  for (int64_t h = 0; h < s.h; ++h) {
    copy_columns(q_nope, h * s.dh, q, h * dqk, s.dh);
    copy_columns(k_nope, h * s.dh, k, h * dqk, s.dh);
  }
  if (s.dr > 0) {
    Matrix qr = matmul(x, w.w_qr);            // (N, H*dr)
    Matrix kr = matmul(x, w.w_kr);            // (N, dr)
    apply_rope(qr.data(), s.n, s.h * s.dr, 0, s.h, s.dr, s.dr, 0, s.rope_base);
    apply_rope(kr.data(), s.n, s.dr, 0, 1, 0, s.dr, 0, s.rope_base);
    keep_matrix(st, "qRope", qr);
    keep_matrix(st, "kRope", kr);
    copy_columns(kr, 0, cache, s.r, s.dr);
    for (int64_t h = 0; h < s.h; ++h) {
      copy_columns(qr, h * s.dr, q, h * dqk + s.dh, s.dr);
      copy_columns(kr, 0, k, h * dqk + s.dh, s.dr);
    }
  }
  keep_split(st, "qHeads", q, s.h, dqk, dqk);
  keep_split(st, "kHeads", k, s.h, dqk, dqk);
  keep_split(st, "vHeads", v, s.h, s.dh, s.dh);
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
  keep_scores(st, s, q, k, s.h, dqk);
  const Matrix concat = attend_keep(st, s, s.h, dqk, s.dh, q, k, v.data(), s.h * s.dh);  // (N, H*dh)
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

Intermediates forward_intermediates(const Shape& s, const Weights& w, const Matrix& x) {
  return s.variant == Variant::MLA ? latent(s, w, x) : grouped(s, w, x);
}

}  // namespace attn
