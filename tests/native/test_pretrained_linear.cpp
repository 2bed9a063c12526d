// 16-bit weights: the widening against numpy / PyTorch (all 65536 values), and the products with
// checkpoint weights (linear.hpp) against their naive twin, a double-precision loop over WeightView::at.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "attn/half.hpp"
#include "attn/pretrained/linear.hpp"
#include "pretrained_fixtures.hpp"

namespace {

using namespace attn::pretrained;
using attn::f32_to_f16;

uint64_t fnv1a64(const std::vector<uint32_t>& words) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t w : words)
    for (int b = 0; b < 4; ++b) h = (h ^ ((w >> (8 * b)) & 0xff)) * 0x100000001b3ull;
  return h;
}
std::string hex(uint64_t h) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
  return s;
}
uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// The table twin of f16_to_f32: built value by value with ldexp from the IEEE 754 half layout.
std::vector<uint32_t> f16_table() {
  std::vector<uint32_t> t(65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t sign = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    if (e == 31) {  // Inf / NaN, the mantissa kept (as numpy does)
      t[h] = (sign << 31) | 0x7f800000u | (m << 13);
    } else {
      const float v = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(float(m + 1024), int(e) - 25);
      t[h] = bits(sign ? -v : v);
    }
  }
  return t;
}

std::string expected_hash(const char* key) {
  return pretrained_fixtures::read_json(std::string(ATTN_FIXTURES) + "/pretrained/cases.json")["conversions"][key];
}

TEST(Weights16, F16ArithmeticMatchesNumpyForAllValues) {
  std::vector<uint32_t> scalar(65536), vector(65536);
  for (uint32_t h = 0; h < 65536; ++h) scalar[h] = bits(f16_to_f32(uint16_t(h)));
  for (uint32_t h = 0; h < 65536; h += attn::simd::kLanes) {
    uint16_t in[attn::simd::kLanes];
    for (int l = 0; l < attn::simd::kLanes; ++l) in[l] = uint16_t(h + l);
    const attn::simd::vf v = load_f16(in);
    for (int l = 0; l < attn::simd::kLanes; ++l) vector[h + l] = bits(v[l]);
  }
  EXPECT_EQ(hex(fnv1a64(scalar)), expected_hash("f16_to_f32_fnv1a64"));
  EXPECT_EQ(vector, scalar);
  EXPECT_EQ(f16_table(), scalar);  // and the table twin agrees, value for value
  EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);
  EXPECT_EQ(f16_to_f32(0xc000), -2.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
  EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);
}

// The naive twin of f32_to_f16: the nearest of the 63488 finite halves found by search over their
// exact values (in double), ties to the even code; beyond 65504 + half an ulp (65520), infinity.
uint16_t nearest_half(float x) {
  static const std::vector<double> positive = [] {
    std::vector<double> v;
    for (uint32_t h = 0; h < 0x7c00; ++h) v.push_back(double(f16_to_f32(uint16_t(h))));
    return v;
  }();
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(double(x));
  if (a >= 65520.0) return uint16_t(sign | 0x7c00);
  const auto above = std::lower_bound(positive.begin(), positive.end(), a);
  if (above == positive.begin()) return sign;
  if (above == positive.end()) return uint16_t(sign | 0x7bff);
  const uint16_t hi = uint16_t(above - positive.begin()), lo = uint16_t(hi - 1);
  const double dlo = a - positive[lo], dhi = *above - a;
  const uint16_t pick = dlo < dhi ? lo : dhi < dlo ? hi : (lo % 2 == 0 ? lo : hi);
  return uint16_t(sign | pick);
}

TEST(Weights16, F32ToF16RoundsToNearestEvenLikeItsNaiveTwin) {
  for (uint32_t h = 0; h < 65536; ++h) {  // every half survives the round trip (NaNs stay NaN)
    const float f = f16_to_f32(uint16_t(h));
    if (std::isnan(f)) EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(f)))) << h;
    else ASSERT_EQ(f32_to_f16(f), h) << h;
  }
  for (uint32_t h = 0; h + 1 < 0x7c00; ++h) {  // midpoints and their neighbours, both signs
    const float lo = f16_to_f32(uint16_t(h)), hi = f16_to_f32(uint16_t(h + 1));
    const float mid = float((double(lo) + double(hi)) / 2);  // exact: a half has 11 significant bits
    for (const float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f), -mid}) {
      ASSERT_EQ(f32_to_f16(x), nearest_half(x)) << x;
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 1000000; ++i) {  // random bit patterns, finite floats
    float x;
    const uint32_t b = uint32_t(rng());
    std::memcpy(&x, &b, 4);
    if (!std::isfinite(x)) continue;
    ASSERT_EQ(f32_to_f16(x), nearest_half(x)) << x;
  }
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // the tie above 65504 rounds to the even code: infinity
  EXPECT_EQ(f32_to_f16(-1e9f), 0xfc00);
}

