// test_train_checkpoint.cpp — a Llama model of the trainer saved as a Hugging Face checkpoint
// (train/hf_checkpoint.hpp): the checkpoint loader (pretrained/) opens it, and its logits are the
// trainer's forward; from the golden file's weights, they are PyTorch's too (train_llama_golden.json,
// the reference written from Hugging Face's LlamaForCausalLM); config.json's fields, the tensors'
// names and layouts; a GPT-style model is refused.
#include <gtest/gtest.h>

#include "llama_fixtures.hpp"
#include "pretrained_fixtures.hpp"

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "attn/errors.hpp"
#include "attn/half.hpp"
#include "attn/train/hf_checkpoint.hpp"
#include "attn/train/trainer.hpp"

using namespace attn;
using namespace attn::train;

namespace {

std::unique_ptr<attn::pretrained::PretrainedModel> open_checkpoint(const HfCheckpoint& ck) {
  return pretrained_fixtures::load(nlohmann::json::parse(ck.config_json), {ck.safetensors});
}

// Rows [row0, row0 + n) of a (rows, V) matrix.
std::vector<float> rows_of(const float* m, int64_t row0, int64_t n, int64_t v) {
  return std::vector<float>(m + row0 * v, m + (row0 + n) * v);
}

TrainerSpec spec(const std::string& variant, bool tied) {
  TrainerSpec s;
  s.task = "induction";
  s.block = "llama";
  s.model.variant = variant;
  s.model.d_model = 24;
  s.model.n_heads = 6;
  if (variant == "gqa") s.model.n_kv_heads = 2;
  s.model.d_head = 6;  // not dModel / nHeads: head_dim is written
  s.n_layers = 2;
  s.tied_embeddings = tied;
  s.seq_len = 12;
  s.batch_size = 4;
  s.seed = 5;
  return s;
}

}  // namespace

TEST(TrainCheckpoint, TheLoaderOpensTheExportAndItsLogitsAreTheTrainers) {
  for (const auto& [variant, tied] : std::vector<std::pair<std::string, bool>>{{"gqa", false}, {"mqa", true}, {"mha", false}}) {
    SCOPED_TRACE(variant + (tied ? " tied" : " untied"));
    Trainer t(spec(variant, tied));
    t.step(20);  // trained weights, not the initial ones
    const HfCheckpoint ck = export_hf_checkpoint(t.model());
    auto loaded = open_checkpoint(ck);
    const auto& cfg = loaded->config();
    EXPECT_EQ(cfg.arch, attn::pretrained::Arch::Llama);
    EXPECT_EQ(cfg.n_kv_heads, t.model().config().attn.g);
    EXPECT_EQ(cfg.head_dim, 6);
    EXPECT_EQ(cfg.tied, tied);
    const std::vector<int32_t> ids = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
    t.model().forward(ids.data(), nullptr, nullptr, 1, int64_t(ids.size()));
    const auto out = loaded->forward(ids, false);
    const int64_t v = t.model().config().vocab;
    llama_fixtures::expect_close("logits", out.logits.data(), rows_of(t.model().logits().data(), 0, int64_t(ids.size()), v));
  }
}

TEST(TrainCheckpoint, AFloat16ExportHoldsTheWeightsRoundedToHalfAndOpens) {
  Trainer t(spec("gqa", true));
  t.step(20);
  const HfCheckpoint f32 = export_hf_checkpoint(t.model()), f16 = export_hf_checkpoint(t.model(), true);
  EXPECT_EQ(nlohmann::json::parse(f16.config_json).at("torch_dtype"), "float16");
  EXPECT_EQ(nlohmann::json::parse(f32.config_json).at("torch_dtype"), "float32");
  // the same tensors, each value the float32 one rounded to float16
  const auto read = [](const std::vector<uint8_t>& file) {
    uint64_t len = 0;
    for (int i = 0; i < 8; ++i) len |= uint64_t(file[std::size_t(i)]) << (8 * i);
    return std::make_pair(nlohmann::json::parse(std::string(file.begin() + 8, file.begin() + 8 + std::ptrdiff_t(len))), 8 + len);
  };
  const auto [h32, at32] = read(f32.safetensors);
  const auto [h16, at16] = read(f16.safetensors);
  int checked = 0;
  for (const auto& [name, e] : h32.items()) {
    if (name == "__metadata__") continue;
    SCOPED_TRACE(name);
    const auto& e16 = h16.at(name);
    EXPECT_EQ(e16.at("dtype"), "F16");
    EXPECT_EQ(e16.at("shape"), e.at("shape"));
    const std::size_t n = (e.at("data_offsets")[1].get<std::size_t>() - e.at("data_offsets")[0].get<std::size_t>()) / 4;
    ASSERT_EQ(e16.at("data_offsets")[1].get<std::size_t>() - e16.at("data_offsets")[0].get<std::size_t>(), 2 * n);
    const uint8_t* p32 = f32.safetensors.data() + at32 + e.at("data_offsets")[0].get<std::size_t>();
    const uint8_t* p16 = f16.safetensors.data() + at16 + e16.at("data_offsets")[0].get<std::size_t>();
    for (std::size_t i = 0; i < n; ++i) {
      float v;
      uint16_t h;
      std::memcpy(&v, p32 + 4 * i, 4);
      std::memcpy(&h, p16 + 2 * i, 2);
      ASSERT_EQ(h, f32_to_f16(v)) << "value " << i;
    }
    ++checked;
  }
  EXPECT_GT(checked, 10);
  // the loader reads it; its logits are the float32 file's within float16's rounding
  const std::vector<int32_t> ids = {3, 1, 4, 1, 5, 9, 2, 6};
  const auto a = open_checkpoint(f32)->forward(ids, false), b = open_checkpoint(f16)->forward(ids, false);
  ASSERT_EQ(a.logits.size(), b.logits.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.logits.size(); ++i) worst = std::max(worst, double(std::abs(a.logits[i] - b.logits[i])));
  EXPECT_GT(worst, 0.0);  // it is the rounded file that was read
  EXPECT_LT(worst, 0.05);
}

