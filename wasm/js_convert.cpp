// js_convert.cpp — see js_convert.hpp.
#include "js_convert.hpp"

#include <emscripten/bind.h>
#include <emscripten/stack.h>

#include <utility>

#include "attn/accounting.hpp"

namespace attn_js {

// The spec's own fields (attn::spec_number_fields, spec_flag_fields), plus the call's arrays.
const std::set<std::string> kSpecFields = [] {
  std::set<std::string> names = {"variant", "rope", "x", "weights"};
  for (const auto& f : attn::spec_number_fields()) names.insert(f.name);
  for (const auto& f : attn::spec_flag_fields()) names.insert(f.name);
  return names;
}();

val js_error(attn::Error::Kind kind, const std::string& message, const std::string& field) {
  // A plain object, not an Error: attention-api.mjs makes the one Error the caller sees (an Error
  // made here would capture a stack of wasm frames, which costs more than the refusal itself).
  val error = val::object();
  error.set("$attnError", kind == attn::Error::Kind::Type ? "TypeError" : kind == attn::Error::Kind::Range ? "RangeError" : "Error");
  error.set("message", message);
  if (!field.empty()) error.set("field", field);
  return error;
}

namespace {
std::string path(const std::string& prefix, const char* name) {
  return prefix.empty() ? std::string(name) : prefix + "." + name;
}
}  // namespace

std::string describe(const val& v) {
  const std::string t = v.typeOf().as<std::string>();
  if (v.isNull()) return "null";
  if (t == "string") return "string (" + attn::quoted(v.as<std::string>()) + ")";
  if (t == "number") return "number (" + attn::fmt(v.as<double>()) + ")";
  if (t == "boolean") return std::string("boolean (") + (v.as<bool>() ? "true" : "false") + ")";
  if (t == "object" && val::global("Array").call<bool>("isArray", v)) return "an Array";
  if (t == "object") {
    const val ctor = v["constructor"];
    if (!ctor.isUndefined() && !ctor.isNull() && ctor["name"].isString()) return "a " + ctor["name"].as<std::string>();
  }
  return t;
}

bool is_plain_object(const val& v) {
  return !v.isNull() && v.typeOf().as<std::string>() == "object" && !val::global("Array").call<bool>("isArray", v) &&
         !val::global("ArrayBuffer").call<bool>("isView", v);
}

// Refuses fields the call does not know (a typo such as nKVHeads must not be silently ignored).
void check_keys(const val& obj, const char* what, const std::set<std::string>& known, const std::string& prefix) {
  const auto keys = emscripten::vecFromJSArray<std::string>(val::global("Object").call<val>("keys", obj));
  for (const auto& k : keys) {
    if (!known.count(k)) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      attn::throw_type(path(prefix, k.c_str()), std::string(what) + " has an unknown field '" + k + "'; known fields: " + list);
    }
  }
}

std::optional<double> number_field(const val& obj, const char* name, const std::string& prefix) {
  const val v = obj[name];
  if (v.isUndefined()) return std::nullopt;
  if (!v.isNumber()) attn::throw_type(path(prefix, name), path(prefix, name) + " must be a number, got " + describe(v));
  return v.as<double>();
}

std::optional<bool> bool_field(const val& obj, const char* name, const std::string& prefix) {
  const val v = obj[name];
  if (v.isUndefined()) return std::nullopt;
  if (v.typeOf().as<std::string>() != "boolean") {
    attn::throw_type(path(prefix, name), path(prefix, name) + " must be a boolean, got " + describe(v));
  }
  return v.as<bool>();
}

void require_object(const val& v, const char* what, const std::string& field) {
  if (!is_plain_object(v)) attn::throw_type(field, std::string(what) + " must be an object, got " + describe(v));
}


attn::RawSpec read_spec(const val& spec, const char* what, const std::set<std::string>& extra) {
  require_object(spec, what);
  if (extra.empty()) {
    check_keys(spec, what, kSpecFields);
  } else {
    std::set<std::string> known = kSpecFields;
    known.insert(extra.begin(), extra.end());
    check_keys(spec, what, known);
  }
  attn::RawSpec r;
  r.has_weights = !spec["weights"].isUndefined();
  const val variant = spec["variant"];
  if (!variant.isUndefined()) {
    if (!variant.isString()) attn::throw_type("variant", "variant must be a string ('mha', 'mqa', 'gqa' or 'mla'), got " + describe(variant));
    r.variant = variant.as<std::string>();
  }
  for (const auto& f : attn::spec_number_fields()) r.*f.member = number_field(spec, f.name);
  for (const auto& f : attn::spec_flag_fields()) r.*f.member = bool_field(spec, f.name);
  const val rope = spec["rope"];
  if (rope.isUndefined() || (rope.typeOf().as<std::string>() == "boolean" && !rope.as<bool>())) {
    r.rope.enabled = false;
  } else if (rope.typeOf().as<std::string>() == "boolean") {
    r.rope.enabled = true;
  } else if (is_plain_object(rope)) {
    check_keys(rope, "rope", {"base"}, "rope");
    r.rope.enabled = true;
    r.rope.base = number_field(rope, "base", "rope");
  } else {
    attn::throw_type("rope", "rope must be false, true or { base }, got " + describe(rope));
  }
  return r;
}

