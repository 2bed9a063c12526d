// stage_record.cpp — see stage_record.hpp.
#include "attn/stage_record.hpp"

#include <algorithm>

namespace attn {

void StageRecord::matrix(const char* name, const float* m, int64_t rows, int64_t cols, int64_t ld) {
  std::vector<float> data(std::size_t(rows * cols));
  for (int64_t i = 0; i < rows; ++i) std::copy_n(m + i * ld, cols, data.data() + i * cols);
  stages.push_back({name, {rows, cols}, std::move(data)});
}

namespace {

// Columns [offset + j*stride, + width) of each of `rows` rows (row stride ld), for every head j, to dst:
// head after head (heads, rows, width), or row after row (rows, heads*width).
void copy_heads(const float* m, int64_t rows, int64_t ld, int64_t heads, int64_t width, int64_t stride, int64_t offset,
                bool by_head, float* dst) {
  for (int64_t j = 0; j < heads; ++j) {
    for (int64_t i = 0; i < rows; ++i) {
      std::copy_n(m + i * ld + offset + j * stride, width, dst + (by_head ? j * rows + i : i * heads + j) * width);
    }
  }
}

}  // namespace

void StageRecord::split(const char* name, const float* m, int64_t rows, int64_t ld, int64_t heads, int64_t width,
                        int64_t stride, int64_t offset) {
  copy_heads(m, rows, ld, heads, width, stride, offset, true, tensor(name, {heads, rows, width}));
}

void StageRecord::gather(const char* name, const float* m, int64_t rows, int64_t ld, int64_t heads, int64_t width,
                         int64_t stride, int64_t offset) {
  copy_heads(m, rows, ld, heads, width, stride, offset, false, tensor(name, {rows, heads * width}));
}

float* StageRecord::tensor(const char* name, std::vector<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  stages.push_back({name, std::move(shape), std::vector<float>(std::size_t(count), 0.0f)});
  return stages.back().data.data();
}

}  // namespace attn
