// bindings_configurator.cpp — the configurator's search (attn.recommend, core/src/configurator.cpp) and
// its deployment targets: Embind verbs only, linked into a small module of their own
// (attention-configurator, one for every build: no kernel runs here), which a page loads when a view
// asks for them (attn.loadConfigurator(), or attn.loadTraining()). The search is code the heatmap's
// first map does not need (docs/performance.md); presets() and sizeTable() stay in the attention
// module, which every view loads.
//
//   M.recommend({ paramBudget, seqLen, ... })  -> { dModel, nHeads, ..., alternatives: [...] }, or the error
//   M.deploymentTargets()                      -> [{ id, name, memoryBytes, message }]
// The sentences come twice: in English (justification, reasons, ...) and as messages (messages: { id,
// params }), which a page writes in its own language.
// Every verb returns its error as a value (js_convert.hpp, guarded): attention-api.mjs throws it.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "attn/configurator.hpp"
#include "js_convert.hpp"

namespace {

using emscripten::val;
using namespace attn_js;

// A message (attn/message.hpp) as { id, params }: a count as a number, other values as an object that
// says what they are ({ parameters }, { bytes }, { decimalBytes }, { ratio }, { decimal }, { text }),
// a part that is a message itself as { id, params }.
val message_js(const attn::Message& m) {
  using Kind = attn::MessageArg::Kind;
  val params = val::object();
  for (const auto& a : m.args) {
    const auto tagged = [&](const char* unit, val v) {
      val o = val::object();
      o.set(unit, v);
      return o;
    };
    switch (a.kind) {
      case Kind::Count: params.set(a.name, val(a.number)); break;
      case Kind::Parameters: params.set(a.name, tagged("parameters", val(a.number))); break;
      case Kind::Bytes: params.set(a.name, tagged("bytes", val(a.number))); break;
      case Kind::Gigabytes: params.set(a.name, tagged("decimalBytes", val(a.number))); break;
      case Kind::Ratio: params.set(a.name, tagged("ratio", val(a.number))); break;
      case Kind::Decimal: params.set(a.name, tagged("decimal", val(a.number))); break;
      case Kind::Text: params.set(a.name, tagged("text", val(a.text))); break;
      case Kind::Message: params.set(a.name, a.message.empty() ? val::null() : message_js(a.message.front())); break;
    }
  }
  val o = val::object();
  o.set("id", m.id);
  o.set("params", params);
  return o;
}

val messages_js(const std::vector<attn::Message>& list) {
  val a = val::array();
  for (const auto& m : list) a.call<void>("push", message_js(m));
  return a;
}

val recommend_js(val cfg) {
  return guarded([&] {
    require_object(cfg, "recommend request");
    std::set<std::string> known = {attn::kRecommendFlag};
    for (const auto& f : attn::recommend_number_fields()) known.insert(f.name);
    for (const auto& f : attn::recommend_string_fields()) known.insert(f.name);
    check_keys(cfg, "recommend request", known);
    attn::RecommendQuery q;
    for (const auto& f : attn::recommend_number_fields()) q.*f.member = number_field(cfg, f.name);
    for (const auto& f : attn::recommend_string_fields()) q.*f.member = string_field(cfg, f.name);
    q.benchmark = bool_field(cfg, attn::kRecommendFlag).value_or(false);
    const attn::Recommendation r = attn::recommend(q);
    val o = val::object();
    attn::visit_recommendation(r, [&](const char* name, const auto& value) {
      if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::vector<attn::Alternative>>) {
        val alts = val::array();
        for (const auto& a : value) {
          alts.call<void>("push", object_of([&](auto&& out) { attn::visit_alternative(r, a, out); }));
        }
        o.set(name, alts);
      } else if constexpr (std::is_same_v<std::decay_t<decltype(value)>, attn::Recommendation::Messages>) {
        val m = val::object();
        m.set("justification", message_js(value.justification));
        m.set("reasons", messages_js(value.reasons));
        m.set("warnings", messages_js(value.warnings));
        m.set("init", message_js(value.init));
        m.set("bias", message_js(value.bias));
        m.set("check", message_js(value.check));
        o.set(name, m);
      } else {
        o.set(name, to_val(value));
      }
    });
    return o;
  });
}

val deployment_targets_js() {
  val list = val::array();
  for (const auto& t : attn::deployment_targets()) {
    val o = val::object();
    attn::visit_target(t, [&](const char* name, const auto& value) {
      if constexpr (std::is_same_v<std::decay_t<decltype(value)>, attn::Message>) o.set(name, message_js(value));
      else o.set(name, to_val(value));
    });
    list.call<void>("push", o);
  }
  return list;
}

}  // namespace

EMSCRIPTEN_BINDINGS(configurator) {
  emscripten::function("recommend", &recommend_js);
  emscripten::function("deploymentTargets", &deployment_targets_js);
}