TEST(TrainCheckpoint, FromTheGoldenWeightsTheLoadersLogitsArePyTorchs) {
  using namespace llama_fixtures;
  for (const char* name : {"model_gqa_untied", "model_gqa_tied", "model_mqa_tied", "model_mha_untied_dhead6"}) {
    SCOPED_TRACE(name);
    const json& c = case_named(name);
    auto model = model_of(c);
    load_weights(*model, c);
    auto loaded = open_checkpoint(export_hf_checkpoint(*model));
    const int64_t b = size(c, "batch"), n = size(c, "n"), v = size(c, "vocab");
    const auto ids = ints(c, "ids");
    const auto ref = tensor(c, "logits");  // (B*N, V), every sequence from position 0
    for (int64_t seq = 0; seq < b; ++seq) {
      const std::vector<int32_t> one(ids.begin() + seq * n, ids.begin() + (seq + 1) * n);
      const auto out = loaded->forward(one, false);
      expect_close("logits of sequence " + std::to_string(seq), out.logits.data(),
                   std::vector<float>(ref.begin() + seq * n * v, ref.begin() + (seq + 1) * n * v));
    }
  }
}

TEST(TrainCheckpoint, ConfigFieldsTensorNamesAndLayouts) {
  TrainerSpec s = spec("gqa", false);
  s.mlp_width = 40;
  Trainer t(s);
  const HfCheckpoint ck = export_hf_checkpoint(t.model());
  const auto config = nlohmann::json::parse(ck.config_json);
  EXPECT_EQ(config.at("model_type"), "llama");
  EXPECT_EQ(config.at("architectures"), nlohmann::json::array({"LlamaForCausalLM"}));
  EXPECT_EQ(config.at("hidden_size"), 24);
  EXPECT_EQ(config.at("intermediate_size"), 40);
  EXPECT_EQ(config.at("num_attention_heads"), 6);
  EXPECT_EQ(config.at("num_key_value_heads"), 2);
  EXPECT_EQ(config.at("head_dim"), 6);
  EXPECT_EQ(config.at("num_hidden_layers"), 2);
  EXPECT_EQ(config.at("vocab_size"), t.model().config().vocab);
  EXPECT_EQ(config.at("max_position_embeddings"), 12);
  EXPECT_EQ(config.at("tie_word_embeddings"), false);
  EXPECT_EQ(config.at("rope_theta"), 10000.0);
  EXPECT_EQ(config.at("rms_norm_eps").get<double>(), 1e-5);
  EXPECT_EQ(config.at("hidden_act"), "silu");

  const auto index = pretrained_fixtures::index_of(ck.safetensors, 0);
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& e : index.tensors) {
    EXPECT_EQ(e.dtype_name, "F32") << e.name;
    shapes[e.name] = e.shape;
  }
  const int64_t V = t.model().config().vocab;
  const std::map<std::string, std::vector<int64_t>> expected = {
      {"model.embed_tokens.weight", {V, 24}},
      {"model.layers.0.input_layernorm.weight", {24}},
      {"model.layers.0.self_attn.q_proj.weight", {36, 24}},
      {"model.layers.0.self_attn.k_proj.weight", {12, 24}},
      {"model.layers.0.self_attn.v_proj.weight", {12, 24}},
      {"model.layers.0.self_attn.o_proj.weight", {24, 36}},
      {"model.layers.0.post_attention_layernorm.weight", {24}},
      {"model.layers.0.mlp.gate_proj.weight", {40, 24}},
      {"model.layers.0.mlp.up_proj.weight", {40, 24}},
      {"model.layers.0.mlp.down_proj.weight", {24, 40}},
      {"model.norm.weight", {24}},
      {"lm_head.weight", {V, 24}}};
  for (const auto& [name, shape] : expected) EXPECT_EQ(shapes[name], shape) << name;
  EXPECT_EQ(shapes.size(), 2 * 9 + 3u);
  // q_proj is wq transposed: element (o, i) of the file is wq[i][o].
  const auto& wq = t.model().llama_layer(0).attn.wq;  // (D, H*dh)
  for (const auto& e : index.tensors) {
    if (e.name != "model.layers.0.self_attn.q_proj.weight") continue;
    float v;
    std::memcpy(&v, ck.safetensors.data() + e.begin + 4 * (5 * 24 + 7), 4);  // (o = 5, i = 7)
    EXPECT_EQ(v, wq(7, 5));
  }

  TrainerSpec tied = spec("gqa", true);
  Trainer tt(tied);
  const auto tied_index = pretrained_fixtures::index_of(export_hf_checkpoint(tt.model()).safetensors, 0);
  for (const auto& e : tied_index.tensors) EXPECT_NE(e.name, "lm_head.weight");
  EXPECT_EQ(tied_index.tensors.size(), 2 * 9 + 2u);
}

