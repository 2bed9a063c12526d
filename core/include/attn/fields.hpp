// fields.hpp — the one check behind every numeric field the core reads: specs and sessions
// (spec.cpp), accounting, the configurator and training. A bad value throws attn::Error naming the
// field and the value (errors.hpp), in one format:
//   "<name> (<value>) must be an integer between <lo> and <hi>"
//   "<name> (<value>) must be a number between <lo> and <hi>"   ("greater than <lo> and at most <hi>" when open)
// An absent field takes its fallback, or throws a TypeError "<name> is required".
#pragma once

#include <cstdint>
#include <optional>

namespace attn {

int64_t integer_field(const char* name, const std::optional<double>& v, double lo, double hi,
                      std::optional<int64_t> fallback = std::nullopt);

// With lo_open, lo itself is refused (e.g. a learning rate must be > 0).
double number_field(const char* name, const std::optional<double>& v, double lo, double hi,
                    std::optional<double> fallback = std::nullopt, bool lo_open = false);

}  // namespace attn
