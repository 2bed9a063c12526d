// errors.hpp — the one exception type of the core.
//
// Every check in the core throws attn::Error. Its kind tells the JS binding which JS error class to
// raise (docs/api.md, "Errors"): Kind::Type -> TypeError (wrong type, missing field),
// Kind::Range -> RangeError (a bad number), Kind::State -> Error (e.g. a call on a disposed session).
// Its field is the JS field the error is about, as a path ("seqLen", "weights.wq", "model.nHeads",
// "rope.base"); the binding copies it to `error.field`. The rule: the first field the message names.
// Errors not about one field (a work cap over several fields, a disposed object) have an empty field.
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

class Error : public std::runtime_error {
 public:
  enum class Kind { Type, Range, State };
  Error(Kind kind, const std::string& message, std::string field = {})
      : std::runtime_error(message), kind_(kind), message_(message), field_(std::move(field)) {}
  Kind kind() const noexcept { return kind_; }
  // The whole message (what() stops at an embedded NUL, a quoted value may hold one).
  const std::string& message() const noexcept { return message_; }
  const std::string& field() const noexcept { return field_; }
  // The same error inside a nested object: nested("model") turns field "nHeads" into "model.nHeads".
  // An error without a field stays without one.
  Error nested(const std::string& prefix) const {
    return Error(kind_, message_, field_.empty() ? field_ : prefix + "." + field_);
  }

 private:
  Kind kind_;
  std::string message_;
  std::string field_;
};

// Without a field (the error is not about one field) ...
[[noreturn]] inline void throw_range(const std::string& m) { throw Error(Error::Kind::Range, m); }
[[noreturn]] inline void throw_type(const std::string& m) { throw Error(Error::Kind::Type, m); }
// ... and about `field` (its path, e.g. "weights.wq"); the message still names it.
[[noreturn]] inline void throw_range(const std::string& field, const std::string& m) {
  throw Error(Error::Kind::Range, m, field);
}
[[noreturn]] inline void throw_type(const std::string& field, const std::string& m) {
  throw Error(Error::Kind::Type, m, field);
}

// Formats a number the way error messages show it: integers without a decimal point, NaN as NaN.
std::string fmt(double v);

// A caller's string as messages quote it: in single quotes, at most 40 characters (then "..."),
// control characters escaped as \uXXXX (an embedded NUL shows as \u0000), so that a message
// never carries raw control bytes or a cut UTF-8 sequence.
std::string quoted(const std::string& v);

}  // namespace attn
