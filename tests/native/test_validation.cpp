// Validation: every kind of bad field is refused with an attn::Error of the right kind whose
// message names the field and the value, before anything is allocated.
#include <gtest/gtest.h>

#include "attn/errors.hpp"
#include "attn/weights.hpp"
#include "helpers.hpp"

using namespace attn;

namespace {
RawSpec good() {
  RawSpec r;
  r.variant = std::string("gqa");
  r.seq_len = 8.0;
  r.d_model = 16.0;
  r.n_heads = 4.0;
  r.n_kv_heads = 2.0;
  return r;
}

// Expects resolve() to throw an Error of `kind` whose message contains every string in `parts`.
void expect_error(const RawSpec& r, Error::Kind kind, std::initializer_list<const char*> parts, Need need = Need::Forward) {
  try {
    resolve(r, need);
    ADD_FAILURE() << "no error; expected one mentioning " << *parts.begin();
  } catch (const Error& e) {
    EXPECT_EQ(int(e.kind()), int(kind)) << e.what();
    for (const char* p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}
}  // namespace

TEST(Validation, GoodSpecResolvesWithDefaults) {
  const Shape s = resolve(good(), Need::Forward);
  EXPECT_EQ(s.dh, 4);
  EXPECT_EQ(s.group(), 2);
  RawSpec mha = good();
  mha.variant = std::string("mha");
  mha.n_kv_heads.reset();
  EXPECT_EQ(resolve(mha, Need::Forward).g, 4);
  RawSpec mqa = mha;
  mqa.variant = std::string("mqa");
  EXPECT_EQ(resolve(mqa, Need::Forward).g, 1);
}

TEST(Validation, EachFieldNamesItselfAndItsValue) {
  RawSpec r = good();
  r.variant = std::string("flash");
  expect_error(r, Error::Kind::Range, {"variant", "flash"});
  r = good(); r.variant.reset();
  expect_error(r, Error::Kind::Type, {"variant"});
  r = good(); r.n_kv_heads = 3.0;
  expect_error(r, Error::Kind::Range, {"nHeads (4) must be divisible by nKvHeads (3)"});
  r = good(); r.n_heads = 6.0; r.n_kv_heads = 4.0; r.d_model = 12.0;
  expect_error(r, Error::Kind::Range, {"nHeads (6) must be divisible by nKvHeads (4)"});
  r = good(); r.n_kv_heads = 8.0;
  expect_error(r, Error::Kind::Range, {"nKvHeads (8) must not exceed nHeads (4)"});
  r = good(); r.n_kv_heads.reset();
  expect_error(r, Error::Kind::Type, {"nKvHeads"});
  r = good(); r.seq_len = 0.0;
  expect_error(r, Error::Kind::Range, {"seqLen (0)"});
  r = good(); r.seq_len = 2.5;
  expect_error(r, Error::Kind::Range, {"seqLen (2.5)", "integer"});
  r = good(); r.seq_len.reset();
  expect_error(r, Error::Kind::Type, {"seqLen"});
  r = good(); r.d_model = -16.0;
  expect_error(r, Error::Kind::Range, {"dModel (-16)"});
  r = good(); r.d_model = std::nan("");
  expect_error(r, Error::Kind::Range, {"dModel (NaN)"});
  r = good(); r.n_heads = 3.0; r.n_kv_heads = 1.0;
  expect_error(r, Error::Kind::Range, {"dModel (16)", "nHeads (3)", "dHead"});
  r = good(); r.n_heads = 3.0; r.n_kv_heads = 1.0; r.d_head = 5.0;  // explicit dHead: fine
  EXPECT_EQ(resolve(r, Need::Forward).dh, 5);
  r = good(); r.d_head = 5.0; r.rope.enabled = true;
  expect_error(r, Error::Kind::Range, {"dHead (5)", "even"});
  r = good(); r.rope.enabled = true; r.rope.base = -1.0;
  expect_error(r, Error::Kind::Range, {"rope.base (-1)"});
  r = good(); r.rope.enabled = true; r.rope.base = 1e-310;  // fuzzer find: NaN output before
  expect_error(r, Error::Kind::Range, {"rope.base (1e-310)", ">= 1"});
  r = good(); r.latent_rank = 4.0;
  expect_error(r, Error::Kind::Range, {"latentRank (4)", "mla"});
  r = good(); r.variant = std::string("mla"); r.n_kv_heads.reset();
  expect_error(r, Error::Kind::Type, {"latentRank"});
  r.latent_rank = 4.0; r.rope_dim = 3.0;
  expect_error(r, Error::Kind::Range, {"ropeDim (3)", "even"});
  r = good(); r.variant = std::string("mha"); r.n_kv_heads = 2.0;
  expect_error(r, Error::Kind::Range, {"nKvHeads (2)", "nHeads (4)"});
  r = good(); r.variant = std::string("mqa"); r.n_kv_heads = 2.0;
  expect_error(r, Error::Kind::Range, {"nKvHeads (2)", "1"});
  r = good(); r.seed = -1.0;
  expect_error(r, Error::Kind::Range, {"seed (-1)"});
  r = good(); r.max_len = 4.0; r.seq_len.reset();
  EXPECT_EQ(resolve(r, Need::Session).max_len, 4);
  r.max_len.reset();
  expect_error(r, Error::Kind::Type, {"maxLen"}, Need::Session);
}

TEST(Validation, OversizedWorkIsRefusedBeforeAllocation) {
  RawSpec r = good();
  r.seq_len = 100000.0;
  r.d_model = 4096.0;
  r.n_heads = 32.0;
  r.n_kv_heads = 8.0;
  expect_error(r, Error::Kind::Range, {"MiB", "cap"});
  r = good();
  r.seq_len = 8192.0;
  r.d_model = 64.0;
  r.return_weights = true;  // 4 heads * 8192^2 floats = 1 GiB of weights alone
  expect_error(r, Error::Kind::Range, {"returnWeights"});
  r.return_weights = false;
  r.allow_long_work = true;  // within the memory cap; above the time cap (cost.hpp), lifted here
  EXPECT_NO_THROW(resolve(r, Need::Forward));
  r = good(); r.seq_len = 1e9;
  expect_error(r, Error::Kind::Range, {"seqLen (1000000000)"});
}

TEST(Validation, BuffersAreCheckedForSizeAndFiniteness) {
  std::vector<float> v(12, 1.0f);
  EXPECT_NO_THROW(check_buffer("x", v.data(), 12, 12, "seqLen * dModel"));
  try {
    check_buffer("x", v.data(), 12, 16, "seqLen * dModel");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "x has 12 elements, expected seqLen * dModel = 16");
  }
  v[7] = std::nanf("");
  try {
    check_buffer("weights.wq", v.data(), 12, 12, "");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "weights.wq[7] is NaN: inputs must be finite");
  }
  v[7] = INFINITY;
  EXPECT_THROW(check_buffer("x", v.data(), 12, 12, ""), Error);
}

