// test_train_deepseek.cpp — the trainer's DeepSeek-V2 block (dense, MLA): RoPE on adjacent pairs,
// MLA (with and without query compression, v_head_dim != qk_nope_head_dim), the whole block and
// whole models (tied and untied embeddings) against PyTorch's forward and autograd
// (train_deepseek_golden.json, to 1e-4 of each tensor's largest value); models against central finite
// differences too; the trainer spec's block 'deepseek', its refusals, training and model file; the
// Hugging Face export (DeepseekV2ForCausalLM) opened by the checkpoint loader, whose logits are the
// trainer's.
#include <gtest/gtest.h>

#include "gradient_check.hpp"
#include "llama_fixtures.hpp"
#include "pretrained_fixtures.hpp"
#include "trainer_errors.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "attn/errors.hpp"
#include "attn/train/costs.hpp"
#include "attn/train/deepseek_block.hpp"
#include "attn/train/deepseek_layers.hpp"
#include "attn/train/hf_checkpoint.hpp"
#include "attn/train/model.hpp"
#include "attn/train/trainer.hpp"

using namespace attn;
using namespace attn::train;
using llama_fixtures::expect_close;
using llama_fixtures::ints;
using llama_fixtures::json;
using llama_fixtures::matrix;
using llama_fixtures::size;
using llama_fixtures::tensor;

