// errors.hpp — the one exception type of the core.
//
// Every check in the core throws attn::Error. Its kind tells the JS binding which JS error class to
// raise (spec/js-api.md, "Errors"): Kind::Type -> TypeError (wrong type, missing field),
// Kind::Range -> RangeError (a bad number), Kind::State -> Error (e.g. a call on a disposed session).
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

class Error : public std::runtime_error {
 public:
  enum class Kind { Type, Range, State };
  Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

[[noreturn]] inline void throw_range(const std::string& m) { throw Error(Error::Kind::Range, m); }
[[noreturn]] inline void throw_type(const std::string& m) { throw Error(Error::Kind::Type, m); }

// Formats a number the way error messages show it: integers without a decimal point, NaN as NaN.
std::string fmt(double v);

}  // namespace attn
