// fuzz_spec.cpp — libFuzzer target: arbitrary specs through validation, accounting, the configurator,
// forward and sessions; and model files through Trainer::load_model (issue 12).
// Modes, by the first byte: 0xA8: the rest is a model file (.safetensors or ATTNTRN2/1), loaded as
// is (the corpus holds exports with bytes flipped: tests/fuzz/corpus/model_*); 0xA9: the rest is an
// ATTNTRN2 body whose CRC-32 the harness appends; 0xAA: the rest is a .safetensors model file whose
// "crc32" metadata value the harness recomputes (when its JSON header parses and holds one) — so that
// mutations get past the checksums into the header and tensor checks; 0xAB: the rest is a checkpoint,
// config.json's text, a NUL byte, then a .safetensors file (tests/fuzz/corpus/pretrained_*), loaded
// through the pretrained loader and run; anything else: a spec (below).
// Any attn::Error is an accepted outcome; a crash, a sanitizer report, a non-finite output for
// finite input or any other exception is a bug. Sizes are drawn small so that each input runs fast;
// the size cap is exercised through resolve() with large values, which must refuse before allocating.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "attn/accounting.hpp"
#include "attn/configurator.hpp"
#include "attn/errors.hpp"
#include "attn/forward.hpp"
#include "attn/kv_cache.hpp"
#include "attn/layer.hpp"
#include <nlohmann/json.hpp>

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

void check_finite(const attn::Matrix& m) {
  for (float v : m) if (!std::isfinite(v)) __builtin_trap();
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
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x",
                  attn::train::model_file_checksum(h.metadata, bytes.data() + 8 + n, bytes.size() - 8 - std::size_t(n)));
    std::memcpy(bytes.data() + 8 + at + key.size(), hex, 8);
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
  // One training step (cheaper than evaluate's 256 held-out sequences): a finite loss, or an
  // attn::Error when finite weights overflow float32 (found by this fuzzer: a shuffled weight block).
  const int64_t before = t->steps();
  try {
    if (!std::isfinite(t->step(1).loss)) __builtin_trap();
  } catch (const attn::Error&) {
    if (t->steps() != before) __builtin_trap();  // a refused step is not applied
  }
  const auto again = attn::train::Trainer::load_model(t->export_model());
  if (again->steps() != t->steps()) __builtin_trap();
  return 0;
}

// A checkpoint: config text, NUL, safetensors bytes. Any attn::Error is fine; a loaded model runs a
// few ids through forward and through a session (finite weights may still overflow float32 in the
// activations: the binding refuses such results; the core must not crash).
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
  try {
    if (model->forward(ids, true).logits.size() != ids.size() * std::size_t(c.vocab)) __builtin_trap();
  } catch (const attn::Error&) {
    return 0;
  }
  Session s(*model, int64_t(ids.size()));
  for (int32_t id : ids) s.append({id}, false);
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
    const attn::Shape s = attn::resolve(raw, attn::Need::Forward);
    // Keep each run small: the cap is checked above; here only sizes that run in microseconds.
    if (s.n * s.d > 4096 || s.h * s.dh > 512 || s.r > 64 || s.d > 256 || s.n > 64) return 0;
    const attn::Weights w = attn::init_weights(s, s.seed);
    attn::Matrix x = attn::uninitialised(s.n, s.d);
    attn::fill_uniform(x, rd.byte(), 0, 4.0f);
    const attn::ForwardResult r = attn::forward(s, w, x);
    static const bool verbose = std::getenv("ATTN_FUZZ_VERBOSE") != nullptr;  // to check a seed corpus
    if (verbose) std::fprintf(stderr, "forward %s N=%lld D=%lld H=%lld G=%lld dh=%lld r=%lld dr=%lld\n",
                              attn::variant_name(s.variant), (long long)s.n, (long long)s.d, (long long)s.h,
                              (long long)s.g, (long long)s.dh, (long long)s.r, (long long)s.dr);
    check_finite(r.output);
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
      check_finite(session.append(xi).output);
      at += k;
    }
    try {
      session.append(x);  // over maxLen: must be refused
      __builtin_trap();
    } catch (const attn::Error&) {
    }
  } catch (const attn::Error&) {
  }
  return 0;
}
