// The RoPE scalings and pairings of checkpoints (rope.hpp) and the grouped kernel's sliding window
// (attention.hpp), against naive twins written from the formulas of transformers' modeling_rope_utils.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attn/attention.hpp"
#include "attn/rope.hpp"
#include "helpers.hpp"
#include "reference.hpp"

namespace {

using namespace attn;
const double kPi = 3.14159265358979323846;

TEST(RopeScaling, Llama3KeepsShortWavelengthsDividesLongOnesAndBlendsBetween) {
  // head_dim 16, theta 500000, factor 8, low 1, high 4, original 64: wavelengths 2 pi theta^(2i/16)
  const RopeFrequencies f = rope_frequencies_llama3(16, 500000.0, 8.0, 1.0, 4.0, 64.0);
  const RopeFrequencies base = rope_frequencies(16, 500000.0);
  ASSERT_EQ(f.inv_freq.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    const double wl = 2 * kPi / base.inv_freq[i];
    double want = base.inv_freq[i];
    if (wl > 64.0) {
      want /= 8.0;
    } else if (wl >= 16.0) {
      const double s = (64.0 / wl - 1.0) / (4.0 - 1.0);
      want = (1 - s) * want / 8.0 + s * want;
    }
    EXPECT_DOUBLE_EQ(f.inv_freq[i], want) << i;
  }
  EXPECT_DOUBLE_EQ(f.inv_freq[0], 1.0);           // wavelength 2 pi < 16: kept
  EXPECT_LT(f.inv_freq[1], base.inv_freq[1]);     // wavelength 32.5: blended
  EXPECT_GT(f.inv_freq[1], base.inv_freq[1] / 8);
  EXPECT_DOUBLE_EQ(f.inv_freq[7], base.inv_freq[7] / 8);
  EXPECT_EQ(f.attention_factor, 1.0);
}

TEST(RopeScaling, YarnRampsBetweenExtrapolationAndInterpolation) {
  // d 8, theta 10000, factor 4, original 16, beta 32 / 1: correction range [0, 1] after rounding
  const RopeFrequencies f = rope_frequencies_yarn(8, 10000.0, 4.0, 16.0, 32.0, 1.0, true, 1.25);
  const RopeFrequencies base = rope_frequencies(8, 10000.0);
  EXPECT_DOUBLE_EQ(f.inv_freq[0], base.inv_freq[0]);  // ramp 0: extrapolated (kept)
  for (int i = 1; i < 4; ++i) EXPECT_DOUBLE_EQ(f.inv_freq[i], base.inv_freq[i] / 4.0) << i;  // ramp 1
  EXPECT_EQ(f.attention_factor, 1.25);
  // wider: d 64, theta 10000, original 4096: a real ramp between
  const RopeFrequencies g = rope_frequencies_yarn(64, 10000.0, 40.0, 4096.0, 32.0, 1.0, true, 1.0);
  const RopeFrequencies b = rope_frequencies(64, 10000.0);
  const double low = std::floor(64 * std::log(4096 / (32 * 2 * kPi)) / (2 * std::log(10000.0)));
  const double high = std::ceil(64 * std::log(4096 / (1 * 2 * kPi)) / (2 * std::log(10000.0)));
  for (int i = 0; i < 32; ++i) {
    const double ramp = std::min(1.0, std::max(0.0, (i - low) / (high - low)));
    EXPECT_NEAR(g.inv_freq[i], b.inv_freq[i] * (1 - ramp) + b.inv_freq[i] / 40.0 * ramp, 1e-15) << i;
  }
  EXPECT_NEAR(yarn_mscale(40.0, 0.707), 0.1 * 0.707 * std::log(40.0) + 1.0, 1e-15);
  EXPECT_EQ(yarn_mscale(1.0, 0.707), 1.0);
}

TEST(RopePairs, AdjacentPairsEqualRotateHalfOfTheEvenOddPermutation) {
  // DeepSeek's own code permutes each vector to [even | odd] and applies rotate-half: the same result
  const int64_t w = 8, rows = 5;
  RopeFrequencies f = rope_frequencies(w, 10000.0);
  f.attention_factor = 1.1;
  std::vector<float> x(std::size_t(rows * w));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7f * float(i) + 0.3f);
  std::vector<float> perm(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < w / 2; ++i) {
      perm[std::size_t(r * w + i)] = x[std::size_t(r * w + 2 * i)];
      perm[std::size_t(r * w + w / 2 + i)] = x[std::size_t(r * w + 2 * i + 1)];
    }
  RopeFrequencies adjacent = f;
  adjacent.adjacent_pairs = true;
  apply_rope(x.data(), rows, w, 0, 1, 0, w, 3, adjacent);
  apply_rope(perm.data(), rows, w, 0, 1, 0, w, 3, f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < w / 2; ++i) {
      EXPECT_FLOAT_EQ(x[std::size_t(r * w + 2 * i)], perm[std::size_t(r * w + i)]);
      EXPECT_FLOAT_EQ(x[std::size_t(r * w + 2 * i + 1)], perm[std::size_t(r * w + w / 2 + i)]);
    }
}

