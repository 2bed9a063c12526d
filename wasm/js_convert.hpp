// js_convert.hpp — reading JS values into the core's types and turning core errors into JS errors:
// the pieces every Embind verb shares (bindings.cpp for attention, bindings_train.cpp for training).
// Type checks only; every value check lives in the core.
#pragma once

#include <emscripten/val.h>

#include <new>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/head_roles.hpp"
#include "attn/intermediates.hpp"
#include "attn/shape.hpp"
#include "attn/spec.hpp"

namespace attn_js {

using emscripten::val;

// ---------------------------------------------------------------------------------------------
// Errors. Every verb runs its work through guarded(): f's result comes back as a val; when f throws,
// guarded *returns* the error: its class (TypeError, RangeError or Error), message and `field` (the path of
// the field the error is about, attn::Error::field(): "seqLen", "weights.wq", "model.nHeads"), as
// a plain object { $attnError: 'TypeError' | 'RangeError' | 'Error', message, field? }, and
// attention-api.mjs throws the matching Error on the JS side.
//
// Why returned, not thrown from here: a JS exception thrown inside wasm (val::throw_()) unwinds the
// wasm frames between Embind's invoker and the throw without running their epilogues, and those
// restore the wasm stack pointer (__stack_pointer). So every refused call left the frames' bytes of
// the 5 MiB stack allocated, for good: after ~330,000 refusals every call failed ("memory access out
// of bounds"). A returned error lets every frame return normally (tests/node/wear.test.mjs makes a
// million refused calls). JS exceptions raised *inside* wasm by a caller's value (a Proxy whose
// trap throws) cannot be caught here (clang 14's catch (...) does not catch foreign exceptions):
// attention-api.mjs restores the stack pointer for those (stackSave / stackRestore).
val js_error(attn::Error::Kind kind, const std::string& message, const std::string& field);

template <class F>
val guarded(F&& f) {
  try {
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      return val::undefined();
    } else {
      return val(f());
    }
  } catch (const attn::Error& e) {
    return js_error(e.kind(), e.message(), e.field());
  } catch (const std::bad_alloc&) {
    return js_error(attn::Error::Kind::Range,
                    "out of memory: the request needs more memory than the WebAssembly heap can grow to", "");
  } catch (const std::exception& e) {
    return js_error(attn::Error::Kind::State, e.what(), "");
  }
}

// A short description of a JS value for messages: "string ('4')", "number (3)", "an Array", ...
std::string describe(const val& v);
bool is_plain_object(const val& v);
// Refuses fields the call does not know (a typo such as nKVHeads must not be silently ignored).
// `prefix` is the path of a nested object ("model", "rope", "weights"): its fields are named prefix.key.
void check_keys(const val& obj, const char* what, const std::set<std::string>& known, const std::string& prefix = "");
std::optional<double> number_field(const val& obj, const char* name, const std::string& prefix = "");
std::optional<std::string> string_field(const val& obj, const char* name, const std::string& prefix = "");
std::optional<bool> bool_field(const val& obj, const char* name, const std::string& prefix = "");
// `field`: the path the error names (empty for a whole argument, e.g. the spec itself).
void require_object(const val& v, const char* what, const std::string& field = "");

extern const std::set<std::string> kSpecFields;
// A forward / session / shape spec; `what` names it in messages ("forward spec"). `extra`: further
// fields the call reads itself (paramCount's nLayers). Sets has_weights when `weights` is given.
attn::RawSpec read_spec(const val& spec, const char* what, const std::set<std::string>& extra = {});
// A numeric array (Float32Array, another typed array or an Array of numbers) -> float32 values.
// The length is checked before anything is copied: exactly `expected` elements when given, else at
// most `at_most`, else at most kMaxWorkBytes / 4; a refused call leaves the wasm heap as it was.
std::vector<float> read_floats(const val& v, const std::string& field, std::optional<double> expected = std::nullopt,
                               const std::string& formula = "", std::optional<double> at_most = std::nullopt);
// The same checks; returns the number of elements (then copy_floats them where they belong).
std::size_t check_floats(const val& v, const std::string& field, std::optional<double> expected = std::nullopt,
                         const std::string& formula = "", std::optional<double> at_most = std::nullopt);
// Copies the n elements of a checked array to dst (one bulk copy, as float32).
void copy_floats(const val& v, float* dst, std::size_t n);
// A Float32Array copy of n floats, owned by JS.
val to_js(const float* p, std::size_t n);
// The stages of a pass (forward's intermediates, a checkpoint layer's) as { name: { shape, data } }.
val stages_to_js(const std::vector<attn::Stage>& stages);

// Core values as JS values: what the core's field visitors (accounting.hpp, configurator.hpp) hand out.
inline val to_val(double v) { return val(v); }
inline val to_val(bool v) { return val(v); }
inline val to_val(const std::string& v) { return val(v); }
val to_val(const std::vector<std::string>& v);
template <class T>
val to_val(const std::optional<T>& v) {
  return v ? to_val(*v) : val::null();
}
// The object a core visitor describes: visit(out) calls out(name, value) for each field.
template <class Visit>
val object_of(Visit&& visit) {
  val o = val::object();
  visit([&](const char* name, const auto& value) { o.set(name, to_val(value)); });
  return o;
}

// A cost estimate (cost.hpp) as { seconds, gemm, attend, ... }: its time and its work by kind, for the
// internal estimates the benchmarks read (bench/calibrate-cost.mjs, bench/worst-cases.mjs).
val cost_to_js(const attn::Cost& c);

// The resolved geometry (docs/api.md, forward's `shape`; resolveShape; a checkpoint's info.shape):
// kvHeadOf[h] is the K/V head query head h reads, cacheFloatsPerToken what one token adds to a
// layer's KV cache.
val shape_to_js(const attn::Shape& s);

// Head-role scores (head_roles.hpp), per layer and head: { layer, head, previousToken, diagonal,
// firstToken, duplicateToken, induction } (the last two null when unset: no token repeats). A
// checkpoint's forward(ids, { roles: true }) and a trainer's headScores() give them.
val roles_to_js(const std::vector<attn::HeadRoles>& roles);

}  // namespace attn_js
