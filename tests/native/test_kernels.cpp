// Kernels against their naive twins: gemm (all edge shapes, strided/transposed packing), exp,
// softmax, and the attention kernel's two paths (direct and blocked) with offsets and masks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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
  // NaN stays NaN (no float -> int conversion of a NaN: UBSan caught one when training's forward,
  // fed overflowing weights, first reached the kernels), in the scalar and in the vector exp.
  EXPECT_TRUE(std::isnan(exp_approx(std::numeric_limits<float>::quiet_NaN())));
  std::vector<float> row(2 * simd::kLanes, 0.5f);
  row[3] = std::numeric_limits<float>::quiet_NaN();
  softmax_row(row.data(), int64_t(row.size()), int64_t(row.size()), 1.0f);
  for (float v : row) EXPECT_TRUE(std::isnan(v));
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
