// test_train_llama.cpp — the trainer's Llama block: each new layer (RMSNorm, RoPE, SwiGLU), the whole
// block and whole models (tied and untied embeddings) against PyTorch's forward and autograd
// (train_llama_golden.json, to 1e-4 of each tensor's largest value); whole models against central
// finite differences too (gradient_check.hpp); the trainer spec's block 'llama', its refusals, its
// training and its model file.
#include <gtest/gtest.h>

#include "gradient_check.hpp"
#include "trainer_errors.hpp"
#include "llama_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/errors.hpp"
#include "attn/forward.hpp"
#include "attn/train/costs.hpp"
#include "attn/train/llama_block.hpp"
#include "attn/train/llama_layers.hpp"
#include "attn/train/model.hpp"
#include "attn/train/trainer.hpp"

using namespace attn;
using namespace attn::train;
using namespace llama_fixtures;

// --- each layer against PyTorch ----------------------------------------------------------------

TEST(TrainLlamaGolden, RmsNormForwardAndGradients) {
  const json& c = case_named("rmsnorm");
  const int64_t r = size(c, "rows"), d = size(c, "d");
  const auto x = tensor(c, "x"), gamma = tensor(c, "gamma"), dout = tensor(c, "dout");
  std::vector<float> out(std::size_t(r * d)), rstd(static_cast<std::size_t>(r)), dx(out.size(), 0.0f);
  std::vector<float> dgamma(static_cast<std::size_t>(d), 0.0f);
  rmsnorm_forward(out.data(), rstd.data(), x.data(), gamma.data(), r, d, c.at("sizes").at("eps").get<double>());
  rmsnorm_backward(dx.data(), dgamma.data(), dout.data(), x.data(), rstd.data(), gamma.data(), r, d);
  expect_close("out", out.data(), tensor(c, "out"));
  expect_close("d_x", dx.data(), tensor(c, "d_x"));
  expect_close("d_gamma", dgamma.data(), tensor(c, "d_gamma"));
}

TEST(TrainLlamaGolden, RopeForwardAndGradients) {
  for (const char* name : {"rope_base10000", "rope_base50"}) {
    const json& c = case_named(name);
    const int64_t b = size(c, "batch"), n = size(c, "n"), heads = size(c, "heads"), w = size(c, "width");
    const double base = c.at("sizes").at("base").get<double>();
    std::vector<float> m = tensor(c, "x"), dm = tensor(c, "dout");
    rope_forward(m.data(), b, n, heads * w, heads, w, base);
    rope_backward(dm.data(), b, n, heads * w, heads, w, base);
    expect_close(std::string(name) + " out", m.data(), tensor(c, "out"));
    expect_close(std::string(name) + " d_x", dm.data(), tensor(c, "d_x"));
  }
}

TEST(TrainLlamaGolden, SwigluForwardAndGradients) {
  const json& c = case_named("swiglu");
  const int64_t r = size(c, "rows"), d = size(c, "d"), f = size(c, "f");
  SwigluParams p{matrix(c, "w_gate", d, f), matrix(c, "w_up", d, f), matrix(c, "w_down", f, d)};
  SwigluParams g{zeros(d, f), zeros(d, f), zeros(f, d)};
  const auto x = tensor(c, "x"), dout = tensor(c, "dout");
  std::vector<float> out(std::size_t(r * d)), dx(out.size(), 0.0f);
  SwigluCache cache;
  swiglu_forward(out.data(), cache, x.data(), p, r);
  swiglu_backward(dx.data(), g, dout.data(), x.data(), cache, p, r);
  expect_close("out", out.data(), tensor(c, "out"));
  expect_close("d_x", dx.data(), tensor(c, "d_x"));
  expect_close("d_w_gate", g.w_gate.data(), tensor(c, "d_w_gate"));
  expect_close("d_w_up", g.w_up.data(), tensor(c, "d_w_up"));
  expect_close("d_w_down", g.w_down.data(), tensor(c, "d_w_down"));
}

// --- the whole block (MHA, GQA, MQA) ---------------------------------------------------------------

