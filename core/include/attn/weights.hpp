// weights.hpp — the projection matrices of one attention block, their table of slots, and the
// documented deterministic initialisation.
//
// Layout (d_in, d_out), Y = X @ W. Head h of a projection owns columns [h*dh, (h+1)*dh).
//   MHA / MQA / GQA:  wq (D, H*dh)  wk (D, G*dh)  wv (D, G*dh)  wo (H*dh, D)
//   MLA:              wq (D, H*dh)  w_dkv (D, r)  w_uk (r, H*dh)  w_uv (r, H*dh)  wo (H*dh, D)
//                     and when dr > 0: w_qr (D, H*dr)  w_kr (D, dr)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attn/shape.hpp"
#include "attn/tensor.hpp"

namespace attn {

struct Weights {
  Matrix wq, wk, wv, wo;          // wk, wv empty for MLA
  Matrix w_dkv, w_uk, w_uv;       // MLA only
  Matrix w_qr, w_kr;              // MLA with dr > 0 only
};

// One matrix a variant uses: its JS name, its shape, and the formula of its shape for messages.
struct WeightSlot {
  const char* name;       // JS name: "wq", "wDkv", ...
  int id;                 // stable id used by the seeded initialisation
  int64_t rows, cols;
  std::string formula;    // e.g. "dModel * nHeads * dHead"
  Matrix Weights::*member;
};

// The matrices `s.variant` uses, in a fixed order (the table the binding and init both walk).
std::vector<WeightSlot> weight_slots(const Shape& s);

// Seeded initialisation (documented in README "Deterministic initialisation"):
// element (i, j) of the matrix with id m is  (2u - 1) / sqrt(rows),  u = uniform01(seed, m, i, j),
// a counter-based hash (splitmix64), so a matrix does not depend on the variant or on other
// matrices: GQA's wk is the first G*dh columns of MHA's wk for the same seed.
Weights init_weights(const Shape& s, uint64_t seed);

// The seeded weights of s (init_weights(s, s.seed)), shared and read-only. Drawing costs about 14 ns a
// float in wasm (14 ms for the four matrices of dModel 512, more than the pass itself), and the page
// asks again with the same shape and seed whenever its input changes: the last set drawn is kept
// when it holds at most kSeededCacheBytes, and returned again for the same variant, sizes and seed
// (a larger one is drawn for each call and not kept).
constexpr double kSeededCacheBytes = 16.0 * 1024 * 1024;
std::shared_ptr<const Weights> seeded_weights(const Shape& s);
void fill_uniform(Matrix& m, uint64_t seed, int id, float bound);
float uniform01(uint64_t seed, uint64_t id, uint64_t i, uint64_t j);

// Checks a flat buffer for a slot: element count and finiteness. `field` names it in messages,
// e.g. "weights.wq".
void check_buffer(const std::string& field, const float* data, int64_t count, int64_t expected,
                  const std::string& formula);

}  // namespace attn
