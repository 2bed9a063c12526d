// bindings.cpp — the Embind verbs of the attention module: read JS values into the core's types
// (js_convert.hpp), call the core, copy the results into typed arrays JS owns. No policy: every check,
// cap and cache is the core's (spec.cpp, cost.cpp, overflow.cpp, weights.cpp, kv_cache.cpp, ...),
// where the native tests and the fuzzer reach it; each one runs before anything is copied.
#include "bindings.hpp"

#include <emscripten/bind.h>

#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "attn/accounting.hpp"
#include "attn/configurator.hpp"
#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/fields.hpp"
#include "attn/forward.hpp"
#include "attn/intermediates.hpp"
#include "attn/layer.hpp"
#include "attn/overflow.hpp"
#include "attn/weights.hpp"
#include "js_convert.hpp"

namespace attn_js {

namespace {

// A checked array of n = rows * cols floats, copied straight into an uninitialised (rows, cols)
// matrix: one pass over the input, no zero-filled staging vector (docs/performance.md).
attn::Matrix read_matrix(const val& v, std::size_t n, int64_t cols) {
  attn::Matrix m = attn::uninitialised(n / std::size_t(cols), std::size_t(cols));
  copy_floats(v, m.data(), n);
  return m;
}

// The weights object, or seeded weights (attn::seeded_weights) when it is absent.
std::shared_ptr<const attn::Weights> read_weights(const val& spec, const attn::Shape& s) {
  const val given = spec["weights"];
  if (given.isUndefined()) return attn::seeded_weights(s);
  require_object(given, "weights", "weights");
  const auto slots = attn::weight_slots(s);
  std::set<std::string> names;
  for (const auto& slot : slots) names.insert(slot.name);
  check_keys(given, (std::string("weights of variant '") + attn::variant_name(s.variant) + "'").c_str(), names, "weights");
  auto w = std::make_shared<attn::Weights>();
  for (const auto& slot : slots) {
    const std::string field = std::string("weights.") + slot.name;
    const val array = given[slot.name];
    const std::size_t n = check_floats(array, field, double(slot.rows * slot.cols), slot.formula);
    attn::Matrix& m = (*w).*(slot.member);
    m = read_matrix(array, n, slot.cols);
    attn::check_buffer(field, m.data(), int64_t(n), slot.rows * slot.cols, slot.formula);
  }
  return w;
}

// The elements of x when its rows are not given (append, a layer's forward): a whole number of rows
// of dModel, at most `max_rows` (`room` says why, for the message). Nothing is copied.
int64_t count_rows(const val& x, int64_t d_model, int64_t max_rows, const std::string& room) {
  const std::size_t count = check_floats(x, "x", std::nullopt, room, double(max_rows) * double(d_model));
  if (count == 0 || count % std::size_t(d_model) != 0) {
    attn::throw_range("x", "x has " + attn::fmt(double(count)) + " elements, expected a positive multiple of dModel (" +
                      attn::fmt(double(d_model)) + ")");
  }
  return int64_t(count / std::size_t(d_model));
}

// x: (rows, dModel), its length already checked; copied and checked for finite values.
attn::Matrix read_rows(const val& x, int64_t rows, int64_t d_model, const std::string& formula) {
  const std::size_t n = std::size_t(rows * d_model);
  attn::Matrix m = read_matrix(x, n, d_model);
  attn::check_buffer("x", m.data(), int64_t(n), int64_t(n), formula);
  return m;
}

// A forward pass's x: seqLen * dModel floats, the length checked before anything is copied.
attn::Matrix read_tokens(const val& x, const attn::Shape& s) {
  check_floats(x, "x", double(s.n * s.d), "seqLen * dModel");
  return read_rows(x, s.n, s.d, "seqLen * dModel");
}

// The inputs of an overflow check (overflow.hpp): x and the weights, by their fields.
std::vector<attn::Values> inputs_of(const attn::Matrix& x, const attn::Weights& w, const attn::Shape& s) {
  std::vector<attn::Values> in = {{"x", x.data(), x.size(), "x"}};
  for (const auto& slot : attn::weight_slots(s)) {
    const attn::Matrix& m = w.*(slot.member);
    const std::string field = std::string("weights.") + slot.name;
    in.push_back({field, m.data(), m.size(), field});
  }
  return in;
}

// A finite input must not give a non-finite result (overflow.hpp): outputs of a pass, checked.
void refuse_overflow(const attn::ForwardResult& r, const std::vector<attn::Values>& inputs) {
  std::vector<attn::Values> results = {{"output", r.output.data(), r.output.size()}};
  if (r.weights) results.push_back({"weights", r.weights->data(), r.weights->size()});
  attn::refuse_overflow("the result", "it would hold Infinity or NaN", results, inputs,
                        "the attention scores grow with |x|^2 |wq| |wk|, so scale the largest down");
}

// { output, weights?, shape? }: `shape` from forward (sessions and layers add theirs in JS, once).
val result_to_js(const attn::ForwardResult& r, const attn::Shape* shape = nullptr) {
  val out = val::object();
  out.set("output", to_js(r.output.data(), r.output.size()));
  if (r.weights) out.set("weights", to_js(r.weights->data(), r.weights->size()));
  if (shape) out.set("shape", shape_to_js(*shape));
  return out;
}

// A forward spec read and resolved: every check and cap of the pass (resolve), before anything is copied.
attn::Shape resolve_forward(const val& spec) {
  const attn::RawSpec raw = read_spec(spec, "forward spec");
  if (raw.max_len) attn::throw_type("maxLen", "maxLen applies to createSession, not forward");
  return attn::resolve(raw, attn::Need::Forward);
}

val forward_js(val spec) {
  return guarded([&] {
    const attn::Shape s = resolve_forward(spec);
    const attn::Matrix x = read_tokens(spec["x"], s);
    const auto held = read_weights(spec, s);  // shared with the seeded cache, or this call's own
    const attn::ForwardResult r = attn::forward(s, *held, x);
    refuse_overflow(r, inputs_of(x, *held, s));
    return result_to_js(r, &s);
  });
}

// forward() with every stage of the lesson kept (the API's returnIntermediates: true; attention-api.mjs
// removes that field from the spec and calls this instead of forward).
val forward_intermediates_js(val spec) {
  return guarded([&] {
    const attn::Shape s = resolve_forward(spec);
    attn::check_intermediates(s, spec["weights"].isUndefined());
    const attn::Matrix x = read_tokens(spec["x"], s);
    const auto held = read_weights(spec, s);  // shared with the seeded cache, or this call's own
    const attn::Weights& w = *held;
    const attn::StageRecord r = attn::forward_intermediates(s, w, x);
    std::vector<attn::Values> results = {{"output", r.output.data(), r.output.size()}};
    for (const attn::Stage& st : r.stages) results.push_back({st.name, st.data.data(), st.data.size()});
    attn::refuse_overflow("the result", "it would hold Infinity or NaN", results, inputs_of(x, w, s),
                          "the attention scores grow with |x|^2 |wq| |wk|, so scale the largest down");
    val out = val::object();
    out.set("output", to_js(r.output.data(), r.output.size()));
    out.set("intermediates", stages_to_js(r.stages));
    val params = val::object();
    for (const auto& slot : attn::weight_slots(s)) {
      const attn::Matrix& m = w.*(slot.member);
      params.set(slot.name, to_js(m.data(), m.size()));
    }
    out.set("parameters", params);
    val shape = shape_to_js(s);  // the geometry and the rest of the spec as resolved: every default filled in
    shape.set("seqLen", double(s.n));
    const bool any_rope = s.variant == attn::Variant::MLA ? s.dr > 0 : s.rope;
    shape.set("rope", any_rope ? val::object() : val(false));
    if (any_rope) shape["rope"].set("base", s.rope_base);
    shape.set("causal", s.causal);
    out.set("shape", shape);
    return out;
  });
}

// createLayer(spec): a block whose weights are read, checked and packed once; layer.forward(x) runs
// any number of rows through them (core/include/attn/layer.hpp).
class JsLayer {
 public:
  static val create(val spec) {
    return guarded([&] {
      const attn::RawSpec raw = read_spec(spec, "layer spec");
      if (!spec["x"].isUndefined()) attn::throw_type("x", "a layer spec has no x: pass tokens to layer.forward(x)");
      const attn::Shape s = attn::resolve(raw, attn::Need::Layer);
      const auto held = read_weights(spec, s);  // shared with the seeded cache, or this call's own
      JsLayer layer;
      for (const auto& slot : attn::weight_slots(s)) {  // their magnitudes, for overflow messages
        const attn::Matrix& m = (*held).*(slot.member);
        const std::string field = std::string("weights.") + slot.name;
        layer.weights_.push_back({field, nullptr, 0, field, attn::max_magnitude(m.data(), m.size())});
      }
      layer.layer_ = std::make_unique<attn::Layer>(s, *held);
      return layer;
    });
  }

