// configurator.hpp — the lesson's configurator: from a parameter budget (or dModel + layers), a
// target context, a batch and a deployment target, recommend the attention geometry and say why.
//
// Everything it decides comes from three tables (configurator.cpp, documented in
// docs/configurator.md): the size table (rule-of-thumb shapes at anchor budgets), the deployment
// targets, and the ordered variant rules. Each rule that fires is reported by id with its reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "attn/spec.hpp"

namespace attn {

struct RecommendQuery {
  std::optional<double> param_budget, d_model, n_layers;
  std::optional<double> seq_len, batch, memory_bytes, bytes_per_element, weight_bytes_per_param;
  std::optional<std::string> target, priority, variant;
  bool benchmark = false;  // allow MLA under 1B parameters (the point is to benchmark it)
};

struct Alternative {
  Variant variant;
  int64_t n_kv_heads, latent_rank, rope_dim;
  double kv_bytes_total;
  bool fits;  // weights + this cache <= memory (false without a target; JS gets null then)
};

struct Recommendation {
  Variant variant = Variant::GQA;
  int64_t d_model = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, d_head = 0, latent_rank = 0, rope_dim = 0;
  double params = 0;                    // estimated total parameters of the shape
  double kv_bytes_per_token_per_layer = 0, kv_bytes_per_token = 0, kv_bytes_total = 0, weight_bytes = 0;
  std::optional<double> memory_bytes;   // the deployment target's memory, if any
  std::optional<bool> fits;             // weights + cache <= memory
  std::optional<double> margin_bytes;   // memory - weights - cache
  std::string justification;            // one sentence, by the KV cache
  std::vector<std::string> reasons, warnings, rules;
  std::string init, bias, check;
  std::vector<Alternative> alternatives;  // the ladder of variants it priced
};

Recommendation recommend(const RecommendQuery& q);

// One row of the size table: the rule-of-thumb shape at an anchor budget.
struct SizeRow {
  double params;          // anchor budget
  int64_t d_model, n_heads, d_head, n_layers;
  const char* source;
};
const std::vector<SizeRow>& size_table();

struct DeploymentTarget {
  const char* id;
  const char* name;
  double memory_bytes;
};
const std::vector<DeploymentTarget>& deployment_targets();

}  // namespace attn
