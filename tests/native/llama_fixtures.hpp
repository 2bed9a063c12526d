// llama_fixtures.hpp — the trainer's Llama golden file (tests/fixtures/train_llama_golden.json, written
// by scripts/gen_fixtures.py through scripts/train_fixtures.py): its cases' tensors, the comparison
// (max|got - ref| / max|ref| per tensor), and a trainer Model built from a model case's Hugging Face
// weights (the mapping written out here, independently of the trainer's checkpoint writer).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attn/spec.hpp"
#include "attn/train/model.hpp"
#include "fixtures.hpp"
#include "helpers.hpp"

namespace llama_fixtures {

using nlohmann::json;

constexpr double kTolerance = 1e-4;  // max|got - ref| / max|ref| per tensor, as the other golden files

// A golden file of tests/fixtures (the Llama one by default; the DeepSeek block's has the same layout),
// read once.
inline const json& golden(const std::string& file = "train_llama_golden.json") {
  static std::map<std::string, json> docs;
  auto it = docs.find(file);
  if (it == docs.end()) it = docs.emplace(file, testing_fixtures::load_fixtures(file)).first;
  return it->second;
}

// The case of that name in `file` (a test fails when it is missing).
inline const json& case_named(const std::string& name, const std::string& file = "train_llama_golden.json") {
  static const json none;
  if (golden(file).is_null()) {
    ADD_FAILURE() << "tests/fixtures/" << file << " is missing: run /usr/bin/python3 scripts/gen_fixtures.py";
    return none;
  }
  for (const auto& c : golden(file).at("cases")) {
    if (c.at("name") == name) return c;
  }
  ADD_FAILURE() << "no case " << name << " in " << file;
  return none;
}

inline std::vector<float> tensor(const json& c, const std::string& name) {
  return testing_fixtures::decode_f32(c.at("tensors").at(name).at("data").get<std::string>());
}

inline std::vector<int32_t> ints(const json& c, const std::string& name) {
  const auto v = tensor(c, name);
  std::vector<int32_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = int32_t(std::lround(v[i]));
  return out;
}

inline int64_t size(const json& c, const char* key) { return c.at("sizes").at(key).get<int64_t>(); }

inline attn::Matrix matrix(const json& c, const std::string& name, int64_t rows, int64_t cols) {
  const auto v = tensor(c, name);
  EXPECT_EQ(int64_t(v.size()), rows * cols) << name;
  attn::Matrix m = attn::zeros(rows, cols);
  std::copy_n(v.begin(), std::min<std::size_t>(v.size(), std::size_t(rows * cols)), m.data());
  return m;
}

// max|got - ref| / max|ref| <= kTolerance (reported with the tensor's name).
inline void expect_close(const std::string& what, const float* got, const std::vector<float>& ref) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::fabs(double(got[i]) - double(ref[i])));
    scale = std::max(scale, std::fabs(double(ref[i])));
  }
  EXPECT_GT(scale, 0.0) << what << ": the reference is all zeros";
  EXPECT_LE(err / scale, kTolerance) << what << ": max|got - ref| " << err << ", max|ref| " << scale;
}

// The attention Shape of a block or model case over n tokens: causal, RoPE on (rope.base = base).
inline attn::Shape shape_of(const json& c, int64_t n) {
  const int64_t h = size(c, "h"), g = size(c, "g");
  const char* variant = g == h ? "mha" : g == 1 ? "mqa" : "gqa";
  attn::RawSpec raw = testing_helpers::raw_spec({variant, n, size(c, "d"), h, g == h ? 0 : g, size(c, "dh"), 0, 0, true, true});
  raw.rope.base = c.at("sizes").at("base").get<double>();
  return attn::resolve(raw, attn::Need::Forward);
}

// A trainer Model of a "model" case's sizes (block llama, seqLen n).
inline std::unique_ptr<attn::train::Model> model_of(const json& c) {
  attn::train::ModelConfig cfg;
  cfg.attn = shape_of(c, size(c, "n"));
  cfg.vocab = size(c, "vocab");
  cfg.n_layers = size(c, "layers");
  cfg.block = attn::train::Block::Llama;
  cfg.ffn = size(c, "f");
  cfg.tied = c.at("sizes").at("tied").get<bool>();
  cfg.norm_eps = c.at("sizes").at("eps").get<double>();
  return std::make_unique<attn::train::Model>(cfg, 7);
}

// A trainer parameter and the Hugging Face tensor it is: (in, out) matrices are HF's (out, in) transposed.
struct Mapped {
  std::string param, hf;
  bool transposed;
};
inline std::vector<Mapped> hf_names(const attn::train::Model& m) {
  std::vector<Mapped> out = {{"wte", "model.embed_tokens.weight", false}, {"lnf.gamma", "model.norm.weight", false}};
  for (int64_t l = 0; l < m.config().n_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".", h = "model.layers." + std::to_string(l) + ".";
    out.push_back({p + "ln1.gamma", h + "input_layernorm.weight", false});
    out.push_back({p + "attn.wq", h + "self_attn.q_proj.weight", true});
    out.push_back({p + "attn.wk", h + "self_attn.k_proj.weight", true});
    out.push_back({p + "attn.wv", h + "self_attn.v_proj.weight", true});
    out.push_back({p + "attn.wo", h + "self_attn.o_proj.weight", true});
    out.push_back({p + "ln2.gamma", h + "post_attention_layernorm.weight", false});
    out.push_back({p + "mlp.w_gate", h + "mlp.gate_proj.weight", true});
    out.push_back({p + "mlp.w_up", h + "mlp.up_proj.weight", true});
    out.push_back({p + "mlp.w_down", h + "mlp.down_proj.weight", true});
  }
  if (!m.config().tied) out.push_back({"unembed", "lm_head.weight", true});
  return out;
}

// values (rows, cols) as stored in HF order -> the trainer's layout (transposed when `t`).
inline std::vector<float> to_trainer(const std::vector<float>& hf, int64_t rows, int64_t cols, bool t) {
  if (!t) return hf;
  std::vector<float> out(hf.size());  // hf is (cols, rows) = (out, in): out[i * cols + o] = hf[o * rows + i]
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t o = 0; o < cols; ++o) out[std::size_t(i * cols + o)] = hf[std::size_t(o * rows + i)];
  return out;
}

// Sets every parameter of `m` from the case's HF tensors; every parameter must be mapped.
inline void load_weights(attn::train::Model& m, const json& c) {
  const auto names = hf_names(m);
  EXPECT_EQ(names.size(), m.params().size());
  for (const auto& map : names) {
    auto it = std::find_if(m.params().begin(), m.params().end(), [&](const auto& p) { return p.name == map.param; });
    if (it == m.params().end()) {
      ADD_FAILURE() << "no parameter " << map.param;
      continue;
    }
    const int64_t rows = int64_t(it->value->shape(0)), cols = int64_t(it->value->shape(1));
    const auto v = to_trainer(tensor(c, map.hf), rows, cols, map.transposed);
    ASSERT_EQ(int64_t(v.size()), rows * cols) << map.hf;
    std::copy(v.begin(), v.end(), it->value->data());
  }
}

}  // namespace llama_fixtures