TEST(Weights16, BF16MatchesPyTorchForAllValues) {
  std::vector<uint32_t> scalar(65536), vector(65536);
  for (uint32_t h = 0; h < 65536; ++h) scalar[h] = bits(bf16_to_f32(uint16_t(h)));
  for (uint32_t h = 0; h < 65536; h += attn::simd::kLanes) {
    uint16_t in[attn::simd::kLanes];
    for (int l = 0; l < attn::simd::kLanes; ++l) in[l] = uint16_t(h + l);
    const attn::simd::vf v = load_bf16(in);
    for (int l = 0; l < attn::simd::kLanes; ++l) vector[h + l] = bits(v[l]);
  }
  EXPECT_EQ(hex(fnv1a64(scalar)), expected_hash("bf16_to_f32_fnv1a64"));
  EXPECT_EQ(vector, scalar);
}

// A random (rows, cols) matrix of `dtype` with rows `ld` elements apart.
struct Stored {
  std::vector<uint8_t> bytes;
  WeightView view;
};
Stored random_weights(DType dtype, int64_t rows, int64_t cols, int64_t ld, uint32_t seed) {
  Stored s;
  s.bytes.resize(std::size_t(rows * ld * dtype_bytes(dtype)));
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int64_t i = 0; i < rows * ld; ++i) {
    if (dtype == DType::F32) {
      const float f = normal(rng);
      std::memcpy(s.bytes.data() + 4 * i, &f, 4);
      continue;
    }
    // random finite 16-bit patterns: a sign, an exponent of magnitudes 2^-7 .. 2^5 (a few subnormals
    // for F16), a mantissa
    const uint32_t r = rng();
    const uint16_t sign = uint16_t((r & 1) << 15);
    uint16_t h;
    if (dtype == DType::BF16) {
      h = uint16_t(sign | uint16_t((120 + (r >> 1) % 13) << 7) | uint16_t((r >> 8) & 0x7f));
    } else {
      const uint32_t e = (r >> 1) % 16 == 0 ? 0 : 8 + (r >> 5) % 13;
      h = uint16_t(sign | uint16_t(e << 10) | uint16_t((r >> 12) & 0x3ff));
    }
    std::memcpy(s.bytes.data() + 2 * i, &h, 2);
  }
  s.view = {dtype, s.bytes.data(), rows, cols, ld};
  return s;
}

// The naive twin: y = x W^T (transposed) or x W, in double.
std::vector<double> naive(int64_t m, const std::vector<float>& x, int64_t ldx, const WeightView& w, bool transposed) {
  const int64_t k = transposed ? w.cols : w.rows, n = transposed ? w.rows : w.cols;
  std::vector<double> y(std::size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk) s += double(x[std::size_t(i * ldx + kk)]) * double(transposed ? w.at(j, kk) : w.at(kk, j));
      y[std::size_t(i * n + j)] = s;
    }
  return y;
}

TEST(Linear, MatchesTheNaiveTwinForEveryDtypeAndPath) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    for (bool transposed : {true, false}) {
      for (int64_t m : {int64_t(1), int64_t(3), int64_t(4), int64_t(37)}) {  // direct (< 4) and blocked paths
        for (auto [rows, cols] : {std::pair<int64_t, int64_t>{7, 5}, {64, 33}, {130, 200}}) {
          const int64_t ld = cols + 3;  // a view into a wider matrix
          const Stored w = random_weights(dtype, rows, cols, ld, uint32_t(rows * 31 + cols));
          const int64_t k = transposed ? cols : rows, n = transposed ? rows : cols, ldx = k + 2;
          std::vector<float> x(std::size_t(m * ldx));
          std::mt19937 rng(7);
          std::uniform_real_distribution<float> u(-1.0f, 1.0f);
          for (float& v : x) v = u(rng);
          const std::vector<double> want = naive(m, x, ldx, w.view, transposed);
          std::vector<float> y(std::size_t(m * (n + 1)), 0.5f);  // ldy = n + 1
          for (bool accumulate : {false, true}) {
            std::vector<float> got = y;
            if (transposed) {
              matmul_wt(m, x.data(), ldx, w.view, got.data(), n + 1, accumulate);
            } else {
              matmul_w(m, x.data(), ldx, w.view, got.data(), n + 1, accumulate);
            }
            double worst = 0, scale = 0;
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < n; ++j) {
                const double ref = want[std::size_t(i * n + j)] + (accumulate ? 0.5 : 0.0);
                worst = std::max(worst, std::fabs(got[std::size_t(i * (n + 1) + j)] - ref));
                scale = std::max(scale, std::fabs(ref));
              }
              EXPECT_EQ(got[std::size_t(i * (n + 1) + n)], 0.5f);  // the padding column is left alone
            }
            EXPECT_LT(worst / scale, 1e-5) << dtype_name(dtype) << (transposed ? " W^T" : " W") << " m=" << m
                                           << " " << rows << "x" << cols << (accumulate ? " +=" : "");
          }
        }
      }
    }
  }
}

}  // namespace
