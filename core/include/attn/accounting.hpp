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

}  // namespace attn
