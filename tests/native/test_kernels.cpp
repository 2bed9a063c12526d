// Kernels against their naive twins: gemm (all edge shapes, strided/transposed packing), exp,
// softmax, and the attention kernel's two paths (direct and blocked) with offsets and masks.
#include <gtest/gtest.h>

#include <cmath>

#include "attn/attention.hpp"
#include "attn/kernels.hpp"
#include "helpers.hpp"
#include "reference.hpp"

using namespace attn;
using testing_helpers::random_matrix;
using testing_helpers::rel_error;

TEST(Gemm, MatchesNaiveOnEdgeShapes) {
  const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 130, 300};
  int seed = 0;
  for (int64_t m : {1, 2, 3, 4, 5, 9, 65, 130})
    for (int64_t k : sizes)
      for (int64_t n : {1, 3, 8, 16, 17, 33, 70}) {
        const Matrix a = random_matrix(m, k, ++seed), b = random_matrix(k, n, ++seed);
        const Matrix c = matmul(a, b);
        const auto want = ref::matmul(ref::to_vec(a), ref::to_vec(b), m, k, n);
        ASSERT_LT(rel_error(c, want), 1e-6) << "m=" << m << " k=" << k << " n=" << n;
      }
}

TEST(Gemm, PrefixTransposedAndAccumulate) {
  // B = K^T read through strides from a (S, ld) buffer; only a prefix of columns and rows used.
  const int64_t s = 37, dk = 12, ld = 20, m = 6;
  const Matrix kbuf = random_matrix(s, ld, 1), a = random_matrix(m, dk, 2);
  const PackedB kt = pack_b(kbuf.data() + 3, dk, s, 1, ld);  // columns 3..14 of each row, transposed
  std::vector<float> c(static_cast<std::size_t>(m * s), 1.0f);
  const int64_t n_used = 29;
  gemm_packed(m, n_used, dk, a.data(), dk, kt, c.data(), s, /*accumulate=*/true);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < s; ++j) {
      double want = 1.0;
      if (j < n_used)
        for (int64_t t = 0; t < dk; ++t) want += double(a(i, t)) * kbuf(j, 3 + t);
      ASSERT_NEAR(c[i * s + j], want, 1e-5) << i << "," << j;
    }
}

TEST(Exp, RelativeErrorBelowThreeUlpOnSoftmaxRange) {
  double worst = 0;
  for (float x = -87.0f; x <= 0.0f; x += 0.001f) {
    const double want = std::exp(double(x));
    worst = std::max(worst, std::fabs(exp_approx(x) - want) / want);
  }
  EXPECT_LT(worst, 3.6e-7);
  EXPECT_EQ(exp_approx(0.0f), 1.0f);
}

TEST(Softmax, MatchesNaiveAndZeroesTail) {
  for (int64_t len : {1, 3, 4, 5, 8, 13, 64, 100}) {
    const int64_t total = len + 7;
    const Matrix row = random_matrix(1, total, len);
    std::vector<float> got(row.begin(), row.end());
    softmax_row(got.data(), len, total, 0.37f);
    double mx = -1e300, sum = 0;
    for (int64_t j = 0; j < len; ++j) mx = std::max(mx, 0.37 * row(0, j));
    for (int64_t j = 0; j < len; ++j) sum += std::exp(0.37 * row(0, j) - mx);
    for (int64_t j = 0; j < len; ++j) ASSERT_NEAR(got[j], std::exp(0.37 * row(0, j) - mx) / sum, 1e-6);
    for (int64_t j = len; j < total; ++j) ASSERT_EQ(got[j], 0.0f);
  }
}

// The naive twin of attend(): per head, per query, in double.
static void naive_attend(const AttendArgs& a, std::vector<double>& out, std::vector<double>& probs) {
  const int64_t group = a.n_heads / a.n_kv_heads;
  out.assign(static_cast<std::size_t>(a.n_q * a.n_heads * a.d_v), 0.0);
  probs.assign(static_cast<std::size_t>(a.n_heads * a.n_q * a.n_k), 0.0);
  for (int64_t h = 0; h < a.n_heads; ++h)
    for (int64_t i = 0; i < a.n_q; ++i) {
      const int64_t g = h / group, len = a.causal ? std::min(a.n_k, a.q_offset + i + 1) : a.n_k;
      std::vector<double> s(static_cast<std::size_t>(len));
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
        for (int64_t t = 0; t < a.d_v; ++t) out[i * a.n_heads * a.d_v + h * a.d_v + t] += s[j] / sum * a.v[j * a.ldv + g * a.d_v + t];
      }
    }
}