TEST(TrainLlamaGolden, BlockForwardAndGradientsOfEveryInputAndWeight) {
  for (const char* name : {"block_mha", "block_gqa", "block_mqa"}) {
    SCOPED_TRACE(name);
    const json& c = case_named(name);
    const int64_t b = size(c, "batch"), n = size(c, "n"), d = size(c, "d"), h = size(c, "h"), g = size(c, "g"),
                  dh = size(c, "dh"), f = size(c, "f");
    const Shape s = shape_of(c, n);
    LlamaLayer p, grad;
    p.attn_norm = matrix(c, "attn_norm", 1, d);
    p.mlp_norm = matrix(c, "mlp_norm", 1, d);
    p.attn.wq = matrix(c, "wq", d, h * dh);
    p.attn.wk = matrix(c, "wk", d, g * dh);
    p.attn.wv = matrix(c, "wv", d, g * dh);
    p.attn.wo = matrix(c, "wo", h * dh, d);
    p.mlp = {matrix(c, "w_gate", d, f), matrix(c, "w_up", d, f), matrix(c, "w_down", f, d)};
    grad.attn_norm = zeros(1, d);
    grad.mlp_norm = zeros(1, d);
    grad.attn.wq = zeros(d, h * dh);
    grad.attn.wk = zeros(d, g * dh);
    grad.attn.wv = zeros(d, g * dh);
    grad.attn.wo = zeros(h * dh, d);
    grad.mlp = {zeros(d, f), zeros(d, f), zeros(f, d)};
    const auto x = tensor(c, "x"), dout = tensor(c, "dout");
    std::vector<float> out(x.size()), dx(x.size(), 0.0f);
    LlamaBlockCache cache;
    llama_block_forward(out.data(), cache, x.data(), s, p, b, n, c.at("sizes").at("eps").get<double>());
    llama_block_backward(dx.data(), grad, dout.data(), cache, s, p);
    expect_close("out", out.data(), tensor(c, "out"));
    expect_close("d_x", dx.data(), tensor(c, "d_x"));
    expect_close("d_attn_norm", grad.attn_norm.data(), tensor(c, "d_attn_norm"));
    expect_close("d_mlp_norm", grad.mlp_norm.data(), tensor(c, "d_mlp_norm"));
    expect_close("d_wq", grad.attn.wq.data(), tensor(c, "d_wq"));
    expect_close("d_wk", grad.attn.wk.data(), tensor(c, "d_wk"));
    expect_close("d_wv", grad.attn.wv.data(), tensor(c, "d_wv"));
    expect_close("d_wo", grad.attn.wo.data(), tensor(c, "d_wo"));
    expect_close("d_w_gate", grad.mlp.w_gate.data(), tensor(c, "d_w_gate"));
    expect_close("d_w_up", grad.mlp.w_up.data(), tensor(c, "d_w_up"));
    expect_close("d_w_down", grad.mlp.w_down.data(), tensor(c, "d_w_down"));
  }
}

// --- whole models: loss, logits and every parameter's gradient (tied embeddings: both uses summed) --

namespace {
const char* const kModelCases[] = {"model_gqa_untied", "model_gqa_tied", "model_mqa_tied", "model_mha_untied_dhead6"};
}

TEST(TrainLlamaGolden, ModelLossLogitsAndEveryGradient) {
  for (const char* name : kModelCases) {
    SCOPED_TRACE(name);
    const json& c = case_named(name);
    auto model = model_of(c);
    load_weights(*model, c);
    const auto ids = ints(c, "ids"), targets = ints(c, "targets");
    const auto mask = tensor(c, "mask");
    const double loss = model->forward(ids.data(), targets.data(), mask.data(), size(c, "batch"), size(c, "n"));
    model->zero_grad();
    model->backward();
    EXPECT_NEAR(loss, double(tensor(c, "loss")[0]), 1e-4 * std::fabs(double(tensor(c, "loss")[0])));
    expect_close("logits", model->logits().data(), tensor(c, "logits"));
    for (const auto& map : hf_names(*model)) {
      for (const auto& p : model->params()) {
        if (p.name != map.param) continue;
        const auto ref = to_trainer(tensor(c, "grad." + map.hf), int64_t(p.grad->shape(0)), int64_t(p.grad->shape(1)),
                                    map.transposed);
        expect_close("grad " + map.hf, p.grad->data(), ref);
      }
    }
  }
}

