// test_train_tokens.cpp — task 'tokens': next-token prediction on token ids given with the spec
// (a tokenized corpus): its refusals, its held-out tail, that it learns, and its model file (the ids by
// reference: tokenCount and tokensCrc32).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attn/errors.hpp"
#include "attn/train/tasks.hpp"
#include "attn/train/trainer.hpp"
#include "trainer_errors.hpp"

using namespace attn;
using namespace attn::train;

namespace {

// ids 0, 1, .., period - 1, 0, 1, .. (count of them)
std::vector<int32_t> cycle(int64_t count, int32_t period) {
  std::vector<int32_t> ids(static_cast<std::size_t>(count));
  for (int64_t i = 0; i < count; ++i) ids[std::size_t(i)] = int32_t(i % period);
  return ids;
}

TrainerSpec tokens_spec(std::vector<int32_t> ids, double vocab) {
  TrainerSpec s;
  s.task = "tokens";
  s.tokens = std::move(ids);
  s.vocab_size = vocab;
  s.model.variant = "mha";
  s.model.d_model = 32;
  s.model.n_heads = 2;
  s.seq_len = 16;
  s.batch_size = 8;
  s.learning_rate = 1e-2;
  s.seed = 3;
  return s;
}

Error::Kind error_kind(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return Error::Kind::State;
}

}  // namespace

TEST(TrainerTokens, RefusesBadSpecsNamingTheFieldAndValue) {
  const TrainerSpec s = tokens_spec(cycle(400, 10), 16);
  { Trainer ok(s); EXPECT_EQ(ok.task().vocab(), 16); }
  { auto t = s; t.vocab_size.reset(); expect_spec_error(t, "vocabSize is required for task 'tokens'", "vocabSize"); }
  { auto t = s; t.vocab_size = 2; expect_spec_error(t, "vocabSize (2)", "vocabSize"); }
  { auto t = s; t.vocab_size = 65537; expect_spec_error(t, "vocabSize (65537)", "vocabSize"); }
  { auto t = s; t.vocab_size = 2.5; expect_spec_error(t, "vocabSize (2.5)", "vocabSize"); }
  { auto t = s; t.tokens.reset(); expect_spec_error(t, "tokens is required for task 'tokens'", "tokens"); }
  { auto t = s; (*t.tokens)[5] = 16; expect_spec_error(t, "tokens[5] (16) is not a token id below vocabSize (16)", "tokens"); }
  { auto t = s; (*t.tokens)[7] = -1; expect_spec_error(t, "tokens[7] (-1)", "tokens"); }
  // the last 10 % must hold seqLen + 1 tokens: 10 (16 + 2) = 180 ids at least
  { auto t = s; t.tokens = cycle(179, 10); expect_spec_error(t, "tokens (179 ids) are too few for seqLen (16)", "tokens"); }
  { auto t = s; t.tokens = cycle(180, 10); EXPECT_NO_THROW(Trainer{t}); }
  { auto t = s; t.text = "some text"; expect_spec_error(t, "text applies to task 'chars' only", "text"); }
  { auto t = s; t.task = "copy"; expect_spec_error(t, "tokens applies to task 'tokens' only", "tokens"); }
  { auto t = s; t.task = "chars"; t.text = std::string(2000, 'a'); expect_spec_error(t, "tokens applies to task 'tokens' only", "tokens"); }
  { auto t = s; t.tokens.reset(); EXPECT_EQ(error_kind([&] { Trainer x(t); }), Error::Kind::Type); }
  { auto t = s; (*t.tokens)[0] = 99; EXPECT_EQ(error_kind([&] { Trainer x(t); }), Error::Kind::Range); }
  EXPECT_NO_THROW(Trainer::check_tokens_length(kMaxTokens));
  try {
    Trainer::check_tokens_length(kMaxTokens + 1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "tokens");
    EXPECT_NE(e.message().find("16000001 ids"), std::string::npos) << e.message();
  }
}

