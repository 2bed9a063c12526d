// bindings_pretrained.cpp — Embind verbs of pretrained checkpoints (docs/api.md, "Pretrained checkpoints"):
// the loader (config and safetensors headers in, tensors' bytes copied in one by one, a model out),
// the model's forward pass and its decoding sessions. Value checks live in the core
// (core/src/pretrained); this file reads JS values, calls the core and copies results out.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attn/cost.hpp"
#include "attn/head_roles.hpp"
#include "attn/pretrained/checkpoint.hpp"
#include "attn/pretrained/safetensors.hpp"
#include "attn/pretrained/session.hpp"
#include "attn/spec.hpp"
#include "js_convert.hpp"

using emscripten::val;
using namespace attn_js;
namespace pt = attn::pretrained;

namespace {

// A Uint8Array's bytes (its length checked first, against `at_most`).
std::string read_bytes(const val& v, const std::string& field, double at_most) {
  if (!v.instanceof(val::global("Uint8Array"))) attn::throw_type(field, field + " must be a Uint8Array, got " + describe(v));
  const double n = v["length"].as<double>();
  if (n > at_most) attn::throw_range(field, field + " has " + attn::fmt(n) + " bytes, more than " + attn::fmt(at_most));
  std::string out(std::size_t(n), '\0');
  val(emscripten::typed_memory_view(out.size(), reinterpret_cast<uint8_t*>(out.data()))).call<void>("set", v);
  return out;
}

// Token ids: an Array or a typed array of numbers (values checked by the core).
std::vector<int32_t> read_ids(const pt::PretrainedModel& model, const val& ids) {
  const bool view = val::global("ArrayBuffer").call<bool>("isView", ids) && !ids.instanceof(val::global("DataView")) &&
                    !ids.instanceof(val::global("BigInt64Array")) && !ids.instanceof(val::global("BigUint64Array"));
  if (!view && !val::global("Array").call<bool>("isArray", ids)) {
    attn::throw_type("ids", "ids must be an Int32Array or an Array of token ids, got " + describe(ids));
  }
  const double n = ids["length"].as<double>();
  if (n > attn::kMaxDim) attn::throw_range("ids", "ids has " + attn::fmt(n) + " token ids, more than " + attn::fmt(attn::kMaxDim));
  if (!view) {
    for (int64_t i = 0; i < int64_t(n); ++i) {
      const val e = ids[double(i)];
      if (!e.isNumber()) attn::throw_type("ids", "ids[" + attn::fmt(double(i)) + "] must be a number, got " + describe(e));
    }
  }
  return model.ids_from_numbers(emscripten::convertJSArrayToNumberVector<double>(ids));
}

// The caps of a synchronous call: working memory, and its estimated time (the cost model,
// PretrainedModel::call_cost) unless allowLongWork. `session`: an append rather than forward.
void check_call(const pt::PretrainedModel& m, int64_t n, int64_t past, bool attentions, bool session,
                bool allow_long_work) {
  const double bytes = m.work_bytes(n, past, attentions);
  if (bytes > attn::kMaxWorkBytes) {
    attn::throw_range("ids", std::string("running ") + attn::fmt(double(n)) + " tokens" + (attentions ? " with attentions" : "") +
                                 " needs about " + attn::fmt(std::ceil(bytes / 1048576.0)) + " MiB of working memory, above the cap of " +
                                 attn::fmt(attn::kMaxWorkBytes / 1048576.0) + " MiB: pass fewer ids" +
                                 (attentions ? " or do not ask for attentions" : ""));
  }
  pt::check_work_memory(bytes, "ids", std::string("running ") + attn::fmt(double(n)) + " tokens" +
                                          (attentions ? " with attentions" : ""));
  attn::check_sync_time(m.call_cost(n, past, attentions, session), allow_long_work);
}

val output_to_js(const pt::ModelOutput& r) {
  val out = val::object();
  out.set("logits", to_js(r.logits.data(), r.logits.size()));
  if (!r.attentions.empty()) {
    val maps = val::array();
    for (const auto& t : r.attentions) maps.call<void>("push", to_js(t.data(), t.size()));
    out.set("attentions", maps);
  }
  return out;
}

// config.json's text (JSON.stringify of the parsed object) as JSON, at most kMaxConfigBytes: one reading
// for the loader and for checkPretrainedConfig.
nlohmann::json parse_config(const std::string& config_text) {
  if (double(config_text.size()) > pt::kMaxConfigBytes) {
    attn::throw_range("config", "config has " + attn::fmt(double(config_text.size())) + " bytes as JSON, more than the " +
                                    attn::fmt(pt::kMaxConfigBytes) + " a config.json is read with");
  }
  nlohmann::json config = nlohmann::json::parse(config_text, nullptr, false);
  if (config.is_discarded()) attn::throw_type("config", "config must be a JSON object (the parsed config.json)");
  return config;
}

// What a config says of the model, as `info` gives it (docs/api.md, "Pretrained checkpoints"): the
// geometry and architecture, without what only the weights tell (params, weightBytes, kvBytesPerToken).
val config_info(const pt::ModelConfig& c) {
  val o = val::object();
  o.set("modelType", c.model_type);
  o.set("variant", std::string(c.variant()));
  o.set("nLayers", double(c.n_layers)); o.set("dModel", double(c.d_model)); o.set("nHeads", double(c.n_heads));
  o.set("nKvHeads", double(c.mla ? c.n_heads : c.n_kv_heads)); o.set("dHead", double(c.head_dim));
  o.set("vocabSize", double(c.vocab)); o.set("intermediateSize", double(c.intermediate));
  o.set("tiedEmbeddings", c.tied);
  o.set("maxPositions", c.n_positions > 0 ? val(double(c.n_positions)) : val::null());
  o.set("slidingWindow", c.sliding_window > 0 ? val(double(c.sliding_window)) : val::null());
  if (c.mla) {
    o.set("latentRank", double(c.kv_lora_rank)); o.set("ropeDim", double(c.qk_rope));
    o.set("vHeadDim", double(c.v_head_dim)); o.set("queryRank", double(c.q_lora_rank));
  }
  // The lesson's shape of one layer's attention (ModelConfig::shape): which K/V head each query head
  // reads, and the cache per token, are the lesson's own.
  val shape = shape_to_js(c.shape());
  o.set("kvHeadOf", shape["kvHeadOf"]);
  o.set("shape", shape);
  return o;
}

class JsSession {
 public:
  // Throws attn::Error (its caller, JsModel::create_session, is guarded) for a bad maxLen, before
  // allocating the cache.
  JsSession(const std::shared_ptr<const pt::PretrainedModel>& model, double max_len) : model_(model) {
    pt::check_session_length(model->config(), max_len);
    const pt::ModelConfig& c = model->config();
    pt::check_work_memory(4.0 * max_len * double(c.cache_floats_per_token()) * double(c.n_layers), "maxLen",
                          "a KV cache of maxLen (" + attn::fmt(max_len) + ") tokens");
    session_ = std::make_unique<pt::Session>(*model, int64_t(max_len));
  }

