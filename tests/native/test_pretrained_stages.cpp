// One layer's attention of a checkpoint, stage by stage (PretrainedModel::layer_stages): the stages are
// the forward's own tensors (its maps, what it adds to the residual stream), and they agree with
// PyTorch's stages of the last layer (tests/fixtures/pretrained/<case>/stages.safetensors).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "attn/errors.hpp"
#include "attn/pretrained/linear.hpp"
#include "attn/pretrained/model.hpp"
#include "helpers.hpp"
#include "pretrained_fixtures.hpp"

namespace {

using namespace pretrained_fixtures;
using testing_helpers::rel_error;

constexpr double kTolerance = 1e-4;  // against the float64 reference, as test_pretrained.cpp

const attn::Stage& stage(const StageRecord& r, const std::string& name) {
  for (const attn::Stage& s : r.stages) {
    if (s.name == name) return s;
  }
  throw std::runtime_error("no stage " + name);
}

// The residual stream entering `layer`: the embedding through the layers before it.
attn::Matrix residual_before(const PretrainedModel& m, const std::vector<int32_t>& ids, int64_t layer) {
  attn::Matrix x = m.embed(ids, 0);
  for (int64_t l = 0; l < layer; ++l) decoder_layer_sequence(m.config(), m.layers()[std::size_t(l)], x, nullptr);
  return x;
}

class PretrainedStages : public ::testing::TestWithParam<std::string> {};

TEST_P(PretrainedStages, AttentionIsTheForwardsMaps) {
  const auto model = load_fixture(GetParam());
  const Expected e = read_expected(GetParam());
  const ModelOutput out = model->forward(e.ids, true);
  for (int64_t l = 0; l < model->config().n_layers; ++l) {
    const StageRecord r = model->layer_stages(e.ids, l);
    const attn::Stage& maps = stage(r, "attention");
    const attn::Tensor3& want = out.attentions[std::size_t(l)];
    ASSERT_EQ(maps.data.size(), want.size()) << GetParam() << " layer " << l;
    EXPECT_TRUE(std::equal(maps.data.begin(), maps.data.end(), want.begin())) << GetParam() << " layer " << l;
  }
}

TEST_P(PretrainedStages, OutputIsWhatTheLayerAddsToTheResidualStream) {
  const auto model = load_fixture(GetParam());
  const ModelConfig& c = model->config();
  const Expected e = read_expected(GetParam());
  const int64_t n = int64_t(e.ids.size()), d = c.d_model;
  for (int64_t l = 0; l < c.n_layers; ++l) {
    const LayerWeights& w = model->layers()[std::size_t(l)];
    const attn::Matrix before = residual_before(*model, e.ids, l);
    attn::Matrix after = before;
    StageRecord r;
    decoder_layer_sequence(c, w, after, nullptr, &r);
    // x: the input after the layer's norm
    attn::Matrix h = attn::uninitialised(n, d);
    norm_rows(w.attn_norm, before.data(), n, d, h.data(), d);
    EXPECT_TRUE(std::equal(h.begin(), h.end(), r.x.begin())) << GetParam() << " layer " << l << " x";
    // before + output, then the MLP half, is the layer's result, bit for bit
    attn::Matrix mid = before;
    for (int64_t i = 0; i < n * d; ++i) mid.data()[i] += r.output.data()[i];
    norm_rows(w.mlp_norm, mid.data(), n, d, h.data(), d);
    mlp_add(w.mlp, h.data(), n, mid.data());
    EXPECT_TRUE(std::equal(mid.begin(), mid.end(), after.begin())) << GetParam() << " layer " << l << " residual";
    // output = concat o_proj (+ b), against a double-precision product over the stored weights
    const attn::Stage& concat = stage(r, "concat");
    const int64_t width = concat.shape[1];
    std::vector<double> want(std::size_t(n * d));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < d; ++j) {
        double s = w.o.bias.empty() ? 0.0 : double(w.o.bias.at(0, j));
        for (int64_t t = 0; t < width; ++t) {
          s += double(concat.data[std::size_t(i * width + t)]) * double(w.o.in_out ? w.o.w.at(t, j) : w.o.w.at(j, t));
        }
        want[std::size_t(i * d + j)] = s;
      }
    }
    EXPECT_LT(rel_error(r.output, want), 1e-5) << GetParam() << " layer " << l << " output";
  }
}