// error.field: the path of the field an error is about (the first field its message names).
namespace {
std::string field_of(const RawSpec& r, Need need = Need::Forward) {
  try {
    resolve(r, need);
  } catch (const Error& e) {
    return e.field();
  }
  return "(no error)";
}
}  // namespace

TEST(Validation, ErrorsCarryTheirField) {
  RawSpec r = good(); r.variant = std::string("flash");
  EXPECT_EQ(field_of(r), "variant");
  r = good(); r.n_kv_heads = 3.0;
  EXPECT_EQ(field_of(r), "nHeads");
  r = good(); r.n_kv_heads = 8.0;
  EXPECT_EQ(field_of(r), "nKvHeads");
  r = good(); r.seq_len.reset();
  EXPECT_EQ(field_of(r), "seqLen");
  r = good(); r.d_head = 5.0; r.rope.enabled = true;
  EXPECT_EQ(field_of(r), "dHead");
  r = good(); r.rope.enabled = true; r.rope.base = -1.0;
  EXPECT_EQ(field_of(r), "rope.base");
  r = good(); r.variant = std::string("mla"); r.n_kv_heads.reset(); r.latent_rank = 4.0; r.rope_dim = 3.0;
  EXPECT_EQ(field_of(r), "ropeDim");
  r = good(); r.max_len.reset(); r.seq_len.reset();
  EXPECT_EQ(field_of(r, Need::Session), "maxLen");
  r = good(); r.seq_len = 100000.0; r.d_model = 4096.0; r.n_heads = 32.0; r.n_kv_heads = 8.0;
  EXPECT_EQ(field_of(r), "") << "a work cap over several fields names none";
  std::vector<float> v(12, 1.0f);
  try {
    check_buffer("weights.wq", v.data(), 12, 16, "");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "weights.wq");
  }
  const Error inner(Error::Kind::Range, "nHeads (4) must be divisible by nKvHeads (3)", "nHeads");
  EXPECT_EQ(inner.nested("model").field(), "model.nHeads");
  EXPECT_STREQ(inner.nested("model").what(), inner.what());
  EXPECT_EQ(Error(Error::Kind::State, "disposed").nested("model").field(), "");
}