  val append(val ids, bool attentions, bool allow_long_work) {
    return guarded([&] {
      const std::vector<int32_t> v = read_ids(*model_, ids);
      check_call(*model_, int64_t(v.size()), session_->length(), attentions, true, allow_long_work);
      return output_to_js(session_->append(v, attentions));
    });
  }
  double length() const { return double(session_->length()); }
  double max_len() const { return double(session_->max_len()); }
  double cache_bytes() const { return session_->cache_bytes(); }
  void reset() { session_->reset(); }

 private:
  std::shared_ptr<const pt::PretrainedModel> model_;  // kept alive while a session uses it
  std::unique_ptr<pt::Session> session_;
};

class JsModel {
 public:
  explicit JsModel(std::unique_ptr<pt::PretrainedModel> m) : model_(std::move(m)) {}

  val info() const {
    val o = config_info(model_->config());
    o.set("params", model_->params()); o.set("weightBytes", model_->weight_bytes());
    o.set("kvBytesPerToken", model_->kv_bytes_per_token());
    return o;
  }

  // What the stages of layer `l` over `n` tokens were computed with: the layer's attention geometry
  // and the choices of its architecture (docs/api.md, "The stages of one layer").
  val stage_shape(int64_t l, int64_t n) const {
    const pt::ModelConfig& c = model_->config();
    val o = info();
    o.set("layer", double(l));
    o.set("seqLen", double(n));
    o.set("causal", true);
    o.set("dValue", double(c.d_v()));
    o.set("scale", double(c.softmax_scale));
    o.set("norm", std::string(c.norm == pt::NormKind::LayerNorm ? "layernorm" : "rmsnorm"));
    o.set("qkvBias", c.qkv_bias);
    o.set("oBias", c.o_bias);
    o.set("qkNorm", c.qk_norm);
    o.set("fusedQkv", model_->layers()[std::size_t(l)].fused_qkv);
    if (c.rope) {
      val rope = val::object();
      rope.set("base", c.rope_freqs.base);
      rope.set("type", c.rope_freqs.type);
      rope.set("pairs", std::string(c.rope_freqs.adjacent_pairs ? "adjacent" : "half"));
      rope.set("attentionFactor", c.rope_freqs.attention_factor);
      o.set("rope", rope);
    } else {
      o.set("rope", false);
    }
    if (c.mla) o.set("dNope", double(c.qk_nope));
    return o;
  }