namespace {

const json& case_named(const std::string& name) { return llama_fixtures::case_named(name, "train_deepseek_golden.json"); }

MlaDims dims_of(const json& c) {
  MlaDims m;
  m.d = size(c, "d");
  m.h = size(c, "h");
  m.nope = size(c, "nope");
  m.dr = size(c, "rope");
  m.dv = size(c, "dv");
  m.r = size(c, "r");
  m.qr = size(c, "qr");
  m.base = c.at("sizes").at("base").get<double>();
  return m;
}

// The MLA parameters of a layer or block case (trainer layout), and zeroed gradients shaped alike.
MlaParams mla_params_of(const json& c, const MlaDims& m) {
  MlaParams p;
  if (m.qr == 0) {
    p.wq = matrix(c, "wq", m.d, m.h * m.dqk());
  } else {
    p.wq_a = matrix(c, "wq_a", m.d, m.qr);
    p.q_a_norm = matrix(c, "q_a_norm", 1, m.qr);
    p.wq_b = matrix(c, "wq_b", m.qr, m.h * m.dqk());
  }
  p.wkv_a = matrix(c, "wkv_a", m.d, m.r + m.dr);
  p.kv_a_norm = matrix(c, "kv_a_norm", 1, m.r);
  p.wkv_b = matrix(c, "wkv_b", m.r, m.h * (m.nope + m.dv));
  p.wo = matrix(c, "wo", m.h * m.dv, m.d);
  return p;
}

void expect_mla_grads(const json& c, const MlaDims& m, const MlaParams& g) {
  if (m.qr == 0) {
    expect_close("d_wq", g.wq.data(), tensor(c, "d_wq"));
  } else {
    expect_close("d_wq_a", g.wq_a.data(), tensor(c, "d_wq_a"));
    expect_close("d_q_a_norm", g.q_a_norm.data(), tensor(c, "d_q_a_norm"));
    expect_close("d_wq_b", g.wq_b.data(), tensor(c, "d_wq_b"));
  }
  expect_close("d_wkv_a", g.wkv_a.data(), tensor(c, "d_wkv_a"));
  expect_close("d_kv_a_norm", g.kv_a_norm.data(), tensor(c, "d_kv_a_norm"));
  expect_close("d_wkv_b", g.wkv_b.data(), tensor(c, "d_wkv_b"));
  expect_close("d_wo", g.wo.data(), tensor(c, "d_wo"));
}

// A trainer Model of a "model" case's sizes (block deepseek, seqLen n).
std::unique_ptr<Model> model_of(const json& c) {
  ModelConfig cfg;
  RawSpec raw;
  raw.variant = "mla";
  raw.seq_len = double(size(c, "n"));
  raw.d_model = double(size(c, "d"));
  raw.n_heads = double(size(c, "h"));
  raw.d_head = double(size(c, "nope"));
  raw.latent_rank = double(size(c, "r"));
  raw.rope_dim = double(size(c, "rope"));
  raw.rope.base = c.at("sizes").at("base").get<double>();
  raw.causal = true;
  cfg.attn = resolve(raw, Need::Shape);
  cfg.attn.n = size(c, "n");
  cfg.vocab = size(c, "vocab");
  cfg.n_layers = size(c, "layers");
  cfg.block = Block::Deepseek;
  cfg.ffn = size(c, "f");
  cfg.v_head_dim = size(c, "dv");
  cfg.q_lora_rank = size(c, "qr");
  cfg.tied = c.at("sizes").at("tied").get<bool>();
  cfg.norm_eps = c.at("sizes").at("eps").get<double>();
  return std::make_unique<Model>(cfg, 7);
}

// Every trainer parameter of a DeepSeek model and the Hugging Face tensor it is (written out here,
// independently of the checkpoint writer).
std::vector<llama_fixtures::Mapped> hf_names(const Model& m) {
  std::vector<llama_fixtures::Mapped> out = {{"wte", "model.embed_tokens.weight", false},
                                             {"lnf.gamma", "model.norm.weight", false}};
  for (int64_t l = 0; l < m.config().n_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".", h = "model.layers." + std::to_string(l) + ".";
    out.push_back({p + "ln1.gamma", h + "input_layernorm.weight", false});
    if (m.config().q_lora_rank == 0) {
      out.push_back({p + "attn.wq", h + "self_attn.q_proj.weight", true});
    } else {
      out.push_back({p + "attn.wq_a", h + "self_attn.q_a_proj.weight", true});
      out.push_back({p + "attn.q_a_norm", h + "self_attn.q_a_layernorm.weight", false});
      out.push_back({p + "attn.wq_b", h + "self_attn.q_b_proj.weight", true});
    }
    out.push_back({p + "attn.wkv_a", h + "self_attn.kv_a_proj_with_mqa.weight", true});
    out.push_back({p + "attn.kv_a_norm", h + "self_attn.kv_a_layernorm.weight", false});
    out.push_back({p + "attn.wkv_b", h + "self_attn.kv_b_proj.weight", true});
    out.push_back({p + "attn.wo", h + "self_attn.o_proj.weight", true});
    out.push_back({p + "ln2.gamma", h + "post_attention_layernorm.weight", false});
    out.push_back({p + "mlp.w_gate", h + "mlp.gate_proj.weight", true});
    out.push_back({p + "mlp.w_up", h + "mlp.up_proj.weight", true});
    out.push_back({p + "mlp.w_down", h + "mlp.down_proj.weight", true});
  }
  if (!m.config().tied) out.push_back({"unembed", "lm_head.weight", true});
  return out;
}

void load_weights(Model& m, const json& c) {
  const auto names = hf_names(m);
  EXPECT_EQ(names.size(), m.params().size());
  for (const auto& map : names) {
    auto it = std::find_if(m.params().begin(), m.params().end(), [&](const auto& p) { return p.name == map.param; });
    if (it == m.params().end()) {
      ADD_FAILURE() << "no parameter " << map.param;
      continue;
    }
    const int64_t rows = int64_t(it->value->shape(0)), cols = int64_t(it->value->shape(1));
    const auto v = llama_fixtures::to_trainer(tensor(c, map.hf), rows, cols, map.transposed);
    ASSERT_EQ(int64_t(v.size()), rows * cols) << map.hf;
    std::copy(v.begin(), v.end(), it->value->data());
  }
}

const char* const kModelCases[] = {"model_untied", "model_tied", "model_qlora_vhead6_tied", "model_qlora_untied"};

}  // namespace

// --- each layer against PyTorch ----------------------------------------------------------------

TEST(TrainDeepseekGolden, RopeOnAdjacentPairsForwardAndGradient) {
  for (const char* name : {"rope_adjacent_base10000", "rope_adjacent_base50"}) {
    SCOPED_TRACE(name);
    const json& c = case_named(name);
    const int64_t b = size(c, "batch"), n = size(c, "n"), heads = size(c, "heads"), nope = size(c, "nope"),
                  w = size(c, "width");
    const double base = c.at("sizes").at("base").get<double>();
    const int64_t ld = heads * (nope + w);
    std::vector<float> m = tensor(c, "x"), dm = tensor(c, "dout");
    rope_adjacent_forward(m.data(), b, n, ld, nope, heads, nope + w, w, base);
    rope_adjacent_backward(dm.data(), b, n, ld, nope, heads, nope + w, w, base);
    expect_close("out", m.data(), tensor(c, "out"));
    expect_close("d_x", dm.data(), tensor(c, "d_x"));
  }
}

