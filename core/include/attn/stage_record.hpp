// stage_record.hpp — a pass stage by stage, as it computes: the one record of the walkthrough. The
// lesson's forward (intermediates.hpp) and a checkpoint's layer (pretrained/layer_stages.hpp) fill it
// with their own tensors as they compute them, not with a second computation; each names its stages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/tensor.hpp"

namespace attn {

struct Stage {
  std::string name;            // the JS API name: "q", "qHeads", "scores", ...
  std::vector<int64_t> shape;  // row-major, outermost first
  std::vector<float> data;
};

class StageRecord {
 public:
  // (rows, cols) from a row-major buffer whose rows are `ld` floats apart.
  void matrix(const char* name, const float* m, int64_t rows, int64_t cols, int64_t ld);
  // (heads, rows, width): head j is columns [offset + j*stride, + width) of each row.
  void split(const char* name, const float* m, int64_t rows, int64_t ld, int64_t heads, int64_t width, int64_t stride,
             int64_t offset = 0);
  // (rows, heads*width): the same columns of every head, side by side.
  void gather(const char* name, const float* m, int64_t rows, int64_t ld, int64_t heads, int64_t width, int64_t stride,
              int64_t offset = 0);
  // A new stage of `shape`, for a kernel to fill (zeroed).
  float* tensor(const char* name, std::vector<int64_t> shape);

  Matrix x;                    // (N, D): the pass's input (a checkpoint's: after the layer's norm)
  Matrix output;               // (N, D)
  std::vector<Stage> stages;   // in the order the layer computes them
};

}  // namespace attn