  // roles: the head-role scores of the maps on these ids (attn/head_roles.hpp), with or without the maps.
  val forward(val ids, bool attentions, bool roles, bool allow_long_work) {
    return guarded([&] {
      const std::vector<int32_t> v = read_ids(*model_, ids);
      if (v.empty()) attn::throw_range("ids", "ids is empty: pass at least one token id");
      model_->check_ids(v, 0);
      check_call(*model_, int64_t(v.size()), 0, attentions || roles, false, allow_long_work);
      pt::ModelOutput r = model_->forward(v, attentions || roles);
      val out = val::object();
      if (roles) {
        std::vector<const float*> maps;  // per layer (H, N, N)
        for (const auto& t : r.attentions) maps.push_back(t.data());
        out = roles_to_js(attn::head_roles(maps, model_->config().n_heads, v));
      }
      if (!attentions) r.attentions.clear();
      val o = output_to_js(r);
      if (roles) o.set("roles", out);
      return o;
    });
  }

  // One layer's attention stage by stage (PretrainedModel::layer_stages): { x, output, intermediates:
  // { name: { shape, data } }, shape }, or the error (guarded).
  val stages(val ids, val layer, bool allow_long_work) {
    return guarded([&] {
      const std::vector<int32_t> v = read_ids(*model_, ids);
      if (v.empty()) attn::throw_range("ids", "ids is empty: pass at least one token id");
      model_->check_ids(v, 0);  // before the work caps, as forward
      if (!layer.isNumber()) attn::throw_type("layer", "layer must be a number, got " + describe(layer));
      const int64_t l = model_->check_layer(layer.as<double>());
      const int64_t n = int64_t(v.size());
      const double bytes = model_->work_bytes(n, 0, false) + model_->stages_bytes(n);
      if (bytes > attn::kMaxWorkBytes) {
        attn::throw_range("ids", "the stages of " + attn::fmt(double(n)) + " tokens need about " +
                                     attn::fmt(std::ceil(bytes / 1048576.0)) + " MiB of working memory, above the cap of " +
                                     attn::fmt(attn::kMaxWorkBytes / 1048576.0) + " MiB: pass fewer ids");
      }
      pt::check_work_memory(bytes, "ids", "the stages of " + attn::fmt(double(n)) + " tokens");
      check_call(*model_, n, 0, true, false, allow_long_work);
      const pt::StageRecord r = model_->layer_stages(v, l);
      val out = val::object();
      out.set("x", to_js(r.x.data(), r.x.size()));
      out.set("output", to_js(r.output.data(), r.output.size()));
      out.set("intermediates", stages_to_js(r.stages));
      out.set("shape", stage_shape(l, n));
      return out;
    });
  }

  // A RawPretrainedSession, or the error (guarded).
  val create_session(val max_len) {
    return guarded([&] {
      if (!max_len.isNumber()) attn::throw_type("maxLen", "maxLen must be a number, got " + describe(max_len));
      return JsSession(model_, max_len.as<double>());
    });
  }

 private:
  std::shared_ptr<const pt::PretrainedModel> model_;
};

// The loader: planned and checked by create (nothing allocated before the checks pass), then
// filled tensor by tensor by JS, then finished into a model.
class JsLoader {
 public:
  // createPretrainedLoader(configText, headers, sizes): a RawPretrainedLoader, or the error (guarded).
  static val create(std::string config_text, val headers, val sizes) {
    return guarded([&] { return JsLoader(make(config_text, headers, sizes)); });
  }

