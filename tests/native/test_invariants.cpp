// Invariants of the forward pass, on seeded weights: the whole forward against the naive twin;
// probability rows sum to 1; exact zeros above the diagonal when causal; MHA == GQA with G = H;
// MQA == GQA with G = 1; absorbed MLA == naive MLA; the seeded init's documented properties.
#include <gtest/gtest.h>

#include "attn/forward.hpp"
#include "attn/latent_block.hpp"
#include "helpers.hpp"
#include "reference.hpp"

using namespace attn;
using testing_helpers::Geometry;
using testing_helpers::random_matrix;
using testing_helpers::raw_spec;
using testing_helpers::rel_error;

namespace {

ForwardResult run(const Geometry& g, uint64_t seed, bool weights = true) {
  RawSpec raw = raw_spec(g);
  raw.return_weights = weights;
  const Shape s = resolve(raw, Need::Forward);
  return forward(s, init_weights(s, seed), random_matrix(s.n, s.d, seed + 1000));
}
}  // namespace

TEST(Invariants, ForwardMatchesNaiveTwin) {
  for (const auto& g : testing_helpers::kVariantGeometries) {
    RawSpec raw = raw_spec(g);
    raw.return_weights = true;
    const Shape s = resolve(raw, Need::Forward);
    const Weights w = init_weights(s, 7);
    const Matrix x = random_matrix(s.n, s.d, 8);
    const ForwardResult r = forward(s, w, x);
    const ref::Result want = ref::forward(s, w, x);
    EXPECT_LT(rel_error(r.output, want.output), 1e-5) << g.variant << " n=" << g.n;
    EXPECT_LT(rel_error(*r.weights, want.probs), 1e-5) << g.variant << " n=" << g.n;
  }
}

TEST(Invariants, RowsSumToOneAndCausalZerosAboveDiagonal) {
  for (const auto& g : testing_helpers::kVariantGeometries) {
    const ForwardResult r = run(g, 3);
    const auto& p = *r.weights;  // (H, N, N)
    for (std::size_t h = 0; h < p.shape(0); ++h)
      for (std::size_t i = 0; i < p.shape(1); ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < p.shape(2); ++j) {
          sum += p(h, i, j);
          if (g.causal && j > i) ASSERT_EQ(p(h, i, j), 0.0f) << g.variant << " h=" << h << " i=" << i << " j=" << j;
          ASSERT_GE(p(h, i, j), 0.0f);
        }
        ASSERT_NEAR(sum, 1.0, 1e-5) << g.variant << " h=" << h << " i=" << i;
      }
  }
}

TEST(Invariants, MhaEqualsGqaWithAllHeadsAndMqaEqualsGqaWithOne) {
  for (bool causal : {false, true}) {
    const Geometry mha{"mha", 21, 32, 4, 0, 0, 0, 0, true, causal}, gqa4{"gqa", 21, 32, 4, 4, 0, 0, 0, true, causal};
    const Geometry mqa{"mqa", 21, 32, 4, 0, 0, 0, 0, true, causal}, gqa1{"gqa", 21, 32, 4, 1, 0, 0, 0, true, causal};
    // Same seed: GQA's wk/wv are by construction the first G*dh columns of MHA's (seeded init).
    EXPECT_EQ(run(mha, 5).output, run(gqa4, 5).output);
    EXPECT_EQ(run(mqa, 5).output, run(gqa1, 5).output);
    EXPECT_EQ(*run(mqa, 5).weights, *run(gqa1, 5).weights);
  }
}

TEST(Invariants, AbsorbedMlaEqualsNaiveMla) {
  for (const auto& g : testing_helpers::kVariantGeometries) {
    if (std::string(g.variant) != "mla") continue;
    for (bool causal : {false, true}) {
      Geometry gc = g;
      gc.causal = causal;
      RawSpec raw = raw_spec(gc);
      raw.return_weights = true;
      const Shape s = resolve(raw, Need::Forward);
      const Weights w = init_weights(s, 11);
      const Matrix x = random_matrix(s.n, s.d, 12);
      const ForwardResult naive = forward(s, w, x), absorbed = forward_latent_absorbed(s, w, x);
      EXPECT_LT(rel_error(absorbed.output, naive.output), 1e-5) << "n=" << g.n;
      EXPECT_LT(rel_error(*absorbed.weights, *naive.weights), 1e-5) << "n=" << g.n;
    }
  }
}

TEST(Invariants, SeededInitIsDeterministicAndDocumented) {
  const Shape s = resolve(raw_spec({"gqa", 4, 16, 4, 2, 0, 0, 0, false, false}), Need::Forward);
  const Weights a = init_weights(s, 42), b = init_weights(s, 42), c = init_weights(s, 43);
  EXPECT_EQ(a.wq, b.wq);
  EXPECT_NE(a.wq, c.wq);
  // Element (i, j) of matrix id m is (2u - 1) / sqrt(rows) with u = uniform01(seed, m, i, j).
  EXPECT_FLOAT_EQ(a.wk(3, 5), (2.0f * uniform01(42, 2, 3, 5) - 1.0f) / 4.0f);
  const float bound = 1.0f / 4.0f;
  for (float v : a.wq) ASSERT_LE(std::fabs(v), bound);
  // The result depends on the seed.
  EXPECT_NE(run({"mha", 6, 16, 4, 0, 0, 0, 0, false, false}, 1).output,
            run({"mha", 6, 16, 4, 0, 0, 0, 0, false, false}, 2).output);
}