TEST(TrainerTokens, HoldsOutTheLastTenPercentForEvaluation) {
  std::vector<int32_t> ids(1000);
  for (int32_t i = 0; i < 1000; ++i) ids[std::size_t(i)] = i;  // each id tells where it sits
  const Task task(TaskKind::Tokens, 1000, 8, "", &ids);
  ASSERT_EQ(task.train_ids().size(), 900u);
  ASSERT_EQ(task.val_ids().size(), 100u);
  EXPECT_EQ(task.val_ids().front(), 900);
  Rng rng(7);
  const Batch train = task.sample(rng, 64);
  for (std::size_t i = 0; i < train.tokens.size(); ++i) {
    EXPECT_LT(train.tokens[i], 900);
    EXPECT_LT(train.targets[i], 900);
    EXPECT_EQ(train.targets[i], train.tokens[i] + 1);  // the next token
    EXPECT_EQ(train.loss_mask[i], 1.0f);
  }
  const Batch val = task.sample(rng, 64, true);
  for (std::size_t i = 0; i < val.tokens.size(); ++i) EXPECT_GE(val.tokens[i], 900);
  // evaluate(): evenly spaced windows over the tail, from its first id to its last
  const Batch eval = task.eval_set(1, 256);
  EXPECT_EQ(eval.batch, 100 - 8);  // every start from 0 to 100 - 8 - 1
  EXPECT_EQ(eval.tokens.front(), 900);
  EXPECT_EQ(eval.targets.back(), 999);
  for (std::size_t i = 0; i < eval.tokens.size(); ++i) EXPECT_GE(eval.tokens[i], 900);
}

TEST(TrainerTokens, LearnsARepeatedPattern) {
  Trainer t(tokens_spec(cycle(2000, 10), 16));
  const EvalResult before = t.evaluate();
  EXPECT_GT(before.loss, 2.0);  // about ln 16 = 2.77 at random
  for (int i = 0; i < 15; ++i) t.step(10);
  const EvalResult after = t.evaluate();
  EXPECT_LT(after.loss, 0.2) << "loss " << before.loss << " -> " << after.loss;
  EXPECT_GT(after.accuracy, 0.95);
}

TEST(TrainerTokens, SavesTheIdsByReferenceAndReloads) {
  std::vector<int32_t> ids = cycle(1000, 7);
  for (std::size_t i = 0; i < ids.size(); i += 13) ids[i] = 11;  // not a plain cycle
  Trainer t(tokens_spec(ids, 12));
  t.step(5);
  const std::vector<uint8_t> file = t.export_model();
  const std::string header(file.begin(), file.begin() + std::min<std::size_t>(file.size(), 4096));
  EXPECT_NE(header.find("\"tokenCount\":\"1000\""), std::string::npos);
  EXPECT_NE(header.find("\"tokensCrc32\":\"" + Trainer::tokens_crc32(ids) + "\""), std::string::npos);
  EXPECT_NE(header.find("\"vocabSize\":\"12\""), std::string::npos);

  auto back = Trainer::load_model(file, false, std::nullopt, ids);
  EXPECT_EQ(back->steps(), 5);
  EXPECT_EQ(back->task().vocab(), 12);
  const EvalResult a = t.evaluate(), b = back->evaluate();
  EXPECT_EQ(a.loss, b.loss);
  // the data stream and AdamW's moments travel too: the next steps are the same
  EXPECT_EQ(t.step(3).loss, back->step(3).loss);
  EXPECT_EQ(t.export_model(), back->export_model());

  // without its ids, with other ids, or ids for a file of another task: refused naming "tokens"
  auto refused = [&](const std::function<void()>& f, const std::string& part, Error::Kind kind) {
    try {
      f();
      ADD_FAILURE() << "no error, expected " << part;
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), "tokens") << e.message();
      EXPECT_EQ(e.kind(), kind) << e.message();
      EXPECT_NE(e.message().find(part), std::string::npos) << e.message();
    }
  };
  refused([&] { Trainer::load_model(file); }, "pass them as loadModel(bytes, { tokens })", Error::Kind::Type);
  std::vector<int32_t> other = ids;
  other[500] = (ids[500] + 1) % 7;  // another id at one place
  refused([&] { Trainer::load_model(file, false, std::nullopt, other); }, "are not the ids this model was trained on (1000 ids",
          Error::Kind::Range);
  other = ids;
  other.pop_back();
  refused([&] { Trainer::load_model(file, false, std::nullopt, other); }, "tokens (999 ids", Error::Kind::Range);
  TrainerSpec copy;
  copy.task = "copy";
  copy.model.variant = "mha";
  copy.model.d_model = 16;
  copy.model.n_heads = 2;
  const auto copy_file = Trainer(copy).export_model();
  refused([&] { Trainer::load_model(copy_file, false, std::nullopt, ids); }, "applies only to a model file of task 'tokens'",
          Error::Kind::Range);

  // the bundled models' form (weights only, float16) keeps the ids by reference the same way
  ExportOptions o;
  o.weights_only = o.float16 = o.text_by_reference = true;
  const auto small = back->export_model(o);
  auto again = Trainer::load_model(small, false, std::nullopt, ids);
  EXPECT_NEAR(again->evaluate().loss, back->evaluate().loss, 0.05);
}

