// The cost model (cost.hpp, train/costs.hpp): it counts every loop a call runs, so the calls that
// blocked for minutes while their FLOPs stayed under the old cap are refused, naming the field to
// reduce, unless allowLongWork; and it grows with each size the loops grow with.
#include <gtest/gtest.h>

#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/kv_cache.hpp"
#include "attn/layer.hpp"
#include "attn/spec.hpp"
#include "attn/train/trainer.hpp"
#include "attn/weights.hpp"

using namespace attn;

namespace {
RawSpec spec(const char* variant, double n, double d, double h) {
  RawSpec r;
  r.variant = std::string(variant);
  r.seq_len = n;
  r.d_model = d;
  r.n_heads = h;
  return r;
}
// The field and message of resolve's refusal ("" when it accepts).
std::pair<std::string, std::string> refusal(const RawSpec& r, Need need) {
  try {
    resolve(r, need);
  } catch (const Error& e) {
    return {e.field(), e.message()};
  }
  return {"", ""};
}
}  // namespace

TEST(Cost, TheSoftmaxOverLongSequencesIsCounted) {
  // 131072 tokens of dModel 1: few FLOPs in the projections, 1.7e10 scores (71.8 s measured in wasm
  // before the cost model).
  const auto [field, message] = refusal(spec("mha", 131072, 1, 1), Need::Forward);
  EXPECT_EQ(field, "seqLen") << message;
  EXPECT_NE(message.find("the attention scores and their softmax"), std::string::npos) << message;
  EXPECT_NE(message.find("allowLongWork: true"), std::string::npos) << message;
  RawSpec lifted = spec("mha", 131072, 1, 1);
  lifted.allow_long_work = true;
  EXPECT_NO_THROW(resolve(lifted, Need::Forward));
  EXPECT_EQ(refusal(spec("mha", 64, 32, 4), Need::Forward).first, "") << "a small pass is accepted";
  RawSpec causal = spec("mha", 131072, 2, 1);
  causal.causal = true;
  EXPECT_EQ(refusal(causal, Need::Forward).first, "seqLen");
}

TEST(Cost, EachTermGrowsWithItsSizes) {
  RawSpec r = spec("gqa", 64, 64, 4);
  r.n_kv_heads = 2.0;
  Shape s = resolve(r, Need::Shape);
  s.n = 64;
  const double base = forward_cost(s, false).seconds();
  Shape longer = s;
  longer.n = 256;
  EXPECT_GT(forward_cost(longer, false).seconds(), 4 * base) << "scores grow with N^2";
  Shape wider = s;
  wider.d = 256;
  EXPECT_GT(forward_cost(wider, false).seconds(), 2 * base);
  EXPECT_GT(forward_cost(s, true).seconds(), base) << "drawing seeded weights costs";
  EXPECT_GT(intermediates_cost(s, false).seconds(), base) << "the stages' plain loops";
  Shape causal = longer;
  causal.causal = true;
  EXPECT_LT(forward_cost(causal, false).seconds(), forward_cost(longer, false).seconds());
  EXPECT_LT(forward_cost(s, false, true).seconds(), base) << "a layer's weights are packed already";
}

TEST(Cost, MlaAppendsAreCountedAtLatentRank) {
  // latentRank 4096, dHead 1: appends of 4096 tokens took 4-31 s in wasm, estimated below the old cap.
  RawSpec r = spec("mla", 0, 64, 64);
  r.seq_len.reset();
  r.d_head = 1.0;
  r.latent_rank = 4096.0;
  r.max_len = 32768.0;  // a 512 MiB cache: within the memory cap, but one token at the end reads it 64 times
  const auto [field, message] = refusal(r, Need::Session);
  EXPECT_EQ(field, "maxLen") << "one token appended to a full cache must fit: " << message;
  r.n_heads = 4.0;
  r.max_len = 4096.0;
  const Shape s = resolve(r, Need::Session);
  Session session(s, init_weights(s, 0));
  try {
    session.check_append(1024);
    ADD_FAILURE() << "an append of 1024 tokens at latentRank 4096 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "x");
    EXPECT_NE(e.message().find("latentRank"), std::string::npos) << e.message();
  }
  EXPECT_NO_THROW(session.check_append(16));
  Shape narrow = s;
  narrow.r = 64;
  EXPECT_GT(append_cost(s, 64, 1000).seconds(), 8 * append_cost(narrow, 64, 1000).seconds());
}

TEST(Cost, ALayerRefusesTooManyRowsPerCall) {
  RawSpec r = spec("mha", 0, 1, 1);
  r.seq_len.reset();
  const Shape s = resolve(r, Need::Layer);
  const Layer layer(s, init_weights(s, 0));
  EXPECT_NO_THROW(layer.shape_for(1024));
  try {
    layer.shape_for(131072);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "x") << e.message();
  }
}

TEST(Cost, TrainerCallsAreCappedAtCreationAndStepCountsPerCall) {
  using namespace attn::train;
  TrainerSpec t;
  t.task = std::string("copy");
  t.model.variant = std::string("mha");
  t.model.d_model = 64.0;
  t.model.n_heads = 4.0;
  t.seq_len = 16.0;
  t.batch_size = 4.0;
  Trainer small(t);
  const int64_t max = small.max_steps_per_call();
  EXPECT_GE(max, 1);
  EXPECT_NEAR(double(max) * small.costs().step.seconds(), kMaxSyncSeconds, small.costs().step.seconds() + 1e-9);
  try {
    small.step(max + 1);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "n");
    EXPECT_EQ(small.steps(), 0) << "nothing ran";
  }
  // A probe at dModel 1152 (4 layers, an MLP, seqLen 16: evaluate() took 37 s), at a size
  // whose memory fits: evaluate's 256 sequences are refused at creation.
  TrainerSpec big = t;
  big.model.d_model = 512.0;
  big.model.n_heads = 8.0;
  big.n_layers = 4.0;
  big.mlp = true;
  try {
    Trainer refused(big);
    ADD_FAILURE() << "created";
  } catch (const Error& e) {
    EXPECT_FALSE(e.field().empty()) << e.message();
    EXPECT_NE(e.message().find("allowLongWork: true in the trainer spec"), std::string::npos) << e.message();
  }
}

TEST(Cost, ATrainerThatCouldNotBeExportedAndLoadedIsRefused) {
  using namespace attn::train;
  // dModel 1088, 17 heads, 4 layers, MLP: exportModel ran out of memory; dModel 1024: its export
  // could not be loaded while the trainer lived.
  TrainerSpec t;
  t.task = std::string("copy");
  t.model.variant = std::string("mha");
  t.model.d_model = 1024.0;
  t.model.n_heads = 16.0;
  t.n_layers = 4.0;
  t.mlp = true;
  t.seq_len = 2.0;
  t.batch_size = 1.0;
  t.allow_long_work = true;  // time aside: memory alone
  try {
    Trainer refused(t);
    ADD_FAILURE() << "created";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "model.dModel") << e.message();
    EXPECT_NE(e.message().find("could not be exported and loaded again"), std::string::npos) << e.message();
  }
  ModelConfig c;
  c.attn.variant = Variant::MHA;
  c.attn.d = 64;
  c.attn.h = c.attn.g = 4;
  c.attn.dh = 16;
  c.attn.n = 16;
  c.vocab = 16;
  c.n_layers = 2;
  c.mlp = true;
  Model m(c, 0);
  EXPECT_EQ(model_param_floats(c), double(m.param_count())) << "the estimate counts every parameter";
}
