// overflow.hpp — the one check that a finite input did not give a non-finite result (float32
// overflow, e.g. attention scores of x = 1e20, or a model file's weights of 1e30): forward, a
// session's append, a layer's forward, the walkthrough's stages, and every training call refuse
// such a result instead of returning it, naming the input of the largest magnitude.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace attn {

// Values an overflow check reads: a result, or an input with its name. `field` is the JS field the
// refusal names (error.field; empty for a trainer's parameters, which no spec field holds).
struct Values {
  Values(std::string name, const float* data, std::size_t count, std::string field = {}, double known_max = -1)
      : name(std::move(name)), data(data), count(count), field(std::move(field)), known_max(known_max) {}
  std::string name;
  const float* data;
  std::size_t count;
  std::string field;
  double known_max;  // the largest magnitude, when already known (a Layer's weights, read once); else -1
};

// The largest |v| (0 for none).
double max_magnitude(const float* data, std::size_t count);

// Refuses results that overflowed although every input is finite: when a value of `results` is not
// finite or above `limit`, a RangeError "<what> overflowed float32 (<detail>) although every input is
// finite: [magnitudes <each input's>; ]the largest is |<input>| = <its magnitude>; <advice>" (each
// input's magnitude when there are at most 12), whose field is the field of the input
// of the largest magnitude. Nothing is thrown when every result is within the limit.
void refuse_overflow(const std::string& what, const std::string& detail, const std::vector<Values>& results,
                     const std::vector<Values>& inputs, const std::string& advice, float limit = INFINITY);

}  // namespace attn
