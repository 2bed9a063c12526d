// weights.cpp — the slot table, seeded initialisation and buffer checks (see weights.hpp).
#include "attn/weights.hpp"

#include "attn/simd.hpp"

#include <cmath>

#include "attn/errors.hpp"

namespace attn {

std::vector<WeightSlot> weight_slots(const Shape& s) {
  const int64_t hdh = s.h * s.dh;
  std::vector<WeightSlot> slots;
  slots.push_back({"wq", 1, s.d, hdh, "dModel * nHeads * dHead", &Weights::wq});
  if (s.variant != Variant::MLA) {
    slots.push_back({"wk", 2, s.d, s.g * s.dh, "dModel * nKvHeads * dHead", &Weights::wk});
    slots.push_back({"wv", 3, s.d, s.g * s.dh, "dModel * nKvHeads * dHead", &Weights::wv});
  } else {
    slots.push_back({"wDkv", 5, s.d, s.r, "dModel * latentRank", &Weights::w_dkv});
    slots.push_back({"wUk", 6, s.r, hdh, "latentRank * nHeads * dHead", &Weights::w_uk});
    slots.push_back({"wUv", 7, s.r, hdh, "latentRank * nHeads * dHead", &Weights::w_uv});
    if (s.dr > 0) {
      slots.push_back({"wQr", 8, s.d, s.h * s.dr, "dModel * nHeads * ropeDim", &Weights::w_qr});
      slots.push_back({"wKr", 9, s.d, s.dr, "dModel * ropeDim", &Weights::w_kr});
    }
  }
  slots.push_back({"wo", 4, hdh, s.d, "nHeads * dHead * dModel", &Weights::wo});
  return slots;
}

namespace {
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

float uniform01(uint64_t seed, uint64_t id, uint64_t i, uint64_t j) {
  const uint64_t h = splitmix64(splitmix64(splitmix64(splitmix64(seed) ^ id) ^ i) ^ j);
  return static_cast<float>(h >> 40) * (1.0f / 16777216.0f);  // 24 bits: exact in float, [0, 1)
}

void fill_uniform(Matrix& m, uint64_t seed, int id, float bound) {
  const std::size_t rows = m.shape(0), cols = m.shape(1);
  float* p = m.data();
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      p[i * cols + j] = (2.0f * uniform01(seed, id, i, j) - 1.0f) * bound;
    }
  }
}

Weights init_weights(const Shape& s, uint64_t seed) {
  Weights w;
  for (const auto& slot : weight_slots(s)) {
    Matrix& m = w.*(slot.member);
    m = uninitialised(slot.rows, slot.cols);
    fill_uniform(m, seed, slot.id, static_cast<float>(1.0 / std::sqrt(double(slot.rows))));
  }
  return w;
}

namespace {
// What makes two shapes' seeded weights the same: the variant, the sizes and the seed.
struct SeededKey {
  Variant variant = Variant::MHA;
  int64_t d = 0, h = 0, g = 0, dh = 0, r = 0, dr = 0;
  uint64_t seed = 0;
  bool operator==(const SeededKey& o) const {
    return variant == o.variant && d == o.d && h == o.h && g == o.g && dh == o.dh && r == o.r && dr == o.dr &&
           seed == o.seed;
  }
};
}  // namespace

std::shared_ptr<const Weights> seeded_weights(const Shape& s) {
  static SeededKey kept_key;
  static std::shared_ptr<const Weights> kept;
  const SeededKey key{s.variant, s.d, s.h, s.g, s.dh, s.r, s.dr, s.seed};
  if (kept && kept_key == key) return kept;
  auto w = std::make_shared<const Weights>(init_weights(s, s.seed));
  double floats = 0;
  for (const auto& slot : weight_slots(s)) floats += double(slot.rows) * double(slot.cols);
  if (4.0 * floats <= kSeededCacheBytes) {
    kept = w;
    kept_key = key;
  }
  return w;
}

void check_buffer(const std::string& field, const float* data, int64_t count, int64_t expected,
                  const std::string& formula) {
  if (count != expected) {
    throw_range(field, field + " has " + fmt(double(count)) + " elements, expected " + formula + " = " +
                fmt(double(expected)));
  }
  // Fast path: x * 0 is 0 for a finite x and NaN for an infinite or NaN one, so a vector sum of
  // them is NaN exactly when some element is not finite (one vectorised pass; the loop below
  // finds which one only then).
  simd::vf bad = simd::splat(0.0f);
  int64_t i = 0;
  for (; i + simd::kLanes <= count; i += simd::kLanes) bad += simd::load(data + i) * simd::splat(0.0f);
  float tail = 0.0f;
  for (; i < count; ++i) tail += data[i] * 0.0f;
  if (simd::hsum(bad) + tail == 0.0f) return;
  for (int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(data[i])) {
      throw_range(field, field + "[" + fmt(double(i)) + "] is " + fmt(data[i]) + ": inputs must be finite");
    }
  }
}

}  // namespace attn
