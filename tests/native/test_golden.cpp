// The PyTorch golden fixtures (tests/fixtures/attention_golden.json, from scripts/gen_fixtures.py):
// every case through forward(), output and attention weights within relative error 1e-4, and
// every causal case also through a session, token by token.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <xtensor/xview.hpp>

#include "attn/session.hpp"
#include "helpers.hpp"

using namespace attn;
using testing_helpers::rel_error;

namespace {

std::vector<float> decode_f32(const std::string& b64) {
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

nlohmann::json load_fixtures() {
  std::ifstream f(std::string(ATTN_FIXTURES) + "/attention_golden.json");
  if (!f) return nlohmann::json();
  return nlohmann::json::parse(f);
}

RawSpec raw_from_json(const nlohmann::json& j) {
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

Matrix to_matrix(const std::vector<float>& v, int64_t rows, int64_t cols) {
  Matrix m = uninitialised(rows, cols);
  std::copy(v.begin(), v.end(), m.begin());
  return m;
}

}  // namespace

TEST(Golden, FixtureFileIsPresentAndVersioned) {
  const auto fx = load_fixtures();
  ASSERT_FALSE(fx.is_null()) << "missing tests/fixtures/attention_golden.json: run npm run fixtures";
  EXPECT_EQ(fx.at("version").get<int>(), 1);
  EXPECT_GE(fx.at("cases").size(), 20u);
}

TEST(Golden, EveryCaseMatchesPyTorch) {
  const auto fx = load_fixtures();
  ASSERT_FALSE(fx.is_null());
  for (const auto& c : fx.at("cases")) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const Shape s = resolve(raw_from_json(c.at("spec")), Need::Forward);
    const Matrix x = to_matrix(decode_f32(c.at("x")), s.n, s.d);
    Weights w;
    for (const auto& slot : weight_slots(s)) {
      const auto data = decode_f32(c.at("weights").at(slot.name));
      ASSERT_EQ(int64_t(data.size()), slot.rows * slot.cols) << slot.name;
      w.*(slot.member) = to_matrix(data, slot.rows, slot.cols);
    }
    const auto want_out = decode_f32(c.at("output"));
    const auto want_attn = decode_f32(c.at("attention"));
    const ForwardResult r = forward(s, w, x);
    EXPECT_LE(rel_error(r.output, want_out), 1e-4) << name << " output";
    ASSERT_TRUE(r.weights.has_value());
    EXPECT_LE(rel_error(*r.weights, want_attn), 1e-4) << name << " attention";

    if (s.variant == Variant::MLA) {  // the absorbed form against the same fixture
      const ForwardResult ab = forward_mla_absorbed(s, w, x);
      EXPECT_LE(rel_error(ab.output, want_out), 1e-4) << name << " absorbed output";
      EXPECT_LE(rel_error(*ab.weights, want_attn), 1e-4) << name << " absorbed attention";
    }
    if (s.causal) {  // a session fed token by token reproduces the causal fixture
      Shape ss = s;
      ss.max_len = s.n;
      ss.return_weights = false;
      Session session(ss, w);
      std::vector<float> got;
      for (int64_t i = 0; i < s.n; ++i) {
        const Matrix xi = xt::view(x, xt::range(i, i + 1), xt::all());
        const ForwardResult step = session.append(xi);
        got.insert(got.end(), step.output.begin(), step.output.end());
      }
      EXPECT_LE(rel_error(got, want_out), 1e-4) << name << " session";
    }
  }
}
