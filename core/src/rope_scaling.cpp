// rope_scaling.cpp — the RoPE frequency scalings of checkpoints (see rope.hpp): linear, Llama 3,
// YaRN. A file of its own, so that a module without checkpoints (the page's first map) links none.
#include <algorithm>
#include <cmath>

#include "attn/rope.hpp"

namespace attn {

RopeFrequencies rope_frequencies_linear(int64_t w, double base, double factor) {
  RopeFrequencies f = rope_frequencies(w, base);
  for (double& inv : f.inv_freq) inv /= factor;
  return f;
}

RopeFrequencies rope_frequencies_llama3(int64_t w, double base, double factor, double low_freq_factor,
                                        double high_freq_factor, double original_max_positions) {
  RopeFrequencies f = rope_frequencies(w, base);
  const double pi = 3.14159265358979323846;
  const double low_wavelen = original_max_positions / low_freq_factor;    // longer: divided by factor
  const double high_wavelen = original_max_positions / high_freq_factor;  // shorter: kept
  for (double& inv : f.inv_freq) {
    const double wavelen = 2.0 * pi / inv;
    if (wavelen > low_wavelen) {
      inv /= factor;
    } else if (!(wavelen < high_wavelen)) {  // between: blended
      const double s = (original_max_positions / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
      inv = (1.0 - s) * inv / factor + s * inv;
    }
  }
  return f;
}

double yarn_mscale(double scale, double k) { return scale <= 1.0 ? 1.0 : 0.1 * k * std::log(scale) + 1.0; }

RopeFrequencies rope_frequencies_yarn(int64_t w, double base, double factor, double original_max_positions,
                                      double beta_fast, double beta_slow, bool truncate, double attention_factor) {
  RopeFrequencies f = rope_frequencies(w, base);
  f.attention_factor = attention_factor;
  const double pi = 3.14159265358979323846;
  // the dimension whose wavelength makes `rotations` turns over the original context
  auto correction_dim = [&](double rotations) {
    return double(w) * std::log(original_max_positions / (rotations * 2.0 * pi)) / (2.0 * std::log(base));
  };
  double low = correction_dim(beta_fast), high = correction_dim(beta_slow);
  if (truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, double(w - 1));
  if (low == high) high += 0.001;
  for (std::size_t i = 0; i < f.inv_freq.size(); ++i) {
    const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);  // 1: interpolate
    f.inv_freq[i] = f.inv_freq[i] * (1.0 - ramp) + (f.inv_freq[i] / factor) * ramp;
  }
  return f;
}

}  // namespace attn
