// Hostile checkpoints: files that are valid JSON and finite numbers but not what they claim. Each is
// refused, naming the tensor (error.field) and the file: a safetensors layout that does not cover the
// data exactly once (a key twice, overlapping or shifted tensors, a header length a few bytes short,
// trailing bytes, gaps, a cut shard), a forward that overflows float32 although every weight is finite
// (named by layer and tensor), weights that would not fit beside the models already loaded, and
// configs whose values would be echoed whole or whose layer list does not match the layers.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "attn/errors.hpp"
#include "attn/overflow.hpp"
#include "attn/pretrained/session.hpp"
#include "attn/pretrained/weight_memory.hpp"
#include "attn/safetensors_header.hpp"
#include "attn/train/model_file.hpp"
#include "pretrained_fixtures.hpp"

namespace {

using namespace pretrained_fixtures;
using nlohmann::json;

struct Refusal {
  std::string field, message;
};
Refusal refusal_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const attn::Error& e) {
    return {e.field(), e.message()};
  }
  ADD_FAILURE() << "no attn::Error thrown";
  return {};
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

uint64_t header_length(const std::vector<uint8_t>& f) {
  uint64_t n = 0;
  std::memcpy(&n, f.data(), 8);
  return n;
}
std::string header_text(const std::vector<uint8_t>& f) {
  return std::string(reinterpret_cast<const char*>(f.data()) + 8, std::size_t(header_length(f)));
}
// A file from a header's text (its length written as `length`, default: the text's) and data bytes.
std::vector<uint8_t> with_header(const std::string& text, const std::vector<uint8_t>& data, int64_t length = -1) {
  std::vector<uint8_t> out(8);
  const uint64_t n = length < 0 ? text.size() : uint64_t(length);
  std::memcpy(out.data(), &n, 8);
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}
std::vector<uint8_t> data_of(const std::vector<uint8_t>& f) {
  return std::vector<uint8_t>(f.begin() + 8 + std::ptrdiff_t(header_length(f)), f.end());
}
// The tensors by data offset: name of the first and of the last.
std::pair<std::string, std::string> first_and_last(const json& h) {
  std::string first, last;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& [k, v] : h.items()) {
    if (k == "__metadata__") continue;
    const uint64_t b = v["data_offsets"][0], e = v["data_offsets"][1];
    if (b < lo) lo = b, first = k;
    if (e > hi) hi = e, last = k;
  }
  return {first, last};
}

