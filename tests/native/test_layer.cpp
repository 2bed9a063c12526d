// Layers: a block packed once gives forward()'s bits for every variant and any number of rows,
// call after call; its spec takes neither seqLen nor maxLen; rows out of range and work above the
// cap are refused naming x.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>

#include "attn/errors.hpp"
#include "attn/layer.hpp"
#include "attn/spec.hpp"
#include "helpers.hpp"

using namespace attn;
using testing_helpers::Geometry;
using testing_helpers::random_matrix;
using testing_helpers::raw_spec;

namespace {

bool same_bits(const float* a, const float* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

std::string error_field(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.field();
  }
  return "(no error)";
}
}  // namespace

TEST(Layer, EqualsForwardBitForBitForAnyRowCount) {
  for (const auto& g : testing_helpers::kVariantGeometries) {
    SCOPED_TRACE(std::string(g.variant) + " D=" + std::to_string(g.d) + (g.causal ? " causal" : ""));
    RawSpec raw = raw_spec(g);
    raw.seq_len.reset();
    raw.return_weights = true;
    const Shape ls = resolve(raw, Need::Layer);
    EXPECT_EQ(ls.n, 0);
    const Weights w = init_weights(ls, 31);
    const Layer layer(ls, w);
    for (int64_t n : {1, 7, 33, 7}) {  // 7 twice: a call leaves nothing behind
      const Matrix x = random_matrix(n, ls.d, 40 + uint64_t(n));
      const ForwardResult got = layer.forward(x);
      Shape fs = ls;
      fs.n = n;
      const ForwardResult want = forward(fs, w, x);
      ASSERT_EQ(got.output.shape(0), std::size_t(n));
      EXPECT_TRUE(same_bits(got.output.data(), want.output.data(), want.output.size())) << "N = " << n;
      ASSERT_TRUE(got.weights && want.weights);
      ASSERT_EQ(got.weights->size(), std::size_t(ls.h * n * n));
      EXPECT_TRUE(same_bits(got.weights->data(), want.weights->data(), want.weights->size())) << "N = " << n;
    }
  }
}

TEST(Layer, SpecTakesNeitherSeqLenNorMaxLen) {
  RawSpec raw = raw_spec({"mha", 8, 16, 2, 0, 0, 0, 0, false, false});
  EXPECT_EQ(error_field([&] { resolve(raw, Need::Layer); }), "seqLen");
  raw.seq_len.reset();
  raw.max_len = 9;
  EXPECT_EQ(error_field([&] { resolve(raw, Need::Layer); }), "maxLen");
}

TEST(Layer, RowsOutOfRangeAndWorkAboveTheCapAreRefused) {
  RawSpec raw = raw_spec({"mha", 0, 512, 1, 0, 0, 0, 0, false, false});
  raw.seq_len.reset();
  raw.return_weights = true;
  const Shape s = resolve(raw, Need::Layer);
  const Layer layer(s, init_weights(s, 1));
  EXPECT_EQ(error_field([&] { layer.shape_for(0); }), "x");
  EXPECT_EQ(error_field([&] { layer.shape_for(int64_t(kMaxDim) + 1); }), "x");
  // (H, N, N) weights of N = 20000 rows: 1.6 GB, above kMaxWorkBytes; refused before any allocation.
  try {
    layer.shape_for(20000);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("seqLen (20000)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("returnWeights"), std::string::npos) << e.what();
  }
  EXPECT_EQ(layer.shape_for(5).n, 5);
}
