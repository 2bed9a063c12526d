// bindings_decode_probe.cpp — the decode probe (core/include/attn/decode_probe.hpp) for the page's
// decode view: Embind verbs only, linked into the training module (attention-train-<build>), which a
// page loads on demand (attn.loadTraining()): the probe runs when asked, never on the first map's path.
//
//   const p = M.createDecodeProbe({ variant: 'gqa', dModel: 4096, nHeads: 32, nKvHeads: 8, maxLen: 8193 });
//   p.cachedStep(context, budgetMs)    -> { context, msPerToken, steps, weightBytes, cacheBytes }
//   p.uncachedStep(context, budgetMs)  -> { context, rows, ms, done, flops }   (call until done)
//   M.decodeCopyBandwidth(budgetMs)    -> bytes read per second by a 64 MiB memcpy
//   p.delete()
// Every verb returns its error as a value (js_convert.hpp, guarded): attention-api.mjs throws it.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>

#include "attn/decode_probe.hpp"
#include "attn/spec.hpp"
#include "js_convert.hpp"

namespace {

using attn_js::guarded;
using emscripten::val;

class JsDecodeProbe {
 public:
  // createDecodeProbe(spec): a session spec (maxLen: the largest context + 1); the probe, or the error.
  static val create(val spec) {
    return guarded([&] {
      attn::RawSpec raw = attn_js::read_spec(spec, "decode probe spec");
      raw.causal = true;
      JsDecodeProbe p;
      p.probe_ = std::make_unique<attn::DecodeProbe>(attn::resolve(raw, attn::Need::Session));
      return p;
    });
  }

  val cached_step(double context, double budget_ms) {
    return guarded([&] {
      const attn::DecodeStepTiming t = probe_->cached_step(context, budget_ms);
      val o = val::object();
      o.set("context", context);
      o.set("msPerToken", t.ms_per_token);
      o.set("steps", double(t.steps));
      o.set("weightBytes", probe_->weight_bytes());
      o.set("cacheBytes", probe_->cache_bytes(int64_t(context)));
      return o;
    });
  }

  val uncached_step(double context, double budget_ms) {
    return guarded([&] {
      const attn::RecomputeProgress p = probe_->uncached_step(context, budget_ms);
      val o = val::object();
      o.set("context", double(p.context));
      o.set("rows", double(p.rows));
      o.set("ms", p.ms);
      o.set("done", p.done);
      o.set("flops", probe_->recompute_flops(p.context));
      return o;
    });
  }

 private:
  std::unique_ptr<attn::DecodeProbe> probe_;
};

val copy_bandwidth_js(double budget_ms) {
  return guarded([&] { return attn::DecodeProbe::copy_bandwidth(budget_ms); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(decode_probe) {
  emscripten::class_<JsDecodeProbe>("RawDecodeProbe")
      .function("cachedStep", &JsDecodeProbe::cached_step)
      .function("uncachedStep", &JsDecodeProbe::uncached_step);
  emscripten::function("createDecodeProbe", &JsDecodeProbe::create);
  emscripten::function("decodeCopyBandwidth", &copy_bandwidth_js);
}