TEST(TrainerTokens, TheInductionProbeDrawsOnlyTheIdsTheTrainingTextHolds) {
  // a 40-token vocabulary whose text uses the even ids only: a probe over all 40 would put odd ids
  // (untrained embeddings) in most of its sequences
  std::vector<int32_t> ids = cycle(3000, 20);
  for (int32_t& x : ids) x *= 2;
  Trainer t(tokens_spec(ids, 40));
  const std::vector<int32_t> symbols = probe_symbols(t.task(), 40);
  ASSERT_EQ(symbols.size(), 20u);
  for (std::size_t i = 0; i < symbols.size(); ++i) EXPECT_EQ(symbols[i], int32_t(2 * i));
  // every other task probes its whole vocabulary
  TrainerSpec s = tokens_spec({}, 16);
  s.task = "induction";
  s.tokens.reset();
  Trainer ind(s);
  EXPECT_EQ(probe_symbols(ind.task(), 16).size(), 16u);
  // and the scores still come out as weights
  for (const HeadRoles& h : t.head_scores()) {
    for (const auto& v : {h.induction, h.duplicate_token}) {
      ASSERT_TRUE(v.has_value());
      EXPECT_GE(*v, 0.0);
      EXPECT_LE(*v, 1.0);
    }
  }
}

TEST(TrainerTokens, ARepeatFractionRepeatsAStretchOfTrainingWindowsOnly) {
  // ids 0..999 in order: a window is a run of consecutive ids unless a stretch was written again
  std::vector<int32_t> ids(20000);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = int32_t(i % 1000);
  Task task(TaskKind::Tokens, 1000, 64, "", &ids);
  auto repeated_rows = [&](double fraction, bool validation) {
    task.set_repeat_fraction(fraction);
    Rng rng(7);
    const Batch b = task.sample(rng, 400, validation);
    int rows = 0;
    for (int64_t r = 0; r < b.batch; ++r) {
      const int32_t* t = b.tokens.data() + r * b.n;
      int breaks = 0;
      for (int64_t i = 1; i < b.n; ++i) breaks += (t[i] != (t[i - 1] + 1) % 1000);
      if (breaks > 0) {
        ++rows;
        // the stretch after the first break is a copy of an earlier stretch of the same window
        int64_t q = 1;
        while (t[q] == (t[q - 1] + 1) % 1000) ++q;
        const int32_t* first = std::find(t, t + q, t[q]);
        EXPECT_LT(first, t + q) << "row " << r << ": the token after the break never occurred before it";
      }
    }
    return rows;
  };
  EXPECT_EQ(repeated_rows(0.0, false), 0);
  const int some = repeated_rows(0.25, false);
  EXPECT_GT(some, 60);   // about 100 of 400 (a wrap of 999 -> 0 is not a break)
  EXPECT_LT(some, 140);
  EXPECT_EQ(repeated_rows(1.0, true), 0);  // held-out windows are never changed
  EXPECT_GT(repeated_rows(1.0, false), 390);

  // the spec: 0..1, tasks 'chars' and 'tokens' only, named in the error
  TrainerSpec s = tokens_spec(cycle(2000, 10), 16);
  s.repeat_fraction = 1.5;
  EXPECT_EQ(error_kind([&] { Trainer t(s); }), Error::Kind::Range);
  s.repeat_fraction = 0.5;
  s.task = "induction";
  s.tokens.reset();
  try {
    Trainer t(s);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "repeatFraction");
    EXPECT_NE(e.message().find("repeatFraction (0.5)"), std::string::npos) << e.message();
  }
}

