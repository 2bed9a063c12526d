// configurator.hpp — the lesson's configurator: from a parameter budget (or dModel + layers), a
// target context, a batch and a deployment target, recommend the attention geometry and say why.
//
// Everything it decides comes from three tables (configurator.cpp, documented in
// docs/configurator.md): the size table (rule-of-thumb shapes at anchor budgets), the deployment
// targets, and the ordered variant rules. Each rule that fires is reported by id with its reason.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "attn/message.hpp"
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
  // The same sentences as messages (message.hpp), for a page to write in its own language: the
  // English above is english() of each.
  struct Messages {
    Message justification, init, bias, check;
    std::vector<Message> reasons, warnings;
  } messages;
};

// The core's English of a configurator message (configurator_words.cpp); throws std::logic_error for
// an id it has no template for or a {name} the message has no value for.
std::string english(const Message& m);
// The English templates, by message id: what every catalog of a page must have a sentence for.
const std::vector<std::pair<const char*, const char*>>& configurator_templates();
// How the core writes sizes in its English: 1.0 GiB (binary), 16.0 GB (decimal), 125M / 8.0B parameters.
std::string human_bytes(double b);
std::string human_gb(double b);
std::string human_count(double n);

Recommendation recommend(const RecommendQuery& q);

// The request's fields by their JS names: the one table the JS reader walks (js_convert).
struct RecommendNumberField {
  const char* name;
  std::optional<double> RecommendQuery::*member;
};
const std::vector<RecommendNumberField>& recommend_number_fields();
struct RecommendStringField {
  const char* name;
  std::optional<std::string> RecommendQuery::*member;
};
const std::vector<RecommendStringField>& recommend_string_fields();
// The flag: "benchmark".
constexpr const char* kRecommendFlag = "benchmark";

// The result's fields by their JS names, in the API's order: out(name, value) for each, value a
// double, a std::string, a bool, a std::optional<double> or std::optional<bool> (null when empty),
// a std::vector<std::string>, the alternatives (visit_alternative for each), or the messages. latentRank and
// ropeDim only for MLA. The binding turns the values into JS values and knows no field.
template <class Out>
void visit_recommendation(const Recommendation& r, Out&& out) {
  out("variant", std::string(variant_name(r.variant)));
  out("dModel", double(r.d_model));
  out("nLayers", double(r.n_layers));
  out("nHeads", double(r.n_heads));
  out("nKvHeads", double(r.n_kv_heads));
  out("dHead", double(r.d_head));
  if (r.variant == Variant::MLA) {
    out("latentRank", double(r.latent_rank));
    out("ropeDim", double(r.rope_dim));
  }
  out("params", r.params);
  out("kvBytesPerTokenPerLayer", r.kv_bytes_per_token_per_layer);
  out("kvBytesPerToken", r.kv_bytes_per_token);
  out("kvBytesTotal", r.kv_bytes_total);
  out("weightBytes", r.weight_bytes);
  out("memoryBytes", r.memory_bytes);
  out("fits", r.fits);
  out("marginBytes", r.margin_bytes);
  out("justification", r.justification);
  out("reasons", r.reasons);
  out("warnings", r.warnings);
  out("rules", r.rules);
  out("init", r.init);
  out("bias", r.bias);
  out("check", r.check);
  out("alternatives", r.alternatives);
  out("messages", r.messages);
}
// One alternative; `fits` is null when the request named no memory.
template <class Out>
void visit_alternative(const Recommendation& r, const Alternative& a, Out&& out) {
  out("variant", std::string(variant_name(a.variant)));
  out("nKvHeads", double(a.n_kv_heads));
  if (a.variant == Variant::MLA) {
    out("latentRank", double(a.latent_rank));
    out("ropeDim", double(a.rope_dim));
  }
  out("kvBytesTotal", a.kv_bytes_total);
  out("fits", r.memory_bytes ? std::optional<bool>(a.fits) : std::nullopt);
}

// One row of the size table: the rule-of-thumb shape at an anchor budget.
struct SizeRow {
  double params;          // anchor budget
  int64_t d_model, n_heads, d_head, n_layers;
  const char* source;
};
const std::vector<SizeRow>& size_table();
// A row's fields by their JS names (lesson: a row of the lesson's own table).
template <class Out>
void visit_size_row(const SizeRow& r, Out&& out) {
  out("params", r.params);
  out("dModel", double(r.d_model));
  out("nHeads", double(r.n_heads));
  out("dHead", double(r.d_head));
  out("nLayers", double(r.n_layers));
  out("source", std::string(r.source));
  out("lesson", std::string(r.source).rfind("lesson:", 0) == 0);
}

struct DeploymentTarget {
  const char* id;
  const char* name;
  double memory_bytes;
};
const std::vector<DeploymentTarget>& deployment_targets();
template <class Out>
void visit_target(const DeploymentTarget& t, Out&& out) {
  out("id", std::string(t.id));
  out("name", std::string(t.name));
  out("memoryBytes", t.memory_bytes);
  out("message", Message{"target-" + std::string(t.id), {arg_gb("memory", t.memory_bytes)}});
}

}  // namespace attn
