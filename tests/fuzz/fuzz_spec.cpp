// fuzz_spec.cpp — libFuzzer target: arbitrary specs through validation, accounting, the configurator,
// forward and sessions; and model files through Trainer::load_model.
// Modes, by the first byte: 0xA8: the rest is a model file (.safetensors or ATTNTRN2/1), loaded as
// is (the corpus holds exports with bytes flipped: tests/fuzz/corpus/model_*); 0xA9: the rest is an
// ATTNTRN2 body whose CRC-32 the harness appends; 0xAA: the rest is a .safetensors model file whose
// "crc32" metadata value the harness recomputes (when its JSON header parses and holds one) — so that
// mutations get past the checksums into the header and tensor checks; 0xAB: the rest is a checkpoint,
// config.json's text, a NUL byte, then a .safetensors file (tests/fuzz/corpus/pretrained_*), loaded
// through the pretrained loader and run; anything else: a spec (below).
// Any attn::Error is an accepted outcome; a crash, a sanitizer report, a non-finite output for
// finite input that the core's overflow check (overflow.hpp) lets through, or any other exception is
// a bug. Sizes are drawn small so that each input runs fast; the caps (memory, and time: cost.hpp)
// are exercised through resolve() with large values, which must refuse before allocating.
// The slowest accepted input is recorded in slowest-accepted.txt (in the working directory): its
// time, the cost model's estimate for it, and what it ran (docs/reliability.md).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/accounting.hpp"
#include "attn/configurator.hpp"
#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/forward.hpp"
#include "attn/intermediates.hpp"
#include "attn/kv_cache.hpp"
#include "attn/layer.hpp"
#include "attn/overflow.hpp"
#include "attn/pretrained/checkpoint.hpp"
#include "attn/pretrained/session.hpp"
#include "attn/train/model_file.hpp"
#include "attn/train/trainer.hpp"

namespace {

struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t byte() { if (!n) return 0; --n; return *p++; }
  // A number for a size field: mostly small integers, sometimes edge cases.
  std::optional<double> field() {
    const uint8_t tag = byte();
    switch (tag % 16) {
      case 0: return std::nullopt;
      case 1: return -double(byte());
      case 2: return double(byte()) + 0.5;
      case 3: return NAN;
      case 4: return INFINITY;
      case 5: return double(uint32_t(byte()) << 16 | uint32_t(byte()) << 8 | byte());  // large
      case 6: return 1e300;
      case 7: return 9007199254740993.0;  // above 2^53
      case 8: return -0.0;
      case 9: return double(uint64_t(byte()) << 40);  // huge integers
      case 10: return 1e-310;  // subnormal
      default: return double(byte() % 24);
    }
  }
};

// A result must be finite, or refused by the core's overflow check (which names an input).
void check_result(const attn::Matrix& out, const std::vector<attn::Values>& inputs) {
  bool finite = true;
  for (float v : out) finite = finite && std::isfinite(v);
  try {
    attn::refuse_overflow("the result", "", {{"output", out.data(), out.size()}}, inputs, "");
  } catch (const attn::Error& e) {
    if (finite || e.field().empty()) __builtin_trap();  // refused a finite result, or named no input
    throw;
  }
  if (!finite) __builtin_trap();  // a non-finite result let through
}

// The slowest accepted input so far: recorded when a new one is found (the file is overwritten).
void record_if_slowest(double ms, double estimate_ms, const std::string& what) {
  static double slowest = 0;
  if (ms <= slowest) return;
  slowest = ms;
  if (std::FILE* f = std::fopen("slowest-accepted.txt", "w")) {
    std::fprintf(f, "slowest accepted input: %.3f ms (the cost model's estimate in wasm SIMD: %.3f ms): %s\n", ms,
                 estimate_ms, what.c_str());
    std::fclose(f);
  }
}

