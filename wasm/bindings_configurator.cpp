// bindings_configurator.cpp — the configurator's search (attn.recommend, core/src/configurator.cpp) and
// its deployment targets: Embind verbs only, linked into a small module of their own
// (attention-configurator, one for every build: no kernel runs here), which a page loads when a view
// asks for them (attn.loadConfigurator(), or attn.loadTraining()). The search is code the heatmap's
// first map does not need (docs/performance.md); presets() and sizeTable() stay in the attention
// module, which every view loads.
//
//   M.recommend({ paramBudget, seqLen, ... })  -> { dModel, nHeads, ..., alternatives: [...] }, or the error
//   M.deploymentTargets()                      -> [{ id, name, memoryBytes, ... }]
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
      } else {
        o.set(name, to_val(value));
      }
    });
    return o;
  });
}

val deployment_targets_js() {
  val list = val::array();
  for (const auto& t : attn::deployment_targets()) list.call<void>("push", object_of([&](auto&& out) { attn::visit_target(t, out); }));
  return list;
}

}  // namespace

EMSCRIPTEN_BINDINGS(configurator) {
  emscripten::function("recommend", &recommend_js);
  emscripten::function("deploymentTargets", &deployment_targets_js);
}
