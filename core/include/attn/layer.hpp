// layer.hpp — one attention block with its weights packed once: the Layer behind the JS
// createLayer(). forward() packs the weights on every call (a copy and a pass over each matrix);
// a Layer packs them at creation, then runs any number of sequences of any length through the
// same steps, so layer.forward(x) equals forward() over x bit for bit (docs/performance.md, A).
#pragma once

#include <cstdint>

#include "attn/forward.hpp"
#include "attn/shape.hpp"
#include "attn/tensor.hpp"
#include "attn/weights.hpp"

namespace attn {

class Layer {
 public:
  // `s` from resolve(raw, Need::Layer) (s.n == 0); weights match weight_slots(s).
  Layer(const Shape& s, const Weights& w);

  // The layer's shape over n rows (s.n = n), or attn::Error (field "x") when n is out of
  // [1, kMaxDim], or when the pass would need more than kMaxWorkBytes (spec.hpp) or take more than
  // kMaxSyncSeconds (cost.hpp) without allowLongWork.
  Shape shape_for(int64_t n) const;

  // x: (N, D), N >= 1 rows. Returns (N, D), and weights (H, N, N) when the layer returns them.
  ForwardResult forward(const Matrix& x) const;

  const Shape& shape() const { return shape_; }

 private:
  Shape shape_;
  PackedBlock packed_;
};

}  // namespace attn
