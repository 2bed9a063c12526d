// shape.cpp — see shape.hpp.
#include "attn/shape.hpp"

#include <cmath>

namespace attn {

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::MHA: return "mha";
    case Variant::MQA: return "mqa";
    case Variant::GQA: return "gqa";
    case Variant::MLA: return "mla";
  }
  return "?";
}

float Shape::scale() const {
  return softmax_scale > 0 ? softmax_scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh + dr)));
}

}  // namespace attn
