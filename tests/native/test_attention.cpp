// The grouped attention kernel attend() (attention.hpp) against its naive twin ref::attend
// (reference.hpp, double precision): MHA, GQA and MQA, causal or not, both paths (few queries: the
// direct decode path; many: the blocked path), with and without weights, odd sizes (queries not a
// multiple of kQueryBlock, widths not multiples of the vector width, d_qk != d_v), padded rows,
// and cache offsets (q_offset > 0, as a session's append).
#include <gtest/gtest.h>

#include <cmath>

#include "attn/attention.hpp"
#include "helpers.hpp"
#include "reference.hpp"

using namespace attn;
using testing_helpers::random_matrix;
using testing_helpers::rel_error;

TEST(Attend, BothPathsMatchTheNaiveTwin) {
  struct Case { int64_t nq, nk, h, g, dqk, dv, off; bool causal; };
  const Case cases[] = {
      // MHA, GQA, MQA; causal and not (blocked path)
      {64, 64, 4, 4, 16, 16, 0, true},     {64, 64, 4, 4, 16, 16, 0, false},
      {100, 100, 8, 2, 12, 12, 0, true},   {100, 100, 8, 2, 12, 12, 0, false},
      {77, 77, 6, 1, 8, 8, 0, true},       {77, 77, 6, 1, 8, 8, 0, false},
      // odd sizes: N not a multiple of kQueryBlock, d not of 4, d_qk != d_v
      {33, 65, 3, 3, 7, 5, 32, true},      {129, 129, 4, 2, 13, 9, 0, true}, {45, 200, 2, 1, 3, 17, 0, false},
      {kDirectMaxQueries, 8, 2, 1, 5, 6, 0, true},
      // q_offset > 0 with N >= kDirectMaxQueries: a chunk of queries appended to a cache
      {kDirectMaxQueries, 300, 4, 2, 16, 16, 292, true}, {40, 170, 8, 4, 10, 10, 130, true},
      {70, 330, 4, 1, 33, 31, 260, true},  {50, 80, 2, 2, 9, 9, 30, false},
      // few queries (decode path): one token and a short chunk, against a cache
      {1, 257, 8, 2, 16, 16, 256, true},   {3, 40, 6, 3, 7, 7, 37, true},    {1, 31, 4, 1, 20, 12, 30, true},
      {2, 50, 4, 4, 9, 9, 0, false},
  };
  int seed = 4000;
  for (const Case& c : cases) {
    const int64_t ldq = c.h * c.dqk + 3, ldk = c.g * c.dqk + 2, ldv = c.g * c.dv + 1;  // padded rows
    Matrix q = random_matrix(c.nq, ldq, ++seed);
    const Matrix k = random_matrix(c.nk, ldk, ++seed), v = random_matrix(c.nk, ldv, ++seed);
    for (auto& x : q) x *= 3.0f;  // spread the scores so that the softmax is peaked
    AttendArgs a;
    a.n_q = c.nq; a.n_k = c.nk; a.n_heads = c.h; a.n_kv_heads = c.g; a.d_qk = c.dqk; a.d_v = c.dv;
    a.q = q.data(); a.ldq = ldq; a.k = k.data(); a.ldk = ldk; a.v = v.data(); a.ldv = ldv;
    a.scale = 1.0f / std::sqrt(float(c.dqk)); a.causal = c.causal; a.q_offset = c.off;
    a.ldo = c.h * c.dv + 2;
    ref::Vec want_out, want_probs;
    ref::attend(a, want_out, want_probs);
    const std::string what = "nq=" + std::to_string(c.nq) + " nk=" + std::to_string(c.nk) + " h=" + std::to_string(c.h) +
                             " g=" + std::to_string(c.g) + " off=" + std::to_string(c.off) + (c.causal ? " causal" : "");
    for (bool with_weights : {false, true}) {
      std::vector<float> out(static_cast<std::size_t>(c.nq * a.ldo), -5.0f);
      std::vector<float> probs(with_weights ? static_cast<std::size_t>(c.h * c.nq * c.nk) : 0, -5.0f);
      a.out = out.data();
      a.weights = with_weights ? probs.data() : nullptr;
      attend(a);
      std::vector<float> got, want;  // the written columns only; the padding must stay untouched
      for (int64_t i = 0; i < c.nq; ++i) {
        for (int64_t t = 0; t < a.ldo; ++t) {
          if (t < c.h * c.dv) {
            got.push_back(out[i * a.ldo + t]);
            want.push_back(float(want_out[i * a.ldo + t]));
          } else {
            ASSERT_EQ(out[i * a.ldo + t], -5.0f) << "padding written, " << what;
          }
        }
      }
      EXPECT_LT(rel_error(got, want), 2e-6) << what << (with_weights ? " (weights)" : "");
      if (with_weights) {
        std::vector<float> want_p(want_probs.begin(), want_probs.end());
        EXPECT_LT(rel_error(probs, want_p), 1e-5) << what;  // masked entries are exactly 0 in both
      }
    }
  }
}