TEST(TrainDeepseekGolden, MlaForwardAndGradientsOfEveryInputAndWeight) {
  for (const char* name : {"mla", "mla_vhead6_qlora"}) {
    SCOPED_TRACE(name);
    const json& c = case_named(name);
    const MlaDims m = dims_of(c);
    const int64_t b = size(c, "batch"), n = size(c, "n");
    const MlaParams p = mla_params_of(c, m);
    MlaParams g = mla_zeros_like(p);
    const auto x = tensor(c, "x"), dout = tensor(c, "dout");
    std::vector<float> out(x.size()), dx(x.size(), 0.0f);
    MlaCache cache;
    mla_forward(out.data(), cache, m, p, x.data(), b, n);
    mla_backward(dx.data(), g, dout.data(), x.data(), cache, m, p);
    expect_close("out", out.data(), tensor(c, "out"));
    expect_close("d_x", dx.data(), tensor(c, "d_x"));
    expect_mla_grads(c, m, g);
  }
}

// --- the whole block -------------------------------------------------------------------------------

TEST(TrainDeepseekGolden, BlockForwardAndGradientsOfEveryInputAndWeight) {
  for (const char* name : {"block", "block_vhead3_qlora"}) {
    SCOPED_TRACE(name);
    const json& c = case_named(name);
    const MlaDims m = dims_of(c);
    const int64_t b = size(c, "batch"), n = size(c, "n"), d = m.d, f = size(c, "f");
    DeepseekLayer p, grad;
    p.attn_norm = matrix(c, "attn_norm", 1, d);
    p.mlp_norm = matrix(c, "mlp_norm", 1, d);
    p.attn = mla_params_of(c, m);
    p.mlp = {matrix(c, "w_gate", d, f), matrix(c, "w_up", d, f), matrix(c, "w_down", f, d)};
    grad.attn_norm = zeros(1, d);
    grad.mlp_norm = zeros(1, d);
    grad.attn = mla_zeros_like(p.attn);
    grad.mlp = {zeros(d, f), zeros(d, f), zeros(f, d)};
    const auto x = tensor(c, "x"), dout = tensor(c, "dout");
    std::vector<float> out(x.size()), dx(x.size(), 0.0f);
    DeepseekBlockCache cache;
    deepseek_block_forward(out.data(), cache, x.data(), m, p, b, n, c.at("sizes").at("eps").get<double>());
    deepseek_block_backward(dx.data(), grad, dout.data(), cache, m, p);
    expect_close("out", out.data(), tensor(c, "out"));
    expect_close("d_x", dx.data(), tensor(c, "d_x"));
    expect_close("d_attn_norm", grad.attn_norm.data(), tensor(c, "d_attn_norm"));
    expect_close("d_mlp_norm", grad.mlp_norm.data(), tensor(c, "d_mlp_norm"));
    expect_mla_grads(c, m, grad.attn);
    expect_close("d_w_gate", grad.mlp.w_gate.data(), tensor(c, "d_w_gate"));
    expect_close("d_w_up", grad.mlp.w_up.data(), tensor(c, "d_w_up"));
    expect_close("d_w_down", grad.mlp.w_down.data(), tensor(c, "d_w_down"));
  }
}

// --- whole models: loss, logits and every parameter's gradient (tied embeddings: both uses summed) --

TEST(TrainDeepseekGolden, ModelLossLogitsAndEveryGradient) {
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
    int checked = 0;
    for (const auto& map : hf_names(*model)) {
      for (const auto& p : model->params()) {
        if (p.name != map.param) continue;
        const auto ref = llama_fixtures::to_trainer(tensor(c, "grad." + map.hf), int64_t(p.grad->shape(0)),
                                                    int64_t(p.grad->shape(1)), map.transposed);
        expect_close("grad " + map.hf, p.grad->data(), ref);
        ++checked;
      }
    }
    EXPECT_EQ(checked, int(model->params().size()));
  }
}

