// Bad checkpoints are refused before anything is allocated, naming the config key or the tensor
// (error.field in JS): unsupported model types, keys and values, mixture-of-experts layers, missing
// tensors, wrong shapes, unknown dtypes, truncated or oversized files, non-finite weights, bad ids.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "attn/errors.hpp"
#include "attn/pretrained/session.hpp"
#include "attn/pretrained/weights16.hpp"
#include "pretrained_fixtures.hpp"

namespace {

using namespace pretrained_fixtures;
using nlohmann::json;

// The field of the attn::Error that f throws (and fails the test if it throws none).
std::string field_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const attn::Error& e) {
    if (message) *message = e.what();
    return e.field();
  }
  ADD_FAILURE() << "no attn::Error thrown";
  return "";
}

// A file rebuilt with its header edited (the data section unchanged).
std::vector<uint8_t> edit_header(const std::vector<uint8_t>& file, const std::function<void(json&)>& edit) {
  uint64_t n = 0;
  std::memcpy(&n, file.data(), 8);
  json h = json::parse(std::string(reinterpret_cast<const char*>(file.data()) + 8, std::size_t(n)));
  edit(h);
  const std::string text = h.dump();
  std::vector<uint8_t> out(8);
  const uint64_t m = text.size();
  std::memcpy(out.data(), &m, 8);
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), file.begin() + 8 + std::ptrdiff_t(n), file.end());
  return out;
}

json config_of(const std::string& name) { return read_json(dir(name) + "/config.json"); }

std::string load_field(const json& config, const std::vector<std::vector<uint8_t>>& files, std::string* message = nullptr) {
  return field_of([&] { load(config, files); }, message);
}

TEST(PretrainedRefusals, ConfigKeys) {
  const auto files = weight_files("qwen2");
  auto with = [&](const std::string& key, json value) {
    json c = config_of("qwen2");
    c[key] = std::move(value);
    return load_field(c, files);
  };
  EXPECT_EQ(with("model_type", "bert"), "config.model_type");
  EXPECT_EQ(with("hidden_act", "gelu"), "config.hidden_act");
  EXPECT_EQ(with("use_sliding_window", true), "config.use_sliding_window");
  EXPECT_EQ(with("num_key_value_heads", 3), "config.num_key_value_heads");
  EXPECT_EQ(with("hidden_size", -32), "config.hidden_size");
  EXPECT_EQ(with("hidden_size", "32"), "config.hidden_size");
  EXPECT_EQ(with("quantization_config", json{{"bits", 4}}), "config.quantization_config");
  EXPECT_EQ(with("rope_scaling", json{{"rope_type", "dynamic"}, {"factor", 2.0}}), "config.rope_scaling.rope_type");
  EXPECT_EQ(with("rope_scaling", json{{"rope_type", "llama3"}, {"factor", 2.0}}), "config.rope_scaling.low_freq_factor");
  EXPECT_EQ(with("rope_scaling", json{{"type", "linear"}, {"factor", 2.0}, {"foo", 1}}), "config.rope_scaling.foo");
  EXPECT_EQ(with("layer_types", json::array({"full_attention", "sliding_attention"})), "config.layer_types");
  // the trainer's input_vocab_size (a pairs model's inputs): read, so within the vocabulary
  const int64_t vocab = config_of("qwen2").at("vocab_size").get<int64_t>();
  EXPECT_EQ(with("input_vocab_size", vocab + 1), "config.input_vocab_size");
  EXPECT_EQ(with("input_vocab_size", 0), "config.input_vocab_size");
  EXPECT_EQ(with("input_vocab_size", "8"), "config.input_vocab_size");
  {
    json ok = config_of("qwen2");
    ok["input_vocab_size"] = 8;
    EXPECT_NO_THROW(load(ok, files));
  }
  json c = config_of("qwen2");
  c.erase("num_hidden_layers");
  EXPECT_EQ(load_field(c, files), "config.num_hidden_layers");
  c = config_of("qwen2");
  c.erase("model_type");
  EXPECT_EQ(load_field(c, files), "config.model_type");
  std::string message;
  c = config_of("qwen2");
  c["some_new_setting"] = 1;
  EXPECT_EQ(load_field(c, files, &message), "config.some_new_setting");
  EXPECT_NE(message.find("does not know"), std::string::npos) << message;
  // gpt2's own refusals
  c = config_of("gpt2");
  c["activation_function"] = "relu";
  EXPECT_EQ(load_field(c, weight_files("gpt2")), "config.activation_function");
  c = config_of("gpt2");
  c["scale_attn_by_inverse_layer_idx"] = true;
  EXPECT_EQ(load_field(c, weight_files("gpt2")), "config.scale_attn_by_inverse_layer_idx");
  // multi_query false reads as MHA (fixture gpt_bigcode_mha): the MQA file's fused c_attn is then the wrong shape
  c = config_of("gpt_bigcode");
  c["multi_query"] = false;
  EXPECT_NE(load_field(c, weight_files("gpt_bigcode")).find("attn.c_attn"), std::string::npos);
}

