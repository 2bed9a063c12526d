// configurator_words.cpp — the core's English for the configurator's messages (message.hpp): one
// template per message id, its {name}s filled with the message's arguments written the way the core
// writes numbers (125M, 1.0 GiB, 16.0 GB). The page has its own words for the same ids (its catalogs'
// cfg.msg.<id>); the API keeps both: the English sentences and the messages they were made from.
#include <cstdio>
#include <stdexcept>

#include "attn/configurator.hpp"
#include "attn/errors.hpp"

namespace attn {

const std::vector<std::pair<const char*, const char*>>& configurator_templates() {
  static const std::vector<std::pair<const char*, const char*>> table = {
      // variants, as the sentences name them
      {"variant-mha", "MHA"},
      {"variant-mqa", "MQA"},
      {"variant-gqa", "GQA with {g} KV heads"},
      {"variant-mla", "MLA (latent rank {r}, RoPE key {dr})"},
      // the reasons: one per rule that fired
      {"reason-size-table", "Size table: {budget} parameters is nearest the {anchor} anchor ({source}): dModel {dModel}, {heads} heads of {dHead}, {layers} layers."},
      {"reason-size-table-scaled", "Size table: {budget} parameters is nearest the {anchor} anchor ({source}): dModel {dModel}, {heads} heads of {dHead}, {layers} layers, scaled to {scaled} layers for this budget."},
      {"reason-direct-shape", "Shape given: dModel {dModel} and {layers} layers; d_head {dHead} (64 up to dModel 1024, 128 from 2048) gives {heads} heads."},
      {"reason-forced-variant", "Variant {variant} was asked for; the configurator prices it."},
      {"reason-quality-mha", "Priority quality: MHA, every query head with its own keys and values (DeepSeek-V2 Table 8: MHA leads GQA-8 and MQA on BBH and MMLU at 7B)."},
      {"reason-memory-mla", "Priority memory: MLA caches a latent of rank {r} plus a RoPE key of {dr} per token, like DeepSeek-V2/V3."},
      {"reason-memory-mqa", "Priority memory: MQA, one K/V head (MLA is left out under 1B parameters)."},
      {"reason-balanced-small-mha", "Balanced, small model ({params}) at a short context ({seqLen} tokens): MHA's cache is cheap, so keep every head's own keys and values."},
      {"reason-balanced-gqa", "Balanced: GQA with {g} KV heads, the Llama 2 70B / Llama 3 / Mistral choice; GQA-8 scores within 0.1 of MHA at 1/{fraction} of its cache (Ainslie et al. 2023, Table 1: 47.1 vs 47.2)."},
      {"reason-refuse-mha-long-context", "MHA with more than 16 heads beyond 32K tokens is refused: {priced}; GQA instead."},
      {"reason-fit-ladder", "{before} does not fit {memory} (weights {weights} + cache {cache}); {pick} is the first of {ladder} (largest cache first) that does."},
      {"priced", "MHA with {heads} heads at {seqLen} tokens needs {mha} of KV cache; GQA-{g} needs {gqa}"},
      {"priced-mla", "MHA with {heads} heads at {seqLen} tokens needs {mha} of KV cache; GQA-{g} needs {gqa}, MLA {mla}"},
      // the warnings
      {"warning-refuse-mha-long-context", "Refused by the lesson unless priced: {priced}."},
      {"warning-refuse-mla-small", "MLA under 1B parameters is refused unless you are benchmarking it: at {params} the latent's extra projections cost more than the cache saves (set benchmark to silence this)."},
      {"warning-weights-exceed-memory", "The weights alone ({weights} at {bytesPerParam} bytes per parameter) exceed the target's {memory}: no attention variant can fix that; quantize the weights, shard them, or pick a bigger device."},
      {"warning-does-not-fit", "Even {variant} does not fit: shorten the context or the batch, quantize the cache (bytesPerElement), or pick a bigger device."},
      {"warning-little-headroom", "Fits with less than 10 % of memory to spare ({margin}): activations and the runtime need room too."},
      // the one sentence, by the KV cache
      {"context-tokens", "{seqLen} tokens"},
      {"context-batch", "{seqLen} tokens x {batch} sequences"},
      {"vs-mha", " against {mha} for MHA ({ratio} smaller)"},
      {"per-token", ", {perToken} per token"},
      {"justification-fits", "{variant}: at {context} its KV cache is {cache}{comparison}, and weights + cache fit {memory} with {margin} to spare."},
      {"justification-fits-not", "{variant}: at {context} its KV cache is {cache}{comparison}, and weights + cache ({used}) do not fit {memory}."},
      {"justification-no-target", "{variant}: at {context} its KV cache is {cache}{comparison}; no deployment target was given, so nothing is checked against memory."},
      // how to build and check the model
      {"init", "Initialise W_q, W_k, W_v and W_o from N(0, 0.02^2), and scale W_o by 1/sqrt(2 * nLayers) (std {std} here) so the residual stream does not grow with depth (GPT-2)."},
      {"bias", "No biases on Q, K, V or O, as in Llama, Mistral and DeepSeek (Qwen 2 keeps a Q/K/V bias; it is optional)."},
      {"check", "Induction check: a 2-layer attention-only model with this geometry scaled down (dModel 64, {heads} heads), trained on sequences with repeated random segments, should predict B after A in 'A B ... A' with at least 95 % accuracy (Olsson et al. 2022)."},
      {"check-kv", "Induction check: a 2-layer attention-only model with this geometry scaled down (dModel 64, {heads} heads, {kvHeads} KV heads), trained on sequences with repeated random segments, should predict B after A in 'A B ... A' with at least 95 % accuracy (Olsson et al. 2022)."},
      {"check-mla", "Induction check: a 2-layer attention-only model with this geometry scaled down (dModel 64, {heads} heads, latent rank 16, RoPE key 4), trained on sequences with repeated random segments, should predict B after A in 'A B ... A' with at least 95 % accuracy (Olsson et al. 2022)."},
      // the deployment targets' names
      {"target-phone", "phone or browser tab ({memory})"},
      {"target-laptop-16gb", "{memory} laptop"},
      {"target-gpu-24gb", "{memory} GPU (RTX 4090)"},
      {"target-gpu-80gb", "{memory} GPU (A100 / H100)"},
  };
  return table;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (b >= 1024 && u < 5) { b /= 1024; ++u; }
  char buf[48];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}
std::string human_gb(double b) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f GB", b / 1e9);
  return buf;
}
std::string human_count(double n) {
  char buf[48];
  if (n >= 1e9) std::snprintf(buf, sizeof buf, "%.1fB", n / 1e9);
  else std::snprintf(buf, sizeof buf, "%.0fM", n / 1e6);
  return buf;
}