// The HF export of the golden weights, opened by the checkpoint loader, gives PyTorch's logits.
TEST(TrainDeepseekGolden, FromTheGoldenWeightsTheLoadersLogitsArePyTorchs) {
  for (const char* name : kModelCases) {
    SCOPED_TRACE(name);
    const json& c = case_named(name);
    auto model = model_of(c);
    load_weights(*model, c);
    const HfCheckpoint ck = export_hf_checkpoint(*model);
    auto loaded = pretrained_fixtures::load(nlohmann::json::parse(ck.config_json), {ck.safetensors});
    const int64_t b = size(c, "batch"), n = size(c, "n"), v = size(c, "vocab");
    const auto ids = ints(c, "ids");
    const auto ref = tensor(c, "logits");
    for (int64_t seq = 0; seq < b; ++seq) {
      const std::vector<int32_t> one(ids.begin() + seq * n, ids.begin() + (seq + 1) * n);
      const auto out = loaded->forward(one, false);
      expect_close("logits of sequence " + std::to_string(seq), out.logits.data(),
                   std::vector<float>(ref.begin() + seq * n * v, ref.begin() + (seq + 1) * n * v));
    }
  }
}

// --- whole models against finite differences -------------------------------------------------------

namespace {
struct DeepseekCase {
  const char* name;
  int64_t h, nope, rope, dv, r, qr;
  bool tied;
};
const DeepseekCase kDeepseekCases[] = {
    {"untied", 2, 4, 2, 4, 6, 0, false}, {"tied_qlora", 2, 2, 4, 3, 5, 6, true}};
class DeepseekGradient : public ::testing::TestWithParam<DeepseekCase> {};
void PrintTo(const DeepseekCase& c, std::ostream* os) { *os << c.name; }
}  // namespace

