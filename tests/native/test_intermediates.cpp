// forward_intermediates(): every stage of the lesson against PyTorch (tests/fixtures/intermediates_golden.json,
// written out in scripts/gen_fixtures.py independently of the C++ code), and its output against forward().
#include <gtest/gtest.h>

#include <map>

#include "attn/intermediates.hpp"
#include "fixtures.hpp"
#include "helpers.hpp"

using namespace attn;
using testing_helpers::rel_error;
using namespace testing_fixtures;

namespace {

const nlohmann::json* find_case(const nlohmann::json& fx, const std::string& name) {
  for (const auto& c : fx.at("cases")) {
    if (c.at("name") == name) return &c;
  }
  return nullptr;
}

}  // namespace

TEST(Intermediates, EveryStageMatchesPyTorch) {
  const auto golden = load_fixtures("attention_golden.json");
  const auto staged = load_fixtures("intermediates_golden.json");
  ASSERT_FALSE(staged.is_null()) << "missing tests/fixtures/intermediates_golden.json: run npm run fixtures";
  ASSERT_EQ(staged.at("cases").size(), 8u);
  for (const auto& sc : staged.at("cases")) {
    const std::string name = sc.at("name");
    SCOPED_TRACE(name);
    const nlohmann::json* c = find_case(golden, name);
    ASSERT_NE(c, nullptr);
    const Shape s = resolve(raw_from_json(c->at("spec")), Need::Forward);
    const Matrix x = to_matrix(decode_f32(c->at("x")), s.n, s.d);
    const Weights w = weights_from_json(*c, s);
    const StageRecord got = forward_intermediates(s, w, x);

    std::map<std::string, const Stage*> by_name;
    for (const Stage& st : got.stages) by_name[st.name] = &st;
    EXPECT_EQ(by_name.size(), sc.at("stages").size()) << "the core and the fixture list different stages";
    for (const auto& [stage_name, want] : sc.at("stages").items()) {
      SCOPED_TRACE(stage_name);
      ASSERT_TRUE(by_name.count(stage_name)) << "the core has no stage " << stage_name;
      const Stage& st = *by_name[stage_name];
      EXPECT_EQ(st.shape, want.at("shape").get<std::vector<int64_t>>());
      const auto want_data = decode_f32(want.at("data"));
      ASSERT_EQ(st.data.size(), want_data.size());
      EXPECT_LE(rel_error(st.data, want_data), 1e-4);
    }
    EXPECT_LE(rel_error(got.output, decode_f32(c->at("output"))), 1e-4) << "output";

    // The output is forward()'s, bit for bit, and so are the maps.
    const ForwardResult f = forward(s, w, x);
    ASSERT_EQ(f.output.size(), got.output.size());
    EXPECT_TRUE(std::equal(f.output.begin(), f.output.end(), got.output.begin()));
    const std::vector<float>& maps = by_name.at("attention")->data;
    EXPECT_TRUE(std::equal(f.weights->begin(), f.weights->end(), maps.begin()));
  }
}

TEST(Intermediates, BytesCountEveryStage) {
  RawSpec raw;
  raw.variant = "gqa"; raw.seq_len = 5; raw.d_model = 16; raw.n_heads = 4; raw.n_kv_heads = 2;
  const Shape s = resolve(raw, Need::Forward);
  const StageRecord got = forward_intermediates(s, init_weights(s, 1), testing_helpers::random_matrix(5, 16, 3));
  double elements = 0;
  for (const Stage& st : got.stages) elements += double(st.data.size());
  EXPECT_EQ(intermediates_bytes(s), 4 * elements);
  // q k v (N,H*dh)+2(N,G*dh), split copies of the same, scores + maps 2(H,N,N), heads + concat 2(N,H*dh)
  EXPECT_EQ(elements, 5 * 16 + 2 * 5 * 8 + 5 * 16 + 2 * 5 * 8 + 2 * 4 * 25 + 2 * 5 * 16);
}

TEST(Intermediates, StagesComeInTheLessonsOrder) {
  // the record keeps the stages as the pass computes them; the walkthrough (docs/api.md) lists them so
  auto names = [](const std::string& variant) {
    RawSpec raw;
    raw.variant = variant; raw.seq_len = 4; raw.d_model = 16; raw.n_heads = 4;
    if (variant == "gqa") raw.n_kv_heads = 2;
    if (variant == "mla") { raw.latent_rank = 4; raw.rope_dim = 2; }
    const Shape s = resolve(raw, Need::Forward);
    std::vector<std::string> out;
    for (const Stage& st : forward_intermediates(s, init_weights(s, 1), testing_helpers::random_matrix(4, 16, 3)).stages) {
      out.push_back(st.name);
    }
    return out;
  };
  const std::vector<std::string> tail = {"scores", "attention", "heads", "concat"};
  std::vector<std::string> grouped = {"q", "k", "v", "qHeads", "kHeads", "vHeads"};
  grouped.insert(grouped.end(), tail.begin(), tail.end());
  std::vector<std::string> latent = {"q", "c", "k", "v", "qRope", "kRope", "qHeads", "kHeads", "vHeads", "cache", "qAbsorbed"};
  latent.insert(latent.end(), tail.begin(), tail.end());
  EXPECT_EQ(names("gqa"), grouped);
  EXPECT_EQ(names("mla"), latent);
}