TEST(PretrainedHostile, SafetensorsLayoutMustCoverTheDataExactlyOnce) {
  const json config = read_json(dir("qwen2") + "/config.json");
  const auto file = weight_files("qwen2")[0];
  ASSERT_NO_THROW(load(config, {file}));
  const json h = json::parse(header_text(file));
  const auto [first, last] = first_and_last(h);
  const std::vector<uint8_t> data = data_of(file);
  auto load_refusal = [&](const std::vector<uint8_t>& f) { return refusal_of([&] { load(config, {f}); }); };

  {  // a key twice (JSON readers keep the last one): the second copy points at another tensor's bytes
    std::string text = header_text(file);
    ASSERT_EQ(text[0], '{');
    text.insert(1, "\"" + last + "\":" + h[first].dump() + ",");
    const Refusal r = load_refusal(with_header(text, data));
    EXPECT_EQ(r.field, "weights." + last) << r.message;
    EXPECT_TRUE(has(r.message, "appears twice")) << r.message;
    EXPECT_TRUE(has(r.message, "weights:")) << "names the file: " << r.message;
  }
  {  // overlapping: the second tensor starts 4 bytes early (and the data is 4 bytes longer to match)
    json e = h;
    std::string second;
    for (const auto& [k, v] : h.items()) {
      if (k != "__metadata__" && v["data_offsets"][0] == h[first]["data_offsets"][1]) second = k;
    }
    ASSERT_FALSE(second.empty());
    for (auto& [k, v] : e.items()) {
      if (k == "__metadata__" || k == first) continue;
      v["data_offsets"][0] = v["data_offsets"][0].get<uint64_t>() - 4;
      v["data_offsets"][1] = v["data_offsets"][1].get<uint64_t>() - 4;
    }
    std::vector<uint8_t> d = data;
    d.resize(d.size() - 4);
    const Refusal r = load_refusal(with_header(e.dump(), d));
    EXPECT_EQ(r.field, "weights." + second) << r.message;
    EXPECT_TRUE(has(r.message, "overlaps")) << r.message;
  }
  {  // a gap: every tensor after the first moved 4 bytes on, 4 bytes of data added
    json e = h;
    for (auto& [k, v] : e.items()) {
      if (k == "__metadata__" || k == first) continue;
      v["data_offsets"][0] = v["data_offsets"][0].get<uint64_t>() + 4;
      v["data_offsets"][1] = v["data_offsets"][1].get<uint64_t>() + 4;
    }
    std::vector<uint8_t> d = data;
    d.insert(d.end(), 4, 0);
    const Refusal r = load_refusal(with_header(e.dump(), d));
    EXPECT_TRUE(has(r.message, "a gap before it")) << r.message;
    EXPECT_EQ(r.field.rfind("weights.model.", 0), 0u) << r.field;
  }
  for (const int short_by : {4, 8}) {  // a header length 4 or 8 bytes short: every tensor shifted
    const std::string text = h.dump() + std::string(8, ' ');
    const Refusal r = load_refusal(with_header(text, data, int64_t(text.size()) - short_by));
    EXPECT_EQ(r.field, "weights." + last) << r.message;
    EXPECT_TRUE(has(r.message, std::to_string(short_by) + " bytes after the last tensor")) << r.message;
  }
  {  // trailing bytes after the last tensor
    std::vector<uint8_t> f = file;
    f.insert(f.end(), {1, 2, 3, 4, 5, 6, 7, 8});
    const Refusal r = load_refusal(f);
    EXPECT_EQ(r.field, "weights." + last) << r.message;
    EXPECT_TRUE(has(r.message, "8 bytes after the last tensor")) << r.message;
  }
  {  // a tensor entry with a key safetensors does not define, and a dtype it does not define
    json e = h;
    e[first]["dtype"] = "F31";
    EXPECT_EQ(load_refusal(with_header(e.dump(), data)).field, "weights." + first);
  }
}

TEST(PretrainedHostile, ShardErrorsNameTheFile) {
  const json config = read_json(dir("llama3") + "/config.json");
  auto shards = weight_files("llama3");
  ASSERT_EQ(shards.size(), 2u);
  // a shard cut short: the tensor that ends past it, and the file
  Refusal r = refusal_of([&] {
    std::vector<uint8_t> cut(shards[1].begin(), shards[1].end() - 100);
    index_of(cut, 1, "weights[1]");
  });
  EXPECT_EQ(r.field.rfind("weights.", 0), 0u) << r.field;
  EXPECT_TRUE(has(r.message, "weights[1]:")) << r.message;
  EXPECT_TRUE(has(r.message, "truncated")) << r.message;
  // the same shard twice: both files named
  r = refusal_of([&] {
    CheckpointLoader(config, {index_of(shards[0], 0, "weights[0]"), index_of(shards[1], 1, "weights[1]"),
                              index_of(shards[1], 2, "weights[2]")});
  });
  EXPECT_TRUE(has(r.message, "in two of the files, weights[1] and weights[2]")) << r.message;
}

