// Accounting against the golden figures of reference/models.md and the lesson's MQA exercise.
#include <gtest/gtest.h>

#include <map>

#include "attn/accounting.hpp"
#include "attn/spec.hpp"
#include "attn/errors.hpp"

using namespace attn;

namespace {
double kv(const char* variant, double layers, double h, double g, double dh, double seq, double bytes,
          double r = 0, double dr = 0) {
  KvCacheQuery q;
  q.variant = std::string(variant);
  q.n_layers = layers;
  q.n_heads = h;
  if (g) q.n_kv_heads = g;
  if (dh) q.d_head = dh;
  if (r) q.latent_rank = r;
  if (dr) q.rope_dim = dr;
  q.seq_len = seq;
  q.bytes_per_element = bytes;
  return kv_cache_bytes(q);
}
ParamCount params(const char* variant, double d, double h, double g, double dh = 0, double r = 0, double dr = 0) {
  RawSpec raw;
  raw.variant = std::string(variant);
  raw.d_model = d;
  raw.n_heads = h;
  if (g) raw.n_kv_heads = g;
  if (dh) raw.d_head = dh;
  if (r) raw.latent_rank = r;
  if (dr) raw.rope_dim = dr;
  return param_count(resolve(raw, Need::Shape));
}
}  // namespace

TEST(Accounting, KvCacheGoldenFigures) {
  EXPECT_EQ(kv("gqa", 80, 64, 8, 128, 1, 2), 327680);                  // Llama 3 70B, bf16, per token
  EXPECT_EQ(kv("gqa", 80, 64, 8, 128, 32768, 2), 10737418240.0);        // 10.0 GiB at 32K
  EXPECT_EQ(kv("mha", 32, 32, 0, 128, 1, 2) / 32, 16384);               // 7B MHA: 16 KiB/token/layer
  EXPECT_EQ(kv("mha", 32, 32, 0, 128, 32768, 2), 17179869184.0);        // 16 GiB at 32K
  EXPECT_EQ(kv("mla", 61, 128, 0, 0, 131072, 2, 512, 64), 9210691584.0);  // DeepSeek-V3 bf16 131K
  EXPECT_EQ(kv("mha", 27, 16, 0, 128, 1, 1), 110592);                   // DeepSeek-V2-Lite style, MHA
  EXPECT_EQ(kv("mla", 27, 16, 0, 0, 1, 1, 512, 64), 15552);             // ... MLA
  EXPECT_EQ(kv("mla", 60, 128, 0, 0, 1, 1, 512, 64), 34560);            // DeepSeek-V2
  EXPECT_EQ(kv("mqa", 32, 71, 1, 64, 1, 1), 4096);                      // Falcon-7B
  EXPECT_EQ(kv("gqa", 80, 64, 8, 128, 1, 0.5), 81920);                  // int4
  EXPECT_EQ(kv("mha", 12, 12, 0, 64, 0, 2), 0);                         // empty cache
}

TEST(Accounting, KvCacheRefusesBadInput) {
  EXPECT_THROW(kv("gqa", 0, 64, 8, 128, 1, 2), Error);
  EXPECT_THROW(kv("gqa", 80, 64, 8, 128, 1, 0), Error);
  EXPECT_THROW(kv("gqa", 80, 64, 8, 128, -1, 2), Error);
  EXPECT_THROW(kv("gqa", 80, 64, 7, 128, 1, 2), Error);
  EXPECT_THROW(kv("mha", 80, 64, 0, 0, 1, 2), Error);  // no dHead, no dModel
}

TEST(Accounting, LessonMqaExercise) {
  // d_model 64, 8 heads: MHA 4 * 64^2 = 16,384 attention weights; MQA removes 2 * 64 * (64 - 8).
  const ParamCount mha = params("mha", 64, 8, 0), mqa = params("mqa", 64, 8, 0);
  EXPECT_EQ(mha.total, 16384);
  EXPECT_EQ(mqa.total, 9216);
  EXPECT_EQ(mha.total - mqa.total, 2 * 64 * (64 - 8));
  EXPECT_DOUBLE_EQ((mqa.total - mha.total) / mha.total, -0.4375);
  EXPECT_EQ(mqa.wk, 64 * 8);
}

TEST(Accounting, GqaMlaAndExplicitDHead) {
  const ParamCount gqa = params("gqa", 4096, 32, 8);
  EXPECT_EQ(gqa.wq, 4096.0 * 4096);
  EXPECT_EQ(gqa.wk, 4096.0 * 1024);
  EXPECT_EQ(gqa.total, 2 * 4096.0 * 4096 + 2 * 4096.0 * 1024);
  const ParamCount mla = params("mla", 2048, 16, 0, 128, 512, 64);  // DeepSeek-V2-Lite attention
  EXPECT_EQ(mla.w_dkv, 2048.0 * 512);
  EXPECT_EQ(mla.w_uk, 512.0 * 16 * 128);
  EXPECT_EQ(mla.w_uv, 512.0 * 16 * 128);
  EXPECT_EQ(mla.w_qr, 2048.0 * 16 * 64);
  EXPECT_EQ(mla.w_kr, 2048.0 * 64);
  EXPECT_EQ(mla.wk, 0);
  EXPECT_EQ(mla.total, mla.wq + mla.w_dkv + mla.w_uk + mla.w_uv + mla.w_qr + mla.w_kr + mla.wo);
  const ParamCount palm = params("mqa", 18432, 48, 0, 256);  // PaLM: dHead 256 != 18432 / 48
  EXPECT_EQ(palm.wq, 18432.0 * 48 * 256);
  EXPECT_EQ(palm.wk, 18432.0 * 256);
}

TEST(Accounting, PresetsReproduceTheTable) {
  const std::map<std::string, double> want = {
      {"gpt2-small", 18432},  {"bert-base", 18432},  {"t5-base", 18432},        {"llama-2-7b", 262144},
      {"llama-2-70b", 163840}, {"llama-3-8b", 65536}, {"llama-3-70b", 163840},  {"llama-3.1-405b", 258048},
      {"mistral-7b", 65536},  {"qwen2-7b", 28672},   {"qwen2.5-72b", 163840},   {"falcon-7b", 4096},
      {"falcon-40b", 61440},  {"palm-540b", 60416},  {"deepseek-v2", 34560},    {"deepseek-v2-lite", 15552},
      {"deepseek-v3", 35136},
  };
  ASSERT_EQ(presets().size(), want.size());
  for (const Preset& p : presets()) {
    ASSERT_TRUE(want.count(p.id)) << p.id;
    const double elems = kv_elements_per_token_per_layer(p.variant, p.n_heads, p.n_kv_heads, p.d_head,
                                                         p.latent_rank, p.rope_dim) * double(p.n_layers);
    EXPECT_EQ(elems, want.at(p.id)) << p.id;
  }
}