TEST(TrainerTokens, ARepeatFractionTravelsInTheModelFile) {
  std::vector<int32_t> ids = cycle(3000, 9);
  for (std::size_t i = 0; i < ids.size(); i += 7) ids[i] = 10;
  TrainerSpec s = tokens_spec(ids, 12);
  s.repeat_fraction = 0.5;
  Trainer t(s);
  t.step(4);
  const std::vector<uint8_t> file = t.export_model();
  const std::string header(file.begin(), file.begin() + std::min<std::size_t>(file.size(), 4096));
  EXPECT_NE(header.find("\"repeatFraction\":\"0.5\""), std::string::npos);
  auto back = Trainer::load_model(file, false, std::nullopt, ids);
  EXPECT_EQ(t.step(3).loss, back->step(3).loss);  // the same curriculum draws the same windows
}

TEST(TrainerTokens, ARepeatRandomFractionWritesRandomOrdinaryTokensTwice) {
  // ids: 100..599 in order, so the training text holds ids 100..599 only (a vocabulary of 1,000)
  std::vector<int32_t> ids(20000);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = int32_t(100 + i % 500);
  Task task(TaskKind::Tokens, 1000, 64, "", &ids);
  const auto next = [](int32_t t) { return t == 599 ? 100 : t + 1; };
  struct Count { int text = 0, random = 0; };
  auto count = [&](double text, double random, bool validation) {
    task.set_repeat_fraction(text);
    task.set_repeat_random_fraction(random);
    Rng rng(11);
    const Batch b = task.sample(rng, 400, validation);
    Count c;
    for (int64_t r = 0; r < b.batch; ++r) {
      const int32_t* t = b.tokens.data() + r * b.n;  // (N) this row
      std::vector<int64_t> breaks;
      for (int64_t i = 1; i < b.n; ++i)
        if (t[i] != next(t[i - 1])) breaks.push_back(i);
      if (breaks.empty()) continue;
      for (int64_t i = 0; i < b.n; ++i) EXPECT_TRUE(t[i] >= 100 && t[i] < 600) << "row " << r << ": id " << t[i] << " is not in the text";
      // a random stretch breaks the run at almost every token; a repeated text stretch at its two ends
      if (breaks.size() > 8) {
        ++c.random;
        // its tokens occur twice: the window's second half repeats a stretch of its first
        int64_t twice = 0;
        for (int64_t i = 0; i < b.n; ++i)
          if (std::find(t, t + i, t[i]) != t + i) ++twice;
        EXPECT_GE(twice, b.n / 8 - 2) << "row " << r;
      } else {
        ++c.text;
      }
    }
    return c;
  };
  Count none = count(0, 0, false);
  EXPECT_EQ(none.text + none.random, 0);
  Count random = count(0, 0.25, false);
  EXPECT_GT(random.random, 60);  // about 100 of 400
  EXPECT_LT(random.random, 140);
  EXPECT_LE(random.text, 2);     // a random stretch of few breaks is rare
  Count both = count(0.25, 0.25, false);
  EXPECT_GT(both.text, 60);
  EXPECT_GT(both.random, 60);
  Count held = count(0.5, 0.5, true);
  EXPECT_EQ(held.text + held.random, 0);  // held-out windows are never changed

  // the spec: the two fractions share the windows; named in the error; travels in the model file
  TrainerSpec s = tokens_spec(cycle(3000, 9), 12);
  s.repeat_fraction = 0.6;
  s.repeat_random_fraction = 0.6;
  try {
    Trainer t(s);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "repeatRandomFraction");
    EXPECT_NE(e.message().find("at most 1"), std::string::npos) << e.message();
  }
  s.repeat_fraction.reset();
  s.repeat_random_fraction = 0.5;
  Trainer t(s);
  t.step(4);
  const std::vector<uint8_t> file = t.export_model();
  const std::string header(file.begin(), file.begin() + std::min<std::size_t>(file.size(), 4096));
  EXPECT_NE(header.find("\"repeatRandomFraction\":\"0.5\""), std::string::npos);
  auto back = Trainer::load_model(file, false, std::nullopt, cycle(3000, 9));
  EXPECT_EQ(t.step(3).loss, back->step(3).loss);
  s.task = "copy";
  s.tokens.reset();
  EXPECT_EQ(error_kind([&] { Trainer c(s); }), Error::Kind::Range);
}