TEST(PretrainedHostile, TheTrainersModelFilesShareTheReader) {
  // the trainer's reader is the same strict one: a key twice, trailing bytes (its own tests cover more)
  const std::string t = "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}";
  const std::string twice = "{" + t + "," + t + "}";
  try {
    attn::read_safetensors_header(reinterpret_cast<const uint8_t*>(twice.data()), twice.size());
    ADD_FAILURE() << "a key twice was read";
  } catch (const attn::SafetensorsError& e) {
    EXPECT_EQ(e.tensor(), "a");
  }
  EXPECT_THROW(attn::train::parse_safetensors_header(reinterpret_cast<const uint8_t*>(twice.data()), twice.size()),
               attn::Error);
  const std::string one = "{" + t + "}";
  const attn::SafetensorsHeader h = attn::read_safetensors_header(reinterpret_cast<const uint8_t*>(one.data()), one.size());
  EXPECT_NO_THROW(attn::check_safetensors_layout(h, 4));
  EXPECT_THROW(attn::check_safetensors_layout(h, 8), attn::SafetensorsError);
  EXPECT_THROW(attn::check_safetensors_layout(h, 2), attn::SafetensorsError);
}

// Every element of a tensor of a file set to `value` (at the tensor's dtype).
void fill(std::vector<std::vector<uint8_t>>& files, const std::string& name, float value) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (const auto& e : index_of(files[i], int(i)).tensors) {
      if (e.name != name) continue;
      const int64_t width = dtype_bytes(*e.dtype);
      for (int64_t at = e.begin; at < e.end; at += width) {
        if (width == 4) {
          std::memcpy(files[i].data() + at, &value, 4);
        } else {
          uint32_t bits;
          std::memcpy(&bits, &value, 4);
          const uint16_t top = uint16_t(bits >> 16);  // BF16 (the fixture's dtype)
          std::memcpy(files[i].data() + at, &top, 2);
        }
      }
      return;
    }
  }
  FAIL() << name << " not found";
}

TEST(PretrainedHostile, AForwardThatOverflowsIsRefusedNamingTheLayerAndTensor) {
  const json config = read_json(dir("llama3") + "/config.json");  // BF16, untied lm_head
  const std::vector<int32_t> ids = {1, 5, 9, 13};
  {  // q and k near 1e30 (finite in BF16): the scores overflow
    auto files = weight_files("llama3");
    fill(files, "model.layers.1.self_attn.q_proj.weight", 1e30f);
    fill(files, "model.layers.1.self_attn.k_proj.weight", 1e29f);
    const auto model = load(config, files);
    const std::string field = "weights.model.layers.1.self_attn.q_proj.weight";
    Refusal r = refusal_of([&] { model->forward(ids, true); });
    EXPECT_EQ(r.field, field) << r.message;
    EXPECT_TRUE(has(r.message, "layer 1's output overflowed float32")) << r.message;
    EXPECT_EQ(refusal_of([&] { model->layer_stages(ids, 1); }).field, field);
    EXPECT_NO_THROW(model->layer_stages(ids, 0));  // layer 0 is fine
    Session s(*model, 8);
    EXPECT_EQ(refusal_of([&] { s.append(ids, false); }).field, field);
    EXPECT_EQ(s.length(), 0) << "a refused append keeps the cache as it was";
  }
  {  // an LM head near 3e38: the logits overflow
    auto files = weight_files("llama3");
    fill(files, "lm_head.weight", 3e38f);
    const auto model = load(config, files);
    Refusal r = refusal_of([&] { model->forward(ids, false); });
    EXPECT_EQ(r.field, "weights.lm_head.weight") << r.message;
    EXPECT_TRUE(has(r.message, "the logits overflowed float32")) << r.message;
    Session s(*model, 8);
    EXPECT_EQ(refusal_of([&] { s.append({1}, false); }).field, "weights.lm_head.weight");
    EXPECT_NO_THROW(model->layer_stages(ids, 1));  // the layers themselves are fine
  }
}

