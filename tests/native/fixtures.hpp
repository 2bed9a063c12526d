// fixtures.hpp — reading the PyTorch golden files of tests/fixtures/ (written by scripts/gen_fixtures.py).
#pragma once

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "attn/spec.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace testing_fixtures {

using attn::Matrix;
using attn::RawSpec;
using attn::uninitialised;

inline std::vector<float> decode_f32(const std::string& b64) {
  static const std::string abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<uint8_t> bytes;
  uint32_t acc = 0;
  int bits = 0;
  for (char ch : b64) {
    if (ch == '=') break;
    const auto pos = abc.find(ch);
    if (pos == std::string::npos) continue;
    acc = (acc << 6) | uint32_t(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(uint8_t((acc >> bits) & 0xFF));
    }
  }
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);  // fixtures are little-endian, as is every target here
  return out;
}

// tests/fixtures/<file>, or null when it is missing.
inline nlohmann::json load_fixtures(const std::string& file) {
  std::ifstream f(std::string(ATTN_FIXTURES) + "/" + file);
  if (!f) return nlohmann::json();
  return nlohmann::json::parse(f);
}

inline RawSpec raw_from_json(const nlohmann::json& j) {
  RawSpec r;
  r.variant = j.at("variant").get<std::string>();
  auto num = [&](const char* k, std::optional<double>& dst) { if (j.contains(k)) dst = j.at(k).get<double>(); };
  num("seqLen", r.seq_len); num("dModel", r.d_model); num("nHeads", r.n_heads); num("nKvHeads", r.n_kv_heads);
  num("dHead", r.d_head); num("latentRank", r.latent_rank); num("ropeDim", r.rope_dim);
  if (j.contains("rope")) {
    const auto& rp = j.at("rope");
    if (rp.is_boolean()) r.rope.enabled = rp.get<bool>();
    if (rp.is_object()) { r.rope.enabled = true; r.rope.base = rp.at("base").get<double>(); }
  }
  if (j.contains("causal")) r.causal = j.at("causal").get<bool>();
  r.return_weights = true;
  return r;
}

inline Matrix to_matrix(const std::vector<float>& v, int64_t rows, int64_t cols) {
  Matrix m = uninitialised(rows, cols);
  std::copy(v.begin(), v.end(), m.begin());
  return m;
}

// A case's weights (JSON "weights": name -> base64), for the matrices `s` uses.
inline attn::Weights weights_from_json(const nlohmann::json& c, const attn::Shape& s) {
  attn::Weights w;
  for (const auto& slot : attn::weight_slots(s)) {
    const auto data = decode_f32(c.at("weights").at(slot.name));
    if (int64_t(data.size()) != slot.rows * slot.cols) throw std::runtime_error(std::string("bad fixture ") + slot.name);
    w.*(slot.member) = to_matrix(data, slot.rows, slot.cols);
  }
  return w;
}

}  // namespace testing_fixtures
