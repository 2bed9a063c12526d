// forward.cpp — the variant dispatch (see forward.hpp).
#include "attn/forward.hpp"

namespace attn {

PackedBlock pack_block(const Shape& s, const Weights& w) {
  PackedBlock p;
  if (s.variant == Variant::MLA) {
    p.latent = pack_latent(s, w);
  } else {
    p.grouped = pack_grouped(w);
  }
  return p;
}

ForwardResult forward(const Shape& s, const PackedBlock& p, const Matrix& x) {
  return s.variant == Variant::MLA ? forward_latent(s, p.latent, x) : forward_grouped(s, p.grouped, x);
}

ForwardResult forward(const Shape& s, const Weights& w, const Matrix& x) { return forward(s, pack_block(s, w), x); }

}  // namespace attn
