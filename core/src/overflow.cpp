// overflow.cpp — see overflow.hpp.
#include "attn/overflow.hpp"

#include <algorithm>
#include <limits>

#include "attn/errors.hpp"

namespace attn {

double max_magnitude(const float* data, std::size_t count) {
  double m = 0;
  for (std::size_t i = 0; i < count; ++i) m = std::max(m, double(std::fabs(data[i])));
  return m;
}

void refuse_overflow(const std::string& what, const std::string& detail, const std::vector<Values>& results,
                     const std::vector<Values>& inputs, const std::string& advice, float limit) {
  bool within = true;
  for (const Values& r : results) {
    // |v| <= bound is false for NaN and, with the bound at most FLT_MAX, for Infinity too: one comparison
    // covers Infinity, NaN and the limit (the default limit, INFINITY, would let Infinity through)
    const float bound = std::min(limit, std::numeric_limits<float>::max());
    for (std::size_t i = 0; i < r.count; ++i) within = within && std::fabs(r.data[i]) <= bound;
  }
  if (within) return;
  std::string list, largest, field;
  double worst = -1;
  for (const Values& in : inputs) {
    const double m = in.known_max >= 0 ? in.known_max : max_magnitude(in.data, in.count);
    list += (list.empty() ? "" : ", ") + in.name + " up to " + fmt(m);
    if (m > worst) {
      worst = m;
      largest = in.name;
      field = in.field;
    }
  }
  const std::string magnitudes = (inputs.size() <= 12 ? "magnitudes " + list + "; " : std::string()) +
                                 "the largest is |" + largest + "| = " + fmt(worst);
  throw_range(field, what + " overflowed float32 (" + detail + ") although every input is finite: " + magnitudes +
                         (advice.empty() ? "" : "; " + advice));
}

}  // namespace attn