TEST(RopePairs, DefaultFrequenciesGiveTheBaseForm) {
  const int64_t w = 6, rows = 4;
  std::vector<float> a(std::size_t(rows * w)), b;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::cos(1.3f * float(i));
  b = a;
  apply_rope(a.data(), rows, w, 0, 1, 0, w, 2, 500.0);
  apply_rope(b.data(), rows, w, 0, 1, 0, w, 2, rope_frequencies(w, 500.0));
  EXPECT_EQ(a, b);
}

// The naive twin of a causal sliding window: key j visible to query i (at position off + i) iff
// off + i - W < j <= off + i.
std::vector<double> windowed(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                             int64_t nq, int64_t nk, int64_t d, int64_t off, int64_t win, float scale,
                             std::vector<double>& probs) {
  std::vector<double> out(std::size_t(nq * d), 0.0);
  probs.assign(std::size_t(nq * nk), 0.0);
  for (int64_t i = 0; i < nq; ++i) {
    const int64_t lo = std::max<int64_t>(0, off + i - win + 1), hi = off + i;
    double m = -1e300, sum = 0;
    std::vector<double> s(std::size_t(nk), 0.0);
    for (int64_t j = lo; j <= hi; ++j) {
      for (int64_t c = 0; c < d; ++c) s[std::size_t(j)] += double(q[std::size_t(i * d + c)]) * k[std::size_t(j * d + c)];
      s[std::size_t(j)] *= scale;
      m = std::max(m, s[std::size_t(j)]);
    }
    for (int64_t j = lo; j <= hi; ++j) sum += std::exp(s[std::size_t(j)] - m);
    for (int64_t j = lo; j <= hi; ++j) {
      const double p = std::exp(s[std::size_t(j)] - m) / sum;
      probs[std::size_t(i * nk + j)] = p;
      for (int64_t c = 0; c < d; ++c) out[std::size_t(i * d + c)] += p * v[std::size_t(j * d + c)];
    }
  }
  return out;
}

TEST(SlidingWindow, BothPathsOfTheGroupedKernelMatchTheNaiveTwin) {
  const int64_t d = 8, win = 5;
  for (auto [nq, off] : {std::pair<int64_t, int64_t>{40, 0}, {3, 20}, {1, 30}, {12, 9}}) {  // blocked and direct
    const int64_t nk = off + nq;
    std::vector<float> q(std::size_t(nq * d)), k(std::size_t(nk * d)), v(std::size_t(nk * d));
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.37f * float(i));
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::cos(0.23f * float(i));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.11f * float(i) + 1.0f);
    std::vector<float> out(std::size_t(nq * d)), maps(std::size_t(nq * nk));
    AttendArgs a;
    a.n_q = nq; a.n_k = nk; a.n_heads = a.n_kv_heads = 1; a.d_qk = a.d_v = d;
    a.q = q.data(); a.ldq = d; a.k = k.data(); a.ldk = d; a.v = v.data(); a.ldv = d;
    a.scale = 0.9f; a.causal = true; a.q_offset = off; a.window = win;
    a.out = out.data(); a.ldo = d; a.weights = maps.data();
    attend(a);
    std::vector<double> probs;
    const std::vector<double> want = windowed(q, k, v, nq, nk, d, off, win, 0.9f, probs);
    EXPECT_LT(testing_helpers::rel_error(out, want), 1e-5) << nq << " queries at " << off;
    EXPECT_LT(testing_helpers::rel_error(maps, probs), 1e-5) << nq << " queries at " << off;
    for (int64_t i = 0; i < nq; ++i)
      for (int64_t j = 0; j <= off + i - win; ++j) EXPECT_EQ(maps[std::size_t(i * nk + j)], 0.0f);
  }
}

}  // namespace
