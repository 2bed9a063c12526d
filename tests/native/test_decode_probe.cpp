// The decode probe (decode_probe.hpp): its step computes what a Session's append computes (same
// weights, same cache: the same bits), its recompute writes the keys and values project_grouped /
// the absorbed MLA projection would (RoPE at the right positions, across chunks), its byte counts
// are the accounting's, and bad arguments are refused naming the field.
#include <gtest/gtest.h>

#include "attn/accounting.hpp"
#include "attn/decode_probe.hpp"
#include "attn/errors.hpp"
#include "attn/kv_cache.hpp"
#include "helpers.hpp"
#include "reference.hpp"

using namespace attn;
using testing_helpers::random_matrix;

namespace {

Shape session_shape(const char* variant, int64_t d, int64_t h, int64_t g, int64_t dh, int64_t r, int64_t dr,
                    bool rope, int64_t max_len) {
  RawSpec raw;
  raw.variant = std::string(variant);
  raw.d_model = double(d);
  raw.n_heads = double(h);
  if (g) raw.n_kv_heads = double(g);
  if (dh) raw.d_head = double(dh);
  if (r) raw.latent_rank = double(r);
  if (dr) raw.rope_dim = double(dr);
  raw.rope.enabled = rope;
  raw.max_len = double(max_len);
  raw.causal = true;
  return resolve(raw, Need::Session);
}

const Shape kShapes[] = {
    session_shape("gqa", 64, 8, 2, 0, 0, 0, true, 600),
    session_shape("mha", 48, 4, 0, 0, 0, 0, false, 320),
    session_shape("mqa", 32, 4, 0, 0, 0, 0, true, 320),
    session_shape("mla", 48, 4, 0, 8, 12, 4, false, 600),
};

}  // namespace

TEST(DecodeProbe, StepEqualsSessionAppend) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(variant_name(s.variant));
    const Weights w = init_weights(s, 5);
    Session session(s, w);
    DecodeProbe probe(s, w);
    const int64_t context = 137, width = session.row_width();
    std::vector<Matrix> cache;
    for (int64_t t = 0; t < session.cache_tensors(); ++t) cache.push_back(random_matrix(context, width, 40 + t));
    session.set_cache(cache);
    probe.set_cache_rows(cache);
    const Matrix x = random_matrix(1, s.d, 9);
    const Matrix want = session.append(x).output;
    const Matrix got = probe.step_output(x, context);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.data()[i], want.data()[i]) << "element " << i;
  }
}

TEST(DecodeProbe, RecomputedRowsAreTheProjectionsOfTheirInputsAtTheirPositions) {
  // Against the naive twins (reference.hpp): row i of the cache, recomputed from input row
  // i % kRecomputeRows at position i, is k = rope(x wk), v = x wv (MLA: [c | kr] = x [W_dkv | rope(x W_kr)]),
  // in both chunks (the second one partial), after calls of any budget.
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(variant_name(s.variant));
    const Weights w = init_weights(s, 6);
    DecodeProbe probe(s, w);
    const int64_t context = kRecomputeRows + 45;
    ASSERT_LT(context, s.max_len);
    RecomputeProgress p;
    for (int calls = 0; !p.done; ++calls) {
      p = probe.uncached_step(double(context), calls == 0 ? 1e-3 : 1000.0);  // the first call: one chunk
      if (calls == 0) EXPECT_EQ(p.rows, kRecomputeRows) << "a tiny budget recomputes one chunk";
      ASSERT_LT(calls, 100) << "the recompute does not finish";
    }
    EXPECT_EQ(p.rows, context);
    EXPECT_EQ(p.context, context);
    EXPECT_GT(p.ms, 0.0);
    const ref::Vec x = ref::to_vec(probe.recompute_inputs());  // (kRecomputeRows, D)
    const bool mla = s.variant == Variant::MLA;
    const int64_t width = mla ? s.r + s.dr : s.g * s.dh;
    // Reference rows for all kRecomputeRows inputs, then the rotation per position.
    const ref::Vec first = ref::matmul(x, ref::to_vec(mla ? w.w_dkv : w.wk), kRecomputeRows, s.d, mla ? s.r : width);
    const ref::Vec second = ref::matmul(x, ref::to_vec(mla ? w.w_kr : w.wv), kRecomputeRows, s.d, mla ? s.dr : width);
    for (const int64_t i : {int64_t(0), int64_t(5), kRecomputeRows - 1, kRecomputeRows, context - 1}) {
      const int64_t in = i % kRecomputeRows;
      ref::Vec k(static_cast<std::size_t>(width)), v(mla ? 0 : static_cast<std::size_t>(width));
      if (mla) {
        for (int64_t j = 0; j < s.r; ++j) k[std::size_t(j)] = first[std::size_t(in * s.r + j)];
        for (int64_t j = 0; j < s.dr; ++j) k[std::size_t(s.r + j)] = second[std::size_t(in * s.dr + j)];
        if (s.dr > 0) ref::rope(k, 1, width, s.r, s.dr, i, s.rope_base);
      } else {
        for (int64_t j = 0; j < width; ++j) {
          k[std::size_t(j)] = first[std::size_t(in * width + j)];
          v[std::size_t(j)] = second[std::size_t(in * width + j)];
        }
        if (s.rope) for (int64_t g = 0; g < s.g; ++g) ref::rope(k, 1, width, g * s.dh, s.dh, i, s.rope_base);
      }
      for (int64_t j = 0; j < width; ++j) {
        ASSERT_NEAR(probe.cache_row(i, 0)[j], k[std::size_t(j)], 1e-4) << "row " << i << ", k col " << j;
        if (!mla) ASSERT_NEAR(probe.cache_row(i, 1)[j], v[std::size_t(j)], 1e-4) << "row " << i << ", v col " << j;
      }
    }
  }
}

TEST(DecodeProbe, BytesAreTheAccountingsAndTimesArePositive) {
  const Shape& s = kShapes[0];
  DecodeProbe probe(s);
  const int64_t d = s.d, hd = s.h * s.dh, kv = s.g * s.dh;
  EXPECT_EQ(probe.weight_bytes(), 4.0 * double(d * hd + 2 * d * kv + hd * d));
  EXPECT_EQ(probe.cache_bytes(500), 4.0 * 500 * kv_cache_floats_per_token(s));
  EXPECT_EQ(probe.recompute_flops(500), 2.0 * 500 * d * 2 * kv);
  const DecodeStepTiming t = probe.cached_step(500, 5.0);
  EXPECT_GE(t.steps, 1);
  EXPECT_GT(t.ms_per_token, 0.0);
  EXPECT_GT(DecodeProbe::copy_bandwidth(5.0), 1e8);  // any machine copies faster than 100 MB/s
}

TEST(DecodeProbe, BadArgumentsAreRefusedNamingTheField) {
  const Shape& s = kShapes[1];
  DecodeProbe probe(s);
  const auto field_of = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.field();
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(field_of([&] { probe.cached_step(double(s.max_len), 1); }), "context");
  EXPECT_EQ(field_of([&] { probe.cached_step(-1, 1); }), "context");
  EXPECT_EQ(field_of([&] { probe.cached_step(2.5, 1); }), "context");
  EXPECT_EQ(field_of([&] { probe.uncached_step(1, 0); }), "budgetMs");
  EXPECT_EQ(field_of([&] { probe.cached_step(1, 1e9); }), "budgetMs");
  EXPECT_EQ(field_of([&] { DecodeProbe::copy_bandwidth(-1); }), "budgetMs");
  // and the probe still works
  EXPECT_GE(probe.cached_step(3, 1).steps, 1);
}
