// reference.hpp — the naive twins: plain loops in double precision, written from the equations and
// sharing no code with the optimised kernels. Tests compare the core against these.
//   x: (N, D)   weights as in weights.hpp   output: (N, D)   probs: (H, N, S)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "attn/attention.hpp"
#include "attn/forward.hpp"

namespace ref {

using Vec = std::vector<double>;

// Y (m, n) = A (m, k) @ B (k, n), all row-major.
inline Vec matmul(const Vec& a, const Vec& b, int64_t m, int64_t k, int64_t n) {
  Vec y(static_cast<std::size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t t = 0; t < k; ++t) s += a[i * k + t] * b[t * n + j];
      y[i * n + j] = s;
    }
  return y;
}

inline Vec to_vec(const attn::Matrix& m) { return Vec(m.begin(), m.end()); }

// Rotate-half RoPE on a width-w segment at column c0 of each row (row i at position pos0 + i).
inline void rope(Vec& m, int64_t rows, int64_t ld, int64_t c0, int64_t w, int64_t pos0, double base) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t t = 0; t < w / 2; ++t) {
      const double th = double(pos0 + i) * std::pow(base, -2.0 * t / w);
      double& a = m[i * ld + c0 + t];
      double& b = m[i * ld + c0 + t + w / 2];
      const double a0 = a, b0 = b;
      a = a0 * std::cos(th) - b0 * std::sin(th);
      b = b0 * std::cos(th) + a0 * std::sin(th);
    }
}

struct Result {
  Vec output;  // (N, D)
  Vec probs;   // (H, N, N)
};

// The whole forward pass of any variant, per head, from the equations in forward.hpp.
inline Result forward(const attn::Shape& s, const attn::Weights& w, const attn::Matrix& xm) {
  const int64_t n = s.n, d = s.d, h = s.h, dh = s.dh, dr = s.dr;
  const Vec x = to_vec(xm);
  Vec q = matmul(x, to_vec(w.wq), n, d, h * dh);  // (N, H*dh)
  Vec k, v;                                        // (N, H*dh) after expanding K/V heads
  Vec qr, kr;                                      // MLA: (N, H*dr), (N, dr)
  if (s.variant == attn::Variant::MLA) {
    const Vec c = matmul(x, to_vec(w.w_dkv), n, d, s.r);
    k = matmul(c, to_vec(w.w_uk), n, s.r, h * dh);
    v = matmul(c, to_vec(w.w_uv), n, s.r, h * dh);
    if (dr > 0) {
      qr = matmul(x, to_vec(w.w_qr), n, d, h * dr);
      kr = matmul(x, to_vec(w.w_kr), n, d, dr);
      for (int64_t hh = 0; hh < h; ++hh) rope(qr, n, h * dr, hh * dr, dr, 0, s.rope_base);
      rope(kr, n, dr, 0, dr, 0, s.rope_base);
    }
  } else {
    const Vec kg = matmul(x, to_vec(w.wk), n, d, s.g * dh);
    const Vec vg = matmul(x, to_vec(w.wv), n, d, s.g * dh);
    k.assign(static_cast<std::size_t>(n * h * dh), 0.0);
    v = k;
    for (int64_t i = 0; i < n; ++i)  // repeat_interleave: head hh reads K/V head hh / (H/G)
      for (int64_t hh = 0; hh < h; ++hh)
        for (int64_t t = 0; t < dh; ++t) {
          k[(i * h + hh) * dh + t] = kg[(i * s.g + hh / (h / s.g)) * dh + t];
          v[(i * h + hh) * dh + t] = vg[(i * s.g + hh / (h / s.g)) * dh + t];
        }
    if (s.rope)
      for (int64_t hh = 0; hh < h; ++hh) {
        rope(q, n, h * dh, hh * dh, dh, 0, s.rope_base);
        rope(k, n, h * dh, hh * dh, dh, 0, s.rope_base);
      }
  }
  Result r;
  r.probs.assign(static_cast<std::size_t>(h * n * n), 0.0);
  Vec o(static_cast<std::size_t>(n * h * dh), 0.0);
  const double scale = 1.0 / std::sqrt(double(dh + dr));
  for (int64_t hh = 0; hh < h; ++hh)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t len = s.causal ? i + 1 : n;
      Vec sc(static_cast<std::size_t>(len));
      double mx = -1e300;
      for (int64_t j = 0; j < len; ++j) {
        double dot = 0;
        for (int64_t t = 0; t < dh; ++t) dot += q[(i * h + hh) * dh + t] * k[(j * h + hh) * dh + t];
        for (int64_t t = 0; t < dr; ++t) dot += qr[(i * h + hh) * dr + t] * kr[j * dr + t];
        sc[j] = dot * scale;
        mx = std::max(mx, sc[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) sum += (sc[j] = std::exp(sc[j] - mx));
      for (int64_t j = 0; j < len; ++j) {
        const double p = sc[j] / sum;
        r.probs[(hh * n + i) * n + j] = p;
        for (int64_t t = 0; t < dh; ++t) o[(i * h + hh) * dh + t] += p * v[(j * h + hh) * dh + t];
      }
    }
  r.output = matmul(o, to_vec(w.wo), n, h * dh, d);
  return r;
}

// The naive twin of attn::attend() on strided operands (attention.hpp), per head and query, in
// double: out (N, ldo) with heads in columns [0, H*d_v) and probs (H, N, S).
inline void attend(const attn::AttendArgs& a, Vec& out, Vec& probs) {
  const int64_t group = a.n_heads / a.n_kv_heads;
  out.assign(static_cast<std::size_t>(a.n_q * a.ldo), 0.0);
  probs.assign(static_cast<std::size_t>(a.n_heads * a.n_q * a.n_k), 0.0);
  for (int64_t h = 0; h < a.n_heads; ++h)
    for (int64_t i = 0; i < a.n_q; ++i) {
      const int64_t g = h / group, len = a.causal ? std::min(a.n_k, a.q_offset + i + 1) : a.n_k;
      Vec s(static_cast<std::size_t>(len));
      double mx = -1e300, sum = 0;
      for (int64_t j = 0; j < len; ++j) {
        double dot = 0;
        for (int64_t t = 0; t < a.d_qk; ++t) dot += double(a.q[i * a.ldq + h * a.d_qk + t]) * a.k[j * a.ldk + g * a.d_qk + t];
        s[j] = dot * a.scale;
        mx = std::max(mx, s[j]);
      }
      for (auto& e : s) sum += (e = std::exp(e - mx));
      for (int64_t j = 0; j < len; ++j) {
        probs[(h * a.n_q + i) * a.n_k + j] = s[j] / sum;
        for (int64_t t = 0; t < a.d_v; ++t)
          out[i * a.ldo + h * a.d_v + t] += s[j] / sum * a.v[j * a.ldv + g * a.d_v + t];
      }
    }
}

}  // namespace ref
