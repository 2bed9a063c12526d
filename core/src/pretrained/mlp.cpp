// mlp.cpp — the MLPs and the linear layer (see mlp.hpp).
#include "attn/pretrained/mlp.hpp"

#include <cmath>

#include "attn/pretrained/linear.hpp"
#include "attn/tensor.hpp"

namespace attn::pretrained {

void linear(const Linear& l, const float* x, int64_t rows, int64_t ldx, float* y, int64_t ldy, bool accumulate) {
  if (l.in_out) {
    matmul_w(rows, x, ldx, l.w, y, ldy, accumulate);
  } else {
    matmul_wt(rows, x, ldx, l.w, y, ldy, accumulate);
  }
  add_bias(y, rows, ldy, l.bias);
}

void mlp_add(const MlpWeights& w, const float* x, int64_t rows, float* out) {
  if (w.kind == MlpKind::GeluTanh) {
    const int64_t inner = w.fc.out(), d = w.proj.out();
    Matrix u = uninitialised(rows, inner);  // (rows, I)
    linear(w.fc, x, rows, w.fc.in(), u.data(), inner);
    const double c = std::sqrt(2.0 / 3.14159265358979323846);
    for (float& v : u) v = float(0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * double(v) * v * v))));
    linear(w.proj, u.data(), rows, inner, out, d, true);
    return;
  }
  const int64_t inner = w.gate.out(), d = w.down.out();
  Matrix g = uninitialised(rows, inner), u = uninitialised(rows, inner);  // (rows, I)
  linear(w.gate, x, rows, w.gate.in(), g.data(), inner);
  linear(w.up, x, rows, w.up.in(), u.data(), inner);
  for (std::size_t i = 0; i < g.size(); ++i) {
    const float v = g.data()[i];
    g.data()[i] = float(v / (1.0 + std::exp(-double(v)))) * u.data()[i];
  }
  linear(w.down, g.data(), rows, inner, out, d, true);
}

}  // namespace attn::pretrained
