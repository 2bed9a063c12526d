// linear.cpp — products with 16-bit or float32 weights (see linear.hpp).
#include "attn/pretrained/linear.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "attn/kernels.hpp"

namespace attn::pretrained {

using simd::kLanes;
using simd::vf;

namespace {

// Element i.. of a row of dtype T, widened: one vector, or one float.
template <DType T>
inline vf load_vec(const uint8_t* row, int64_t i) {
  if constexpr (T == DType::F32) {
    return simd::load(reinterpret_cast<const float*>(row) + i);
  } else if constexpr (T == DType::BF16) {
    return load_bf16(reinterpret_cast<const uint16_t*>(row) + i);
  } else {
    return load_f16(reinterpret_cast<const uint16_t*>(row) + i);
  }
}
template <DType T>
inline float load_one(const uint8_t* row, int64_t i) {
  if constexpr (T == DType::F32) {
    float f;
    std::memcpy(&f, row + 4 * i, 4);
    return f;
  } else {
    uint16_t h;
    std::memcpy(&h, row + 2 * i, 2);
    return T == DType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
  }
}

// ---- few rows, W^T: out[r] = W_row[r] . x for R rows of W (two accumulators each).
template <DType T, int R>
inline void dot_rows(int64_t k, const uint8_t* const* w, const float* x, float* out) {
  vf acc[R][2];
  ATTN_UNROLL
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::splat(0.0f);
  int64_t c = 0;
  for (; c + 2 * kLanes <= k; c += 2 * kLanes) {
    const vf x0 = simd::load(x + c), x1 = simd::load(x + c + kLanes);
    ATTN_UNROLL
    for (int r = 0; r < R; ++r) {
      acc[r][0] += load_vec<T>(w[r], c) * x0;
      acc[r][1] += load_vec<T>(w[r], c + kLanes) * x1;
    }
  }
  for (; c + kLanes <= k; c += kLanes) {
    const vf x0 = simd::load(x + c);
    ATTN_UNROLL
    for (int r = 0; r < R; ++r) acc[r][0] += load_vec<T>(w[r], c) * x0;
  }
  ATTN_UNROLL
  for (int r = 0; r < R; ++r) {
    float s = simd::hsum(acc[r][0] + acc[r][1]);
    for (int64_t t = c; t < k; ++t) s += load_one<T>(w[r], t) * x[t];
    out[r] = s;
  }
}

template <DType T>
void direct_wt(int64_t m, const float* x, int64_t ldx, const WeightView& w, float* y, int64_t ldy, bool accumulate) {
  constexpr int kRows = 4;
  const int64_t k = w.cols, n = w.rows, stride = w.ld * dtype_bytes(T);
  const uint8_t* rows[kRows];
  float out[kRows];
  for (int64_t o = 0; o < n; o += kRows) {
    const int64_t nr = std::min<int64_t>(kRows, n - o);
    for (int64_t r = 0; r < nr; ++r) rows[r] = w.data + (o + r) * stride;
    for (int64_t i = 0; i < m; ++i) {  // the nr rows of W stay in L1 for the m rows of x
      if (nr == kRows) {
        dot_rows<T, kRows>(k, rows, x + i * ldx, out);
      } else {
        for (int64_t r = 0; r < nr; ++r) dot_rows<T, 1>(k, rows + r, x + i * ldx, out + r);
      }
      float* yi = y + i * ldy + o;
      for (int64_t r = 0; r < nr; ++r) yi[r] = accumulate ? yi[r] + out[r] : out[r];
    }
  }
}

// ---- few rows, W^T, BF16 (decoding's products): the same dot products, widened by bit operations on
// whole words. x is first laid out block by block (kBf16Block elements) as [its even elements | its odd
// elements] (xp); one load of kBf16Block BF16 values of W is then kLanes 32-bit words, word j holding
// element 2j in its low half and 2j + 1 in its high half (little-endian), so that
//   word << 16           is element 2j     as a float32 (bfloat16 is the top half of a float32)
//   word & 0xffff0000    is element 2j + 1 as a float32
// and each lane multiplies by the matching element of xp: one load and two bit operations per
// 2 * kLanes weights, where load_bf16 needs a widening load and a shift per kLanes. Elements past the
// last whole block are summed one by one from x.
constexpr int64_t kBf16Block = 2 * kLanes;

inline void even_odd(const float* x, int64_t blocks, float* xp) {
  for (int64_t b = 0; b < blocks; ++b) {
    const float* xb = x + b * kBf16Block;
    float* pb = xp + b * kBf16Block;
    for (int l = 0; l < kLanes; ++l) {
      pb[l] = xb[2 * l];
      pb[kLanes + l] = xb[2 * l + 1];
    }
  }
}

template <int R>
inline void dot_rows_bf16(int64_t k, int64_t blocks, const uint8_t* const* w, const float* xp, const float* x, float* out) {
  vf acc[R][2];
  ATTN_UNROLL
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::splat(0.0f);
  for (int64_t b = 0; b < blocks; ++b) {
    const vf xe = simd::load(xp + b * kBf16Block), xo = simd::load(xp + b * kBf16Block + kLanes);
    ATTN_UNROLL
    for (int r = 0; r < R; ++r) {
      vu32 word;
      std::memcpy(&word, w[r] + b * kBf16Block * 2, sizeof word);
      const vu32 lo = word << 16, hi = word & 0xffff0000u;
      vf e, o;
      std::memcpy(&e, &lo, sizeof e);
      std::memcpy(&o, &hi, sizeof o);
      acc[r][0] = simd::madd(e, xe, acc[r][0]);
      acc[r][1] = simd::madd(o, xo, acc[r][1]);
    }
  }
  ATTN_UNROLL
  for (int r = 0; r < R; ++r) {
    float s = simd::hsum(acc[r][0] + acc[r][1]);
    for (int64_t t = blocks * kBf16Block; t < k; ++t) s += load_one<DType::BF16>(w[r], t) * x[t];
    out[r] = s;
  }
}

void direct_wt_bf16(int64_t m, const float* x, int64_t ldx, const WeightView& w, float* y, int64_t ldy, bool accumulate) {
  // Six rows of W at a time (12 accumulators): a SmolLM2-135M decoding step took about 10 % less time
  // than with four, in both wasm builds and natively; eight and twelve were no better
  // (docs/performance.md, "Six rows at a time").
  constexpr int kRows = 6;
  const int64_t k = w.cols, n = w.rows, stride = w.ld * 2, blocks = k / kBf16Block, width = blocks * kBf16Block;
  std::vector<float> xp(std::size_t(m * width));  // (m, width): each row's blocks as [even | odd]
  for (int64_t i = 0; i < m; ++i) even_odd(x + i * ldx, blocks, xp.data() + i * width);
  const uint8_t* rows[kRows];
  float out[kRows];
  for (int64_t o = 0; o < n; o += kRows) {
    const int64_t nr = std::min<int64_t>(kRows, n - o);
    for (int64_t r = 0; r < nr; ++r) rows[r] = w.data + (o + r) * stride;
    for (int64_t i = 0; i < m; ++i) {
      const float* xi = x + i * ldx;
      const float* pi = xp.data() + i * width;
      if (nr == kRows) {
        dot_rows_bf16<kRows>(k, blocks, rows, pi, xi, out);
      } else {
        for (int64_t r = 0; r < nr; ++r) dot_rows_bf16<1>(k, blocks, rows + r, pi, xi, out + r);
      }
      float* yi = y + i * ldy + o;
      for (int64_t r = 0; r < nr; ++r) yi[r] = accumulate ? yi[r] + out[r] : out[r];
    }
  }
}

// ---- few rows, W: y[0:n] += x[kk] W[kk, 0:n] over the rows kk of W, read in order.
template <DType T>
void direct_w(int64_t m, const float* x, int64_t ldx, const WeightView& w, float* y, int64_t ldy, bool accumulate) {
  const int64_t k = w.rows, n = w.cols, stride = w.ld * dtype_bytes(T);
  for (int64_t i = 0; i < m; ++i) {
    float* yi = y + i * ldy;
    if (!accumulate) std::fill(yi, yi + n, 0.0f);
    for (int64_t kk = 0; kk < k; ++kk) {
      const uint8_t* row = w.data + kk * stride;
      const float xk = x[i * ldx + kk];
      const vf xs = simd::splat(xk);
      int64_t j = 0;
      for (; j + kLanes <= n; j += kLanes) simd::store(yi + j, simd::load(yi + j) + xs * load_vec<T>(row, j));
      for (; j < n; ++j) yi[j] += xk * load_one<T>(row, j);
    }
  }
}

// ---- many rows: B (k, nb) = columns [n0, n0 + nb) of W^T (transposed) or of W, widened into the
// packed panels (kernels.hpp's PackedB layout: panel p is (k, kNR), zero-padded past nb).
template <DType T>
void pack_block(const WeightView& w, bool transposed, int64_t n0, int64_t nb, PackedB& p) {
  const int64_t k = transposed ? w.cols : w.rows, es = dtype_bytes(T);
  p.k = k;
  p.n = nb;
  p.panels = (nb + kNR - 1) / kNR;
  for (int64_t panel = 0; panel < p.panels; ++panel) {
    const int64_t j0 = panel * kNR, nr = std::min(kNR, nb - j0);
    float* dst = p.data.get() + panel * k * kNR;
    if (nr < kNR) {
      for (int64_t kk = 0; kk < k; ++kk) std::fill(dst + kk * kNR + nr, dst + (kk + 1) * kNR, 0.0f);
    }
    if (transposed) {  // B(kk, j) = W(n0 + j0 + j, kk): row j of W, along kk
      for (int64_t j = 0; j < nr; ++j) {
        const uint8_t* row = w.data + (n0 + j0 + j) * w.ld * es;
        int64_t kk = 0;
        for (; kk + kLanes <= k; kk += kLanes) {
          const vf v = load_vec<T>(row, kk);
          ATTN_UNROLL
          for (int l = 0; l < kLanes; ++l) dst[(kk + l) * kNR + j] = v[l];
        }
        for (; kk < k; ++kk) dst[kk * kNR + j] = load_one<T>(row, kk);
      }
    } else {  // B(kk, j) = W(kk, n0 + j0 + j): a piece of row kk
      for (int64_t kk = 0; kk < k; ++kk) {
        const uint8_t* row = w.data + (kk * w.ld + n0 + j0) * es;
        if (nr == kNR) {
          ATTN_UNROLL
          for (int v = 0; v < kNV; ++v) simd::store(dst + kk * kNR + v * kLanes, load_vec<T>(row, v * kLanes));
        } else {
          for (int64_t j = 0; j < nr; ++j) dst[kk * kNR + j] = load_one<T>(row, j);
        }
      }
    }
  }
}

template <DType T>
void blocked(int64_t m, const float* x, int64_t ldx, const WeightView& w, bool transposed, float* y, int64_t ldy,
             bool accumulate) {
  const int64_t k = transposed ? w.cols : w.rows, n = transposed ? w.rows : w.cols;
  // columns per block: a multiple of kNR, about kBlockBytes of packed floats
  const int64_t nb = std::max<int64_t>(kNR, kBlockBytes / (4 * std::max<int64_t>(k, 1)) / kNR * kNR);
  PackedB p;
  p.data.reset(new float[std::size_t(std::min(nb, (n + kNR - 1) / kNR * kNR) * k)]);
  for (int64_t n0 = 0; n0 < n; n0 += nb) {
    const int64_t cols = std::min(nb, n - n0);
    pack_block<T>(w, transposed, n0, cols, p);
    gemm_packed(m, cols, k, x, ldx, p, y + n0, ldy, accumulate);
  }
}

template <DType T>
void product(int64_t m, const float* x, int64_t ldx, const WeightView& w, bool transposed, float* y, int64_t ldy,
             bool accumulate) {
  if (m < kDirectRows) {
    if (transposed && T == DType::BF16) {
      direct_wt_bf16(m, x, ldx, w, y, ldy, accumulate);
    } else if (transposed) {
      direct_wt<T>(m, x, ldx, w, y, ldy, accumulate);
    } else {
      direct_w<T>(m, x, ldx, w, y, ldy, accumulate);
    }
  } else {
    blocked<T>(m, x, ldx, w, transposed, y, ldy, accumulate);
  }
}

void dispatch(int64_t m, const float* x, int64_t ldx, const WeightView& w, bool transposed, float* y, int64_t ldy,
              bool accumulate) {
  if (m <= 0) return;
  switch (w.dtype) {
    case DType::F32: product<DType::F32>(m, x, ldx, w, transposed, y, ldy, accumulate); break;
    case DType::F16: product<DType::F16>(m, x, ldx, w, transposed, y, ldy, accumulate); break;
    case DType::BF16: product<DType::BF16>(m, x, ldx, w, transposed, y, ldy, accumulate); break;
  }
}

}  // namespace

void matmul_wt(int64_t m, const float* x, int64_t ldx, const WeightView& w, float* y, int64_t ldy, bool accumulate) {
  dispatch(m, x, ldx, w, true, y, ldy, accumulate);
}

void matmul_w(int64_t m, const float* x, int64_t ldx, const WeightView& w, float* y, int64_t ldy, bool accumulate) {
  dispatch(m, x, ldx, w, false, y, ldy, accumulate);
}

void add_bias(float* y, int64_t rows, int64_t ldy, const WeightView& bias) {
  if (bias.empty()) return;
  std::vector<float> b(std::size_t(bias.cols));
  widen_row(bias, 0, b.data());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < bias.cols; ++j) y[i * ldy + j] += b[std::size_t(j)];
  }
}

}  // namespace attn::pretrained
