// pretrained_fixtures.hpp — opening the checkpoints of tests/fixtures/pretrained/ (written by
// scripts/gen_pretrained_fixtures.py) through the core's loader, and reading their expected outputs
// with a reader of its own (so that a fault of the loader's safetensors parser cannot hide in both).
#pragma once

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attn/pretrained/checkpoint.hpp"
#include "attn/pretrained/model.hpp"
#include "attn/pretrained/safetensors.hpp"

namespace pretrained_fixtures {

namespace fs = std::filesystem;
using namespace attn::pretrained;

inline std::string dir(const std::string& name) { return std::string(ATTN_FIXTURES) + "/pretrained/" + name; }

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// The weight files of a fixture: model.safetensors, or the shards in the order of the file names.
inline std::vector<std::vector<uint8_t>> weight_files(const std::string& name) {
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator(dir(name))) {
    const std::string f = e.path().filename().string();
    if (f.rfind("model", 0) == 0 && e.path().extension() == ".safetensors") paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::vector<uint8_t>> files;
  for (const auto& p : paths) files.push_back(read_bytes(p));
  return files;
}

// The loader's index of one file held in memory (`field` names it in errors).
inline SafetensorsIndex index_of(const std::vector<uint8_t>& file, int i, const std::string& field = "weights") {
  const int64_t n = safetensors_header_length(file.data(), int64_t(file.size()), int64_t(file.size()), field);
  const std::string header(reinterpret_cast<const char*>(file.data()) + 8, std::size_t(n));
  return parse_safetensors_header(header, int64_t(file.size()), i, field);
}

// What the JS API does: plan, copy each tensor's bytes, finish.
// The tensors of `index` given the shapes `config` asks for, as a header would declare them (2 bytes an
// element): a header of a larger model, whose data is not there, for refusals decided from headers alone.
inline void declare_shapes_of(SafetensorsIndex& index, const nlohmann::json& config) {
  for (auto& t : index.tensors) {
    for (const auto& need : needed_tensors(read_config(config))) {
      if ("model." + need.name != t.name) continue;
      t.shape = need.shape;
      double n = 2;
      for (int64_t d : need.shape) n *= double(d);
      t.end = t.begin + int64_t(n);
    }
  }
}

inline std::unique_ptr<PretrainedModel> load(const nlohmann::json& config, const std::vector<std::vector<uint8_t>>& files) {
  std::vector<SafetensorsIndex> indexes;
  for (std::size_t i = 0; i < files.size(); ++i) indexes.push_back(index_of(files[i], int(i)));
  CheckpointLoader loader(config, indexes);
  for (std::size_t i = 0; i < loader.copies().size(); ++i) {
    const auto& c = loader.copies()[i];
    std::memcpy(loader.destination(i), files[std::size_t(c.file)].data() + c.begin, std::size_t(c.end - c.begin));
  }
  return loader.finish();
}

inline std::unique_ptr<PretrainedModel> load_fixture(const std::string& name) {
  return load(read_json(dir(name) + "/config.json"), weight_files(name));
}

// expected.safetensors (or `file`, e.g. stages.safetensors): F32 tensors by name, and the I32 one
// (ids; the layer of stages.safetensors), read by a reader independent of the core's.
struct Expected {
  std::map<std::string, std::vector<float>> f32;
  std::map<std::string, std::vector<int64_t>> shapes;
  std::vector<int32_t> ids;
};
inline Expected read_expected(const std::string& name, const std::string& file = "expected.safetensors") {
  const std::vector<uint8_t> b = read_bytes(dir(name) + "/" + file);
  uint64_t n = 0;
  std::memcpy(&n, b.data(), 8);
  const auto h = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(b.data()) + 8, std::size_t(n)));
  Expected e;
  for (const auto& [key, t] : h.items()) {
    if (key == "__metadata__") continue;
    const std::size_t begin = 8 + std::size_t(n) + t["data_offsets"][0].get<std::size_t>();
    const std::size_t end = 8 + std::size_t(n) + t["data_offsets"][1].get<std::size_t>();
    if (t["dtype"] == "I32") {
      e.ids.resize((end - begin) / 4);
      std::memcpy(e.ids.data(), b.data() + begin, end - begin);
    } else {
      std::vector<float> v((end - begin) / 4);
      std::memcpy(v.data(), b.data() + begin, end - begin);
      e.f32[key] = std::move(v);
      e.shapes[key] = t["shape"].get<std::vector<int64_t>>();
    }
  }
  return e;
}

// The fixture cases (cases.json).
inline std::vector<std::string> case_names() {
  std::vector<std::string> names;
  const nlohmann::json cases = read_json(std::string(ATTN_FIXTURES) + "/pretrained/cases.json");
  for (const auto& c : cases["cases"]) names.push_back(c["name"]);
  return names;
}

}  // namespace pretrained_fixtures