TEST(Validation, ASessionIsCausalAndRefusesCausalFalse) {
  RawSpec r = good();
  r.seq_len.reset();
  r.max_len = 8.0;
  EXPECT_TRUE(resolve(r, Need::Session).causal) << "absent: causal";
  r.causal = true;
  EXPECT_TRUE(resolve(r, Need::Session).causal);
  r.causal = false;
  expect_error(r, Error::Kind::Range, {"causal (false) does not apply to a session"}, Need::Session);
  EXPECT_EQ(field_of(r, Need::Session), "causal");
}

TEST(Validation, KvHeadOfIsTheContiguousGroupAndZeroForMla) {
  const Shape s = resolve(good(), Need::Forward);  // H 4, G 2
  EXPECT_EQ(s.kv_head_of(0), 0);
  EXPECT_EQ(s.kv_head_of(1), 0);
  EXPECT_EQ(s.kv_head_of(2), 1);
  EXPECT_EQ(s.kv_head_of(3), 1);
  RawSpec m = good();
  m.variant = std::string("mla");
  m.n_kv_heads.reset();
  m.latent_rank = 4.0;
  const Shape mla = resolve(m, Need::Forward);
  for (int64_t h = 0; h < mla.h; ++h) EXPECT_EQ(mla.kv_head_of(h), 0);
}

TEST(Validation, ResolveDescribedPicksTheCallTheSpecDescribes) {
  RawSpec f = good();  // seqLen: a forward pass, with its caps
  EXPECT_EQ(resolve_described(f).n, 8);
  f.seq_len = 131072.0;
  f.d_model = 4096.0;
  EXPECT_THROW(resolve_described(f), Error) << "a forward pass above the caps";
  RawSpec s = good();  // maxLen: a session, causal by construction
  s.seq_len.reset();
  s.max_len = 8.0;
  EXPECT_TRUE(resolve_described(s).causal);
  s.causal = false;
  EXPECT_THROW(resolve_described(s), Error);
  RawSpec g = good();  // neither: the bare geometry, with no work caps (a real model's sizes)
  g.seq_len.reset();
  g.d_model = 65536.0;
  g.n_heads = 64.0;
  g.n_kv_heads = 8.0;
  EXPECT_EQ(resolve_described(g).g, 8);
  RawSpec both = good();
  both.max_len = 8.0;
  try {
    resolve_described(both);
    ADD_FAILURE() << "seqLen and maxLen together";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "maxLen");
  }
}

TEST(Validation, AMessageQuotesAValueWhole) {
  RawSpec r = good();
  r.variant = std::string("mh\0a", 4);
  try {
    resolve(r, Need::Forward);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "variant ('mh\\u0000a') must be one of 'mha', 'mqa', 'gqa', 'mla'");
  }
  EXPECT_EQ(quoted(std::string(50, 'x')), "'" + std::string(40, 'x') + "...'");
  EXPECT_EQ(quoted("\xC3\xA9t\xC3\xA9"), "'\xC3\xA9t\xC3\xA9'") << "UTF-8 sequences stay whole";
}
