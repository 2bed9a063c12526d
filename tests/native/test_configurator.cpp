// The configurator: the lesson's rule-of-thumb table, each rule and refusal, real deployment cases,
// and bad requests answered with an Error instead of a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "attn/configurator.hpp"
#include "attn/errors.hpp"

using namespace attn;

namespace {
RecommendQuery query(double budget, double seq, const char* priority = "balanced") {
  RecommendQuery q;
  q.param_budget = budget;
  q.seq_len = seq;
  q.priority = std::string(priority);
  return q;
}
bool fired(const Recommendation& r, const std::string& id) {
  return std::find(r.rules.begin(), r.rules.end(), id) != r.rules.end();
}
std::string all_text(const Recommendation& r) {
  std::string t = r.justification;
  for (const auto& s : r.reasons) t += " | " + s;
  for (const auto& s : r.warnings) t += " | " + s;
  return t;
}
}  // namespace

TEST(Configurator, ReproducesTheLessonsRuleOfThumbTable) {
  struct Row { double budget; int64_t d, h, dh; };
  for (const Row& row : {Row{125e6, 768, 12, 64}, Row{350e6, 1024, 16, 64}, Row{1e9, 2048, 16, 128}, Row{70e9, 8192, 64, 128}}) {
    const Recommendation r = recommend(query(row.budget, 2048));
    EXPECT_EQ(r.d_model, row.d) << row.budget;
    EXPECT_EQ(r.n_heads, row.h) << row.budget;
    EXPECT_EQ(r.d_head, row.dh) << row.budget;
    EXPECT_TRUE(fired(r, "size-table"));
  }
  const Recommendation big = recommend(query(70e9, 2048));
  EXPECT_EQ(big.variant, Variant::GQA);
  EXPECT_EQ(big.n_kv_heads, 8) << "~70B -> 8192/64/128 with 8 KV heads";
  EXPECT_EQ(big.n_layers, 80);
}

TEST(Configurator, SevenToEightBillionAt8KOn24GBGetsGqaWith8KvHeads) {
  for (double budget : {7e9, 8e9}) {
    RecommendQuery q = query(budget, 8192);
    q.target = std::string("gpu-24gb");
    const Recommendation r = recommend(q);
    EXPECT_EQ(r.variant, Variant::GQA) << all_text(r);
    EXPECT_EQ(r.n_kv_heads, 8);
    EXPECT_EQ(r.d_model, 4096);
    EXPECT_EQ(r.n_heads, 32);
    ASSERT_TRUE(r.fits.has_value());
    EXPECT_TRUE(*r.fits) << all_text(r);
    // KV per token per layer at bf16: 2 * 8 * 128 * 2 bytes; total over 32 layers and 8192 tokens.
    EXPECT_EQ(r.kv_bytes_per_token_per_layer, 4096);
    EXPECT_EQ(r.kv_bytes_total, 4096.0 * double(r.n_layers) * 8192);
    EXPECT_EQ(r.n_layers, budget == 8e9 ? 32 : 28);  // the anchor's 32 layers, scaled with the budget
    EXPECT_DOUBLE_EQ(*r.margin_bytes, 24e9 - budget * 2 - r.kv_bytes_total);
  }
}

TEST(Configurator, BalancedKeepsMhaForSmallModelsAtShortContext) {
  const Recommendation r = recommend(query(125e6, 1024));
  EXPECT_EQ(r.variant, Variant::MHA);
  EXPECT_TRUE(fired(r, "balanced-small-mha"));
  EXPECT_EQ(recommend(query(125e6, 65536)).variant, Variant::GQA);  // long context: GQA
}

TEST(Configurator, QualityPicksMhaButRefusesItBeyond32KWithManyHeads) {
  const Recommendation r = recommend(query(8e9, 4096, "quality"));
  EXPECT_EQ(r.variant, Variant::MHA);
  EXPECT_TRUE(fired(r, "quality-mha"));
  const Recommendation longctx = recommend(query(8e9, 65536, "quality"));  // 32 heads > 16, 64K > 32K
  EXPECT_EQ(longctx.variant, Variant::GQA);
  EXPECT_TRUE(fired(longctx, "refuse-mha-long-context"));
  EXPECT_NE(all_text(longctx).find("GQA-8 needs"), std::string::npos) << all_text(longctx);
  // 16 heads is allowed at long context (the refusal is for more than 16).
  EXPECT_EQ(recommend(query(350e6, 65536, "quality")).variant, Variant::MHA);
}