// A numeric array (Float32Array, another typed array or an Array of numbers) -> float32 values.
std::size_t check_floats(const val& v, const std::string& field, std::optional<double> expected,
                         const std::string& formula, std::optional<double> at_most) {
  if (v.isUndefined()) attn::throw_type(field, field + " is required");
  const bool view = val::global("ArrayBuffer").call<bool>("isView", v);
  if (!(view && !v.instanceof(val::global("DataView")) && !v.instanceof(val::global("BigInt64Array")) &&
        !v.instanceof(val::global("BigUint64Array"))) &&
      !val::global("Array").call<bool>("isArray", v)) {
    attn::throw_type(field, field + " must be a Float32Array, got " + describe(v));
  }
  const double n = v["length"].as<double>();
  if (expected && n != *expected) {
    attn::throw_range(field, field + " has " + attn::fmt(n) + " elements, expected " +
                                 (formula.empty() ? "" : formula + " = ") + attn::fmt(*expected));
  }
  if (at_most && n > *at_most) {
    attn::throw_range(field, field + " has " + attn::fmt(n) + " elements, more than " +
                                 (formula.empty() ? "" : formula + " = ") + attn::fmt(*at_most));
  }
  if (n > attn::kMaxWorkBytes / 4) {
    attn::throw_range(field, field + " has " + attn::fmt(n) + " elements, above the size cap");
  }
  return static_cast<std::size_t>(n);
}

void copy_floats(const val& v, float* dst, std::size_t n) {
  val(emscripten::typed_memory_view(n, dst)).call<void>("set", v);  // one bulk copy
}

std::vector<float> read_floats(const val& v, const std::string& field, std::optional<double> expected,
                               const std::string& formula, std::optional<double> at_most) {
  std::vector<float> out(check_floats(v, field, expected, formula, at_most));
  copy_floats(v, out.data(), out.size());
  return out;
}

std::optional<std::string> string_field(const val& obj, const char* name, const std::string& prefix) {
  const val v = obj[name];
  if (v.isUndefined()) return std::nullopt;
  if (!v.isString()) attn::throw_type(path(prefix, name), path(prefix, name) + " must be a string, got " + describe(v));
  return v.as<std::string>();
}

val to_val(const std::vector<std::string>& v) {
  val a = val::array();
  for (const auto& s : v) a.call<void>("push", s);
  return a;
}

val to_js(const float* p, std::size_t n) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(n, p));  // a copy JS owns
}

val stages_to_js(const std::vector<attn::Stage>& stages) {
  val out = val::object();
  for (const attn::Stage& st : stages) {
    val t = val::object();
    std::vector<double> dims(st.shape.begin(), st.shape.end());
    t.set("shape", val::array(dims));
    t.set("data", to_js(st.data.data(), st.data.size()));
    out.set(st.name, t);
  }
  return out;
}

val shape_to_js(const attn::Shape& s) {
  val o = val::object();
  o.set("variant", std::string(attn::variant_name(s.variant)));
  o.set("dModel", double(s.d));
  o.set("nHeads", double(s.h));
  o.set("nKvHeads", double(s.g));
  o.set("dHead", double(s.dh));
  o.set("latentRank", double(s.r));
  o.set("ropeDim", double(s.dr));
  std::vector<double> kv_head_of(std::size_t(s.h));
  for (int64_t h = 0; h < s.h; ++h) kv_head_of[std::size_t(h)] = double(s.kv_head_of(h));
  o.set("kvHeadOf", val::array(kv_head_of));
  o.set("cacheFloatsPerToken", attn::kv_cache_floats_per_token(s));
  return o;
}

val cost_to_js(const attn::Cost& c) {
  const attn::Work w = c.total();
  val o = val::object();
  o.set("seconds", c.seconds());
  for (const auto& [name, v] : std::vector<std::pair<const char*, double>>{
           {"gemm", w.gemm}, {"attend", w.attend}, {"scores", w.scores}, {"loops", w.loops},
           {"elementwise", w.elementwise}, {"bytes", w.bytes}, {"checksum", w.checksum}, {"seeded", w.seeded}}) {
    o.set(name, v);
  }
  return o;
}

val roles_to_js(const std::vector<attn::HeadRoles>& roles) {
  val a = val::array();
  for (const auto& r : roles) {
    val o = val::object();
    o.set("layer", double(r.layer));
    o.set("head", double(r.head));
    o.set("previousToken", r.previous_token);
    o.set("diagonal", r.diagonal);
    o.set("firstToken", r.first_token);
    o.set("duplicateToken", r.duplicate_token ? val(*r.duplicate_token) : val::null());
    o.set("induction", r.induction ? val(*r.induction) : val::null());
    a.call<void>("push", o);
  }
  return a;
}

}  // namespace attn_js

// Internal, for tests (tests/node/wear.test.mjs): bytes of the wasm stack in use, read inside a call,
// so it is the same on every call while nothing leaks. Not part of the API.
EMSCRIPTEN_BINDINGS(attn_internal) {
  emscripten::function("_stackBytesUsed", emscripten::optional_override([] {
                         return double(emscripten_stack_get_base() - emscripten_stack_get_current());
                       }));
}
