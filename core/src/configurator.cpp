// configurator.cpp — the configurator's tables and rules (see configurator.hpp, docs/configurator.md).
#include "attn/configurator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attn/accounting.hpp"
#include "attn/errors.hpp"
#include "attn/fields.hpp"

namespace attn {

// ---------------------------------------------------------------------------------------------
// The tables.

// Rule-of-thumb shapes at anchor budgets: the lesson's table (125M, 350M, 1B, 70B) and the real
// models between them. A budget takes the nearest anchor (in log scale) and scales its layers.
const std::vector<SizeRow>& size_table() {
  static const std::vector<SizeRow> rows = {
      {125e6, 768, 12, 64, 12, "lesson: Small (~125M); GPT-2 small"},
      {350e6, 1024, 16, 64, 24, "lesson: Base (~350M); GPT-2 medium"},
      {1e9, 2048, 16, 128, 16, "lesson: Large (~1B); Llama 3.2 1B has dModel 2048 and 16 layers"},
      {3e9, 3072, 24, 128, 28, "Llama 3.2 3B"},
      {8e9, 4096, 32, 128, 32, "Llama 3 8B, Mistral 7B"},
      {13e9, 5120, 40, 128, 40, "Llama 2 13B"},
      {33e9, 6656, 52, 128, 60, "LLaMA 33B"},
      {70e9, 8192, 64, 128, 80, "lesson: Frontier (~70B); Llama 3 70B"},
      {405e9, 16384, 128, 128, 126, "Llama 3.1 405B"},
  };
  return rows;
}

const std::vector<DeploymentTarget>& deployment_targets() {
  static const std::vector<DeploymentTarget> targets = {
      {"phone", "phone or browser tab (4 GB)", 4e9},
      {"laptop-16gb", "16 GB laptop", 16e9},
      {"gpu-24gb", "24 GB GPU (RTX 4090)", 24e9},
      {"gpu-80gb", "80 GB GPU (A100 / H100)", 80e9},
  };
  return targets;
}

namespace {

constexpr double kMinBudget = 10e6, kMaxBudget = 2e12;
constexpr int64_t kMinHeadWidth = 32;      // the lesson's refusal: d_head < 32
constexpr int64_t kMhaMaxHeadsLong = 16;   // MHA with more heads than this ...
constexpr double kLongContext = 32768;     // ... beyond this context is refused unless priced
constexpr double kMlaMinParams = 1e9;      // MLA under 1B parameters only to benchmark it
constexpr double kSmallModel = 1e9;        // balanced: below this size and ...
constexpr double kShortContext = 8192;     // ... up to this context, MHA's cache is cheap
constexpr double kHeadroom = 0.10;         // fits with less than 10 % of memory left: a warning
constexpr int64_t kGqaGroups = 8;          // GQA's default K/V heads (Llama 2 70B, Llama 3, Mistral)

Message variant_label(Variant v, int64_t g, int64_t r, int64_t dr) {
  switch (v) {
    case Variant::MHA: return {"variant-mha", {}};
    case Variant::MQA: return {"variant-mqa", {}};
    case Variant::GQA: return {"variant-gqa", {arg_count("g", double(g))}};
    case Variant::MLA: return {"variant-mla", {arg_count("r", double(r)), arg_count("dr", double(dr))}};
  }
  return {"variant-mha", {}};
}

// One rung of the variant ladder, priced at the query's context and batch.
struct Rung {
  Variant variant;
  int64_t g, r, dr;
};
std::string short_name(const Rung& r) {
  switch (r.variant) {
    case Variant::MHA: return "MHA";
    case Variant::MQA: return "MQA";
    case Variant::GQA: return "GQA-" + fmt(double(r.g));
    case Variant::MLA: return "MLA";
  }
  return "?";
}

struct Context {
  double params, seq, batch, bpe, weight_bytes;
  std::optional<double> memory;
  int64_t h, dh, layers;
  double kv_total(const Rung& x) const {
    return kv_elements_per_token_per_layer(x.variant, h, x.g, dh, x.r, x.dr) * bpe * double(layers) * seq * batch;
  }
  bool fits(const Rung& x) const { return memory && weight_bytes + kv_total(x) <= *memory; }
};

}  // namespace

const std::vector<RecommendNumberField>& recommend_number_fields() {
  static const std::vector<RecommendNumberField> table = {
      {"paramBudget", &RecommendQuery::param_budget},   {"dModel", &RecommendQuery::d_model},
      {"nLayers", &RecommendQuery::n_layers},           {"seqLen", &RecommendQuery::seq_len},
      {"batch", &RecommendQuery::batch},                {"memoryBytes", &RecommendQuery::memory_bytes},
      {"bytesPerElement", &RecommendQuery::bytes_per_element},
      {"weightBytesPerParam", &RecommendQuery::weight_bytes_per_param},
  };
  return table;
}

const std::vector<RecommendStringField>& recommend_string_fields() {
  static const std::vector<RecommendStringField> table = {
      {"target", &RecommendQuery::target}, {"priority", &RecommendQuery::priority}, {"variant", &RecommendQuery::variant}};
  return table;
}

Recommendation recommend(const RecommendQuery& q) {
  Recommendation rec;
  auto fire = [&](const char* id, Message reason) {
    rec.rules.push_back(id);
    rec.messages.reasons.push_back(std::move(reason));
  };
  auto warn = [&](const char* id, Message warning) {
    rec.rules.push_back(id);
    rec.messages.warnings.push_back(std::move(warning));
  };

  // --- the request ------------------------------------------------------------------------------
  if (!q.seq_len) throw_type("seqLen", "seqLen is required: the target context length in tokens");
  const double seq = double(integer_field("seqLen", q.seq_len, 1, 1e8));
  const double batch = double(integer_field("batch", q.batch, 1, 1e6, 1));
  const double bpe = number_field("bytesPerElement", q.bytes_per_element, 0.125, 16, 2.0);
  const double wbpp = number_field("weightBytesPerParam", q.weight_bytes_per_param, 0.125, 16, 2.0);
  const std::string priority = q.priority.value_or("balanced");
  if (priority != "quality" && priority != "balanced" && priority != "memory") {
    throw_range("priority", "priority (" + quoted(priority) + ") must be 'quality', 'balanced' or 'memory'");
  }
  std::optional<Variant> forced;
  if (q.variant) forced = parse_variant(q.variant);
  if (q.target && q.memory_bytes) throw_range("target", "give target or memoryBytes, not both");
  if (q.target) {
    const auto& ts = deployment_targets();
    auto it = std::find_if(ts.begin(), ts.end(), [&](const DeploymentTarget& t) { return *q.target == t.id; });
    if (it == ts.end()) {
      std::string ids;
      for (const auto& t : ts) ids += (ids.empty() ? "'" : ", '") + std::string(t.id) + "'";
      throw_range("target", "target (" + quoted(*q.target) + ") must be one of " + ids + ", or give memoryBytes");
    }
    rec.memory_bytes = it->memory_bytes;
  } else if (q.memory_bytes) {
    rec.memory_bytes = number_field("memoryBytes", q.memory_bytes, 1, 1e16);
  }

  // --- the shape: size table, or dModel + nLayers given -----------------------------------------
  int64_t d, h, dh, layers;
  double params;
  if (q.param_budget) {
    if (q.d_model || q.n_layers) throw_range("paramBudget", "give paramBudget or dModel + nLayers, not both");
    const double budget = *q.param_budget;
    if (!std::isfinite(budget) || budget < kMinBudget) {
      throw_range("paramBudget", "paramBudget (" + fmt(budget) + ") is too small for any shape the configurator recommends: " +
                  "it needs at least " + fmt(kMinBudget) + " parameters (a dModel of 64 with d_head >= 32)");
    }
    if (budget > kMaxBudget) throw_range("paramBudget", "paramBudget (" + fmt(budget) + ") must be at most " + fmt(kMaxBudget));
    const auto& rows = size_table();
    const SizeRow* best = &rows[0];
    for (const auto& r : rows) {
      if (std::fabs(std::log(budget / r.params)) < std::fabs(std::log(budget / best->params))) best = &r;
    }
    d = best->d_model;
    h = best->n_heads;
    dh = best->d_head;
    layers = std::max<int64_t>(1, std::llround(double(best->n_layers) * budget / best->params));
    params = budget;
    Message m{layers != best->n_layers ? "reason-size-table-scaled" : "reason-size-table",
              {arg_params("budget", budget), arg_params("anchor", best->params), arg_text("source", best->source),
               arg_count("dModel", double(d)), arg_count("heads", double(h)), arg_count("dHead", double(dh)),
               arg_count("layers", double(best->n_layers))}};
    if (layers != best->n_layers) m.args.push_back(arg_count("scaled", double(layers)));
    fire("size-table", std::move(m));
  } else {
    if (!q.d_model || !q.n_layers) throw_type("paramBudget", "paramBudget is required, or both dModel and nLayers");
    d = integer_field("dModel", q.d_model, 1, 131072);
    layers = integer_field("nLayers", q.n_layers, 1, 1000);
    dh = 0;
    for (int64_t w : {d >= 2048 ? int64_t(128) : int64_t(64), int64_t(64), int64_t(128), int64_t(96), int64_t(80),
                      int64_t(48), int64_t(32)}) {
      if (d % w == 0 && w >= kMinHeadWidth) { dh = w; break; }
    }
    if (dh == 0) {
      throw_range("dModel", "dModel (" + fmt(double(d)) + ") has no head width of at least 32 that divides it: the configurator " +
                  "refuses d_head < 32 (heads start fighting the sqrt(d_head) scale); use a multiple of 32");
    }
    h = d / dh;
    // Estimate (model_params): attention of the MHA shape, 4*D^2 (GQA/MLA save part of it), MLP
    // 8*D^2, embeddings 32K * D.
    Shape mha;
    mha.variant = Variant::MHA;
    mha.d = d;
    mha.h = mha.g = d / dh;
    mha.dh = dh;
    params = model_params(mha, layers);
    fire("direct-shape", {"reason-direct-shape", {arg_count("dModel", double(d)), arg_count("layers", double(layers)),
                                                  arg_count("dHead", double(dh)), arg_count("heads", double(h))}});
  }
  rec.d_model = d;
  rec.n_heads = h;
  rec.d_head = dh;
  rec.n_layers = layers;
  rec.params = params;
  rec.weight_bytes = params * wbpp;

  Context c{params, seq, batch, bpe, rec.weight_bytes, rec.memory_bytes, h, dh, layers};
  const bool mla_allowed = params >= kMlaMinParams || q.benchmark;

  // --- the ladder: MHA, GQA-8/4/2, MQA, MLA (where allowed) ---------------------------------------
  std::vector<Rung> ladder = {{Variant::MHA, h, 0, 0}};
  for (int64_t g : {int64_t(8), int64_t(4), int64_t(2)}) {
    if (g < h && h % g == 0) ladder.push_back({Variant::GQA, g, 0, 0});
  }
  ladder.push_back({Variant::MQA, 1, 0, 0});
  const Rung mla{Variant::MLA, h, 4 * dh, dh / 2};  // DeepSeek-V2/V3 ratios: r = 512, dr = 64 at d_head 128
  if (mla_allowed || (forced && *forced == Variant::MLA)) ladder.push_back(mla);
  // From the largest cache to the smallest: the fit rule takes the first rung that fits, i.e. the
  // most K/V capacity the memory allows. (MLA's r + dr = 4.5 dh sits between GQA-4 and GQA-2.)
  std::stable_sort(ladder.begin(), ladder.end(), [&](const Rung& a, const Rung& b) {
    return kv_elements_per_token_per_layer(a.variant, h, a.g, dh, a.r, a.dr) >
           kv_elements_per_token_per_layer(b.variant, h, b.g, dh, b.r, b.dr);
  });
  std::string ladder_text;  // notation, e.g. "MHA > GQA-8 > GQA-4 > MLA > GQA-2 > MQA"
  for (const Rung& r : ladder) ladder_text += (ladder_text.empty() ? "" : " > ") + short_name(r);
  auto rung_of = [&](Variant v) {
    for (const Rung& r : ladder) if (r.variant == v) return r;
    return ladder.front();
  };
  const Rung mha = ladder.front();
  const Rung gqa = ladder.size() > 1 && ladder[1].variant == Variant::GQA ? ladder[1] : ladder.front();

  // --- the variant rules, in order ----------------------------------------------------------------
  Rung pick;
  if (forced) {
    pick = rung_of(*forced);
    if (*forced == Variant::GQA && pick.variant != Variant::GQA) {
      throw_range("variant", "variant ('gqa') needs a K/V head count that divides nHeads (" + fmt(double(h)) + "): none of 8, 4, 2 does");
    }
    fire("forced-variant", {"reason-forced-variant", {arg_message("variant", variant_label(pick.variant, pick.g, pick.r, pick.dr))}});
  } else if (priority == "quality") {
    pick = mha;
    fire("quality-mha", {"reason-quality-mha", {}});
  } else if (priority == "memory") {
    if (mla_allowed) {
      pick = mla;
      fire("memory-mla", {"reason-memory-mla", {arg_count("r", double(mla.r)), arg_count("dr", double(mla.dr))}});
    } else {
      pick = rung_of(Variant::MQA);
      fire("memory-mqa", {"reason-memory-mqa", {}});
    }
  } else if (params < kSmallModel && seq <= kShortContext) {
    pick = mha;
    fire("balanced-small-mha", {"reason-balanced-small-mha", {arg_params("params", params), arg_count("seqLen", seq)}});
  } else {
    pick = gqa;
    fire("balanced-gqa", {"reason-balanced-gqa", {arg_count("g", double(gqa.g)),
                                                  arg_count("fraction", double(h / std::max<int64_t>(gqa.g, 1)))}});
  }

  // Refusal: MHA with more than 16 heads beyond 32K context, unless priced and GQA/MLA offered.
  if (pick.variant == Variant::MHA && h > kMhaMaxHeadsLong && seq > kLongContext) {
    Message priced{mla_allowed ? "priced-mla" : "priced",
                   {arg_count("heads", double(h)), arg_count("seqLen", seq), arg_bytes("mha", c.kv_total(mha)),
                    arg_count("g", double(gqa.g)), arg_bytes("gqa", c.kv_total(gqa))}};
    if (mla_allowed) priced.args.push_back(arg_bytes("mla", c.kv_total(mla)));
    if (forced) {
      warn("refuse-mha-long-context", {"warning-refuse-mha-long-context", {arg_message("priced", priced)}});
    } else {
      pick = gqa;
      fire("refuse-mha-long-context", {"reason-refuse-mha-long-context", {arg_message("priced", priced)}});
    }
  }
  // Refusal: MLA under 1B parameters unless the point is to benchmark it.
  if (pick.variant == Variant::MLA && params < kMlaMinParams && !q.benchmark) {
    warn("refuse-mla-small", {"warning-refuse-mla-small", {arg_params("params", params)}});
  }

  // Fit: walk down the ladder until weights + cache fit the target (a forced variant is only priced).
  if (rec.memory_bytes && !c.fits(pick) && !forced) {
    const Rung before = pick;
    auto it = std::find_if(ladder.begin(), ladder.end(), [&](const Rung& r) {
      return r.variant == pick.variant && r.g == pick.g;
    });
    for (; it != ladder.end(); ++it) {
      if (c.fits(*it)) { pick = *it; break; }
    }
    if (pick.variant != before.variant || pick.g != before.g) {
      fire("fit-ladder", {"reason-fit-ladder", {arg_message("before", variant_label(before.variant, before.g, before.r, before.dr)),
                                                arg_gb("memory", *rec.memory_bytes), arg_gb("weights", rec.weight_bytes),
                                                arg_gb("cache", c.kv_total(before)),
                                                arg_message("pick", variant_label(pick.variant, pick.g, pick.r, pick.dr)),
                                                arg_text("ladder", ladder_text)}});
    }
  }

  // --- the numbers -------------------------------------------------------------------------------
  rec.variant = pick.variant;
  rec.n_kv_heads = pick.variant == Variant::MLA ? 0 : pick.g;
  rec.latent_rank = pick.r;
  rec.rope_dim = pick.dr;
  rec.kv_bytes_per_token_per_layer = kv_elements_per_token_per_layer(pick.variant, h, pick.g, dh, pick.r, pick.dr) * bpe;
  rec.kv_bytes_per_token = rec.kv_bytes_per_token_per_layer * double(layers);
  rec.kv_bytes_total = c.kv_total(pick);
  for (const Rung& r : ladder) rec.alternatives.push_back({r.variant, r.variant == Variant::MLA ? 0 : r.g, r.r, r.dr, c.kv_total(r), c.fits(r)});

  const Message name = variant_label(pick.variant, pick.g, pick.r, pick.dr);
  const double vs_mha = c.kv_total(mha) / std::max(rec.kv_bytes_total, 1.0);
  Message context = batch > 1 ? Message{"context-batch", {arg_count("seqLen", seq), arg_count("batch", batch)}}
                              : Message{"context-tokens", {arg_count("seqLen", seq)}};
  Message comparison = pick.variant != Variant::MHA
                           ? Message{"vs-mha", {arg_ratio("ratio", vs_mha), arg_bytes("mha", c.kv_total(mha))}}
                           : Message{"per-token", {arg_bytes("perToken", rec.kv_bytes_per_token)}};
  Message sentence{"", {arg_message("variant", name), arg_message("context", context), arg_bytes("cache", rec.kv_bytes_total),
                        arg_message("comparison", comparison)}};
  if (rec.memory_bytes) {
    const double used = rec.weight_bytes + rec.kv_bytes_total;
    rec.fits = used <= *rec.memory_bytes;
    rec.margin_bytes = *rec.memory_bytes - used;
    sentence.id = *rec.fits ? "justification-fits" : "justification-fits-not";
    sentence.args.push_back(arg_gb("memory", *rec.memory_bytes));
    sentence.args.push_back(*rec.fits ? arg_gb("margin", *rec.margin_bytes) : arg_gb("used", used));
    if (rec.weight_bytes > *rec.memory_bytes) {
      warn("weights-exceed-memory", {"warning-weights-exceed-memory", {arg_gb("weights", rec.weight_bytes),
                                     arg_decimal("bytesPerParam", wbpp), arg_gb("memory", *rec.memory_bytes)}});
    } else if (!*rec.fits) {
      warn("does-not-fit", {"warning-does-not-fit", {arg_message("variant", name)}});
    } else if (*rec.margin_bytes < kHeadroom * *rec.memory_bytes) {
      warn("little-headroom", {"warning-little-headroom", {arg_gb("margin", *rec.margin_bytes)}});
    }
  } else {
    sentence.id = "justification-no-target";
  }
  rec.messages.justification = std::move(sentence);

  rec.messages.init = {"init", {arg_decimal("std", 0.02 / std::sqrt(2.0 * double(layers)))}};
  rec.messages.bias = {"bias", {}};
  const int64_t h_small = std::min<int64_t>(h, 8);
  const int64_t g_small = pick.variant == Variant::MQA ? 1 : pick.variant == Variant::GQA ? std::max<int64_t>(1, h_small * pick.g / h) : h_small;
  if (pick.variant == Variant::GQA || pick.variant == Variant::MQA) {
    rec.messages.check = {"check-kv", {arg_count("heads", double(h_small)), arg_count("kvHeads", double(g_small))}};
  } else {
    rec.messages.check = {pick.variant == Variant::MLA ? "check-mla" : "check", {arg_count("heads", double(h_small))}};
  }

  // The English of every message: the API's sentences.
  rec.justification = english(rec.messages.justification);
  for (const Message& m : rec.messages.reasons) rec.reasons.push_back(english(m));
  for (const Message& m : rec.messages.warnings) rec.warnings.push_back(english(m));
  rec.init = english(rec.messages.init);
  rec.bias = english(rec.messages.bias);
  rec.check = english(rec.messages.check);
  return rec;
}

}  // namespace attn