TEST(Configurator, AForcedVariantIsPricedAndWarned) {
  RecommendQuery q = query(8e9, 65536);
  q.variant = std::string("mha");
  const Recommendation r = recommend(q);
  EXPECT_EQ(r.variant, Variant::MHA);
  EXPECT_TRUE(fired(r, "refuse-mha-long-context"));
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("MHA with 32 heads at 65536 tokens needs 32.0 GiB"), std::string::npos) << r.warnings[0];
}

TEST(Configurator, MemoryPriorityPicksMlaFromOneBillionAndMqaBelow) {
  const Recommendation r = recommend(query(8e9, 32768, "memory"));
  EXPECT_EQ(r.variant, Variant::MLA);
  EXPECT_EQ(r.latent_rank, 512);  // DeepSeek ratios at d_head 128
  EXPECT_EQ(r.rope_dim, 64);
  EXPECT_EQ(r.kv_bytes_per_token_per_layer, (512 + 64) * 2);
  const Recommendation small = recommend(query(350e6, 32768, "memory"));
  EXPECT_EQ(small.variant, Variant::MQA);
  EXPECT_TRUE(fired(small, "memory-mqa"));
}

TEST(Configurator, MlaUnderOneBillionIsRefusedUnlessBenchmarking) {
  RecommendQuery q = query(350e6, 4096);
  q.variant = std::string("mla");
  const Recommendation r = recommend(q);
  EXPECT_EQ(r.variant, Variant::MLA);
  EXPECT_TRUE(fired(r, "refuse-mla-small"));
  q.benchmark = true;
  EXPECT_FALSE(fired(recommend(q), "refuse-mla-small"));
}

TEST(Configurator, WalksDownTheLadderUntilItFits) {
  // 8B (16 GB of bf16 weights) at 128K tokens on a 24 GB GPU: GQA-8 (16 GiB of cache) and GQA-4
  // (8 GiB) do not fit; MLA (r + dr = 576 per layer: 4.5 GiB) is the largest cache that does.
  RecommendQuery q = query(8e9, 131072);
  q.target = std::string("gpu-24gb");
  const Recommendation r = recommend(q);
  EXPECT_TRUE(fired(r, "fit-ladder")) << all_text(r);
  EXPECT_EQ(r.variant, Variant::MLA) << all_text(r);
  EXPECT_TRUE(*r.fits);
  EXPECT_EQ(r.alternatives.front().variant, Variant::MHA);
  EXPECT_FALSE(r.alternatives.front().fits);
  EXPECT_NE(all_text(r).find("MHA > GQA-8 > GQA-4 > MLA > GQA-2 > MQA"), std::string::npos) << all_text(r);
  q.batch = 4.0;  // four sequences: nothing fits, and it says so
  const Recommendation none = recommend(q);
  EXPECT_FALSE(*none.fits);
  EXPECT_TRUE(fired(none, "does-not-fit"));
}

TEST(Configurator, ImpossibleMemoryIsAnsweredClearly) {
  RecommendQuery q = query(70e9, 8192);
  q.target = std::string("gpu-80gb");  // 140 GB of bf16 weights
  const Recommendation r = recommend(q);
  EXPECT_FALSE(*r.fits);
  // 80e9 - 140e9 (weights) - 2 * 8 * 128 * 2 * 80 * 8192 (GQA-8 cache, 80 layers: 2,684,354,560)
  EXPECT_EQ(*r.margin_bytes, 80e9 - 140e9 - 2684354560.0);
  EXPECT_TRUE(fired(r, "weights-exceed-memory"));
  q.target.reset();
  q.memory_bytes = 1.0;  // one byte
  EXPECT_FALSE(*recommend(q).fits);
}

