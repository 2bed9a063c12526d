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
      {2, 50, 4, 4, 9, 9, 0, false},       {1, 1, 1, 1, 4, 4, 0, true},      {1, 50, 8, 2, 16, 16, 49, true},
      {3, 20, 4, 1, 7, 5, 17, true},       {7, 7, 2, 2, 8, 8, 0, false},
      // more blocked shapes
      {8, 8, 4, 2, 6, 6, 0, true},         {33, 33, 6, 3, 10, 10, 0, true},  {40, 45, 4, 4, 13, 9, 5, true},
      {64, 64, 2, 1, 32, 32, 0, false},    {70, 100, 4, 2, 17, 12, 30, true}, {9, 200, 3, 3, 5, 3, 0, false},
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

TEST(Attend, GroupedDecodePathMatchesNaiveForEveryGroupSize) {
  // One or a few queries (the direct path): each K/V head's keys are read once for all the query
  // heads it serves (pairs of heads per pass, tiles of keys). Group sizes 1..8 and MQA, widths that
  // are not multiples of the vector width, key counts across several tiles, weights on and off.
  struct Case { int64_t nq, nk, h, g, dqk, dv, off; };
  const Case cases[] = {
      {1, 1, 1, 1, 4, 4, 0},      {1, 97, 8, 8, 16, 16, 96},  {1, 200, 8, 4, 13, 11, 199}, {1, 70, 6, 2, 8, 8, 69},
      {1, 64, 5, 1, 33, 32, 63},  {1, 130, 16, 2, 64, 64, 129}, {2, 40, 9, 3, 7, 5, 38},    {7, 300, 32, 1, 36, 32, 293},
      {1, 33, 8, 1, 130, 128, 32}, {4, 50, 4, 4, 3, 2, 46},
      // groups of 6 and 13 query heads: blocks of 4 heads sharing each V vector, then the rest; value
      // widths with columns left over after the blocked chunks
      {1, 45, 12, 2, 20, 22, 44}, {3, 90, 13, 1, 40, 37, 87},
  };
  int seed = 900;
  for (const Case& c : cases) {
    const int64_t ldq = c.h * c.dqk + 1, ldk = c.g * c.dqk + 3, ldv = c.g * c.dv + 2;  // padded rows
    const Matrix q = random_matrix(c.nq, ldq, ++seed), k = random_matrix(c.nk, ldk, ++seed),
                 v = random_matrix(c.nk, ldv, ++seed);
    std::vector<float> out(static_cast<std::size_t>(c.nq * c.h * c.dv)), probs(static_cast<std::size_t>(c.h * c.nq * c.nk), 9.0f);
    AttendArgs a;
    a.n_q = c.nq; a.n_k = c.nk; a.n_heads = c.h; a.n_kv_heads = c.g; a.d_qk = c.dqk; a.d_v = c.dv;
    a.q = q.data(); a.ldq = ldq; a.k = k.data(); a.ldk = ldk; a.v = v.data(); a.ldv = ldv;
    a.scale = 0.25f; a.causal = true; a.q_offset = c.off;
    a.out = out.data(); a.ldo = c.h * c.dv; a.weights = probs.data();
    ASSERT_LT(c.nq, kDirectMaxQueries);
    attend(a);
    std::vector<double> want_out, want_probs;
    ref::attend(a, want_out, want_probs);
    EXPECT_LT(rel_error(out, want_out), 1e-5) << "nq=" << c.nq << " nk=" << c.nk << " h=" << c.h << " g=" << c.g;
    EXPECT_LT(rel_error(probs, want_probs), 1e-5) << "nq=" << c.nq << " nk=" << c.nk << " h=" << c.h << " g=" << c.g;
    std::vector<float> out2(out.size());
    a.weights = nullptr;
    a.out = out2.data();
    attend(a);
    EXPECT_EQ(out, out2) << "the scratch path (no weights) must give the same output";
  }
}

TEST(Attend, GroupedDecodePathOnTheMlaLatentLayout) {
  // Absorbed MLA decoding: one shared K/V "head" whose keys are the cache rows [c | kr] (r + dr
  // floats) and whose values are the first r floats of the same rows; all H query heads in one group.
  const int64_t r = 24, dr = 6, h = 10, nk = 77;
  const Matrix q = random_matrix(1, h * (r + dr), 31), ckr = random_matrix(nk, r + dr, 32);
  std::vector<float> out(static_cast<std::size_t>(h * r)), probs(static_cast<std::size_t>(h * nk));
  AttendArgs a;
  a.n_q = 1; a.n_k = nk; a.n_heads = h; a.n_kv_heads = 1; a.d_qk = r + dr; a.d_v = r;
  a.q = q.data(); a.ldq = h * (r + dr); a.k = ckr.data(); a.ldk = r + dr; a.v = ckr.data(); a.ldv = r + dr;
  a.scale = 0.2f; a.causal = true; a.q_offset = nk - 1;
  a.out = out.data(); a.ldo = h * r; a.weights = probs.data();
  attend(a);
  std::vector<double> want_out, want_probs;
  ref::attend(a, want_out, want_probs);
  EXPECT_LT(rel_error(out, want_out), 1e-5);
  EXPECT_LT(rel_error(probs, want_probs), 1e-5);
}