TEST(PretrainedRefusals, MixtureOfExpertsLayersNameTheConfigKey) {
  json c = config_of("deepseek_v2");
  c["first_k_dense_replace"] = 1;  // layer 1 would be MoE: n_routed_experts is 4
  std::string message;
  EXPECT_EQ(load_field(c, weight_files("deepseek_v2"), &message), "config.first_k_dense_replace");
  EXPECT_NE(message.find("mixture-of-experts"), std::string::npos) << message;
  c["n_routed_experts"] = nullptr;  // no experts: every layer dense
  EXPECT_NO_THROW(load(c, weight_files("deepseek_v2")));
}

TEST(PretrainedRefusals, TensorsMissingOfWrongShapeOrDtype) {
  const json c = config_of("qwen2");
  const auto file = weight_files("qwen2")[0];
  const std::string q = "model.layers.0.self_attn.q_proj.weight";
  std::string message;
  // (renamed, not erased: a file must still cover its data exactly once)
  EXPECT_EQ(load_field(c, {edit_header(file, [&](json& h) { h[q + "_renamed"] = h[q]; h.erase(q); })}, &message), "weights." + q);
  EXPECT_NE(message.find("missing"), std::string::npos) << message;
  EXPECT_EQ(load_field(c, {edit_header(file, [&](json& h) { h[q]["shape"] = {16, 64}; })}, &message), "weights." + q);
  EXPECT_NE(message.find("shape"), std::string::npos) << message;
  EXPECT_EQ(load_field(c, {edit_header(file, [&](json& h) { h[q]["dtype"] = "I16"; })}, &message), "weights." + q);
  EXPECT_NE(message.find("dtype I16"), std::string::npos) << message;
  EXPECT_EQ(load_field(c, {edit_header(file, [&](json& h) { h[q]["dtype"] = "F32"; })}, &message), "weights." + q);  // bytes
  // a tensor a model does not read may have any dtype (GPT-2's BOOL mask buffers load: the fixture has them)
  EXPECT_NO_THROW(load(config_of("gpt2"), weight_files("gpt2")));
  // an untied config needs lm_head.weight
  json untied = c;
  untied["tie_word_embeddings"] = false;
  EXPECT_EQ(load_field(untied, {file}), "weights.lm_head.weight");
  // a tensor in two shards
  EXPECT_EQ(load_field(c, {file, file}), "weights.model.embed_tokens.weight");
}

TEST(PretrainedRefusals, FilesTruncatedOversizedOrNotSafetensors) {
  const json c = config_of("qwen2");
  const auto file = weight_files("qwen2")[0];
  std::string message;
  // truncated: the last tensor's bytes are cut
  std::vector<uint8_t> cut(file.begin(), file.end() - 100);
  const std::string f = load_field(c, {cut}, &message);
  EXPECT_EQ(f.rfind("weights.model.", 0), 0u) << f;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  // header length beyond the file, garbage header, too short
  std::vector<uint8_t> bad = file;
  bad[6] = 0x7f;
  EXPECT_EQ(field_of([&] { index_of(bad, 0); }), "weights");
  std::vector<uint8_t> garbage = file;
  garbage[8] = 'x';
  EXPECT_EQ(field_of([&] { index_of(garbage, 0, "weights[1]"); }), "weights[1]");
  EXPECT_EQ(field_of([&] { safetensors_header_length(file.data(), 4, 4, "weights"); }), "weights");
  // more weights than memory allows: refused from the header alone, before anything is allocated
  // (the 5 GB of tensors it declares are never there)
  json big = c;
  big["vocab_size"] = 1000000;
  big["hidden_size"] = 2560;
  big["intermediate_size"] = 2560;
  big["num_attention_heads"] = 4;
  big["num_key_value_heads"] = 1;
  std::vector<SafetensorsIndex> indexes{index_of(file, 0)};
  declare_shapes_of(indexes[0], big);
  EXPECT_EQ(field_of([&] { CheckpointLoader(big, indexes); }, &message), "weights");
  EXPECT_NE(message.find("MiB"), std::string::npos) << message;
}

