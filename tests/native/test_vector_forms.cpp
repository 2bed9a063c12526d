// Vector forms against their scalar twins, bit for bit: the lanes of exp_approx(vf) and of the
// GELU forward's vector loop equal the scalar code on the same inputs (huge, tiny, infinite and NaN
// inputs included), so splitting an array into whole vectors and a tail changes no result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "attn/kernels.hpp"
#include "attn/train/layers.hpp"

using namespace attn;

namespace {

std::vector<float> awkward_inputs() {
  std::vector<float> x;
  for (int i = -2000; i <= 2000; ++i) x.push_back(float(i) * 0.0537f);
  for (float v : {-1e30f, -90.0f, -87.5f, -40.1f, -1e-30f, 0.0f, -0.0f, 1e-30f, 39.9f, 44.6f, 88.5f, 1e30f,
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()}) {
    x.push_back(v);
  }
  while (x.size() % simd::kLanes) x.push_back(0.25f);
  return x;
}

bool same_bits(float a, float b) {
  uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  return ua == ub || (std::isnan(a) && std::isnan(b));
}

}  // namespace

TEST(VectorForms, ExpLanesEqualTheScalarExp) {
  const std::vector<float> x = awkward_inputs();
  for (std::size_t i = 0; i < x.size(); i += simd::kLanes) {
    const simd::vf e = exp_approx(simd::load(x.data() + i));
    for (int l = 0; l < simd::kLanes; ++l) {
      ASSERT_TRUE(same_bits(e[l], exp_approx(x[i + l]))) << "x = " << x[i + l];
    }
  }
}

TEST(VectorForms, GeluVectorLoopEqualsItsScalarTail) {
  const std::vector<float> x = awkward_inputs();
  const int64_t n = int64_t(x.size());
  std::vector<float> whole(x.size()), whole_t(x.size()), one(1), one_t(1);
  train::activation_forward(whole.data(), x.data(), n, train::Activation::Gelu, whole_t.data());
  for (int64_t i = 0; i < n; ++i) {  // count 1: the scalar tail alone
    train::activation_forward(one.data(), x.data() + i, 1, train::Activation::Gelu, one_t.data());
    ASSERT_TRUE(same_bits(whole[std::size_t(i)], one[0])) << "gelu(" << x[std::size_t(i)] << ")";
    ASSERT_TRUE(same_bits(whole_t[std::size_t(i)], one_t[0])) << "tanh kept for " << x[std::size_t(i)];
  }
}
