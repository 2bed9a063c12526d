// errors.cpp — see errors.hpp.
#include "attn/errors.hpp"

#include <cmath>
#include <cstdio>

namespace attn {

std::string fmt(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  return buf;
}

std::string quoted(const std::string& v) {
  std::string out = "'";
  std::size_t chars = 0, i = 0;
  for (; i < v.size() && chars < 40; ++chars) {
    const unsigned char c = static_cast<unsigned char>(v[i]);
    // a whole UTF-8 sequence (its length from the lead byte; a stray byte counts as one)
    const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      ++i;
    } else {
      out.append(v, i, len);
      i += len;
    }
  }
  return out + (i < v.size() ? "...'" : "'");
}

}  // namespace attn
