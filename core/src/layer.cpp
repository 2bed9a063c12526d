// layer.cpp — a block with its weights packed once (see layer.hpp).
#include "attn/layer.hpp"

#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/spec.hpp"

namespace attn {

Layer::Layer(const Shape& s, const Weights& w) : shape_(s), packed_(pack_block(s, w)) { shape_.n = 0; }

Shape Layer::shape_for(int64_t n) const {
  if (n < 1 || double(n) > kMaxDim) {
    throw_range("x", "x holds " + fmt(double(n)) + " rows of dModel (" + fmt(double(shape_.d)) +
                ") floats; a layer takes between 1 and " + fmt(kMaxDim) + " rows");
  }
  Shape s = shape_;
  s.n = n;
  check_forward_work(s);
  check_sync_time(forward_cost(s, false, true), s.allow_long_work);
  return s;
}

ForwardResult Layer::forward(const Matrix& x) const {
  return attn::forward(shape_for(int64_t(x.shape(0))), packed_, x);
}

}  // namespace attn
