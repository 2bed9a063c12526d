// Pretrained checkpoints against PyTorch (tests/fixtures/pretrained/, scripts/gen_pretrained_fixtures.py):
// every architecture's logits and attention maps, and decoding with the KV cache against forward.
#include <gtest/gtest.h>

#include "attn/pretrained/decoder_layer.hpp"
#include "attn/pretrained/session.hpp"
#include "helpers.hpp"
#include "pretrained_fixtures.hpp"

namespace {

using namespace pretrained_fixtures;
using testing_helpers::rel_error;
using attn::Tensor3;

// Against the float64 reference: the kernels sum in float32, with weights widened exactly.
constexpr double kTolerance = 1e-4;

class PretrainedFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(PretrainedFixture, ForwardMatchesPyTorch) {
  const auto model = load_fixture(GetParam());
  const Expected e = read_expected(GetParam());
  const ModelOutput out = model->forward(e.ids, true);
  const double logits = rel_error(out.logits, e.f32.at("logits"));
  EXPECT_LT(logits, kTolerance) << GetParam() << " logits";
  ASSERT_EQ(out.attentions.size(), std::size_t(model->config().n_layers));
  for (std::size_t l = 0; l < out.attentions.size(); ++l) {
    const double maps = rel_error(out.attentions[l], e.f32.at("attentions." + std::to_string(l)));
    EXPECT_LT(maps, kTolerance) << GetParam() << " layer " << l;
    std::printf("  %-22s layer %zu maps %.2e\n", GetParam().c_str(), l, maps);
  }
  std::printf("  %-22s logits %.2e\n", GetParam().c_str(), logits);
}

TEST_P(PretrainedFixture, DecodingMatchesForward) {
  const auto model = load_fixture(GetParam());
  const Expected e = read_expected(GetParam());
  const int64_t n = int64_t(e.ids.size()), v = model->config().vocab;
  const ModelOutput whole = model->forward(e.ids, true);
  for (int64_t chunk : {int64_t(1), int64_t(3), n}) {  // token by token, in chunks of 3, all at once
    Session s(*model, n);
    std::vector<float> logits;
    for (int64_t i = 0; i < n; i += chunk) {
      const std::vector<int32_t> part(e.ids.begin() + i, e.ids.begin() + std::min(n, i + chunk));
      const ModelOutput o = s.append(part, true);
      logits.insert(logits.end(), o.logits.begin(), o.logits.end());
      // the maps of the new rows are rows i.. of forward's maps, over the keys seen so far
      const int64_t k = int64_t(part.size()), len = i + k;
      for (std::size_t l = 0; l < o.attentions.size(); ++l) {
        std::vector<float> want, got(o.attentions[l].begin(), o.attentions[l].end());
        for (int64_t h = 0; h < model->config().n_heads; ++h)
          for (int64_t r = i; r < len; ++r)
            for (int64_t j = 0; j < len; ++j) want.push_back(whole.attentions[l](h, r, j));
        EXPECT_LT(rel_error(got, want), kTolerance) << GetParam() << " chunk " << chunk << " layer " << l;
      }
    }
    EXPECT_EQ(s.length(), n);
    EXPECT_EQ(int64_t(logits.size()), n * v);
    EXPECT_LT(rel_error(logits, whole.logits), kTolerance) << GetParam() << " chunk " << chunk;
    EXPECT_EQ(s.cache_bytes(), 4.0 * double(model->config().cache_floats_per_token()) *
                                   double(model->config().n_layers) * double(n));
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PretrainedFixture, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(Pretrained, InfoOfEachArchitecture) {
  struct Want { const char* name; const char* variant; int64_t heads, kv, dh; double kv_bytes; bool tied; };
  // kv bytes per token, all layers, at the file's dtype: 2 * G * dh * layers * bytes (MLA: (r + rope) * layers * bytes)
  const Want wants[] = {
      {"gpt2", "mha", 4, 4, 8, 2 * 4 * 8 * 2 * 4.0, true},        {"gpt_bigcode", "mqa", 4, 1, 8, 2 * 1 * 8 * 2 * 4.0, true},
      {"llama3", "gqa", 4, 2, 16, 2 * 2 * 16 * 2 * 2.0, false},  {"mistral", "gqa", 4, 2, 8, 2 * 2 * 8 * 2 * 2.0, false},
      {"qwen2", "mqa", 4, 1, 8, 2 * 1 * 8 * 2 * 2.0, true},      {"qwen3", "gqa", 4, 2, 8, 2 * 2 * 8 * 2 * 4.0, false},
      {"deepseek_v2", "mla", 4, 4, 16, (16 + 8) * 2 * 2.0, false},
      {"gpt_bigcode_mha", "mha", 4, 4, 8, 2 * 4 * 8 * 2 * 4.0, true}};
  for (const Want& w : wants) {
    const auto m = load_fixture(w.name);
    const ModelConfig& c = m->config();
    EXPECT_STREQ(c.variant(), w.variant) << w.name;
    EXPECT_EQ(c.n_heads, w.heads) << w.name;
    EXPECT_EQ(c.n_kv_heads, w.kv) << w.name;
    EXPECT_EQ(c.head_dim, w.dh) << w.name;
    EXPECT_EQ(c.tied, w.tied) << w.name;
    EXPECT_EQ(m->kv_bytes_per_token(), w.kv_bytes) << w.name;
  }
}

TEST(Pretrained, EachConfigYieldsTheLessonsShape) {
  // ModelConfig::shape(): the lesson's Shape of the model's attention, whose kv_head_of and cache per
  // token the page draws; checked against the model's own cache tensors (make_layer_cache) and against
  // Hugging Face's head mapping (repeat_interleave: query head h reads K/V head h / (H / G)).
  for (const std::string& name : case_names()) {
    const auto m = load_fixture(name);
    const ModelConfig& c = m->config();
    const attn::Shape s = c.shape();
    EXPECT_STREQ(attn::variant_name(s.variant), c.variant()) << name;
    EXPECT_EQ(s.d, c.d_model) << name;
    EXPECT_EQ(s.h, c.n_heads) << name;
    EXPECT_TRUE(s.causal) << name;
    const LayerCache cache = make_layer_cache(s, 1);
    const double floats = c.mla ? double(cache.ckr.size()) : double(cache.k.size() + cache.v.size());
    EXPECT_EQ(double(c.cache_floats_per_token()), floats) << name << ": the cache per token is what a layer keeps";
    for (int64_t h = 0; h < c.n_heads; ++h) {
      EXPECT_EQ(s.kv_head_of(h), c.mla ? 0 : h / (c.n_heads / c.n_kv_heads)) << name << " head " << h;
    }
    if (c.mla) {
      EXPECT_EQ(s.g, c.n_heads) << name;
      EXPECT_EQ(s.dh, c.qk_nope) << name;
      EXPECT_EQ(s.r, c.kv_lora_rank) << name;
      EXPECT_EQ(s.dr, c.qk_rope) << name;
    } else {
      EXPECT_EQ(s.g, c.n_kv_heads) << name;
      EXPECT_EQ(s.dh, c.head_dim) << name;
      EXPECT_EQ(s.rope, c.rope) << name;
    }
  }
}

TEST(Pretrained, TheMapsAreFarFromUniformAndCausal) {
  // what makes the comparisons above able to tell a wrong RoPE or head mapping from a right one
  for (const std::string& name : case_names()) {
    const Expected e = read_expected(name);
    const auto model = load_fixture(name);
    const ModelOutput out = model->forward(e.ids, true);
    double max_sum = 0;
    int64_t rows = 0;
    for (const Tensor3& p : out.attentions) {
      for (std::size_t h = 0; h < p.shape(0); ++h)
        for (std::size_t i = 0; i < p.shape(1); ++i) {
          float m = 0, sum = 0;
          for (std::size_t j = 0; j < p.shape(2); ++j) {
            m = std::max(m, p(h, i, j));
            sum += p(h, i, j);
            if (j > i) EXPECT_EQ(p(h, i, j), 0.0f);
          }
          EXPECT_NEAR(sum, 1.0f, 1e-5);
          max_sum += m;
          ++rows;
        }
    }
    EXPECT_GT(max_sum / double(rows), 0.4) << name;
  }
}

TEST(Pretrained, SlidingWindowHidesOldKeys) {
  const auto model = load_fixture("mistral");
  const Expected e = read_expected("mistral");
  const ModelOutput out = model->forward(e.ids, true);
  const int64_t w = model->config().sliding_window;
  ASSERT_EQ(w, 4);
  for (const Tensor3& p : out.attentions)
    for (std::size_t h = 0; h < p.shape(0); ++h)
      for (int64_t i = 0; i < int64_t(p.shape(1)); ++i)
        for (int64_t j = 0; j <= i - w; ++j) EXPECT_EQ(p(h, std::size_t(i), std::size_t(j)), 0.0f);
}

}  // namespace