  val forward(val x) {
    return guarded([&] {
      const attn::Shape& s = layer_->shape();
      // Rows from the length, checked against the caps (shape_for) before anything is copied.
      const int64_t rows = count_rows(x, s.d, int64_t(attn::kMaxDim),
                                      "kMaxDim (" + attn::fmt(attn::kMaxDim) + ") rows * dModel (" + attn::fmt(double(s.d)) + ")");
      layer_->shape_for(rows);
      const attn::Matrix m = read_rows(x, rows, s.d, "");
      const attn::ForwardResult r = layer_->forward(m);
      std::vector<attn::Values> inputs = weights_;
      inputs.insert(inputs.begin(), attn::Values{"x", m.data(), m.size(), "x"});
      refuse_overflow(r, inputs);
      return result_to_js(r);
    });
  }
  double d_model() const { return double(layer_->shape().d); }
  val shape() const { return shape_to_js(layer_->shape()); }

 private:
  JsLayer() = default;
  std::vector<attn::Values> weights_;  // known magnitudes only (the weights live packed in the layer)
  std::unique_ptr<attn::Layer> layer_;
};

// resolveShape(spec): the shape of the call a spec describes (attn::resolve_described); x is refused,
// weights are not read.
val resolve_shape_js(val spec) {
  return guarded([&] {
    const attn::RawSpec raw = read_spec(spec, "shape spec");
    if (!spec["x"].isUndefined()) attn::throw_type("x", "resolveShape takes a spec without x (it allocates nothing)");
    return shape_to_js(attn::resolve_described(raw));
  });
}

val param_count_js(val cfg) {
  return guarded([&] {
    const attn::RawSpec raw = read_spec(cfg, "paramCount config", {"nLayers", "vocabSize"});
    const attn::Shape s = attn::resolve(raw, attn::Need::Shape);
    val o = object_of([&](auto&& out) { attn::visit_param_count(attn::param_count(s), out); });
    const auto layers = number_field(cfg, "nLayers");
    const auto vocab = number_field(cfg, "vocabSize");
    if (layers || vocab) {
      o.set("model", attn::model_params(s, attn::integer_field("nLayers", layers, 1, 1e6),
                                        attn::number_field("vocabSize", vocab, 0, 1e9, attn::kEstimateVocab)));
    }
    return o;
  });
}

val kv_cache_bytes_js(val cfg) {
  return guarded([&] {
    require_object(cfg, "kvCacheBytes config");
    std::set<std::string> known = {"variant"};
    for (const auto& f : attn::kv_cache_number_fields()) known.insert(f.name);
    check_keys(cfg, "kvCacheBytes config", known);
    attn::KvCacheQuery q;
    q.variant = string_field(cfg, "variant");
    for (const auto& f : attn::kv_cache_number_fields()) q.*f.member = number_field(cfg, f.name);
    return attn::kv_cache_bytes(q);
  });
}

val presets_js() {
  val list = val::array();
  for (const attn::Preset& p : attn::presets()) {
    list.call<void>("push", object_of([&](auto&& out) { attn::visit_preset(p, out); }));
  }
  return list;
}

// The configurator's size table: the lesson's rule of thumb (rows marked lesson) and real models between.
val size_table_js() {
  val list = val::array();
  for (const auto& r : attn::size_table()) list.call<void>("push", object_of([&](auto&& out) { attn::visit_size_row(r, out); }));
  return list;
}

val build_info_js() {
  val o = val::object();
#ifdef __wasm_simd128__
  o.set("simd", true);
#else
  o.set("simd", false);
#endif
  // which of the three builds this module is (attention.mjs picks one by the engine's features)
#if defined(ATTN_FMA)
  o.set("build", std::string("fma"));
#elif defined(__wasm_simd128__)
  o.set("build", std::string("simd"));
#else
  o.set("build", std::string("scalar"));
#endif
  o.set("version", std::string(ATTN_VERSION));
  o.set("maxWorkBytes", attn::kMaxWorkBytes);
  o.set("maxSyncSeconds", attn::kMaxSyncSeconds);
  return o;
}

// Internal (bench/calibrate-cost.mjs): the cost model's estimate of a call, and its work by kind.
// kind: 'forward', 'intermediates', 'layer' (a layer's forward over spec.seqLen rows), 'createLayer',
// 'createSession', 'append' (spec.seqLen tokens after `cached`). Not part of the API.
val cost_js(std::string kind, val spec, double cached) {
  return guarded([&] {
    attn::RawSpec raw = read_spec(spec, "cost spec");
    const bool seeded = !raw.has_weights;
    attn::Cost c;
    if (kind == "createSession" || kind == "append") {
      const auto rows = raw.seq_len;
      raw.seq_len.reset();
      const attn::Shape s = attn::resolve(raw, attn::Need::Session);
      c = kind == "append" ? attn::append_cost(s, int64_t(rows.value_or(1)), int64_t(cached)) : attn::weights_cost(s, seeded, true);
    } else if (kind == "createLayer") {
      raw.seq_len.reset();
      c = attn::weights_cost(attn::resolve(raw, attn::Need::Layer), seeded, false);
    } else {
      raw.allow_long_work = true;
      const attn::Shape s = attn::resolve(raw, attn::Need::Forward);
      c = kind == "intermediates" ? attn::intermediates_cost(s, seeded) : attn::forward_cost(s, seeded, kind == "layer");
    }
    return cost_to_js(c);
  });
}

// Internal (tests/node/field-ranges.test.mjs): the ranges of the spec's number fields, as resolve() checks them.
val field_ranges_js() {
  val list = val::array();
  for (const auto& f : attn::spec_number_fields()) {
    val o = val::object();
    o.set("name", std::string(f.name));
    o.set("lo", f.lo);
    o.set("hi", f.hi);
    list.call<void>("push", o);
  }
  return list;
}

}  // namespace

// ---- JsSession (bindings.hpp) ------------------------------------------------------------------

val JsSession::create(val spec) {
  return guarded([&] {
    const attn::RawSpec raw = read_spec(spec, "session spec");
    if (!spec["x"].isUndefined()) attn::throw_type("x", "a session spec has no x: pass tokens to session.append(x)");
    const attn::Shape s = attn::resolve(raw, attn::Need::Session);
    return JsSession(std::make_unique<attn::Session>(s, *read_weights(spec, s)));
  });
}

val JsSession::append(val x) {
  return guarded([&] {
    const attn::Shape& s = session_->shape();
    const int64_t before = session_->length();
    const int64_t room = std::max<int64_t>(1, s.max_len - before);
    const int64_t k = count_rows(x, s.d, room,
                                 "the room left in the cache, (maxLen (" + attn::fmt(double(s.max_len)) + ") - length (" +
                                     attn::fmt(double(before)) + ")) * dModel (" + attn::fmt(double(s.d)) + ")");
    session_->check_append(k);  // every cap, before x is copied
    const attn::Matrix m = read_rows(x, k, s.d, "");
    const attn::ForwardResult r = session_->append(m);
    try {
      refuse_overflow(r, {{"x", m.data(), m.size(), "x"}});
    } catch (...) {
      session_->truncate(before);  // a refused append leaves the cache as it was
      throw;
    }
    return result_to_js(r);
  });
}

val JsSession::truncate(val n) {
  return guarded([&] {
    if (!n.isNumber()) attn::throw_type("n", "truncate length must be a number, got " + describe(n));
    const double v = n.as<double>();
    if (v != static_cast<double>(static_cast<int64_t>(v))) {
      attn::throw_range("n", "truncate length (" + attn::fmt(v) + ") must be an integer");
    }
    session_->truncate(static_cast<int64_t>(v));
  });
}

val JsSession::shape() const { return shape_to_js(session_->shape()); }

}  // namespace attn_js

