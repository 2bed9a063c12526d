// kernels.cpp — packed register-blocked gemm and softmax (see kernels.hpp).
#include "attn/kernels.hpp"

#include <algorithm>
#include <cstring>

namespace attn {

using simd::kLanes;
using simd::vf;
using simd::vi;

// ---------------------------------------------------------------------------------------------
// Packing: panel p of B is (k, kNR) contiguous, zero-padded past column n.
PackedB pack_b(const float* b, int64_t k, int64_t n, int64_t row_stride, int64_t col_stride) {
  PackedB p;
  p.k = k;
  p.n = n;
  p.panels = (n + kNR - 1) / kNR;
  p.data.reset(new float[static_cast<std::size_t>(p.panels * k * kNR)]);  // uninitialised: every element is written
  for (int64_t panel = 0; panel < p.panels; ++panel) {
    const int64_t j0 = panel * kNR;
    const int64_t nr = std::min(kNR, n - j0);
    float* dst = p.data.get() + panel * k * kNR;
    if (nr < kNR) {  // the last panel's columns past n: zeros
      for (int64_t kk = 0; kk < k; ++kk) std::fill(dst + kk * kNR + nr, dst + (kk + 1) * kNR, 0.0f);
    }
    if (col_stride == 1 && nr == kNR) {  // a full panel: kNV vector copies per row
      for (int64_t kk = 0; kk < k; ++kk) {
        const float* src = b + kk * row_stride + j0;
        ATTN_UNROLL
        for (int v = 0; v < kNV; ++v) simd::store(dst + kk * kNR + v * kLanes, simd::load(src + v * kLanes));
      }
    } else if (col_stride == 1) {
      for (int64_t kk = 0; kk < k; ++kk) std::copy_n(b + kk * row_stride + j0, nr, dst + kk * kNR);
    } else {
      for (int64_t kk = 0; kk < k; ++kk) {
        for (int64_t j = 0; j < nr; ++j) dst[kk * kNR + j] = b[kk * row_stride + (j0 + j) * col_stride];
      }
    }
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// Micro-kernel: C[0:MR, 0:nr] (=|+=) A[0:MR, 0:kc] @ panel[0:kc, 0:kNR].
// MR x kNV accumulator vectors stay in registers; per k: kNV loads of B, MR broadcasts of A.
template <int MR>
static void micro_kernel(int64_t kc, const float* a, int64_t lda, const float* panel, float* c,
                         int64_t ldc, int64_t nr, bool accumulate) {
  vf acc[MR][kNV];
  const float* ar[MR];  // one pointer per row of A, bumped along k (cheaper than index arithmetic)
  ATTN_UNROLL
  for (int r = 0; r < MR; ++r) {
    ATTN_UNROLL
    for (int v = 0; v < kNV; ++v) acc[r][v] = simd::splat(0.0f);
    ar[r] = a + r * lda;
  }
  for (const float* const end = panel + kc * kNR; panel != end; panel += kNR) {
    vf b[kNV];
    ATTN_UNROLL
    for (int v = 0; v < kNV; ++v) b[v] = simd::load(panel + v * kLanes);
    ATTN_UNROLL
    for (int r = 0; r < MR; ++r) {
      const vf av = simd::splat(*ar[r]++);
      ATTN_UNROLL
      for (int v = 0; v < kNV; ++v) acc[r][v] = simd::madd(av, b[v], acc[r][v]);
    }
  }
  ATTN_UNROLL
  for (int r = 0; r < MR; ++r) {
    float* cr = c + r * ldc;
    if (nr == kNR) {
      ATTN_UNROLL
      for (int v = 0; v < kNV; ++v) {
        simd::store(cr + v * kLanes, accumulate ? simd::load(cr + v * kLanes) + acc[r][v] : acc[r][v]);
      }
    } else {
      float tmp[kNR];
      ATTN_UNROLL
      for (int v = 0; v < kNV; ++v) simd::store(tmp + v * kLanes, acc[r][v]);
      for (int64_t j = 0; j < nr; ++j) cr[j] = accumulate ? cr[j] + tmp[j] : tmp[j];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Matrix-vector: y[0:cols] (=|+=) x[0:k] @ P panels starting at `panel` (panel stride `pstride`).
// P * kNV accumulator vectors; per k one broadcast of x[k] and P * kNV loads, multiplies and adds.
// The P panels are P sequential streams through memory, each read once.
template <int P>
static void gemv_panels(int64_t k, const float* x, const float* panel, int64_t pstride, float* y, int64_t cols,
                        bool accumulate) {
  vf acc[P][kNV];
  const float* src[P];
  ATTN_UNROLL
  for (int p = 0; p < P; ++p) {
    src[p] = panel + p * pstride;
    ATTN_UNROLL
    for (int v = 0; v < kNV; ++v) acc[p][v] = simd::splat(0.0f);
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    const vf xs = simd::splat(x[kk]);
    ATTN_UNROLL
    for (int p = 0; p < P; ++p) {
      ATTN_UNROLL
      for (int v = 0; v < kNV; ++v) acc[p][v] = simd::madd(xs, simd::load(src[p] + kk * kNR + v * kLanes), acc[p][v]);
    }
  }
  ATTN_UNROLL
  for (int p = 0; p < P; ++p) {
    float* yp = y + p * kNR;
    const int64_t nr = std::min(kNR, cols - p * kNR);
    if (nr == kNR) {
      ATTN_UNROLL
      for (int v = 0; v < kNV; ++v) {
        simd::store(yp + v * kLanes, accumulate ? simd::load(yp + v * kLanes) + acc[p][v] : acc[p][v]);
      }
    } else {
      float tmp[kNR];
      ATTN_UNROLL
      for (int v = 0; v < kNV; ++v) simd::store(tmp + v * kLanes, acc[p][v]);
      for (int64_t j = 0; j < nr; ++j) yp[j] = accumulate ? yp[j] + tmp[j] : tmp[j];
    }
  }
}

void gemv_packed(int64_t n, int64_t k, const float* x, const PackedB& b, float* y, bool accumulate) {
  const int64_t panels = (n + kNR - 1) / kNR, pstride = b.k * kNR;
  const float* base = b.data.get();
  int64_t p = 0;
  for (; p + kGemvPanels <= panels; p += kGemvPanels) {
    gemv_panels<kGemvPanels>(k, x, base + p * pstride, pstride, y + p * kNR, n - p * kNR, accumulate);
  }
  switch (panels - p) {  // the last panels, fewer than kGemvPanels
    case 3: gemv_panels<3>(k, x, base + p * pstride, pstride, y + p * kNR, n - p * kNR, accumulate); break;
    case 2: gemv_panels<2>(k, x, base + p * pstride, pstride, y + p * kNR, n - p * kNR, accumulate); break;
    case 1: gemv_panels<1>(k, x, base + p * pstride, pstride, y + p * kNR, n - p * kNR, accumulate); break;
    default: break;
  }
}
static_assert(kGemvPanels == 4, "gemv_packed's remainder switch handles up to 3 panels");

// Cache blocking: a (kMC, kKC) block of A is reused across all panels of B; one panel's (kKC, kNR)
// slice stays in L1 while the kMR-row tiles stream past it.
constexpr int64_t kKC = 256;
constexpr int64_t kMC = 64;

void gemm_packed(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const PackedB& b,
                 float* c, int64_t ldc, bool accumulate) {
  const int64_t panels = (n + kNR - 1) / kNR;
  if (k == 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    }
    return;
  }
  if (m == 1) {  // one row (decoding): stream the panels once, no cache blocking needed
    gemv_packed(n, k, a, b, c, accumulate);
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kKC) {
    const int64_t kc = std::min(kKC, k - k0);
    const bool acc = accumulate || k0 > 0;
    for (int64_t i0 = 0; i0 < m; i0 += kMC) {
      const int64_t mc = std::min(kMC, m - i0);
      for (int64_t p = 0; p < panels; ++p) {
        const float* panel = b.data.get() + p * b.k * kNR + k0 * kNR;
        const int64_t nr = std::min(kNR, n - p * kNR);
        float* cp = c + p * kNR;
        int64_t i = i0;
        for (; i + kMR <= i0 + mc; i += kMR) {
          micro_kernel<kMR>(kc, a + i * lda + k0, lda, panel, cp + i * ldc, ldc, nr, acc);
        }
        const float* ai = a + i * lda + k0;
        float* ci = cp + i * ldc;
        switch (i0 + mc - i) {  // the last rows of the block, fewer than kMR
          case 5: micro_kernel<5>(kc, ai, lda, panel, ci, ldc, nr, acc); break;
          case 4: micro_kernel<4>(kc, ai, lda, panel, ci, ldc, nr, acc); break;
          case 3: micro_kernel<3>(kc, ai, lda, panel, ci, ldc, nr, acc); break;
          case 2: micro_kernel<2>(kc, ai, lda, panel, ci, ldc, nr, acc); break;
          case 1: micro_kernel<1>(kc, ai, lda, panel, ci, ldc, nr, acc); break;
          default: break;
        }
      }
    }
  }
}

PackedB pack_matrix(const Matrix& w) {
  const int64_t k = static_cast<int64_t>(w.shape(0)), n = static_cast<int64_t>(w.shape(1));
  return pack_b(w.data(), k, n, n, 1);
}

Matrix matmul(const Matrix& x, const PackedB& w) {
  const int64_t m = static_cast<int64_t>(x.shape(0));
  Matrix y = uninitialised(static_cast<std::size_t>(m), static_cast<std::size_t>(w.n));
  gemm_packed(m, w.n, w.k, x.data(), w.k, w, y.data(), w.n, false);
  return y;
}

Matrix matmul(const Matrix& x, const Matrix& w) { return matmul(x, pack_matrix(w)); }

// ---------------------------------------------------------------------------------------------
// exp(x), Cephes expf: x = n ln2 + f, |f| <= ln2/2, exp(f) by a degree-7 polynomial, times 2^n.
// One template for float and for vf: the same operations in the same order, so a lane of the
// vector version equals the scalar version bit for bit.
namespace {
template <class T> struct Ops;
template <> struct Ops<float> {
  using I = int32_t;
  static float sp(float x) { return x; }
  static float floor_(float x) {
    const float t = static_cast<float>(static_cast<int32_t>(x));
    return t > x ? t - 1.0f : t;
  }
  static float clamp(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
  static float zero_if_nan(float x) { return x == x ? x : 0.0f; }
  static float pow2(float n) {
    const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
    float r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
  }
};
template <> struct Ops<vf> {
  static vf sp(float x) { return simd::splat(x); }
  static vf floor_(vf x) {
    const vf t = __builtin_convertvector(__builtin_convertvector(x, vi), vf);
    const vi gt = t > x;                                  // -1 where t > x
    return t + __builtin_convertvector(gt, vf);          // t - 1 there
  }
  static vf clamp(vf x, float lo, float hi) {
    const vf l = simd::splat(lo), h = simd::splat(hi);
    x = x < l ? l : x;
    return x > h ? h : x;
  }
  static vf zero_if_nan(vf x) { return x == x ? x : simd::splat(0.0f); }
  static vf pow2(vf n) {
    const vi bits = (__builtin_convertvector(n, vi) + 127) << 23;
    vf r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
  }
};

template <class T>
inline T exp_t(T x) {
  using O = Ops<T>;
  x = O::clamp(x, -87.33654f, 88.37626f);  // a NaN x stays NaN, and so does the result ...
  // ... but n, which goes through float -> int conversions, is taken from 0 for it (converting a NaN
  // to an int is undefined behaviour; UBSan caught it when a NaN first reached the kernels).
  const T n = O::floor_(O::zero_if_nan(x) * O::sp(1.44269504088896341f) + O::sp(0.5f));
  x = x - n * O::sp(0.693359375f);
  x = x - n * O::sp(-2.12194440e-4f);
  T y = O::sp(1.9875691500E-4f);
  y = y * x + O::sp(1.3981999507E-3f);
  y = y * x + O::sp(8.3334519073E-3f);
  y = y * x + O::sp(4.1665795894E-2f);
  y = y * x + O::sp(1.6666665459E-1f);
  y = y * x + O::sp(5.0000001201E-1f);
  y = y * (x * x) + x + O::sp(1.0f);
  return y * O::pow2(n);
}
}  // namespace

float exp_approx(float x) { return exp_t(x); }
vf exp_approx(vf x) { return exp_t(x); }

// softmax(scale * row[0:len]): subtract the max (scaled), exponentiate, normalise; zero the tail.
void softmax_row(float* row, int64_t len, int64_t total, float scale) {
  int64_t j = 0;
  float m = row[0];
  if (len >= kLanes) {
    vf mv = simd::load(row);
    for (j = kLanes; j + kLanes <= len; j += kLanes) mv = simd::vmax(mv, simd::load(row + j));
    m = simd::hmax(mv);
  } else {
    j = 1;
  }
  for (; j < len; ++j) m = row[j] > m ? row[j] : m;

  const float ms = m * scale;
  const vf scale_v = simd::splat(scale), ms_v = simd::splat(ms);
  vf sum_v = simd::splat(0.0f);
  for (j = 0; j + kLanes <= len; j += kLanes) {
    const vf e = exp_t(simd::load(row + j) * scale_v - ms_v);
    simd::store(row + j, e);
    sum_v += e;
  }
  float sum = simd::hsum(sum_v);
  for (; j < len; ++j) {
    row[j] = exp_t(row[j] * scale - ms);
    sum += row[j];
  }
  const float inv = 1.0f / sum;
  const vf inv_v = simd::splat(inv);
  for (j = 0; j + kLanes <= len; j += kLanes) simd::store(row + j, simd::load(row + j) * inv_v);
  for (; j < len; ++j) row[j] *= inv;
  std::fill(row + len, row + total, 0.0f);
}

}  // namespace attn