uint32_t crc32(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

// A model file: refused with attn::Error, or loaded into a trainer whose next step has a finite loss
// and which exports and reloads with the same step count.
// A .safetensors file with its "crc32" metadata value recomputed (in place, 8 hex digits), when the
// header parses and holds the value; otherwise the bytes as they are.
void reseal_safetensors(std::vector<uint8_t>& bytes) {
  if (bytes.size() < 8) return;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(bytes[std::size_t(i)]) << (8 * i);
  if (n > bytes.size() - 8 || n > attn::train::kMaxHeaderBytes) return;
  try {
    const auto h = attn::train::parse_safetensors_header(bytes.data() + 8, std::size_t(n));
    const std::string key = "\"crc32\":\"";
    const std::string json(bytes.begin() + 8, bytes.begin() + 8 + std::ptrdiff_t(n));
    const std::size_t at = json.find(key);
    if (at == std::string::npos || at + key.size() + 8 > json.size()) return;
    // version 3: over the data and the metadata; 4: over the whole file, its digits read as zeros
    const auto version = h.metadata.find("formatVersion");
    const std::size_t digits = 8 + at + key.size();
    const uint32_t crc = version != h.metadata.end() && version->second == "3"
                             ? attn::train::model_file_checksum_v3(h.metadata, bytes.data() + 8 + n, bytes.size() - 8 - std::size_t(n))
                             : attn::train::crc32_zeroed(bytes.data(), bytes.size(), 0, digits);
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", crc);
    std::memcpy(bytes.data() + digits, hex, 8);
  } catch (const attn::Error&) {
  }
}

int fuzz_model_file(std::vector<uint8_t> bytes, bool reseal) {
  if (reseal) {
    const uint32_t c = crc32(bytes.data(), bytes.size());
    for (int i = 0; i < 4; ++i) bytes.push_back(uint8_t(c >> (8 * i)));
  }
  std::unique_ptr<attn::train::Trainer> t;
  try {
    attn::train::Trainer::check_model_prefix(bytes, double(bytes.size()));
    t = attn::train::Trainer::load_model(bytes);
  } catch (const attn::Error&) {
    return 0;
  }
  // Loaded: keep the work small (a file may describe a large model legitimately).
  if (t->model().params().size() > 64 || t->batch_size() * t->task().seq_len() > 4096) return 0;
  // step(n) above the cap of a synchronous call is refused, and nothing runs.
  const int64_t steps_before = t->steps();
  try {
    t->step(t->max_steps_per_call() + 1);
    __builtin_trap();
  } catch (const attn::Error& e) {
    if (e.field() != "n" || t->steps() != steps_before) __builtin_trap();
  }
  // One training step (cheaper than evaluate's 256 held-out sequences): a finite loss, or an
  // attn::Error when finite weights overflow float32 (found by this fuzzer: a shuffled weight block).
  const int64_t before = t->steps();
  try {
    if (!std::isfinite(t->step(1).loss)) __builtin_trap();
  } catch (const attn::Error&) {
    if (t->steps() != before) __builtin_trap();  // a refused step is not applied
  }
  // A layer through the inference core and the next token's probabilities (the trained views'
  // calls): an attn::Error (float32 overflow) or results of the right size.
  const std::vector<int32_t> tokens = {0, int32_t(t->task().vocab() - 1), 0};
  if (t->task().seq_len() >= 3) {
    try {
      const attn::train::LayerView v = t->layer(tokens, int64_t(t->model().config().n_layers - 1));
      if (v.x.size() != std::size_t(3 * v.shape.d)) __builtin_trap();
      const std::vector<float> p = t->next_token_probs(tokens);
      if (int64_t(p.size()) != t->task().vocab()) __builtin_trap();
    } catch (const attn::Error&) {
    }
  }
  const auto again = attn::train::Trainer::load_model(t->export_model());
  if (again->steps() != t->steps()) __builtin_trap();
  return 0;
}

// A checkpoint: config text, NUL, safetensors bytes. Any attn::Error is fine; a loaded model runs a
// few ids through forward, a layer's stages and a session. Finite weights may still overflow float32
// in the activations: the core refuses such results (model_overflow.cpp), so a non-finite logit or
// map that gets out is a bug. The seeds pretrained_hostile_* (make_checkpoint_corpus.mjs) start
// from files the loader refuses: layouts that do not cover the data exactly once, overflows, configs.
int fuzz_checkpoint(const uint8_t* data, size_t size) {
  const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  if (!nul) return 0;
  const nlohmann::json config = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(data), nul - data), nullptr, false);
  if (config.is_discarded()) return 0;
  const std::vector<uint8_t> file(nul + 1, data + size);
  using namespace attn::pretrained;
  std::unique_ptr<PretrainedModel> model;
  try {
    const int64_t n = safetensors_header_length(file.data(), int64_t(file.size()), int64_t(file.size()), "weights");
    const SafetensorsIndex index = parse_safetensors_header(
        std::string(reinterpret_cast<const char*>(file.data()) + 8, std::size_t(n)), int64_t(file.size()), 0, "weights");
    CheckpointLoader loader(config, {index});
    for (std::size_t i = 0; i < loader.copies().size(); ++i) {
      const auto& c = loader.copies()[i];
      std::memcpy(loader.destination(i), file.data() + c.begin, std::size_t(c.end - c.begin));
    }
    model = loader.finish();
  } catch (const attn::Error&) {
    return 0;
  }
  const ModelConfig& c = model->config();
  if (c.vocab < 1) __builtin_trap();
  std::vector<int32_t> ids;
  for (int32_t i = 0; i < 4; ++i) ids.push_back(int32_t((i * 7) % c.vocab));
  if (c.n_positions > 0 && c.n_positions < 4) ids.resize(std::size_t(c.n_positions));
  auto finite = [](const float* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) if (!std::isfinite(p[i])) return false;
    return true;
  };
  try {
    const ModelOutput out = model->forward(ids, true);
    if (out.logits.size() != ids.size() * std::size_t(c.vocab)) __builtin_trap();
    if (!finite(out.logits.data(), out.logits.size())) __builtin_trap();
    for (const auto& m : out.attentions) if (!finite(m.data(), m.size())) __builtin_trap();
    const StageRecord r = model->layer_stages(ids, c.n_layers - 1);
    if (!finite(r.output.data(), r.output.size())) __builtin_trap();
  } catch (const attn::Error&) {
    return 0;
  }
  Session s(*model, int64_t(ids.size()));
  try {
    for (int32_t id : ids) {
      const ModelOutput out = s.append({id}, false);
      if (!finite(out.logits.data(), out.logits.size())) __builtin_trap();
    }
  } catch (const attn::Error&) {
    return 0;
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 1 && data[0] == 0xAB) return fuzz_checkpoint(data + 1, size - 1);
  if (size >= 1 && (data[0] == 0xA8 || data[0] == 0xA9)) {
    return fuzz_model_file(std::vector<uint8_t>(data + 1, data + size), data[0] == 0xA9);
  }
  if (size >= 1 && data[0] == 0xAA) {
    std::vector<uint8_t> bytes(data + 1, data + size);
    reseal_safetensors(bytes);
    return fuzz_model_file(std::move(bytes), false);
  }
  Reader rd{data, size};
  static const char* kVariants[] = {"mha", "mqa", "gqa", "mla", "", "MHA", "gqa "};
  attn::RawSpec raw;
  const uint8_t v = rd.byte();
  if (v % 8 != 7) raw.variant = std::string(kVariants[v % 7]);
  raw.seq_len = rd.field();
  raw.d_model = rd.field();
  raw.n_heads = rd.field();
  raw.n_kv_heads = rd.field();
  raw.d_head = rd.field();
  raw.latent_rank = rd.field();
  raw.rope_dim = rd.field();
  raw.seed = rd.field();
  const uint8_t flags = rd.byte();
  raw.causal = flags & 1;
  raw.return_weights = flags & 2;
  raw.rope.enabled = flags & 4;
  if (flags & 8) raw.rope.base = rd.field();
  if (flags & 16) raw.allow_long_work = true;
  const float x_scale = (flags & 32) ? 1e19f : 4.0f;  // 1e19: the scores may overflow float32
  try {
    // Accounting on the same fields.
    attn::KvCacheQuery q;
    q.variant = raw.variant; q.n_heads = raw.n_heads; q.n_kv_heads = raw.n_kv_heads; q.d_head = raw.d_head;
    q.latent_rank = raw.latent_rank; q.rope_dim = raw.rope_dim; q.n_layers = rd.field(); q.seq_len = raw.seq_len;
    const double bytes = attn::kv_cache_bytes(q);
    if (!(bytes >= 0)) __builtin_trap();
  } catch (const attn::Error&) {
  }
  try {
    // The configurator on the same fields (budget from dModel, context from seqLen, ...).
    static const char* kTargets[] = {"phone", "laptop-16gb", "gpu-24gb", "gpu-80gb", "tpu"};
    static const char* kPriorities[] = {"quality", "balanced", "memory", "fast"};
    attn::RecommendQuery rq;
    const uint8_t how = rd.byte();
    if (how & 1) rq.param_budget = raw.d_model ? std::optional<double>(*raw.d_model * 1e8) : std::nullopt;
    else { rq.d_model = raw.d_model; rq.n_layers = raw.n_heads; }
    rq.seq_len = raw.seq_len;
    rq.batch = raw.n_kv_heads;
    if (how & 2) rq.target = std::string(kTargets[rd.byte() % 5]);
    if (how & 4) rq.memory_bytes = raw.rope.base;
    if (how & 8) rq.priority = std::string(kPriorities[rd.byte() % 4]);
    if (how & 16) rq.variant = raw.variant;
    rq.benchmark = how & 32;
    const attn::Recommendation rec = attn::recommend(rq);
    if (!(rec.kv_bytes_total >= 0) || rec.n_heads < 1 || rec.d_head < 32 || rec.justification.empty()) __builtin_trap();
  } catch (const attn::Error&) {
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const attn::Shape s = attn::resolve(raw, attn::Need::Forward);
    // Keep each run small: the caps are checked above; here only sizes that run in microseconds.
    if (s.n * s.d > 4096 || s.h * s.dh > 512 || s.r > 64 || s.d > 256 || s.n > 64) return 0;
    const auto held = attn::seeded_weights(s);  // the cache the binding reads seeded weights through
    const attn::Weights& w = *held;
    attn::Matrix x = attn::uninitialised(s.n, s.d);
    attn::fill_uniform(x, rd.byte(), 0, x_scale);
    std::vector<attn::Values> inputs = {{"x", x.data(), x.size(), "x"}};
    for (const auto& slot : attn::weight_slots(s)) {
      inputs.push_back({slot.name, (w.*(slot.member)).data(), (w.*(slot.member)).size(), std::string("weights.") + slot.name});
    }
    const attn::ForwardResult r = attn::forward(s, w, x);
    static const bool verbose = std::getenv("ATTN_FUZZ_VERBOSE") != nullptr;  // to check a seed corpus
    if (verbose) std::fprintf(stderr, "forward %s N=%lld D=%lld H=%lld G=%lld dh=%lld r=%lld dr=%lld\n",
                              attn::variant_name(s.variant), (long long)s.n, (long long)s.d, (long long)s.h,
                              (long long)s.g, (long long)s.dh, (long long)s.r, (long long)s.dr);
    check_result(r.output, inputs);
    // The walkthrough's stages: their caps, and the same output bits.
    attn::check_intermediates(s, true);
    if (std::memcmp(attn::forward_intermediates(s, w, x).output.data(), r.output.data(), sizeof(float) * r.output.size()) != 0) {
      __builtin_trap();
    }
    // The same pass through a Layer (weights packed once): the same bits.
    const attn::Layer layer(s, w);
    const attn::ForwardResult lr = layer.forward(x);
    if (std::memcmp(lr.output.data(), r.output.data(), sizeof(float) * r.output.size()) != 0) __builtin_trap();
    // The same tokens through a session, in chunks the input picks.
    attn::Shape ss = s;
    ss.max_len = s.n;
    attn::Session session(ss, w);
    int64_t at = 0;
    while (at < s.n) {
      const int64_t k = std::min<int64_t>(s.n - at, 1 + rd.byte() % 5);
      attn::Matrix xi = attn::uninitialised(k, s.d);
      std::memcpy(xi.data(), x.data() + at * s.d, sizeof(float) * k * s.d);
      session.check_append(k);
      check_result(session.append(xi).output, inputs);
      at += k;
    }
    try {
      session.check_append(s.n);  // over maxLen: must be refused, and append too
      __builtin_trap();
    } catch (const attn::Error&) {
    }
    try {
      session.append(x);
      __builtin_trap();
    } catch (const attn::Error&) {
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double estimate = 1000.0 * (attn::forward_cost(s, true).seconds() * 3.0 + attn::intermediates_cost(s, true).seconds());
    char what[200];
    std::snprintf(what, sizeof what, "%s N=%lld D=%lld H=%lld G=%lld dh=%lld r=%lld dr=%lld: forward, intermediates, a layer, a session",
                  attn::variant_name(s.variant), (long long)s.n, (long long)s.d, (long long)s.h, (long long)s.g,
                  (long long)s.dh, (long long)s.r, (long long)s.dr);
    record_if_slowest(ms, estimate, what);
  } catch (const attn::Error&) {
  }
  return 0;
}
