// shape.hpp — the geometry of one attention block: the variant and its sizes, resolved and valid.
//
// The lowest layer above tensors: the blocks, the KV cache, the weights and accounting read a Shape;
// only spec.hpp (reading and checking what a caller asks for) makes one.
#pragma once

#include <cstdint>

namespace attn {

enum class Variant { MHA, MQA, GQA, MLA };
const char* variant_name(Variant v);  // "mha", "mqa", "gqa", "mla"

// A resolved, valid attention geometry. Sizes are int64 so that products never overflow.
struct Shape {
  Variant variant = Variant::MHA;
  int64_t n = 0;       // seqLen N (0 where no sequence is given, e.g. sessions, accounting)
  int64_t d = 0;       // dModel D
  int64_t h = 0;       // nHeads H
  int64_t g = 0;       // nKvHeads G (MLA: H, the heads K and V decompress to)
  int64_t dh = 0;      // dHead
  int64_t r = 0;       // latentRank (MLA)
  int64_t dr = 0;      // ropeDim (MLA decoupled RoPE width)
  bool rope = false;   // MHA/MQA/GQA: RoPE on every q and k head
  double rope_base = 10000.0;
  bool causal = false, return_weights = false;
  // A checkpoint's extras (pretrained/config.hpp fills them; the lesson's forms leave them at 0):
  int64_t window = 0;        // causal only: a query sees its last `window` keys (mistral); 0: all
  float softmax_scale = 0;   // the scores' scale; 0: 1 / sqrt(dh + dr)
  bool allow_long_work = false;  // lifts the cap on a synchronous call's time (cost.hpp)
  uint64_t seed = 0;
  int64_t max_len = 0;  // sessions only

  int64_t group() const { return h / g; }          // query heads per K/V head
  // The K/V head query head `qh` reads: qh / (H/G), contiguous groups (repeat_interleave); MLA: 0,
  // the one latent cache [c | kr] every head reads in the absorbed form.
  int64_t kv_head_of(int64_t qh) const { return variant == Variant::MLA ? 0 : qh / group(); }
  int64_t d_qk() const { return dh + dr; }         // width of a query/key dot product
  float scale() const;                             // softmax_scale, or 1 / sqrt(dh + dr)
};

}  // namespace attn