EMSCRIPTEN_BINDINGS(attention) {
  using namespace attn_js;
  emscripten::function("forward", &forward_js);
  emscripten::function("forwardIntermediates", &forward_intermediates_js);
  emscripten::function("resolveShape", &resolve_shape_js);
  emscripten::function("paramCount", &param_count_js);
  emscripten::function("kvCacheBytes", &kv_cache_bytes_js);
  emscripten::function("presets", &presets_js);
  emscripten::function("sizeTable", &size_table_js);
  emscripten::function("buildInfo", &build_info_js);
  emscripten::function("_cost", &cost_js);
  emscripten::function("_fieldRanges", &field_ranges_js);
  emscripten::class_<JsSession>("RawSession")
      .function("append", &JsSession::append)
      .function("reset", &JsSession::reset)
      .function("truncate", &JsSession::truncate)
      .function("length", &JsSession::length)
      .function("cacheBytes", &JsSession::cache_bytes)
      .function("maxLen", &JsSession::max_len)
      .function("shape", &JsSession::shape);
  emscripten::function("createSession", &JsSession::create);
  emscripten::class_<JsLayer>("RawLayer")
      .function("forward", &JsLayer::forward)
      .function("dModel", &JsLayer::d_model)
      .function("shape", &JsLayer::shape);
  emscripten::function("createLayer", &JsLayer::create);
}