TEST(PretrainedHostile, AnInfiniteResultIsRefusedLikeNaN) {
  // The fuzzer's find: a BF16 checkpoint whose logits were all +Infinity (no NaN) came out of forward,
  // because the overflow check compared |v| with its default limit, Infinity. Every result that is not
  // finite is refused, at any limit, naming the input of the largest magnitude.
  const float big = 2e38f, one = 1;
  for (const float bad : {INFINITY, -INFINITY, NAN}) {
    for (const float limit : {INFINITY, 1e30f}) {
      const float result[3] = {1, bad, 2};
      Refusal r = refusal_of([&] {
        attn::refuse_overflow("the logits", "Infinity or NaN", {attn::Values("result", result, 3)},
                              {attn::Values("a", &one, 1, "weights.a"), attn::Values("b", &big, 1, "weights.b")}, "", limit);
      });
      EXPECT_EQ(r.field, "weights.b") << bad << " at limit " << limit << ": " << r.message;
      EXPECT_TRUE(has(r.message, "the logits overflowed float32")) << r.message;
    }
  }
  const float fine[2] = {3e38f, -3e38f};
  EXPECT_NO_THROW(attn::refuse_overflow("x", "", {attn::Values("result", fine, 2)}, {}, ""));
}

TEST(PretrainedHostile, LoadedWeightsCountAgainstTheMemory) {
  const double before = held_weight_bytes();
  {
    const auto model = load_fixture("qwen2");
    EXPECT_EQ(held_weight_bytes() - before, model->weight_bytes());
  }
  EXPECT_EQ(held_weight_bytes(), before) << "a model dropped returns its weights";
  {  // a refused load (a non-finite weight, found after every tensor was allocated) returns them too
    auto files = weight_files("llama3");
    fill(files, "lm_head.weight", INFINITY);
    EXPECT_EQ(refusal_of([&] { load(read_json(dir("llama3") + "/config.json"), files); }).field, "weights.lm_head.weight");
    EXPECT_EQ(held_weight_bytes(), before);
  }
  {  // with 2.9 GiB held, a second checkpoint is refused from its headers, naming the field, before allocating
    WeightReservation others;
    others.set(2.9 * 1024 * 1024 * 1024);
    const json c = read_json(dir("qwen2") + "/config.json");
    std::vector<SafetensorsIndex> indexes{index_of(weight_files("qwen2")[0], 0)};
    json big = c;
    big["vocab_size"] = 1000000;
    big["hidden_size"] = 128;
    big["intermediate_size"] = 128;
    declare_shapes_of(indexes[0], big);  // about 244 MiB
    const Refusal r = refusal_of([&] { CheckpointLoader(big, indexes); });
    EXPECT_EQ(r.field, "weights") << r.message;
    EXPECT_TRUE(has(r.message, "already loaded")) << r.message;
    EXPECT_EQ(held_weight_bytes() - before, others.bytes());
    // and a call's working memory that would not fit beside the weights held
    EXPECT_EQ(refusal_of([&] { check_work_memory(900.0 * 1024 * 1024, "ids", "running 9 tokens"); }).field, "ids");
    EXPECT_NO_THROW(check_work_memory(100.0 * 1024 * 1024, "ids", "running 1 token"));
  }
  EXPECT_EQ(held_weight_bytes(), before);
}

TEST(PretrainedHostile, ConfigValuesAreNotEchoedWholeAndLayerListsMatch) {
  const auto files = weight_files("qwen2");
  json c = read_json(dir("qwen2") + "/config.json");
  c["model_type"] = std::string(1000000, 'x');
  Refusal r = refusal_of([&] { load(c, files); });
  EXPECT_EQ(r.field, "config.model_type");
  EXPECT_LT(r.message.size(), 300u) << "the value is cut short in the message";
  c = read_json(dir("qwen2") + "/config.json");
  const int64_t layers = c["num_hidden_layers"];
  c["layer_types"] = std::vector<std::string>(std::size_t(layers + 1), "full_attention");
  r = refusal_of([&] { load(c, files); });
  EXPECT_EQ(r.field, "config.layer_types") << r.message;
  c["layer_types"] = std::vector<std::string>(std::size_t(layers), "full_attention");
  EXPECT_NO_THROW(load(c, files));
}

}  // namespace