namespace {
std::string english_arg(const MessageArg& a) {
  char buf[48];
  switch (a.kind) {
    case MessageArg::Kind::Count: return fmt(a.number);
    case MessageArg::Kind::Parameters: return human_count(a.number);
    case MessageArg::Kind::Bytes: return human_bytes(a.number);
    case MessageArg::Kind::Gigabytes: return human_gb(a.number);
    case MessageArg::Kind::Ratio: std::snprintf(buf, sizeof buf, "%.3gx", a.number); return buf;
    case MessageArg::Kind::Decimal: std::snprintf(buf, sizeof buf, "%.4g", a.number); return buf;
    case MessageArg::Kind::Text: return a.text;
    case MessageArg::Kind::Message: return a.message.empty() ? std::string() : english(a.message.front());
  }
  return {};
}
}  // namespace

std::string english(const Message& m) {
  const char* tpl = nullptr;
  for (const auto& [id, text] : configurator_templates()) {
    if (m.id == id) { tpl = text; break; }
  }
  if (!tpl) throw std::logic_error("configurator: no English template for message '" + m.id + "'");
  std::string out, s(tpl);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t close = s[i] == '{' ? s.find('}', i) : std::string::npos;
    if (close == std::string::npos) { out += s[i++]; continue; }
    const std::string name = s.substr(i + 1, close - i - 1);
    const MessageArg* arg = nullptr;
    for (const auto& a : m.args) if (a.name == name) arg = &a;
    if (!arg) throw std::logic_error("configurator: message '" + m.id + "' has no value for {" + name + "}");
    out += english_arg(*arg);
    i = close + 1;
  }
  return out;
}

}  // namespace attn