TEST(TrainCheckpoint, AGptStyleGqaModelIsRefusedNamingTheVariant) {
  TrainerSpec s = spec("gqa", false);
  s.block.reset();
  Trainer t(s);
  try {
    export_hf_checkpoint(t.model());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "model.variant");
    EXPECT_NE(std::string(e.what()).find("GPT2LMHeadModel"), std::string::npos) << e.what();
  }
}

TEST(TrainCheckpoint, APairsModelsConfigNamesTheIdsItsInputsUse) {
  TrainerSpec s = spec("mha", false);
  s.block.reset();  // the labs' GPT-style block
  s.model.d_head = 4;  // dModel / nHeads, as gpt2 computes
  s.task = "pairs";
  s.vocab_size = 8;  // the alphabet: inputs 0..7, targets 0..63
  Trainer t(s);
  ASSERT_EQ(t.task().vocab(), 64);
  const auto config = nlohmann::json::parse(export_hf_checkpoint(t.model(), false, t.task().symbols()).config_json);
  EXPECT_EQ(config.at("model_type"), "gpt2");
  EXPECT_EQ(config.at("vocab_size"), 64);
  EXPECT_EQ(config.at("input_vocab_size"), 8);
  // A task whose inputs are the whole vocabulary, or no count given: no such key.
  EXPECT_FALSE(nlohmann::json::parse(export_hf_checkpoint(t.model(), false, 64).config_json).contains("input_vocab_size"));
  EXPECT_FALSE(nlohmann::json::parse(export_hf_checkpoint(t.model()).config_json).contains("input_vocab_size"));
  try {
    export_hf_checkpoint(t.model(), false, 65);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "vocabSize");
    EXPECT_NE(std::string(e.what()).find("65"), std::string::npos) << e.what();
  }
}

TEST(TrainCheckpoint, ACharsModelsTokenizerMapsEachCharacterToItsTrainingId) {
  // the alphabet as the chars task numbers it: sorted code points (tasks.cpp), here with characters
  // that JSON must escape ("\n", '"', '\\') and ones of two and three UTF-8 bytes
  const std::vector<uint32_t> alphabet = {'\n', ' ', '"', '\\', 'a', 'b', 'c', 0xE9, 0x915};
  const nlohmann::json tok = nlohmann::json::parse(char_tokenizer_json(alphabet));
  EXPECT_EQ(tok["model"]["type"], "BPE");
  EXPECT_TRUE(tok["model"]["merges"].empty());
  EXPECT_TRUE(tok["pre_tokenizer"].is_null());
  ASSERT_EQ(tok["model"]["vocab"].size(), alphabet.size());
  const std::vector<std::string> chars = {"\n", " ", "\"", "\\", "a", "b", "c", "\xC3\xA9", "\xE0\xA4\x95"};
  for (std::size_t id = 0; id < chars.size(); ++id) EXPECT_EQ(tok["model"]["vocab"][chars[id]], id) << chars[id];
  EXPECT_THROW(char_tokenizer_json({}), attn::Error);
}
