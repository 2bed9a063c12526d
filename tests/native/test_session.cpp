// Sessions: appending token by token or in chunks equals the causal forward, for every variant;
// cache bytes equal hand-computed figures; reset, truncate and maxLen behave.
#include <gtest/gtest.h>

#include <iterator>

#include <xtensor/xview.hpp>

#include "attn/errors.hpp"
#include "attn/kv_cache.hpp"
#include "helpers.hpp"

using namespace attn;
using testing_helpers::Geometry;
using testing_helpers::random_matrix;
using testing_helpers::raw_spec;
using testing_helpers::rel_error;

namespace {
const Geometry kSessionGeometries[] = {
    {"mha", 23, 24, 4, 0, 0, 0, 0, false, true}, {"mqa", 23, 16, 4, 0, 6, 0, 0, true, true},
    {"gqa", 23, 32, 8, 2, 0, 0, 0, true, true},  {"gqa", 23, 30, 6, 3, 6, 0, 0, false, true},
    {"mla", 23, 24, 3, 0, 8, 10, 4, false, true}, {"mla", 23, 16, 4, 0, 4, 6, 0, false, true},
};

Matrix rows(const Matrix& x, int64_t from, int64_t to) { return xt::view(x, xt::range(from, to), xt::all()); }
}  // namespace

TEST(Session, TokenByTokenAndChunksEqualCausalForward) {
  for (const auto& g : kSessionGeometries) {
    SCOPED_TRACE(g.variant);
    RawSpec raw = raw_spec(g);
    raw.return_weights = true;
    const Shape s = resolve(raw, Need::Forward);
    const Weights w = init_weights(s, 21);
    const Matrix x = random_matrix(s.n, s.d, 22);
    const ForwardResult full = forward(s, w, x);  // causal over all N
    const auto& probs = *full.weights;            // (H, N, N)

    for (const std::vector<int64_t>& chunks : {std::vector<int64_t>(23, 1), std::vector<int64_t>{3, 1, 5, 9, 2, 3},
                                               std::vector<int64_t>{23}, std::vector<int64_t>{10, 13}}) {
      Shape ss = s;
      ss.max_len = s.n;
      Session session(ss, w);
      int64_t at = 0;
      for (int64_t k : chunks) {
        const ForwardResult step = session.append(rows(x, at, at + k));
        const Matrix want = rows(full.output, at, at + k);
        ASSERT_LT(rel_error(step.output, want), 1e-5) << "chunk at " << at;
        // weights (H, k, length) equal rows at..at+k of the forward's, cut at the cache length
        const auto& sw = *step.weights;
        ASSERT_EQ(int64_t(sw.shape(2)), at + k);
        for (int64_t h = 0; h < s.h; ++h)
          for (int64_t i = 0; i < k; ++i)
            for (int64_t j = 0; j < at + k; ++j)
              ASSERT_NEAR(sw(h, i, j), probs(h, at + i, j), 1e-5);
        at += k;
      }
      EXPECT_EQ(session.length(), s.n);
    }
  }
}

TEST(Session, CacheBytesAfterFiveTokens) {
  // float32 (4 bytes) cache after 5 tokens, worked out by hand from kSessionGeometries:
  //   MHA/MQA/GQA store K and V: 2 * G * dh floats a token; MLA stores [c | kr]: r + dr floats.
  //   mha d 24, H 4 (G = H = 4), dh = 24 / 4 = 6:  2 * 4 * 6 = 48 floats * 5 * 4 = 960
  //   mqa d 16, H 4, G 1, dh 6:                   2 * 1 * 6 = 12 floats * 5 * 4 = 240
  //   gqa d 32, H 8, G 2, dh = 32 / 8 = 4:        2 * 2 * 4 = 16 floats * 5 * 4 = 320
  //   gqa d 30, H 6, G 3, dh 6:                   2 * 3 * 6 = 36 floats * 5 * 4 = 720
  //   mla r 10, dr 4 (kept without rope):         10 + 4    = 14 floats * 5 * 4 = 280
  //   mla r 6, dr 0:                              6 + 0     =  6 floats * 5 * 4 = 120
  const double want[] = {960, 240, 320, 720, 280, 120};
  static_assert(std::size(want) == std::size(kSessionGeometries));
  for (std::size_t i = 0; i < std::size(kSessionGeometries); ++i) {
    const Geometry& g = kSessionGeometries[i];
    RawSpec raw = raw_spec(g);
    raw.seq_len.reset();
    raw.max_len = 16.0;
    const Shape s = resolve(raw, Need::Session);
    Session session(s, init_weights(s, 1));
    session.append(random_matrix(5, s.d, 2));
    EXPECT_EQ(session.cache_bytes(), want[i]) << g.variant << " #" << i;
  }
}

TEST(Session, ResetTruncateAndMaxLen) {
  RawSpec raw = raw_spec({"gqa", 0, 16, 4, 2, 0, 0, 0, true, true});
  raw.seq_len.reset();
  raw.max_len = 6.0;
  const Shape s = resolve(raw, Need::Session);
  Session session(s, init_weights(s, 3));
  const Matrix x = random_matrix(6, s.d, 4);
  const ForwardResult first = session.append(x);
  EXPECT_EQ(session.length(), 6);
  EXPECT_THROW(session.append(rows(x, 0, 1)), Error);   // full: maxLen 6
  EXPECT_EQ(session.length(), 6);                        // unchanged by the refused append
  session.truncate(2);
  const ForwardResult again = session.append(rows(x, 2, 6));
  EXPECT_EQ(again.output, rows(first.output, 2, 6));     // same numbers after rewinding
  EXPECT_THROW(session.truncate(7), Error);
  session.reset();
  EXPECT_EQ(session.length(), 0);
  EXPECT_EQ(session.cache_bytes(), 0.0);
  EXPECT_EQ(session.append(x).output, first.output);
}

TEST(Session, AppendAboveTheWorkCapIsRefused) {
  // 4 heads, maxLen 20,000, weights returned: appending all 20,000 tokens at once would need
  // 4 * 20,000^2 floats of weights (6.4 GB); one token at a time is fine.
  RawSpec raw = raw_spec({"mha", 0, 8, 4, 0, 0, 0, 0, false, true});
  raw.seq_len.reset();
  raw.max_len = 20000.0;
  raw.return_weights = true;
  const Shape s = resolve(raw, Need::Session);
  Session session(s, init_weights(s, 1));
  EXPECT_THROW(session.append(attn::zeros(20000, 8)), Error);
  EXPECT_EQ(session.length(), 0);
  EXPECT_EQ(session.append(random_matrix(1, 8, 2)).output.shape(0), 1u);
}
