// The PyTorch golden fixtures (tests/fixtures/attention_golden.json, from scripts/gen_fixtures.py):
// every case through forward(), output and attention weights within relative error 1e-4, and
// every causal case also through a session, token by token.
#include <gtest/gtest.h>
#include <xtensor/xview.hpp>

#include "attn/kv_cache.hpp"
#include "fixtures.hpp"
#include "helpers.hpp"

using namespace attn;
using testing_helpers::rel_error;
using namespace testing_fixtures;

TEST(Golden, FixtureFileIsPresentAndVersioned) {
  const auto fx = load_fixtures("attention_golden.json");
  ASSERT_FALSE(fx.is_null()) << "missing tests/fixtures/attention_golden.json: run npm run fixtures";
  EXPECT_EQ(fx.at("version").get<int>(), 1);
  EXPECT_EQ(fx.at("cases").size(), 20u);
}

TEST(Golden, EveryCaseMatchesPyTorch) {
  const auto fx = load_fixtures("attention_golden.json");
  ASSERT_FALSE(fx.is_null());
  for (const auto& c : fx.at("cases")) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const Shape s = resolve(raw_from_json(c.at("spec")), Need::Forward);
    const Matrix x = to_matrix(decode_f32(c.at("x")), s.n, s.d);
    const Weights w = weights_from_json(c, s);
    const auto want_out = decode_f32(c.at("output"));
    const auto want_attn = decode_f32(c.at("attention"));
    const ForwardResult r = forward(s, w, x);
    EXPECT_LE(rel_error(r.output, want_out), 1e-4) << name << " output";
    ASSERT_TRUE(r.weights.has_value());
    EXPECT_LE(rel_error(*r.weights, want_attn), 1e-4) << name << " attention";

    if (s.variant == Variant::MLA) {  // the absorbed form against the same fixture
      const ForwardResult ab = forward_latent_absorbed(s, w, x);
      EXPECT_LE(rel_error(ab.output, want_out), 1e-4) << name << " absorbed output";
      EXPECT_LE(rel_error(*ab.weights, want_attn), 1e-4) << name << " absorbed attention";
    }
    if (s.causal) {  // a session fed token by token reproduces the causal fixture
      Shape ss = s;
      ss.max_len = s.n;
      ss.return_weights = false;
      Session session(ss, w);
      std::vector<float> got;
      for (int64_t i = 0; i < s.n; ++i) {
        const Matrix xi = xt::view(x, xt::range(i, i + 1), xt::all());
        const ForwardResult step = session.append(xi);
        got.insert(got.end(), step.output.begin(), step.output.end());
      }
      EXPECT_LE(rel_error(got, want_out), 1e-4) << name << " session";
    }
  }
}