TEST(PretrainedRefusals, NonFiniteWeightsAreNamed) {
  const json c = config_of("qwen3");
  auto file = weight_files("qwen3")[0];
  const SafetensorsIndex index = index_of(file, 0);
  const TensorEntry* t = nullptr;
  for (const auto& e : index.tensors) if (e.name == "model.layers.1.mlp.up_proj.weight") t = &e;
  ASSERT_NE(t, nullptr);
  const float inf = INFINITY;
  std::memcpy(file.data() + t->begin + 4 * 17, &inf, 4);
  std::string message;
  EXPECT_EQ(load_field(c, {file}, &message), "weights.model.layers.1.mlp.up_proj.weight");
  EXPECT_NE(message.find("element 17"), std::string::npos) << message;
}

// The load's scan for Infinity and NaN (weights16.hpp) against its element-by-element twin: random
// finite bit patterns of each dtype with the non-finite ones put at a block's edges, in the middle
// and at the end, the largest finite values beside them (which must not count).
TEST(PretrainedRefusals, TheNonFiniteScanFindsWhatItsNaiveTwinFinds) {
  using attn::pretrained::DType;
  std::mt19937 rng(7);
  struct Kind { DType dtype; int bytes; uint32_t inf, nan, max_finite, exp; };
  const Kind kinds[] = {{DType::F32, 4, 0x7f800000u, 0xffc00001u, 0x7f7fffffu, 0x7f800000u},
                        {DType::F16, 2, 0x7c00u, 0xfe01u, 0x7bffu, 0x7c00u},
                        {DType::BF16, 2, 0x7f80u, 0xffc1u, 0xff7fu, 0x7f80u}};
  for (const Kind& k : kinds) {
    for (int64_t n : {0, 1, 2047, 2048, 2049, 5000}) {
      std::vector<uint8_t> data(std::size_t(n * k.bytes));
      auto put = [&](int64_t i, uint32_t v) { std::memcpy(data.data() + i * k.bytes, &v, std::size_t(k.bytes)); };
      for (int64_t i = 0; i < n; ++i) {
        uint32_t v = uint32_t(rng());
        if ((v & k.exp) == k.exp) v &= ~(k.exp & (k.exp >> 1));  // a finite pattern: one exponent bit off
        put(i, i % 7 == 0 ? k.max_finite : v);
      }
      EXPECT_EQ(attn::pretrained::first_non_finite(data.data(), n, k.dtype), -1) << int(k.dtype) << " n " << n;
      for (int64_t at : {int64_t(0), int64_t(2047), int64_t(2048), n / 2, n - 1}) {
        if (at < 0 || at >= n) continue;
        std::vector<uint8_t> bad = data;
        const uint32_t special = at % 2 ? k.nan : k.inf;
        std::memcpy(bad.data() + at * k.bytes, &special, std::size_t(k.bytes));
        if (at + 3 < n) std::memcpy(bad.data() + (at + 3) * k.bytes, &k.inf, std::size_t(k.bytes));  // a later one too
        const int64_t naive = attn::pretrained::first_non_finite_naive(bad.data(), n, k.dtype);
        EXPECT_EQ(naive, at);
        EXPECT_EQ(attn::pretrained::first_non_finite(bad.data(), n, k.dtype), naive) << int(k.dtype) << " n " << n << " at " << at;
      }
    }
  }
}

TEST(PretrainedRefusals, IdsAndSessionLengths) {
  const auto gpt2 = load_fixture("gpt2");  // 32 learned positions, vocabulary 64
  EXPECT_EQ(field_of([&] { gpt2->check_ids({1, 64}, 0); }), "ids");
  EXPECT_EQ(field_of([&] { gpt2->check_ids({-1}, 0); }), "ids");
  EXPECT_EQ(field_of([&] { gpt2->check_ids(std::vector<int32_t>(33, 1), 0); }), "ids");
  EXPECT_EQ(field_of([&] { Session(*gpt2, 33); }), "maxLen");
  EXPECT_EQ(field_of([&] { Session(*gpt2, 0); }), "maxLen");
  Session s(*gpt2, 4);
  s.append({1, 2, 3}, false);
  EXPECT_EQ(field_of([&] { s.append({4, 5}, false); }), "ids");
  EXPECT_EQ(s.length(), 3);  // a refused append changes nothing
  EXPECT_EQ(field_of([&] { s.append({}, false); }), "ids");
  s.append({4}, false);
  EXPECT_EQ(s.length(), 4);
}

}  // namespace