TEST(Configurator, DirectShapeAndTheHeadWidthRefusal) {
  RecommendQuery q;
  q.d_model = 512.0;
  q.n_layers = 6.0;
  q.seq_len = 1024.0;
  const Recommendation r = recommend(q);
  EXPECT_EQ(r.d_head, 64);
  EXPECT_EQ(r.n_heads, 8);
  EXPECT_TRUE(fired(r, "direct-shape"));
  EXPECT_EQ(r.params, 6.0 * 12 * 512 * 512 + 32000.0 * 512);
  q.d_model = 50.0;  // no head width >= 32 divides 50
  try {
    recommend(q);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dModel (50)"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("d_head < 32"), std::string::npos);
  }
}

TEST(Configurator, BadRequestsNameTheField) {
  auto expect = [](RecommendQuery q, const char* part) {
    try {
      recommend(q);
      ADD_FAILURE() << part;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect(query(1000, 2048), "paramBudget (1000) is too small");
  expect(query(NAN, 2048), "paramBudget (NaN)");
  RecommendQuery q = query(8e9, 2048);
  q.seq_len.reset();
  expect(q, "seqLen is required");
  q = query(8e9, 2048, "fast");
  expect(q, "priority ('fast')");
  q = query(8e9, 2048);
  q.target = std::string("tpu");
  expect(q, "target ('tpu')");
  q.target = std::string("gpu-24gb");
  q.memory_bytes = 1e9;
  expect(q, "not both");
  q = query(8e9, 2048);
  q.batch = 0.0;
  expect(q, "batch (0)");
  q = query(8e9, 2048);
  q.variant = std::string("flash");
  expect(q, "variant ('flash')");
  q = query(8e9, 2048);
  q.d_model = 512.0;
  expect(q, "not both");
}

TEST(Configurator, TablesAreOrderedAndConsistent) {
  const auto& rows = size_table();
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_GT(rows[i].params, rows[i - 1].params);
  for (const auto& r : rows) {
    EXPECT_EQ(r.d_model, r.n_heads * r.d_head) << r.source;
    EXPECT_GE(r.d_head, 32);
  }
  EXPECT_EQ(deployment_targets().size(), 4u);
}

// Every sentence comes with its message: the English is english() of it, so that a page writing the
// message in another language says the same thing. A message the table cannot write is a logic error.
TEST(Configurator, EverySentenceIsTheEnglishOfItsMessage) {
  std::vector<RecommendQuery> queries = {query(8e9, 8192), query(125e6, 2048), query(8e9, 65536, "quality"), query(350e6, 4096, "memory"),
                                         query(8e9, 131072)};
  queries[0].target = std::string("gpu-24gb");
  queries[4].target = std::string("gpu-24gb");
  for (const RecommendQuery& q : queries) {
    const Recommendation r = recommend(q);
    EXPECT_EQ(r.justification, english(r.messages.justification));
    ASSERT_EQ(r.reasons.size(), r.messages.reasons.size());
    for (std::size_t i = 0; i < r.reasons.size(); ++i) EXPECT_EQ(r.reasons[i], english(r.messages.reasons[i]));
    ASSERT_EQ(r.warnings.size(), r.messages.warnings.size());
    for (std::size_t i = 0; i < r.warnings.size(); ++i) EXPECT_EQ(r.warnings[i], english(r.messages.warnings[i]));
    EXPECT_EQ(r.init, english(r.messages.init));
    EXPECT_EQ(r.check, english(r.messages.check));
  }
  const Recommendation r = recommend(queries[0]);
  EXPECT_EQ(r.messages.justification.id, "justification-fits");
  EXPECT_EQ(r.justification, "GQA with 8 KV heads: at 8192 tokens its KV cache is 1.0 GiB against 4.0 GiB for MHA (4x smaller), "
                             "and weights + cache fit 24.0 GB with 6.9 GB to spare.");
  EXPECT_THROW(english(Message{"no-such-sentence", {}}), std::logic_error);
  EXPECT_THROW(english(Message{"variant-gqa", {}}), std::logic_error);  // its {g} has no value
}
