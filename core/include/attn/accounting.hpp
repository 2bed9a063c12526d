// accounting.hpp — what a block costs, from its Shape alone: parameter counts, KV-cache sizes (DeepSeek-V2 Table 1),
// floating-point operations, and real-model presets. Every cache size in the project (the KV cache's
// own bytes, the working-memory caps, the JS kvCacheBytes) comes from kv_elements_per_token_per_layer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attn/shape.hpp"

namespace attn {

// Weights of one attention block without biases; entries a variant does not use are 0.
struct ParamCount {
  double wq = 0, wk = 0, wv = 0, wo = 0, w_dkv = 0, w_uk = 0, w_uv = 0, w_qr = 0, w_kr = 0, total = 0;
};
ParamCount param_count(const Shape& s);  // s from resolve(raw, Need::Shape)
// Its fields by their JS names.
template <class Out>
void visit_param_count(const ParamCount& p, Out&& out) {
  out("wq", p.wq); out("wk", p.wk); out("wv", p.wv); out("wo", p.wo);
  out("wDkv", p.w_dkv); out("wUk", p.w_uk); out("wUv", p.w_uv); out("wQr", p.w_qr); out("wKr", p.w_kr);
  out("total", p.total);
}

// The parameters of a whole model: n_layers blocks of shape s, each with an MLP of 8 * D^2 weights
// (hidden width 4D, no biases), and a vocab x D token embedding (tied). The one estimate behind the
// configurator's params of a given shape, the presets' params and paramCount's `model`.
constexpr double kEstimateVocab = 32000;
double model_params(const Shape& s, int64_t n_layers, double vocab = kEstimateVocab);

// KV-cache elements per token per layer (DeepSeek-V2 Table 1):
//   MHA 2*H*dh   GQA 2*G*dh   MQA 2*dh   MLA r + dr
double kv_elements_per_token_per_layer(Variant v, int64_t h, int64_t g, int64_t dh, int64_t r, int64_t dr);
// The same for a resolved shape: the floats one token adds to a KV cache of this block.
double kv_cache_floats_per_token(const Shape& s);

// Floating-point operations (multiply + add = 2) of n new tokens attending to `cached` earlier
// tokens plus themselves (causally when `causal`): projections, scores, p @ v, output projection.
// A causal pass counts only visible keys (N(N+1)/2 per head). MLA counts the naive form.
// Used by the work caps (kMaxSyncFlops) and the benchmarks' GFLOP/s.
double attention_flops(const Shape& s, int64_t n, int64_t cached, bool causal);

// Estimated bytes of float32 working memory for a forward pass / a session of this shape (checked
// against kMaxWorkBytes, spec.hpp, before anything is allocated).
double forward_work_bytes(const Shape& s);
double session_work_bytes(const Shape& s, int64_t new_tokens);

struct Preset {
  std::string id, name, source, notes;
  Variant variant;
  int64_t d_model, n_heads, n_kv_heads, d_head, n_layers;
  int64_t latent_rank = 0, rope_dim = 0;   // MLA only
};
const std::vector<Preset>& presets();
Shape preset_shape(const Preset& p);
// A preset's fields by their JS names; params: model_params of its shape (dense: an MoE's active
// parameters are not modelled).
template <class Out>
void visit_preset(const Preset& p, Out&& out) {
  out("id", p.id); out("name", p.name); out("source", p.source);
  out("variant", std::string(variant_name(p.variant)));
  out("dModel", double(p.d_model)); out("nHeads", double(p.n_heads)); out("nKvHeads", double(p.n_kv_heads));
  out("dHead", double(p.d_head)); out("nLayers", double(p.n_layers));
  if (p.variant == Variant::MLA) {
    out("latentRank", double(p.latent_rank));
    out("ropeDim", double(p.rope_dim));
  }
  out("params", model_params(preset_shape(p), p.n_layers));
  if (!p.notes.empty()) out("notes", p.notes);
}

}  // namespace attn
