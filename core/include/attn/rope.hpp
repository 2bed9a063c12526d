// rope.hpp — rotary position embedding.
//
// Rotate-half convention (GPT-NeoX, Hugging Face Llama), the default: for a vector x of even width w
// at position p, for i < w/2, with theta_i = p * inv_freq[i]:
//   x'[i]       = a * (x[i] cos(theta_i) - x[i + w/2] sin(theta_i))
//   x'[i + w/2] = a * (x[i + w/2] cos(theta_i) + x[i] sin(theta_i))
// Adjacent pairs (DeepSeek's checkpoints, as complex numbers): the same with the pair (2i, 2i + 1).
// inv_freq[i] = base^(-2i/w) unless scaled (Llama 3, YaRN, linear: rope_frequencies below); the
// attention factor a is 1 unless YaRN sets it. Angles are computed in double precision, then rounded
// to float.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// What a RoPE turns by: one inverse frequency per pair, the factor on cos and sin, the pairing.
struct RopeFrequencies {
  std::vector<double> inv_freq;    // (w/2)
  double attention_factor = 1.0;   // a (YaRN's mscale ratio); 1 otherwise
  bool adjacent_pairs = false;     // pairs (2i, 2i+1) instead of (i, i + w/2)
  double base = 10000.0;           // theta, the base of the unscaled frequencies
  std::string type = "default";    // how inv_freq was made: "default", "linear", "llama3", "yarn"
};

// The default frequencies: inv_freq[i] = base^(-2i/w).
RopeFrequencies rope_frequencies(int64_t w, double base);
// Linear scaling (Hugging Face rope_type 'linear'): inv_freq / factor.
RopeFrequencies rope_frequencies_linear(int64_t w, double base, double factor);
// Llama 3 (rope_type 'llama3', transformers modeling_rope_utils): wavelengths 2 pi / inv_freq below
// old / high_freq_factor are kept, those above old / low_freq_factor divided by factor, those between
// blended; old = original_max_position_embeddings.
RopeFrequencies rope_frequencies_llama3(int64_t w, double base, double factor, double low_freq_factor,
                                        double high_freq_factor, double original_max_positions);
// YaRN (rope_type 'yarn'): a ramp between interpolated (inv_freq / factor) and extrapolated
// frequencies over the correction range of beta_fast and beta_slow rotations; attention_factor as given.
RopeFrequencies rope_frequencies_yarn(int64_t w, double base, double factor, double original_max_positions,
                                      double beta_fast, double beta_slow, bool truncate, double attention_factor);
// YaRN's m(s, k) = 1 if s <= 1 else 0.1 k ln s + 1 (its attention factors are ratios of these).
double yarn_mscale(double scale, double k);

// Rotates, in place, n_segments segments of width w in each of `rows` rows of a row-major matrix:
// segment s of row i starts at m[i*ld + col0 + s*segment_stride] and sits at position pos0 + i.
void apply_rope(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments,
                int64_t segment_stride, int64_t w, int64_t pos0, const RopeFrequencies& f);
// The same with the default frequencies of `base`.
void apply_rope(float* m, int64_t rows, int64_t ld, int64_t col0, int64_t n_segments,
                int64_t segment_stride, int64_t w, int64_t pos0, double base);

// apply_rope over `batch` sequences of n rows each: row i of every sequence sits at position pos0 + i.
void apply_rope_batched(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t n_segments,
                        int64_t segment_stride, int64_t w, int64_t pos0, double base);

// The transpose of apply_rope_batched at pos0 = 0 (its backward): a rotation's transpose is the
// rotation by -theta, i.e. position -i for row i.
void apply_rope_transpose_batched(float* m, int64_t batch, int64_t n, int64_t ld, int64_t col0, int64_t n_segments,
                                  int64_t segment_stride, int64_t w, double base);

}  // namespace attn