// --- whole models against finite differences -------------------------------------------------------

namespace {
struct LlamaCase {
  const char* name;
  const char* variant;
  int64_t h, g, dh;
  bool tied;
};
const LlamaCase kLlamaCases[] = {
    {"mha_untied", "mha", 2, 0, 4, false}, {"gqa_tied", "gqa", 4, 2, 2, true}, {"mqa_untied", "mqa", 4, 1, 2, false},
    {"gqa_untied_dh4", "gqa", 4, 2, 4, false}};
class LlamaGradient : public ::testing::TestWithParam<LlamaCase> {};
void PrintTo(const LlamaCase& c, std::ostream* os) { *os << c.name; }
}  // namespace

TEST_P(LlamaGradient, EveryParameterAgainstFiniteDifferences) {
  const LlamaCase& lc = GetParam();
  ModelConfig cfg;
  cfg.attn = resolve(testing_helpers::raw_spec({lc.variant, 6, 8, lc.h, lc.g, lc.dh, 0, 0, true, true}), Need::Forward);
  cfg.vocab = 7;
  cfg.n_layers = 2;
  cfg.block = Block::Llama;
  cfg.ffn = 12;
  cfg.tied = lc.tied;
  Model model(cfg, 41);
  uint64_t seed = 300;
  for (auto& p : model.params()) {  // larger than the init so that no path is negligible; gains near 1
    const bool gain = p.name.find("gamma") != std::string::npos;
    auto rv = gradient_check::random_vec(p.value->size(), seed++, gain ? 0.3f : 0.5f);
    for (std::size_t i = 0; i < rv.size(); ++i) p.value->data()[i] = gain ? 1.0f + rv[i] : rv[i];
  }
  const std::vector<int32_t> tok = {1, 2, 3, 1, 2, 0, 6, 5, 4, 0};
  const std::vector<int32_t> tgt = {2, 3, 1, 2, 5, 6, 5, 4, 0, 3};
  const std::vector<float> mask = {1, 1, 0, 1, 1, 1, 1, 1, 0, 1};
  auto loss = [&] { return model.forward(tok.data(), tgt.data(), mask.data(), 2, 5); };
  loss();
  model.zero_grad();
  model.backward();
  std::vector<gradient_check::Checked> ts;
  for (auto& p : model.params()) ts.push_back({p.name, p.value->data(), p.grad->data(), int64_t(p.value->size())});
  gradient_check::check_gradients(lc.name, loss, ts);
}

INSTANTIATE_TEST_SUITE_P(Variants, LlamaGradient, ::testing::ValuesIn(kLlamaCases),
                         [](const auto& info) { return std::string(info.param.name); });

// --- the trainer spec ------------------------------------------------------------------------------

namespace {
TrainerSpec llama_spec(const std::string& variant) {
  TrainerSpec s;
  s.task = "copy";
  s.block = "llama";
  s.model.variant = variant;
  s.model.d_model = 32;
  s.model.n_heads = 4;
  if (variant == "gqa") s.model.n_kv_heads = 2;
  s.n_layers = 2;
  s.seq_len = 16;
  s.batch_size = 8;
  s.seed = 3;
  s.total_steps = 300;
  return s;
}
}  // namespace