TEST_P(PretrainedStages, ScoresAreTheSoftmaxInputWithTheMask) {
  const auto model = load_fixture(GetParam());
  const ModelConfig& c = model->config();
  const Expected e = read_expected(GetParam());
  const int64_t n = int64_t(e.ids.size()), w = c.sliding_window;
  const StageRecord r = model->layer_stages(e.ids, 0);
  const attn::Stage& scores = stage(r, "scores");
  const attn::Stage& maps = stage(r, "attention");
  ASSERT_EQ(scores.shape, (std::vector<int64_t>{c.n_heads, n, n}));
  for (int64_t h = 0; h < c.n_heads; ++h) {
    for (int64_t i = 0; i < n; ++i) {
      const float* s = scores.data.data() + (h * n + i) * n;
      const float* p = maps.data.data() + (h * n + i) * n;
      double hi = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        const bool visible = j <= i && (w == 0 || j > i - w);
        EXPECT_EQ(std::isinf(s[j]) && s[j] < 0, !visible) << GetParam() << " head " << h << " (" << i << ", " << j << ")";
        if (visible) hi = std::max(hi, double(s[j]));
      }
      for (int64_t j = 0; j < n; ++j) sum += std::exp(double(s[j]) - hi);
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_NEAR(p[j], std::exp(double(s[j]) - hi) / sum, 1e-5) << GetParam() << " head " << h << " (" << i << ", " << j << ")";
      }
    }
  }
}

TEST_P(PretrainedStages, EveryStageMatchesPyTorch) {
  const auto model = load_fixture(GetParam());
  const Expected e = read_expected(GetParam());
  const Expected want = read_expected(GetParam(), "stages.safetensors");
  ASSERT_EQ(want.ids.size(), 1u);
  const StageRecord r = model->layer_stages(e.ids, want.ids[0]);
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>> got;
  for (const attn::Stage& s : r.stages) got[s.name] = {s.shape, s.data};
  const int64_t n = int64_t(e.ids.size()), d = model->config().d_model;
  got["x"] = {{n, d}, std::vector<float>(r.x.begin(), r.x.end())};
  got["output"] = {{n, d}, std::vector<float>(r.output.begin(), r.output.end())};
  std::set<std::string> names, wanted;
  for (const auto& [name, v] : got) names.insert(name);
  for (const auto& [name, v] : want.f32) wanted.insert(name);
  EXPECT_EQ(names, wanted) << GetParam() << ": the core's stages and PyTorch's";
  for (const auto& [name, values] : want.f32) {
    if (!got.count(name)) continue;
    const auto& [shape, data] = got.at(name);
    EXPECT_EQ(shape, want.shapes.at(name)) << GetParam() << " " << name;
    ASSERT_EQ(data.size(), values.size()) << GetParam() << " " << name;
    std::vector<float> a, b;  // the finite cells; the masked ones (-inf) in the same places
    for (std::size_t k = 0; k < values.size(); ++k) {
      EXPECT_EQ(std::isinf(data[k]), std::isinf(values[k])) << GetParam() << " " << name << "[" << k << "]";
      if (std::isfinite(values[k]) && std::isfinite(data[k])) {
        a.push_back(data[k]);
        b.push_back(values[k]);
      }
    }
    const double err = rel_error(a, b);
    EXPECT_LT(err, kTolerance) << GetParam() << " " << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PretrainedStages, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

std::string field_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const attn::Error& e) {
    return e.field();
  }
  ADD_FAILURE() << "no attn::Error thrown";
  return "";
}

TEST(PretrainedStagesRefusals, BadLayerOrIds) {
  const auto model = load_fixture("qwen2");  // 2 layers, vocabulary 64
  const std::vector<int32_t> ids = {1, 2, 3};
  EXPECT_EQ(field_of([&] { model->check_layer(-1); }), "layer");
  EXPECT_EQ(field_of([&] { model->check_layer(2); }), "layer");
  EXPECT_EQ(field_of([&] { model->check_layer(0.5); }), "layer");
  EXPECT_EQ(field_of([&] { model->check_layer(std::nan("")); }), "layer");
  EXPECT_EQ(field_of([&] { model->layer_stages(ids, 2); }), "layer");
  EXPECT_EQ(field_of([&] { model->layer_stages({}, 0); }), "ids");
  EXPECT_EQ(field_of([&] { model->layer_stages({1, 64}, 0); }), "ids");
  EXPECT_EQ(model->check_layer(1), 1);
}

}  // namespace