TEST_P(DeepseekGradient, EveryParameterAgainstFiniteDifferences) {
  const DeepseekCase& dc = GetParam();
  ModelConfig cfg;
  RawSpec raw;
  raw.variant = "mla";
  raw.seq_len = 6;
  raw.d_model = 8;
  raw.n_heads = double(dc.h);
  raw.d_head = double(dc.nope);
  raw.latent_rank = double(dc.r);
  raw.rope_dim = double(dc.rope);
  raw.causal = true;
  cfg.attn = resolve(raw, Need::Shape);
  cfg.attn.n = 6;
  cfg.vocab = 7;
  cfg.n_layers = 2;
  cfg.block = Block::Deepseek;
  cfg.ffn = 12;
  cfg.v_head_dim = dc.dv;
  cfg.q_lora_rank = dc.qr;
  cfg.tied = dc.tied;
  Model model(cfg, 41);
  uint64_t seed = 500;
  for (auto& p : model.params()) {  // larger than the init so that no path is negligible; gains near 1
    const bool gain = p.name.find("gamma") != std::string::npos || p.name.find("norm") != std::string::npos;
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
  gradient_check::check_gradients(dc.name, loss, ts);
}

INSTANTIATE_TEST_SUITE_P(Variants, DeepseekGradient, ::testing::ValuesIn(kDeepseekCases),
                         [](const auto& info) { return std::string(info.param.name); });

// --- the trainer spec ------------------------------------------------------------------------------

namespace {
TrainerSpec deepseek_spec() {
  TrainerSpec s;
  s.task = "copy";
  s.block = "deepseek";
  s.model.variant = "mla";
  s.model.d_model = 32;
  s.model.n_heads = 4;
  s.model.d_head = 8;       // qk_nope_head_dim
  s.model.latent_rank = 16; // kv_lora_rank
  s.model.rope_dim = 4;     // qk_rope_head_dim
  s.n_layers = 2;
  s.seq_len = 16;
  s.batch_size = 8;
  s.seed = 3;
  s.total_steps = 300;
  return s;
}
}  // namespace

TEST(TrainerDeepseek, RefusesWhatTheBlockFixesNamingTheField) {
  const auto expect_error = expect_spec_error;  // trainer_errors.hpp
  const TrainerSpec s = deepseek_spec();
  { auto t = s; t.block = "mamba"; expect_error(t, "'gpt', 'llama' or 'deepseek'", "model.block"); }
  { auto t = s; t.model.variant = "gqa"; t.model.latent_rank.reset(); t.model.rope_dim.reset(); t.model.n_kv_heads = 2;
    expect_error(t, "variant ('gqa')", "model.variant"); }
  { auto t = s; t.model.rope_dim = 0; expect_error(t, "ropeDim (0)", "model.ropeDim"); }
  { auto t = s; t.model.rope_dim = 3; expect_error(t, "ropeDim (3)", "model.ropeDim"); }
  { auto t = s; t.layer_norm = false; expect_error(t, "layerNorm (false)", "model.layerNorm"); }
  { auto t = s; t.mlp = false; expect_error(t, "mlp (false)", "model.mlp"); }
  { auto t = s; t.activation = "gelu"; expect_error(t, "activation ('gelu')", "model.activation"); }
  { auto t = s; t.v_head_dim = 0; expect_error(t, "vHeadDim (0)", "model.vHeadDim"); }
  { auto t = s; t.v_head_dim = 2.5; expect_error(t, "vHeadDim (2.5)", "model.vHeadDim"); }
  { auto t = s; t.q_lora_rank = 0; expect_error(t, "qLoraRank (0)", "model.qLoraRank"); }
  { auto t = s; t.block = "llama"; t.model.variant = "mha"; t.model.latent_rank.reset(); t.model.rope_dim.reset();
    t.v_head_dim = 8; expect_error(t, "vHeadDim (8) applies to block 'deepseek' only", "model.vHeadDim"); }
  { auto t = s; t.block.reset(); t.q_lora_rank = 8; expect_error(t, "qLoraRank (8) applies to block 'deepseek' only", "model.qLoraRank"); }
}

TEST(TrainerDeepseek, DefaultsAndParameterCount) {
  Trainer t(deepseek_spec());
  const ModelConfig& cfg = t.model().config();
  EXPECT_EQ(cfg.block, Block::Deepseek);
  EXPECT_EQ(cfg.v_head_dim, 8);   // dHead
  EXPECT_EQ(cfg.q_lora_rank, 0);  // no query compression
  EXPECT_EQ(cfg.ffn, 88);
  EXPECT_EQ(double(t.model().param_count()), model_param_floats(cfg));
  for (const auto& p : t.model().params()) {
    EXPECT_EQ(p.name.find("wpe"), std::string::npos) << "no learned positions";
    EXPECT_EQ(p.name.find("beta"), std::string::npos) << "no biases";
  }
  TrainerSpec w = deepseek_spec();
  w.v_head_dim = 6;
  w.q_lora_rank = 12;
  w.mlp_width = 40;
  w.tied_embeddings = true;
  Trainer t2(w);
  EXPECT_EQ(t2.model().config().v_head_dim, 6);
  EXPECT_EQ(t2.model().config().q_lora_rank, 12);
  EXPECT_EQ(double(t2.model().param_count()), model_param_floats(t2.model().config()));
}

// The cost model counts the block's work: more latent, more heads or longer sequences cost more, and
// a DeepSeek step is within a factor of the Llama step of the same width.
TEST(TrainerDeepseek, TheCostModelCountsTheBlock) {
  Trainer t(deepseek_spec());
  const double step = t.costs().step.seconds();
  EXPECT_GT(step, 0.0);
  TrainerSpec big = deepseek_spec();
  big.model.latent_rank = 64;
  big.v_head_dim = 32;
  EXPECT_GT(Trainer(big).costs().step.seconds(), step);
  TrainerSpec longer = deepseek_spec();
  longer.seq_len = 64;
  EXPECT_GT(Trainer(longer).costs().step.seconds(), 2.0 * step);
  TrainerSpec llama = deepseek_spec();
  llama.block = "llama";
  llama.model.variant = "mha";
  llama.model.latent_rank.reset();
  llama.model.rope_dim.reset();
  const double llama_step = Trainer(llama).costs().step.seconds();
  EXPECT_LT(step, 4.0 * llama_step);
  EXPECT_GT(step, 0.25 * llama_step);
}

TEST(TrainerDeepseek, CopyTaskLossFallsAndTheModelFileRoundTrips) {
  for (const bool qlora : {false, true}) {
    SCOPED_TRACE(qlora ? "q_lora_rank 12" : "no query compression");
    TrainerSpec s = deepseek_spec();
    s.mlp_width = 48;
    s.v_head_dim = 6;
    if (qlora) s.q_lora_rank = 12;
    Trainer t(s);
    const double before = t.evaluate().loss;
    for (int i = 0; i < 10; ++i) t.step(30);
    const EvalResult after = t.evaluate();
    EXPECT_LT(after.loss, 0.5 * before) << "before " << before << " after " << after.loss;

    const auto bytes = t.export_model();
    auto loaded = Trainer::load_model(bytes);
    EXPECT_EQ(loaded->model().config().block, Block::Deepseek);
    EXPECT_EQ(loaded->model().config().ffn, 48);
    EXPECT_EQ(loaded->model().config().v_head_dim, 6);
    EXPECT_EQ(loaded->model().config().q_lora_rank, qlora ? 12 : 0);
    EXPECT_EQ(loaded->evaluate().loss, after.loss);
    const StepResult a = t.step(3), b = loaded->step(3);
    EXPECT_EQ(a.loss, b.loss);  // the same data stream, weights and moments
  }
}

TEST(TrainerDeepseek, AttentionMapsAreCausalDistributionsAndLayerIsRefused) {
  Trainer t(deepseek_spec());
  t.step(2);
  const std::vector<int32_t> tokens = {3, 1, 4, 1, 5, 9, 2};
  const auto maps = t.attention(tokens);  // (layers, H, N, N)
  const int64_t n = int64_t(tokens.size());
  for (int64_t l = 0; l < 2; ++l)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t i = 0; i < n; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          const float p = maps(l, h, i, j);
          if (j > i) EXPECT_EQ(p, 0.0f);
          sum += p;
        }
        EXPECT_NEAR(sum, 1.0, 1e-5);
      }
  try {
    t.layer(tokens, 0);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "layer");
  }
}