TEST(Attend, BothPathsMatchNaive) {
  struct Case { int64_t nq, nk, h, g, dqk, dv, off; bool causal; };
  const Case cases[] = {
      {1, 1, 1, 1, 4, 4, 0, true},     {1, 50, 8, 2, 16, 16, 49, true}, {3, 20, 4, 1, 7, 5, 17, true},
      {7, 7, 2, 2, 8, 8, 0, false},    {8, 8, 4, 2, 6, 6, 0, true},      {33, 33, 6, 3, 10, 10, 0, true},
      {40, 45, 4, 4, 13, 9, 5, true},  {64, 64, 2, 1, 32, 32, 0, false}, {70, 100, 4, 2, 17, 12, 30, true},
      {9, 200, 3, 3, 5, 3, 0, false},
  };
  int seed = 100;
  for (const Case& c : cases) {
    const int64_t ldq = c.h * c.dqk + 3, ldk = c.g * c.dqk + 2, ldv = c.g * c.dv + 1;  // padded rows
    const Matrix q = random_matrix(c.nq, ldq, ++seed), k = random_matrix(c.nk, ldk, ++seed),
                 v = random_matrix(c.nk, ldv, ++seed);
    std::vector<float> out(static_cast<std::size_t>(c.nq * c.h * c.dv)), probs(static_cast<std::size_t>(c.h * c.nq * c.nk));
    AttendArgs a;
    a.n_q = c.nq; a.n_k = c.nk; a.n_heads = c.h; a.n_kv_heads = c.g; a.d_qk = c.dqk; a.d_v = c.dv;
    a.q = q.data(); a.ldq = ldq; a.k = k.data(); a.ldk = ldk; a.v = v.data(); a.ldv = ldv;
    a.scale = 0.3f; a.causal = c.causal; a.q_offset = c.off;
    a.out = out.data(); a.ldo = c.h * c.dv; a.weights = probs.data();
    attend(a);
    std::vector<double> want_out, want_probs;
    naive_attend(a, want_out, want_probs);
    EXPECT_LT(rel_error(out, want_out), 1e-5) << "nq=" << c.nq << " nk=" << c.nk;
    EXPECT_LT(rel_error(probs, want_probs), 1e-5) << "nq=" << c.nq << " nk=" << c.nk;
    // Without weights the kernel takes its scratch path: same output.
    std::vector<float> out2(out.size());
    a.weights = nullptr;
    a.out = out2.data();
    attend(a);
    EXPECT_EQ(out, out2);
  }
}

TEST(Gemv, MatchesNaiveOnEdgeShapesWithPrefixAndAccumulate) {
  // gemv_packed (and gemm_packed with m == 1, which takes it) against the naive matmul: every number
  // of panels around kGemvPanels, partial last panels, a prefix of the packed rows, accumulate.
  int seed = 500;
  for (int64_t k : {1, 2, 3, 7, 16, 33, 130})
    for (int64_t n : {1, 5, 8, 9, 16, 17, 31, 33, 63, 64, 65, 100, 129, 200}) {
      const Matrix x = random_matrix(1, k, ++seed), b = random_matrix(k + 3, n, ++seed);
      const PackedB pb = pack_b(b.data(), k + 3, n, n, 1);  // 3 extra rows: only a prefix of k is used
      std::vector<float> y(static_cast<std::size_t>(n), 0.5f);
      gemv_packed(n, k, x.data(), pb, y.data(), /*accumulate=*/true);
      std::vector<float> y2(static_cast<std::size_t>(n), 7.0f);
      gemm_packed(1, n, k, x.data(), k, pb, y2.data(), n, /*accumulate=*/false);
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t t = 0; t < k; ++t) want += double(x(0, t)) * b(t, j);
        ASSERT_NEAR(y[j], 0.5 + want, 1e-5) << "k=" << k << " n=" << n << " j=" << j;
        ASSERT_NEAR(y2[j], want, 1e-5) << "k=" << k << " n=" << n << " j=" << j;
      }
    }
}

