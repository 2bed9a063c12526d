// bindings.cpp — the Embind layer: read JS objects into the core's RawSpec (type checks only),
// call the core, copy results into typed arrays JS owns, and turn attn::Error into JS errors.
// No math here; every value check lives in the core (core/src/spec.cpp).
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "attn/accounting.hpp"
#include "attn/configurator.hpp"
#include "attn/errors.hpp"
#include "attn/forward.hpp"
#include "attn/intermediates.hpp"
#include "attn/kv_cache.hpp"
#include "attn/layer.hpp"
#ifdef ATTN_BENCH_BINDINGS
#include "workloads.hpp"  // bench/: benchmark-only functions (the attention-bench-<build> module)
#endif
#include "attn/weights.hpp"
#include "js_convert.hpp"

using emscripten::val;

namespace {

using namespace attn_js;

// A checked array of n = rows * cols floats, copied straight into an uninitialised (rows, cols)
// matrix: one pass over the input, no zero-filled staging vector (docs/performance.md).
attn::Matrix read_matrix(const val& v, std::size_t n, int64_t cols) {
  attn::Matrix m = attn::uninitialised(n / std::size_t(cols), std::size_t(cols));
  copy_floats(v, m.data(), n);
  return m;
}

// Seeded weights are drawn from counters (weights.hpp), about 14 ns a float in wasm: 14 ms for the
// four matrices of dModel 512, more than the pass itself. The page asks again with the same shape and
// seed whenever its input changes, so the last set drawn is kept, read-only, when it is at most
// kSeededCacheBytes (a larger one is drawn for each call and not kept).
constexpr double kSeededCacheBytes = 16.0 * 1024 * 1024;
struct SeededKey {
  attn::Variant variant = attn::Variant::MHA;
  int64_t d = 0, h = 0, g = 0, dh = 0, r = 0, dr = 0;
  uint64_t seed = 0;
  bool operator==(const SeededKey& o) const {
    return variant == o.variant && d == o.d && h == o.h && g == o.g && dh == o.dh && r == o.r && dr == o.dr &&
           seed == o.seed;
  }
};
std::shared_ptr<const attn::Weights> seeded_weights(const attn::Shape& s) {
  static SeededKey kept_key;
  static std::shared_ptr<const attn::Weights> kept;
  const SeededKey key{s.variant, s.d, s.h, s.g, s.dh, s.r, s.dr, s.seed};
  if (kept && kept_key == key) return kept;
  auto w = std::make_shared<const attn::Weights>(attn::init_weights(s, s.seed));
  double floats = 0;
  for (const auto& slot : attn::weight_slots(s)) floats += double(slot.rows) * double(slot.cols);
  if (4.0 * floats <= kSeededCacheBytes) {
    kept = w;
    kept_key = key;
  }
  return w;
}

// The weights object, or seeded weights when it is absent.
std::shared_ptr<const attn::Weights> read_weights(const val& spec, const attn::Shape& s) {
  const val given = spec["weights"];
  if (given.isUndefined()) return seeded_weights(s);
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
std::size_t count_rows(const val& x, int64_t d_model, int64_t max_rows, const std::string& room) {
  const std::size_t count = check_floats(x, "x", std::nullopt, room, double(max_rows) * double(d_model));
  if (count == 0 || count % std::size_t(d_model) != 0) {
    attn::throw_range("x", "x has " + attn::fmt(double(count)) + " elements, expected a positive multiple of dModel (" +
                      attn::fmt(double(d_model)) + ")");
  }
  return count;
}

// x: (rows, dModel). rows known (forward): its length is checked before copying; unknown (append):
// at most `max_rows` rows, a whole number of them.
attn::Matrix read_tokens(const val& x, int64_t d_model, const char* rows_name, std::optional<int64_t> rows,
                         int64_t max_rows = 0, const std::string& room = "") {
  const std::size_t count =
      rows ? check_floats(x, "x", double(*rows * d_model), std::string(rows_name) + " * dModel")
           : count_rows(x, d_model, max_rows, room);
  const int64_t n = int64_t(count);
  attn::Matrix m = read_matrix(x, count, d_model);
  if (rows) {
    attn::check_buffer("x", m.data(), n, *rows * d_model, std::string(rows_name) + " * dModel");
  } else {
    attn::check_buffer("x", m.data(), n, n, "");
  }
  return m;
}

// The compute cap of synchronous calls (attn::kMaxSyncFlops), unless the spec says allowLongWork.
void check_work(double flops, bool allow_long_work, const std::string& what) {
  if (allow_long_work || flops <= attn::kMaxSyncFlops) return;
  attn::throw_range(what + " needs about " + attn::fmt(std::ceil(flops / 1e9)) + " GFLOP, above the cap of " +
                    attn::fmt(attn::kMaxSyncFlops / 1e9) +
                    " GFLOP for a synchronous call (several seconds of blocking work): reduce seqLen or the sizes, "
                    "or pass allowLongWork: true (in a Web Worker)");
}

// A finite input gave a non-finite result (float32 overflow, e.g. scores of x = 1e20): name the
// input of the largest magnitude. `inputs`: (field, values, count).
// known_max >= 0: the input's largest magnitude, computed before (a Layer's weights, read once).
struct Input { std::string field; const float* data; std::size_t count; double known_max = -1; };

double max_magnitude(const float* data, std::size_t count) {
  double m = 0;
  for (std::size_t i = 0; i < count; ++i) m = std::max(m, double(std::fabs(data[i])));
  return m;
}
// Refuses results holding Infinity or NaN from finite inputs, naming the input of largest magnitude.
// outputs: (data, count) of every array the call returns.
void check_finite(const std::vector<std::pair<const float*, std::size_t>>& outputs, const std::vector<Input>& inputs) {
  bool finite = true;
  for (const auto& [data, count] : outputs) {
    for (std::size_t i = 0; i < count; ++i) finite = finite && std::isfinite(data[i]);
  }
  if (finite) return;
  std::string field = "x", list;
  double worst = -1;
  for (const Input& in : inputs) {
    const double m = in.known_max >= 0 ? in.known_max : max_magnitude(in.data, in.count);
    list += (list.empty() ? "" : ", ") + in.field + " up to " + attn::fmt(m);
    if (m > worst) { worst = m; field = in.field; }
  }
  attn::throw_range(field, "the result overflowed float32 (it would hold Infinity or NaN) although every input is finite: "
                           "magnitudes " + list + "; the attention scores grow with |x|^2 |wq| |wk|, so scale " + field +
                           " (" + attn::fmt(worst) + ") down");
}

void check_result_finite(const attn::ForwardResult& r, const std::vector<Input>& inputs) {
  std::vector<std::pair<const float*, std::size_t>> outputs = {{r.output.data(), r.output.size()}};
  if (r.weights) outputs.emplace_back(r.weights->data(), r.weights->size());
  check_finite(outputs, inputs);
}

std::vector<Input> inputs_of(const attn::Matrix& x, const attn::Weights& w, const attn::Shape& s) {
  std::vector<Input> in = {{"x", x.data(), x.size()}};
  for (const auto& slot : attn::weight_slots(s)) {
    const attn::Matrix& m = w.*(slot.member);
    in.push_back({std::string("weights.") + slot.name, m.data(), m.size()});
  }
  return in;
}

// The resolved geometry (docs/api.md, forward's `shape`; resolveShape): kvHeadOf[h] is the K/V head
// query head h reads, cacheFloatsPerToken what one token adds to a layer's KV cache.
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

// { output, weights?, shape? }: `shape` from forward (sessions and layers add theirs in JS, once).
val result_to_js(const attn::ForwardResult& r, const attn::Shape* shape = nullptr) {
  val out = val::object();
  out.set("output", to_js(r.output.data(), r.output.size()));
  if (r.weights) out.set("weights", to_js(r.weights->data(), r.weights->size()));
  if (shape) out.set("shape", shape_to_js(*shape));
  return out;
}

// ---------------------------------------------------------------------------------------------
// A forward spec read, resolved and checked against the compute cap (before anything is copied).
attn::Shape resolve_forward(const val& spec) {
  const attn::RawSpec raw = read_spec(spec, "forward spec");
  if (raw.max_len) attn::throw_type("maxLen", "maxLen applies to createSession, not forward");
  const attn::Shape s = attn::resolve(raw, attn::Need::Forward);
  check_work(attn::attention_flops(s, s.n, 0, s.causal), s.allow_long_work, "this forward pass");
  return s;
}

// resolveShape(spec): the geometry a forward (seqLen), session (maxLen) or layer spec resolves to,
// checked with the same rules and caps as that call (x and weights are not read).
val resolve_shape_js(val spec) {
  return guarded([&] {
    const attn::RawSpec raw = read_spec(spec, "resolveShape spec");
    if (raw.max_len) return shape_to_js(attn::resolve(raw, attn::Need::Session));
    if (raw.seq_len) return shape_to_js(resolve_forward(spec));
    return shape_to_js(attn::resolve(raw, attn::Need::Layer));
  });
}

val forward_js(val spec) {
  return guarded([&] {
    const attn::Shape s = resolve_forward(spec);
    const attn::Matrix x = read_tokens(spec["x"], s.d, "seqLen", s.n);
    const auto held = read_weights(spec, s);  // shared with the seeded cache, or this call's own
    const attn::Weights& w = *held;
    const attn::ForwardResult r = attn::forward(s, w, x);
    check_result_finite(r, inputs_of(x, w, s));
    return result_to_js(r, &s);
  });
}

// forward() with every stage of the lesson kept (the API's returnIntermediates: true; attention-api.mjs
// removes that field from the spec and calls this instead of forward).
val forward_intermediates_js(val spec) {
  return guarded([&] {
    const attn::Shape s = resolve_forward(spec);
    const double bytes = attn::forward_work_bytes(s) + attn::intermediates_bytes(s);
    if (bytes > attn::kMaxWorkBytes) {
      attn::throw_range("returnIntermediates", "returnIntermediates: the stages of this pass take " + attn::fmt(bytes) +
                        " bytes with the pass itself, above the cap of " + attn::fmt(attn::kMaxWorkBytes) +
                        " bytes (use a shorter seqLen or fewer heads)");
    }
    const attn::Matrix x = read_tokens(spec["x"], s.d, "seqLen", s.n);
    const auto held = read_weights(spec, s);  // shared with the seeded cache, or this call's own
    const attn::Weights& w = *held;
    const attn::Intermediates r = attn::forward_intermediates(s, w, x);
    std::vector<std::pair<const float*, std::size_t>> outputs = {{r.output.data(), r.output.size()}};
    for (const attn::Stage& st : r.stages) outputs.emplace_back(st.data.data(), st.data.size());
    check_finite(outputs, inputs_of(x, w, s));
    val out = val::object();
    out.set("output", to_js(r.output.data(), r.output.size()));
    val stages = val::object();
    for (const attn::Stage& st : r.stages) {
      val t = val::object();
      val shape = val::array();
      for (int64_t d : st.shape) shape.call<void>("push", double(d));
      t.set("shape", shape);
      t.set("data", to_js(st.data.data(), st.data.size()));
      stages.set(st.name, t);
    }
    out.set("intermediates", stages);
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

class JsSession {
 public:
  JsSession(std::unique_ptr<attn::Session> session, bool allow_long_work)
      : allow_long_work_(allow_long_work), session_(std::move(session)) {}

  // createSession(spec): a RawSession, or the error (guarded).
  static val create(val spec) {
    return guarded([&] {
      bool allow_long_work = false;
      auto session = make(spec, allow_long_work);
      return JsSession(std::move(session), allow_long_work);
    });
  }

  val append(val x) {
    return guarded([&] {
      const attn::Shape& s = session_->shape();
      const int64_t before = session_->length();
      const int64_t room = std::max<int64_t>(1, s.max_len - before);
      const attn::Matrix m = read_tokens(x, s.d, "k", std::nullopt, room,
                                         "the room left in the cache, (maxLen (" + attn::fmt(double(s.max_len)) +
                                             ") - length (" + attn::fmt(double(before)) + ")) * dModel (" +
                                             attn::fmt(double(s.d)) + ")");
      check_work(attn::attention_flops(s, int64_t(m.shape(0)), before, true), allow_long_work_,
                 "appending " + attn::fmt(double(m.shape(0))) + " tokens");
      const attn::ForwardResult r = session_->append(m);
      try {
        check_result_finite(r, {{"x", m.data(), m.size()}});
      } catch (...) {
        session_->truncate(before);  // a refused append leaves the cache as it was
        throw;
      }
      return result_to_js(r);
    });
  }
  void reset() { session_->reset(); }
  val truncate(val n) {
    return guarded([&] {
      if (!n.isNumber()) attn::throw_type("n", "truncate length must be a number, got " + describe(n));
      const double v = n.as<double>();
      if (v != static_cast<double>(static_cast<int64_t>(v))) {
        attn::throw_range("n", "truncate length (" + attn::fmt(v) + ") must be an integer");
      }
      session_->truncate(static_cast<int64_t>(v));
    });
  }
  double length() const { return double(session_->length()); }
#ifdef ATTN_BENCH_BINDINGS
  // Benchmarks only (scripts/bench-peers.mjs): `tokens` seeded cache rows (bench/workloads.hpp).
  val fill_for_benchmark(double tokens, double seed) {
    return guarded([&] { attn::fill_cache_for_benchmark(*session_, int64_t(tokens), uint64_t(seed)); });
  }
#endif
  double cache_bytes() const { return session_->cache_bytes(); }
  double max_len() const { return double(session_->max_len()); }
  val shape() const { return shape_to_js(session_->shape()); }

 private:
  static std::unique_ptr<attn::Session> make(const val& spec, bool& allow_long_work) {
    attn::RawSpec raw = read_spec(spec, "session spec");
    if (!spec["x"].isUndefined()) attn::throw_type("x", "a session spec has no x: pass tokens to session.append(x)");
    const attn::Shape s = attn::resolve(raw, attn::Need::Session);
    allow_long_work = s.allow_long_work;
    return std::make_unique<attn::Session>(s, *read_weights(spec, s));
  }
  bool allow_long_work_ = false;
  std::unique_ptr<attn::Session> session_;
};

// createLayer(spec): a block whose weights are read, checked and packed once; layer.forward(x) runs
// any number of rows through them (core/include/attn/layer.hpp).
class JsLayer {
 public:
  // createLayer(spec): a RawLayer, or the error (guarded).
  static val create(val spec) {
    return guarded([&] {
      JsLayer layer;
      layer.layer_ = layer.make(spec);
      return layer;
    });
  }

  val forward(val x) {
    return guarded([&] {
      const attn::Shape& s = layer_->shape();
      // Rows from the length, checked against the caps before anything is copied.
      const std::size_t count = count_rows(x, s.d, int64_t(attn::kMaxDim),
                                           "kMaxDim (" + attn::fmt(attn::kMaxDim) + ") rows * dModel (" +
                                               attn::fmt(double(s.d)) + ")");
      const attn::Shape sn = layer_->shape_for(int64_t(count / std::size_t(s.d)));
      check_work(attn::attention_flops(sn, sn.n, 0, sn.causal), allow_long_work_, "this forward pass");
      const attn::Matrix m = read_matrix(x, count, s.d);
      attn::check_buffer("x", m.data(), int64_t(count), int64_t(count), "");
      const attn::ForwardResult r = layer_->forward(m);
      std::vector<Input> inputs = weight_magnitudes_;
      inputs.insert(inputs.begin(), Input{"x", m.data(), m.size()});
      check_result_finite(r, inputs);
      return result_to_js(r);
    });
  }
  double d_model() const { return double(layer_->shape().d); }
  val shape() const { return shape_to_js(layer_->shape()); }

 private:
  std::unique_ptr<attn::Layer> make(const val& spec) {
    const attn::RawSpec raw = read_spec(spec, "layer spec");
    if (!spec["x"].isUndefined()) attn::throw_type("x", "a layer spec has no x: pass tokens to layer.forward(x)");
    const attn::Shape s = attn::resolve(raw, attn::Need::Layer);
    allow_long_work_ = s.allow_long_work;
    const auto held = read_weights(spec, s);  // shared with the seeded cache, or this call's own
    const attn::Weights& w = *held;
    for (const auto& slot : attn::weight_slots(s)) {
      const attn::Matrix& m = w.*(slot.member);
      weight_magnitudes_.push_back({std::string("weights.") + slot.name, nullptr, 0, max_magnitude(m.data(), m.size())});
    }
    return std::make_unique<attn::Layer>(s, w);
  }
  JsLayer() = default;
  bool allow_long_work_ = false;
  std::vector<Input> weight_magnitudes_;
  std::unique_ptr<attn::Layer> layer_;
};

val param_count_js(val cfg) {
  return guarded([&] {
    const attn::RawSpec raw = read_spec(cfg, "paramCount config");
    const attn::ParamCount p = attn::param_count(attn::resolve(raw, attn::Need::Shape));
    val o = val::object();
    o.set("wq", p.wq); o.set("wk", p.wk); o.set("wv", p.wv); o.set("wo", p.wo);
    o.set("wDkv", p.w_dkv); o.set("wUk", p.w_uk); o.set("wUv", p.w_uv); o.set("wQr", p.w_qr); o.set("wKr", p.w_kr);
    o.set("total", p.total);
    return o;
  });
}

val kv_cache_bytes_js(val cfg) {
  return guarded([&] {
    require_object(cfg, "kvCacheBytes config");
    check_keys(cfg, "kvCacheBytes config", {"variant", "nLayers", "nHeads", "nKvHeads", "dHead", "dModel", "latentRank",
                                            "ropeDim", "seqLen", "batch", "bytesPerElement"});
    attn::KvCacheQuery q;
    const val variant = cfg["variant"];
    if (!variant.isUndefined()) {
      if (!variant.isString()) attn::throw_type("variant", "variant must be a string, got " + describe(variant));
      q.variant = variant.as<std::string>();
    }
    q.n_layers = number_field(cfg, "nLayers");
    q.n_heads = number_field(cfg, "nHeads");
    q.n_kv_heads = number_field(cfg, "nKvHeads");
    q.d_head = number_field(cfg, "dHead");
    q.d_model = number_field(cfg, "dModel");
    q.latent_rank = number_field(cfg, "latentRank");
    q.rope_dim = number_field(cfg, "ropeDim");
    q.seq_len = number_field(cfg, "seqLen");
    q.batch = number_field(cfg, "batch");
    q.bytes_per_element = number_field(cfg, "bytesPerElement");
    return attn::kv_cache_bytes(q);
  });
}

val presets_js() {
  val list = val::array();
  for (const attn::Preset& p : attn::presets()) {
    val o = val::object();
    o.set("id", p.id); o.set("name", p.name); o.set("source", p.source);
    o.set("variant", std::string(attn::variant_name(p.variant)));
    o.set("dModel", double(p.d_model)); o.set("nHeads", double(p.n_heads)); o.set("nKvHeads", double(p.n_kv_heads));
    o.set("dHead", double(p.d_head)); o.set("nLayers", double(p.n_layers));
    if (p.variant == attn::Variant::MLA) {
      o.set("latentRank", double(p.latent_rank));
      o.set("ropeDim", double(p.rope_dim));
    }
    if (!p.notes.empty()) o.set("notes", p.notes);
    list.call<void>("push", o);
  }
  return list;
}

val build_info_js() {
  val o = val::object();
#ifdef __wasm_simd128__
  o.set("simd", true);
#else
  o.set("simd", false);
#endif
  o.set("version", std::string(ATTN_VERSION));
  o.set("maxWorkBytes", attn::kMaxWorkBytes);
  o.set("maxSyncFlops", attn::kMaxSyncFlops);
  o.set("maxStepTokens", attn::kMaxStepTokens);
  return o;
}


val recommend_js(val cfg) {
  return guarded([&] {
    require_object(cfg, "recommend request");
    check_keys(cfg, "recommend request", {"paramBudget", "dModel", "nLayers", "seqLen", "batch", "target", "memoryBytes",
                                          "bytesPerElement", "weightBytesPerParam", "priority", "variant", "benchmark"});
    attn::RecommendQuery q;
    q.param_budget = number_field(cfg, "paramBudget");
    q.d_model = number_field(cfg, "dModel");
    q.n_layers = number_field(cfg, "nLayers");
    q.seq_len = number_field(cfg, "seqLen");
    q.batch = number_field(cfg, "batch");
    q.memory_bytes = number_field(cfg, "memoryBytes");
    q.bytes_per_element = number_field(cfg, "bytesPerElement");
    q.weight_bytes_per_param = number_field(cfg, "weightBytesPerParam");
    q.target = string_field(cfg, "target");
    q.priority = string_field(cfg, "priority");
    q.variant = string_field(cfg, "variant");
    q.benchmark = bool_field(cfg, "benchmark").value_or(false);
    const attn::Recommendation r = attn::recommend(q);
    auto strings = [](const std::vector<std::string>& v) {
      val a = val::array();
      for (const auto& s : v) a.call<void>("push", s);
      return a;
    };
    auto opt = [](const auto& o) { return o ? val(*o) : val::null(); };
    val o = val::object();
    o.set("variant", std::string(attn::variant_name(r.variant)));
    o.set("dModel", double(r.d_model)); o.set("nLayers", double(r.n_layers)); o.set("nHeads", double(r.n_heads));
    o.set("nKvHeads", double(r.n_kv_heads)); o.set("dHead", double(r.d_head));
    if (r.variant == attn::Variant::MLA) {
      o.set("latentRank", double(r.latent_rank));
      o.set("ropeDim", double(r.rope_dim));
    }
    o.set("params", r.params);
    o.set("kvBytesPerTokenPerLayer", r.kv_bytes_per_token_per_layer);
    o.set("kvBytesPerToken", r.kv_bytes_per_token);
    o.set("kvBytesTotal", r.kv_bytes_total);
    o.set("weightBytes", r.weight_bytes);
    o.set("memoryBytes", opt(r.memory_bytes));
    o.set("fits", opt(r.fits));
    o.set("marginBytes", opt(r.margin_bytes));
    o.set("justification", r.justification);
    o.set("reasons", strings(r.reasons));
    o.set("warnings", strings(r.warnings));
    o.set("rules", strings(r.rules));
    o.set("init", r.init); o.set("bias", r.bias); o.set("check", r.check);
    val alts = val::array();
    for (const auto& a : r.alternatives) {
      val x = val::object();
      x.set("variant", std::string(attn::variant_name(a.variant)));
      x.set("nKvHeads", double(a.n_kv_heads));
      if (a.variant == attn::Variant::MLA) {
        x.set("latentRank", double(a.latent_rank));
        x.set("ropeDim", double(a.rope_dim));
      }
      x.set("kvBytesTotal", a.kv_bytes_total);
      x.set("fits", r.memory_bytes ? val(a.fits) : val::null());
      alts.call<void>("push", x);
    }
    o.set("alternatives", alts);
    return o;
  });
}

// The configurator's size table: the lesson's rule of thumb (rows marked lesson) and real models between.
val size_table_js() {
  val list = val::array();
  for (const auto& r : attn::size_table()) {
    val o = val::object();
    o.set("params", r.params);
    o.set("dModel", double(r.d_model));
    o.set("nHeads", double(r.n_heads));
    o.set("dHead", double(r.d_head));
    o.set("nLayers", double(r.n_layers));
    o.set("source", std::string(r.source));
    o.set("lesson", std::string(r.source).rfind("lesson:", 0) == 0);
    list.call<void>("push", o);
  }
  return list;
}

val deployment_targets_js() {
  val list = val::array();
  for (const auto& t : attn::deployment_targets()) {
    val o = val::object();
    o.set("id", std::string(t.id));
    o.set("name", std::string(t.name));
    o.set("memoryBytes", t.memory_bytes);
    list.call<void>("push", o);
  }
  return list;
}

#ifdef ATTN_BENCH_BINDINGS
// ---------------------------------------------------------------------------------------------
// Benchmarks (only in attention-bench-<build>.mjs, which npm run bench loads; the page's module
// leaves them out: 3.7 KB of gzip on the first map): timed inside wasm, so that JS call overhead and
// copies are not measured. Each timed call goes through a volatile function pointer, so the kernels
// stay in functions that V8 tiers up.
val timings_to_js(const std::vector<double>& ms) {
  return val::global("Float64Array").new_(emscripten::typed_memory_view(ms.size(), ms.data()));
}

void check_counts(int warmup, int iters) {
  if (warmup < 0 || warmup > 1000) attn::throw_range("warmup", "warmup (" + attn::fmt(warmup) + ") must be between 0 and 1000");
  if (iters < 1 || iters > 10000) attn::throw_range("iters", "iters (" + attn::fmt(iters) + ") must be between 1 and 10000");
}

void run_forward(const attn::ForwardWorkload* w) { attn::forward(w->shape, w->weights, w->x); }
void (*volatile g_run_forward)(const attn::ForwardWorkload*) = run_forward;
void run_decode(attn::DecodeWorkload* w) { w->step(); }
void (*volatile g_run_decode)(attn::DecodeWorkload*) = run_decode;

val benchmark_forward_js(val spec, int warmup, int iters) {
  return guarded([&] {
    check_counts(warmup, iters);
    const attn::ForwardWorkload w = attn::make_forward_workload(read_spec(spec, "benchmark spec"));
    for (int i = 0; i < warmup; ++i) g_run_forward(&w);
    std::vector<double> ms;
    for (int i = 0; i < iters; ++i) {
      const double t0 = emscripten_get_now();
      g_run_forward(&w);
      ms.push_back(emscripten_get_now() - t0);
    }
    return timings_to_js(ms);
  });
}

val benchmark_decode_js(val spec, double cache_len, int warmup, int iters) {
  return guarded([&] {
    check_counts(warmup, iters);
    attn::RawSpec raw = read_spec(spec, "benchmark spec");
    raw.causal = true;
    attn::DecodeWorkload w = attn::make_decode_workload(raw, int64_t(cache_len));
    for (int i = 0; i < warmup; ++i) g_run_decode(&w);
    std::vector<double> ms;
    for (int i = 0; i < iters; ++i) {
      const double t0 = emscripten_get_now();
      g_run_decode(&w);
      ms.push_back(emscripten_get_now() - t0);
    }
    return timings_to_js(ms);
  });
}

// Floating-point operations of one benchmarkForward call (no maxLen) or benchmarkDecode step.
val flops_js(val spec, double cache_len) {
  return guarded([&] {
    attn::RawSpec raw = read_spec(spec, "benchmark spec");
    if (!raw.max_len) {
      const attn::Shape s = attn::resolve(raw, attn::Need::Forward);
      return attn::attention_flops(s, s.n, 0, s.causal);
    }
    raw.causal = true;
    const attn::Shape s = attn::resolve(raw, attn::Need::Session);
    return attn::attention_flops(s, 1, int64_t(cache_len), true);
  });
}
#endif  // ATTN_BENCH_BINDINGS

}  // namespace

EMSCRIPTEN_BINDINGS(attention) {
  emscripten::function("forward", &forward_js);
  emscripten::function("forwardIntermediates", &forward_intermediates_js);
  emscripten::function("resolveShape", &resolve_shape_js);
  emscripten::function("paramCount", &param_count_js);
  emscripten::function("kvCacheBytes", &kv_cache_bytes_js);
  emscripten::function("presets", &presets_js);
  emscripten::function("recommend", &recommend_js);
  emscripten::function("deploymentTargets", &deployment_targets_js);
  emscripten::function("sizeTable", &size_table_js);
  emscripten::function("buildInfo", &build_info_js);

#ifdef ATTN_BENCH_BINDINGS
  emscripten::function("benchmarkForward", &benchmark_forward_js);
  emscripten::function("benchmarkDecode", &benchmark_decode_js);
  emscripten::function("benchmarkFlops", &flops_js);
#endif
  emscripten::class_<JsSession>("RawSession")
      .function("append", &JsSession::append)
      .function("reset", &JsSession::reset)
      .function("truncate", &JsSession::truncate)
      .function("length", &JsSession::length)
      .function("cacheBytes", &JsSession::cache_bytes)
      .function("maxLen", &JsSession::max_len)
      .function("shape", &JsSession::shape)
#ifdef ATTN_BENCH_BINDINGS
      .function("fillForBenchmark", &JsSession::fill_for_benchmark)
#endif
      ;
  emscripten::function("createSession", &JsSession::create);
  emscripten::class_<JsLayer>("RawLayer")
      .function("forward", &JsLayer::forward)
      .function("dModel", &JsLayer::d_model)
      .function("shape", &JsLayer::shape);
  emscripten::function("createLayer", &JsLayer::create);
}