// --- the Hugging Face export ---------------------------------------------------------------------

namespace {
TrainerSpec export_spec(bool tied, int64_t q_lora) {
  TrainerSpec s;
  s.task = "induction";
  s.block = "deepseek";
  s.model.variant = "mla";
  s.model.d_model = 24;
  s.model.n_heads = 3;
  s.model.d_head = 6;       // qk_nope_head_dim
  s.model.latent_rank = 10; // kv_lora_rank
  s.model.rope_dim = 4;     // qk_rope_head_dim
  s.v_head_dim = 5;
  if (q_lora > 0) s.q_lora_rank = double(q_lora);
  s.mlp_width = 40;
  s.n_layers = 2;
  s.tied_embeddings = tied;
  s.seq_len = 12;
  s.batch_size = 4;
  s.seed = 5;
  return s;
}
}  // namespace

TEST(TrainDeepseekCheckpoint, TheLoaderOpensTheExportAndItsLogitsAreTheTrainers) {
  for (const auto& [tied, q_lora] : std::vector<std::pair<bool, int64_t>>{{false, 0}, {true, 0}, {false, 8}, {true, 8}}) {
    SCOPED_TRACE(std::string(tied ? "tied" : "untied") + ", q_lora_rank " + std::to_string(q_lora));
    Trainer t(export_spec(tied, q_lora));
    t.step(20);  // trained weights, not the initial ones
    const HfCheckpoint ck = export_hf_checkpoint(t.model());
    auto loaded = pretrained_fixtures::load(nlohmann::json::parse(ck.config_json), {ck.safetensors});
    const auto& cfg = loaded->config();
    EXPECT_EQ(cfg.arch, attn::pretrained::Arch::DeepseekV2);
    EXPECT_TRUE(cfg.mla);
    EXPECT_EQ(cfg.kv_lora_rank, 10);
    EXPECT_EQ(cfg.q_lora_rank, q_lora);
    EXPECT_EQ(cfg.v_head_dim, 5);
    EXPECT_EQ(cfg.tied, tied);
    const std::vector<int32_t> ids = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
    t.model().forward(ids.data(), nullptr, nullptr, 1, int64_t(ids.size()));
    const auto out = loaded->forward(ids, false);
    const int64_t v = t.model().config().vocab;
    ASSERT_EQ(out.logits.size(), ids.size() * std::size_t(v));
    double worst = 0;
    for (std::size_t i = 0; i < out.logits.size(); ++i) {
      worst = std::max(worst, double(std::fabs(out.logits.data()[i] - t.model().logits().data()[i])));
    }
    EXPECT_LT(worst, 1e-4);
  }
}

