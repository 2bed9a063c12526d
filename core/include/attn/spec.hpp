// spec.hpp — what a caller asks for (RawSpec, as read from JS), checked and resolved into the
// Shape the core runs (shape.hpp).
//
// RawSpec keeps every field exactly as given (absent fields are empty optionals, numbers are doubles),
// so that all value checks live here in the core, where native tests and the fuzzer reach them.
// resolve_*() checks every field, fills the documented defaults and returns a Shape, or throws
// attn::Error naming the field and its value. Nothing is allocated before a spec resolves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/accounting.hpp"
#include "attn/shape.hpp"

namespace attn {
// Limits. Work above a cap is refused before anything is allocated (docs/api.md, "Limits and
// memory"); the cap on a synchronous call's time, kMaxSyncSeconds, is in cost.hpp.
constexpr double kMaxWorkBytes = 1024.0 * 1024.0 * 1024.0;  // 1 GiB of float32 working memory
constexpr double kMaxDim = 1 << 17;                          // any single size (dModel, seqLen, ...)
constexpr double kMaxHeads = 4096;                           // nHeads, nKvHeads, dHead, ropeDim
constexpr double kMaxSeed = 9007199254740991.0;              // 2^53 - 1: every seed a JS number holds exactly
}  // namespace attn

namespace attn {

// "mha" | "mqa" | "gqa" | "mla" -> Variant; absent: TypeError, anything else: RangeError.
Variant parse_variant(const std::optional<std::string>& v);

// The `rope` field: false (absent), true, or { base }.
struct RopeField {
  bool enabled = false;
  std::optional<double> base;  // only when given as { base }
};

struct RawSpec {
  std::optional<std::string> variant;
  std::optional<double> seq_len, d_model, n_heads, n_kv_heads, d_head, latent_rank, rope_dim;
  std::optional<double> seed, max_len;
  RopeField rope;
  // Flags; absent: false (a session is causal: absent or true there, false is refused).
  std::optional<bool> causal, return_weights;
  std::optional<bool> allow_long_work;  // JS allowLongWork: lifts the cap on a synchronous call's time
  bool has_weights = false;              // weights given (else seeded): what reading them costs
};

// The fields of RawSpec by their JS names: the one table that the JS reader (wasm/js_convert.cpp),
// the trainer's model reader (wasm/bindings_train.cpp) and the model file (train/model_file.cpp) walk,
// and whose ranges resolve() checks (docs/api.md states the same ranges; tests/node/field-ranges.test.mjs
// compares them). Numbers, integers in [lo, hi]; `geometry`: a size of the block itself, which a
// trainer's model also takes (seqLen, seed and maxLen belong to a call).
struct SpecNumberField {
  const char* name;
  std::optional<double> RawSpec::*member;
  bool geometry;
  double lo, hi;
};
const std::vector<SpecNumberField>& spec_number_fields();
// The row of `name` in that table.
const SpecNumberField& spec_field(const char* name);
// Flags (false when absent).
struct SpecFlagField {
  const char* name;
  std::optional<bool> RawSpec::*member;
};
const std::vector<SpecFlagField>& spec_flag_fields();


// Which fields a resolve needs. Forward: seqLen. Session: maxLen, no seqLen, causal by construction
// (causal: false is refused). Layer: neither (a Layer's forward takes any number of rows; s.n stays
// 0). Shape: the geometry only.
enum class Need { Forward, Session, Layer, Shape };

// Checks every field and the caps of the call: its working memory, and its time (cost.hpp: a forward
// pass; a layer's or session's creation, and a session's append of one token to a full cache), so a
// refusal happens before anything is copied or allocated.
Shape resolve(const RawSpec& raw, Need need);

// The shape of the call a spec describes (attn.resolveShape): seqLen, a forward pass; maxLen, a
// session; neither, the bare geometry (Need::Shape). Each with that call's rules and caps; both: refused.
Shape resolve_described(const RawSpec& raw);

// Refuses a forward pass of s (s.n rows; 0: a layer's weights alone) whose working memory
// (forward_work_bytes) is above kMaxWorkBytes, naming what to reduce.
void check_forward_work(const Shape& s);

// A kvCacheBytes query (accounting for real models): read with the same geometry checks as a spec.
struct KvCacheQuery {
  std::optional<std::string> variant;
  std::optional<double> n_layers, n_heads, n_kv_heads, d_head, d_model, latent_rank, rope_dim;
  std::optional<double> seq_len, batch, bytes_per_element;
};
// elements per token per layer (accounting.hpp) * layers * seqLen * batch * bytesPerElement
// (default 2, batch 1).
double kv_cache_bytes(const KvCacheQuery& q);
// The query's number fields by their JS names (and the string "variant"): the table the JS reader walks.
struct KvCacheNumberField {
  const char* name;
  std::optional<double> KvCacheQuery::*member;
};
const std::vector<KvCacheNumberField>& kv_cache_number_fields();

}  // namespace attn
