// spec.cpp — field checks and defaults for every call (see spec.hpp).
#include "attn/spec.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "attn/accounting.hpp"
#include "attn/attention.hpp"
#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/fields.hpp"
#include "attn/weights.hpp"

namespace attn {

const std::vector<SpecNumberField>& spec_number_fields() {
  static const std::vector<SpecNumberField> table = {
      {"seqLen", &RawSpec::seq_len, false, 1, kMaxDim},        {"dModel", &RawSpec::d_model, true, 1, kMaxDim},
      {"nHeads", &RawSpec::n_heads, true, 1, kMaxHeads},       {"nKvHeads", &RawSpec::n_kv_heads, true, 1, kMaxHeads},
      {"dHead", &RawSpec::d_head, true, 1, kMaxHeads},         {"latentRank", &RawSpec::latent_rank, true, 1, kMaxDim},
      {"ropeDim", &RawSpec::rope_dim, true, 0, kMaxHeads},     {"seed", &RawSpec::seed, false, 0, kMaxSeed},
      {"maxLen", &RawSpec::max_len, false, 1, kMaxDim},
  };
  return table;
}

const SpecNumberField& spec_field(const char* name) {
  for (const auto& f : spec_number_fields()) {
    if (std::string(f.name) == name) return f;
  }
  throw std::logic_error(std::string("no spec field ") + name);
}

const std::vector<SpecFlagField>& spec_flag_fields() {
  static const std::vector<SpecFlagField> table = {
      {"causal", &RawSpec::causal},
      {"returnWeights", &RawSpec::return_weights},
      {"allowLongWork", &RawSpec::allow_long_work},
  };
  return table;
}

Variant parse_variant(const std::optional<std::string>& v) {
  if (!v) throw_type("variant", "variant is required: one of 'mha', 'mqa', 'gqa', 'mla'");
  if (*v == "mha") return Variant::MHA;
  if (*v == "mqa") return Variant::MQA;
  if (*v == "gqa") return Variant::GQA;
  if (*v == "mla") return Variant::MLA;
  throw_range("variant", "variant (" + quoted(*v) + ") must be one of 'mha', 'mqa', 'gqa', 'mla'");
}

namespace {

// A field of the spec table, checked against its range.
int64_t checked(const char* name, const std::optional<double>& v, std::optional<int64_t> fallback = std::nullopt) {
  const SpecNumberField& f = spec_field(name);
  return integer_field(name, v, f.lo, f.hi, fallback);
}

void require_absent_or_zero(const char* name, const std::optional<double>& v, const char* why) {
  if (v && *v != 0) throw_range(name, std::string(name) + " (" + fmt(*v) + ") " + why);
}

}  // namespace

Shape resolve(const RawSpec& raw, Need need) {
  Shape s;
  s.variant = parse_variant(raw.variant);
  const std::string vq = std::string("'") + variant_name(s.variant) + "'";

  if (need == Need::Forward) {
    s.n = checked("seqLen", raw.seq_len);
  } else if (raw.seq_len && need == Need::Session) {
    throw_range("seqLen", "seqLen (" + fmt(*raw.seq_len) + ") does not apply to a session: give maxLen");
  } else if (raw.seq_len && need == Need::Layer) {
    throw_range("seqLen", "seqLen (" + fmt(*raw.seq_len) + ") does not apply to a layer: layer.forward(x) takes "
                "any number of rows, x.length / dModel");
  }
  if (raw.max_len && need == Need::Layer) {
    throw_range("maxLen", "maxLen (" + fmt(*raw.max_len) + ") applies to createSession, not createLayer");
  }
  if (need == Need::Session) s.max_len = checked("maxLen", raw.max_len);

  s.d = checked("dModel", raw.d_model);
  s.h = checked("nHeads", raw.n_heads);

  // dHead: default D / H, which must then divide exactly.
  if (raw.d_head) {
    s.dh = checked("dHead", raw.d_head);
  } else {
    if (s.d % s.h != 0) {
      throw_range("dModel", "dModel (" + fmt(double(s.d)) + ") must be divisible by nHeads (" + fmt(double(s.h)) +
                  ") unless dHead is given");
    }
    s.dh = s.d / s.h;
  }

  switch (s.variant) {
    case Variant::MHA:
    case Variant::MLA:
      // MHA: one K/V head per query head. MLA: K and V decompress to one head per query head.
      s.g = checked("nKvHeads", raw.n_kv_heads, s.h);
      if (s.g != s.h) {
        throw_range("nKvHeads", "nKvHeads (" + fmt(double(s.g)) + ") must equal nHeads (" + fmt(double(s.h)) +
                    ") for variant " + vq +
                    (s.variant == Variant::MHA ? "; use 'gqa' for fewer K/V heads" : " (the latent replaces K/V heads); omit it"));
      }
      break;
    case Variant::MQA:
      s.g = checked("nKvHeads", raw.n_kv_heads, 1);
      if (s.g != 1) throw_range("nKvHeads", "nKvHeads (" + fmt(double(s.g)) + ") must be 1 for variant 'mqa'");
      break;
    case Variant::GQA:
      s.g = checked("nKvHeads", raw.n_kv_heads);
      if (s.g > s.h) {
        throw_range("nKvHeads", "nKvHeads (" + fmt(double(s.g)) + ") must not exceed nHeads (" + fmt(double(s.h)) + ")");
      }
      if (s.h % s.g != 0) {
        throw_range("nHeads", "nHeads (" + fmt(double(s.h)) + ") must be divisible by nKvHeads (" + fmt(double(s.g)) + ")");
      }
      break;
  }

  if (s.variant == Variant::MLA) {
    s.r = checked("latentRank", raw.latent_rank);
    s.dr = checked("ropeDim", raw.rope_dim, 0);
    if (s.dr % 2 != 0) throw_range("ropeDim", "ropeDim (" + fmt(double(s.dr)) + ") must be even (RoPE rotates pairs)");
    if (raw.rope.enabled && s.dr == 0) {
      throw_range("rope", "rope applies to variant 'mla' only through ropeDim, which is 0: set ropeDim > 0 "
                  "(the decoupled RoPE key) or drop rope");
    }
  } else {
    require_absent_or_zero("latentRank", raw.latent_rank, ("applies only to variant 'mla', not " + vq).c_str());
    require_absent_or_zero("ropeDim", raw.rope_dim, ("applies only to variant 'mla', not " + vq).c_str());
    s.rope = raw.rope.enabled;
    if (s.rope && s.dh % 2 != 0) {
      throw_range("dHead", "dHead (" + fmt(double(s.dh)) + ") must be even when rope is on (RoPE rotates pairs)");
    }
  }
  if (raw.rope.base) {
    const double b = *raw.rope.base;
    // Below 1 the frequencies base^(-2i/d) grow, and for tiny bases (1e-310, found by the fuzzer)
    // they overflow to Infinity and the output turns NaN.
    if (!std::isfinite(b) || b < 1) throw_range("rope.base", "rope.base (" + fmt(b) + ") must be a finite number >= 1");
    s.rope_base = b;
  }

  if (need == Need::Session) {
    if (raw.causal && !*raw.causal) {
      throw_range("causal", "causal (false) does not apply to a session: a session is causal by construction");
    }
    s.causal = true;
  } else {
    s.causal = raw.causal.value_or(false);
  }
  s.return_weights = raw.return_weights.value_or(false);
  s.allow_long_work = raw.allow_long_work.value_or(false);
  s.seed = static_cast<uint64_t>(checked("seed", raw.seed, 0));

  if (need == Need::Forward || need == Need::Layer) check_forward_work(s);
  if (need == Need::Session && session_work_bytes(s, 1) > kMaxWorkBytes) {
    throw_range("this session needs about " + fmt(std::ceil(session_work_bytes(s, 1) / 1048576.0)) +
                " MiB for its weights and a cache of maxLen (" + fmt(double(s.max_len)) +
                ") tokens, above the cap of " + fmt(kMaxWorkBytes / 1048576.0) + " MiB");
  }
  const bool seeded = !raw.has_weights;
  if (need == Need::Forward) check_sync_time(forward_cost(s, seeded), s.allow_long_work);
  if (need == Need::Layer) check_sync_time(weights_cost(s, seeded, false), s.allow_long_work);
  if (need == Need::Session) {
    check_sync_time(weights_cost(s, seeded, true), s.allow_long_work);
    // Every append of one token must fit, up to the last one.
    Cost last = append_cost(s, 1, s.max_len - 1, "maxLen");
    last.call = "appending a token to a full cache of maxLen (" + fmt(double(s.max_len)) + ") tokens";
    last.hint.clear();
    check_sync_time(last, s.allow_long_work);
  }
  return s;
}

Shape resolve_described(const RawSpec& raw) {
  if (raw.seq_len && raw.max_len) throw_type("maxLen", "give seqLen (a forward pass) or maxLen (a session), not both");
  return resolve(raw, raw.seq_len ? Need::Forward : raw.max_len ? Need::Session : Need::Shape);
}

void check_forward_work(const Shape& s) {
  const double bytes = forward_work_bytes(s);
  if (bytes <= kMaxWorkBytes) return;
  const std::string what = s.n > 0 ? "this forward pass" : "this layer's weights";
  throw_range(what + " needs about " + fmt(std::ceil(bytes / 1048576.0)) + " MiB of working memory, above the cap of " +
              fmt(kMaxWorkBytes / 1048576.0) + " MiB: reduce " +
              (s.n > 0 ? "seqLen (" + fmt(double(s.n)) + "), " : std::string()) + "dModel or the head sizes" +
              (s.return_weights && s.n > 0 ? ", or do not ask for returnWeights" : ""));
}

const std::vector<KvCacheNumberField>& kv_cache_number_fields() {
  static const std::vector<KvCacheNumberField> table = {
      {"nLayers", &KvCacheQuery::n_layers},   {"nHeads", &KvCacheQuery::n_heads},     {"nKvHeads", &KvCacheQuery::n_kv_heads},
      {"dHead", &KvCacheQuery::d_head},       {"dModel", &KvCacheQuery::d_model},     {"latentRank", &KvCacheQuery::latent_rank},
      {"ropeDim", &KvCacheQuery::rope_dim},   {"seqLen", &KvCacheQuery::seq_len},     {"batch", &KvCacheQuery::batch},
      {"bytesPerElement", &KvCacheQuery::bytes_per_element},
  };
  return table;
}

double kv_cache_bytes(const KvCacheQuery& q) {
  // Reuse the geometry checks of a spec (variant, heads, dHead, latent), without a sequence.
  RawSpec raw;
  raw.variant = q.variant;
  raw.n_heads = q.n_heads;
  raw.n_kv_heads = q.n_kv_heads;
  raw.latent_rank = q.latent_rank;
  raw.rope_dim = q.rope_dim;
  raw.d_head = q.d_head;
  raw.d_model = q.d_model;
  const bool mla = q.variant && *q.variant == "mla";
  if (!raw.d_head && !raw.d_model) {
    if (!mla) throw_type("dHead", "dHead is required (or dModel, to default dHead to dModel / nHeads)");
    raw.d_head = 1.0;  // MLA caches r + dr per token: dHead does not enter
  }
  if (!raw.d_model) raw.d_model = 1.0;  // only serves to default dHead, which is given
  const Shape s = resolve(raw, Need::Shape);
  const double layers = double(integer_field("nLayers", q.n_layers, 1, 1e6));
  const double seq = double(integer_field("seqLen", q.seq_len, 0, 1e12));
  const double batch = double(integer_field("batch", q.batch, 1, 1e9, 1));
  const double bytes = number_field("bytesPerElement", q.bytes_per_element, 0.125, 16, 2.0);
  return kv_elements_per_token_per_layer(s.variant, s.h, s.g, s.dh, s.r, s.dr) * layers * seq * batch * bytes;
}

}  // namespace attn