  double copy_count() const { return double(loader_->copies().size()); }
  val copy(double i) const {
    const auto& c = loader_->copies().at(std::size_t(i));
    val o = val::object();
    o.set("name", c.name); o.set("file", c.file); o.set("begin", double(c.begin)); o.set("end", double(c.end));
    return o;
  }
  val write(double i, val bytes) {
    return guarded([&] {
      const auto& c = loader_->copies().at(std::size_t(i));
      const std::size_t n = std::size_t(c.end - c.begin);
      if (bytes["length"].as<double>() != double(n)) {
        attn::throw_range("weights." + c.name, "weights." + c.name + ": read " + attn::fmt(bytes["length"].as<double>()) +
                                                   " bytes, expected " + attn::fmt(double(n)) + " (the file changed while loading?)");
      }
      val(emscripten::typed_memory_view(n, loader_->destination(std::size_t(i)))).call<void>("set", bytes);
    });
  }
  // writeAt(i, offset, bytes): a piece of copy i's bytes, at `offset` in it (a file read as a stream,
  // whose chunks do not end where tensors do).
  val write_at(double i, double offset, val bytes) {
    return guarded([&] {
      const auto& c = loader_->copies().at(std::size_t(i));
      const double n = double(c.end - c.begin), length = bytes["length"].as<double>();
      if (!(offset >= 0 && offset + length <= n)) {
        attn::throw_range("weights." + c.name, "weights." + c.name + ": bytes " + attn::fmt(offset) + " to " + attn::fmt(offset + length) +
                                                   " are past its " + attn::fmt(n));
      }
      val(emscripten::typed_memory_view(std::size_t(length), loader_->destination(std::size_t(i)) + std::size_t(offset)))
          .call<void>("set", bytes);
    });
  }
  double bytes() const { return loader_->bytes(); }
  // A RawPretrained, or the error (guarded).
  val finish() {
    return guarded([&] { return JsModel(loader_->finish()); });
  }

 private:
  explicit JsLoader(std::unique_ptr<pt::CheckpointLoader> loader) : loader_(std::move(loader)) {}
  static std::unique_ptr<pt::CheckpointLoader> make(const std::string& config_text, const val& headers, const val& sizes) {
    const nlohmann::json config = parse_config(config_text);
    const auto n = std::size_t(headers["length"].as<double>());
    std::vector<pt::SafetensorsIndex> files;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string field = n == 1 ? "weights" : "weights[" + std::to_string(i) + "]";
      const std::string header = read_bytes(headers[i], field, double(pt::kMaxHeaderBytes));
      files.push_back(pt::parse_safetensors_header(header, int64_t(sizes[i].as<double>()), int(i), field));
    }
    return std::make_unique<pt::CheckpointLoader>(config, files);
  }
  std::unique_ptr<pt::CheckpointLoader> loader_;
};

// The header length from a file's first bytes (at most 8), checked against its size.
val header_length_js(val first, double file_size, std::string field) {
  return guarded([&] {
    const std::string b = read_bytes(first, field, 8);
    return double(pt::safetensors_header_length(reinterpret_cast<const uint8_t*>(b.data()), int64_t(b.size()),
                                                int64_t(file_size), field));
  });
}

// checkPretrainedConfig(configText): what the loader reads of a config.json alone (config_info), or the
// error naming the key it refuses (an architecture, mixture-of-experts layers, a setting it does not
// compute): a checkpoint can be refused before any of its weights is fetched.
val check_config_js(std::string config_text) {
  return guarded([&] {
    return config_info(pt::read_config(parse_config(config_text)));
  });
}

val limits_js() {
  val o = val::object();
  o.set("maxCheckpointBytes", pt::kMaxCheckpointBytes);
  o.set("maxHeaderBytes", double(pt::kMaxHeaderBytes));
  o.set("maxConfigBytes", pt::kMaxConfigBytes);
  o.set("maxModuleBytes", pt::kMaxModuleBytes);
  return o;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_pretrained) {
  emscripten::function("headerLength", &header_length_js);
  emscripten::function("pretrainedLimits", &limits_js);
  emscripten::function("checkPretrainedConfig", &check_config_js);
  emscripten::function("createPretrainedLoader", &JsLoader::create);
  emscripten::class_<JsLoader>("RawPretrainedLoader")
      .function("copyCount", &JsLoader::copy_count)
      .function("copy", &JsLoader::copy)
      .function("write", &JsLoader::write)
      .function("writeAt", &JsLoader::write_at)
      .function("bytes", &JsLoader::bytes)
      .function("finish", &JsLoader::finish);
  emscripten::class_<JsModel>("RawPretrained")
      .function("info", &JsModel::info)
      .function("forward", &JsModel::forward)
      .function("stages", &JsModel::stages)
      .function("createSession", &JsModel::create_session);
  emscripten::class_<JsSession>("RawPretrainedSession")
      .function("append", &JsSession::append)
      .function("length", &JsSession::length)
      .function("maxLen", &JsSession::max_len)
      .function("cacheBytes", &JsSession::cache_bytes)
      .function("reset", &JsSession::reset);
}