TEST(TrainDeepseekCheckpoint, ConfigFieldsTensorNamesAndLayouts) {
  Trainer t(export_spec(false, 8));
  const HfCheckpoint ck = export_hf_checkpoint(t.model());
  const auto config = nlohmann::json::parse(ck.config_json);
  EXPECT_EQ(config.at("model_type"), "deepseek_v2");
  EXPECT_EQ(config.at("architectures"), nlohmann::json::array({"DeepseekV2ForCausalLM"}));
  EXPECT_EQ(config.at("hidden_size"), 24);
  EXPECT_EQ(config.at("intermediate_size"), 40);
  EXPECT_EQ(config.at("num_attention_heads"), 3);
  EXPECT_EQ(config.at("num_key_value_heads"), 3);
  EXPECT_EQ(config.at("num_hidden_layers"), 2);
  EXPECT_EQ(config.at("first_k_dense_replace"), 2);  // every layer dense
  EXPECT_TRUE(config.at("n_routed_experts").is_null());
  EXPECT_EQ(config.at("q_lora_rank"), 8);
  EXPECT_EQ(config.at("kv_lora_rank"), 10);
  EXPECT_EQ(config.at("qk_nope_head_dim"), 6);
  EXPECT_EQ(config.at("qk_rope_head_dim"), 4);
  EXPECT_EQ(config.at("v_head_dim"), 5);
  EXPECT_EQ(config.at("tie_word_embeddings"), false);
  EXPECT_EQ(config.at("rope_theta"), 10000.0);
  EXPECT_EQ(config.at("rms_norm_eps").get<double>(), 1e-5);
  EXPECT_EQ(config.at("attention_bias"), false);

  const auto index = pretrained_fixtures::index_of(ck.safetensors, 0);
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& e : index.tensors) {
    EXPECT_EQ(e.dtype_name, "F32") << e.name;
    shapes[e.name] = e.shape;
  }
  const int64_t V = t.model().config().vocab;
  const std::string a = "model.layers.1.self_attn.";
  const std::map<std::string, std::vector<int64_t>> expected = {
      {"model.embed_tokens.weight", {V, 24}},
      {"model.layers.1.input_layernorm.weight", {24}},
      {a + "q_a_proj.weight", {8, 24}},
      {a + "q_a_layernorm.weight", {8}},
      {a + "q_b_proj.weight", {3 * 10, 8}},
      {a + "kv_a_proj_with_mqa.weight", {10 + 4, 24}},
      {a + "kv_a_layernorm.weight", {10}},
      {a + "kv_b_proj.weight", {3 * (6 + 5), 10}},
      {a + "o_proj.weight", {24, 3 * 5}},
      {"model.layers.1.post_attention_layernorm.weight", {24}},
      {"model.layers.1.mlp.gate_proj.weight", {40, 24}},
      {"model.layers.1.mlp.up_proj.weight", {40, 24}},
      {"model.layers.1.mlp.down_proj.weight", {24, 40}},
      {"model.norm.weight", {24}},
      {"lm_head.weight", {V, 24}}};
  for (const auto& [name, shape] : expected) EXPECT_EQ(shapes[name], shape) << name;
  EXPECT_EQ(shapes.size(), 2 * 12 + 3u);
  // kv_b_proj is wkv_b transposed: element (o, i) of the file is wkv_b[i][o].
  const auto& wkv_b = t.model().deepseek_layer(1).attn.wkv_b;  // (r, H*(nope+dv))
  for (const auto& e : index.tensors) {
    if (e.name != a + "kv_b_proj.weight") continue;
    float v;
    std::memcpy(&v, ck.safetensors.data() + e.begin + 4 * (17 * 10 + 3), 4);  // (o = 17, i = 3)
    EXPECT_EQ(v, wkv_b(3, 17));
  }
  const auto q_index = pretrained_fixtures::index_of(export_hf_checkpoint(Trainer(export_spec(true, 0)).model()).safetensors, 0);
  std::map<std::string, std::vector<int64_t>> q_shapes;
  for (const auto& e : q_index.tensors) q_shapes[e.name] = e.shape;
  EXPECT_EQ(q_shapes[a + "q_proj.weight"], (std::vector<int64_t>{3 * 10, 24}));
  EXPECT_EQ(q_shapes.count("lm_head.weight"), 0u);
  EXPECT_EQ(q_shapes.size(), 2 * 10 + 2u);
}