TEST(TrainerLlama, RefusesWhatTheBlockFixesNamingTheField) {
  const auto expect_error = expect_spec_error;  // trainer_errors.hpp
  const TrainerSpec s = llama_spec("gqa");
  { auto t = s; t.block = "mamba"; expect_error(t, "block ('mamba')", "model.block"); }
  { auto t = s; t.model.variant = "mla"; t.model.n_kv_heads.reset(); t.model.latent_rank = 8; expect_error(t, "variant ('mla')", "model.variant"); }
  { auto t = s; t.layer_norm = false; expect_error(t, "layerNorm (false)", "model.layerNorm"); }
  { auto t = s; t.mlp = false; expect_error(t, "mlp (false)", "model.mlp"); }
  { auto t = s; t.activation = "relu"; expect_error(t, "activation ('relu')", "model.activation"); }
  { auto t = s; t.mlp_width = 0; expect_error(t, "mlpWidth (0)", "model.mlpWidth"); }
  { auto t = s; t.model.d_head = 5; expect_error(t, "dHead (5)", "model.dHead"); }  // RoPE turns pairs
  { auto t = s; t.block = "gpt"; t.mlp_width = 64; expect_error(t, "mlpWidth (64) applies to blocks 'llama' and 'deepseek' only", "model.mlpWidth"); }
}

TEST(TrainerLlama, DefaultsAndParameterCount) {
  Trainer t(llama_spec("gqa"));
  const ModelConfig& cfg = t.model().config();
  EXPECT_EQ(cfg.block, Block::Llama);
  EXPECT_TRUE(cfg.attn.rope);
  EXPECT_EQ(cfg.ffn, 88);  // ceil(8 * 32 / 3 / 8) * 8
  EXPECT_EQ(llama_mlp_width(64), 176);
  EXPECT_EQ(llama_mlp_width(24), 64);
  EXPECT_EQ(double(t.model().param_count()), model_param_floats(cfg));
  for (const auto& p : t.model().params()) {
    EXPECT_EQ(p.name.find("wpe"), std::string::npos) << "no learned positions";
    EXPECT_EQ(p.name.find("beta"), std::string::npos) << "no biases";
    EXPECT_EQ(p.name.find(".b"), std::string::npos) << p.name;
  }
  TrainerSpec w = llama_spec("mha");
  w.mlp_width = 40;
  w.tied_embeddings = true;
  Trainer t2(w);
  EXPECT_EQ(t2.model().config().ffn, 40);
  EXPECT_EQ(double(t2.model().param_count()), model_param_floats(t2.model().config()));
}

TEST(TrainerLlama, CopyTaskLossFallsAndTheModelFileRoundTrips) {
  for (const char* variant : {"gqa", "mqa"}) {
    SCOPED_TRACE(variant);
    TrainerSpec s = llama_spec(variant);
    s.mlp_width = 48;
    Trainer t(s);
    const double before = t.evaluate().loss;
    for (int i = 0; i < 10; ++i) t.step(30);
    const EvalResult after = t.evaluate();
    EXPECT_LT(after.loss, 0.5 * before) << "before " << before << " after " << after.loss;

    const auto bytes = t.export_model();
    auto loaded = Trainer::load_model(bytes);
    EXPECT_EQ(loaded->model().config().block, Block::Llama);
    EXPECT_EQ(loaded->model().config().ffn, 48);
    EXPECT_EQ(loaded->evaluate().loss, after.loss);
    const StepResult a = t.step(3), b = loaded->step(3);
    EXPECT_EQ(a.loss, b.loss);  // the same data stream, weights and moments
  }
}

TEST(TrainerLlama, LayerRunByTheInferenceCoreGivesTheTrainersMaps) {
  Trainer t(llama_spec("gqa"));
  t.step(5);  // trained a little: the layers differ from their initialisation
  const std::vector<int32_t> tokens = {3, 1, 4, 1, 5, 9, 2, 6, 5};
  const auto maps = t.attention(tokens);  // (layers, H, N, N)
  const int64_t n = int64_t(tokens.size()), h = 4;
  for (int64_t l = 0; l < 2; ++l) {
    const LayerView v = t.layer(tokens, l);  // x: the block's RMSNorm of the residual stream
    Shape shape = v.shape;
    EXPECT_TRUE(shape.rope);
    shape.return_weights = true;
    ForwardResult r = forward(shape, *v.weights, v.x);  // weights (H, N, N)
    ASSERT_NE(r.maps(), nullptr);
    double worst = 0;
    for (int64_t k = 0; k < h * n * n; ++k) worst = std::max(worst, double(std::fabs(r.maps()[k] - maps.data()[l * h * n * n + k])));
    EXPECT_LT(worst, 1e-5) << "layer " << l;
  }
}
