// fields.cpp — see fields.hpp.
#include "attn/fields.hpp"

#include <cmath>
#include <string>

#include "attn/errors.hpp"

namespace attn {

int64_t integer_field(const char* name, const std::optional<double>& v, double lo, double hi,
                      std::optional<int64_t> fallback) {
  if (!v) {
    if (fallback) return *fallback;
    throw_type(name, std::string(name) + " is required");
  }
  const double x = *v;
  if (!std::isfinite(x) || x != std::floor(x) || x < lo || x > hi) {
    throw_range(name, std::string(name) + " (" + fmt(x) + ") must be an integer between " + fmt(lo) + " and " + fmt(hi));
  }
  return static_cast<int64_t>(x);
}

double number_field(const char* name, const std::optional<double>& v, double lo, double hi,
                    std::optional<double> fallback, bool lo_open) {
  if (!v) {
    if (fallback) return *fallback;
    throw_type(name, std::string(name) + " is required");
  }
  const double x = *v;
  if (!std::isfinite(x) || (lo_open ? x <= lo : x < lo) || x > hi) {
    throw_range(name, std::string(name) + " (" + fmt(x) + ") must be a number " +
                          (lo_open ? "greater than " + fmt(lo) + " and at most " : "between " + fmt(lo) + " and ") + fmt(hi));
  }
  return x;
}

}  // namespace attn