TEST(Attend, GroupedDecodePathMatchesNaiveForEveryGroupSize) {
  // One or a few queries (the direct path): each K/V head's keys are read once for all the query
  // heads it serves (pairs of heads per pass, tiles of keys). Group sizes 1..8 and MQA, widths that
  // are not multiples of the vector width, key counts across several tiles, weights on and off.
  struct Case { int64_t nq, nk, h, g, dqk, dv, off; };
  const Case cases[] = {
      {1, 1, 1, 1, 4, 4, 0},      {1, 97, 8, 8, 16, 16, 96},  {1, 200, 8, 4, 13, 11, 199}, {1, 70, 6, 2, 8, 8, 69},
      {1, 64, 5, 1, 33, 32, 63},  {1, 130, 16, 2, 64, 64, 129}, {2, 40, 9, 3, 7, 5, 38},    {7, 300, 32, 1, 36, 32, 293},
      {1, 33, 8, 1, 130, 128, 32}, {4, 50, 4, 4, 3, 2, 46},
  };
  int seed = 900;
  for (const Case& c : cases) {
    const int64_t ldq = c.h * c.dqk + 1, ldk = c.g * c.dqk + 3, ldv = c.g * c.dv + 2;  // padded rows
    const Matrix q = random_matrix(c.nq, ldq, ++seed), k = random_matrix(c.nk, ldk, ++seed),
                 v = random_matrix(c.nk, ldv, ++seed);
    std::vector<float> out(static_cast<std::size_t>(c.nq * c.h * c.dv)), probs(static_cast<std::size_t>(c.h * c.nq * c.nk), 9.0f);
    AttendArgs a;
    a.n_q = c.nq; a.n_k = c.nk; a.n_heads = c.h; a.n_kv_heads = c.g; a.d_qk = c.dqk; a.d_v = c.dv;
    a.q = q.data(); a.ldq = ldq; a.k = k.data(); a.ldk = ldk; a.v = v.data(); a.ldv = ldv;
    a.scale = 0.25f; a.causal = true; a.q_offset = c.off;
    a.out = out.data(); a.ldo = c.h * c.dv; a.weights = probs.data();
    ASSERT_LT(c.nq, kDirectMaxQueries);
    attend(a);
    std::vector<double> want_out, want_probs;
    naive_attend(a, want_out, want_probs);
    EXPECT_LT(rel_error(out, want_out), 1e-5) << "nq=" << c.nq << " nk=" << c.nk << " h=" << c.h << " g=" << c.g;
    EXPECT_LT(rel_error(probs, want_probs), 1e-5) << "nq=" << c.nq << " nk=" << c.nk << " h=" << c.h << " g=" << c.g;
    std::vector<float> out2(out.size());
    a.weights = nullptr;
    a.out = out2.data();
    attend(a);
    EXPECT_EQ(out, out2) << "the scratch path (no weights) must give the same output";
  }
}

TEST(Attend, GroupedDecodePathOnTheMlaLatentLayout) {
  // Absorbed MLA decoding: one shared K/V "head" whose keys are the cache rows [c | kr] (r + dr
  // floats) and whose values are the first r floats of the same rows; all H query heads in one group.
  const int64_t r = 24, dr = 6, h = 10, nk = 77;
  const Matrix q = random_matrix(1, h * (r + dr), 31), ckr = random_matrix(nk, r + dr, 32);
  std::vector<float> out(static_cast<std::size_t>(h * r)), probs(static_cast<std::size_t>(h * nk));
  AttendArgs a;
  a.n_q = 1; a.n_k = nk; a.n_heads = h; a.n_kv_heads = 1; a.d_qk = r + dr; a.d_v = r;
  a.q = q.data(); a.ldq = h * (r + dr); a.k = ckr.data(); a.ldk = r + dr; a.v = ckr.data(); a.ldv = r + dr;
  a.scale = 0.2f; a.causal = true; a.q_offset = nk - 1;
  a.out = out.data(); a.ldo = h * r; a.weights = probs.data();
  attend(a);
  std::vector<double> want_out, want_probs;
  naive_attend(a, want_out, want_probs);
  EXPECT_LT(rel_error(out, want_out), 1e-5);
  EXPECT_LT(rel_error(probs, want_probs), 1e-5);
}
