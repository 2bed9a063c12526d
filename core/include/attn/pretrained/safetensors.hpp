// safetensors.hpp — the index of a .safetensors file: which tensors it holds, their dtype and shape,
// and where their bytes are (huggingface/safetensors, README "Format"):
//
//   u64 (little-endian) n | n bytes of JSON header | data
//   header: { name: { "dtype": "F32" | "F16" | "BF16" | ..., "shape": [..], "data_offsets": [begin, end) }, ...,
//             "__metadata__": { string: string } (optional) }
// Offsets count from the first byte after the header. Only the header is read here (the tensors'
// bytes are copied later, tensor by tensor, by whoever holds the file: checkpoint.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/pretrained/weights16.hpp"

namespace attn::pretrained {

constexpr int64_t kMaxHeaderBytes = 100000000;  // safetensors' own limit on the JSON header

struct TensorEntry {
  std::string name;
  std::string dtype_name;            // as written, e.g. "BF16", "BOOL"
  std::optional<DType> dtype;        // F32, F16, BF16; empty for any other dtype
  std::vector<int64_t> shape;
  int64_t begin = 0, end = 0;        // absolute byte offsets in the file
  int file = 0;                      // which of the checkpoint's files
};

struct SafetensorsIndex {
  int64_t file_size = 0;
  std::vector<TensorEntry> tensors;  // in the header's order
};

// The header's length from the file's first 8 bytes (`available` of them given), checked against
// the file's size and kMaxHeaderBytes. `field` names the file in errors ("weights", "weights[1]").
int64_t safetensors_header_length(const uint8_t* first, int64_t available, int64_t file_size, const std::string& field);

// The header (its n bytes, after the 8-byte length) parsed and checked: a JSON object of tensors,
// each with a dtype string, a shape of non-negative integers and offsets [begin, end) whose length is
// the shape's element count times the dtype's size (for the dtypes safetensors defines). Offsets past
// the end of the file are kept here and refused when a loader needs that tensor.
SafetensorsIndex parse_safetensors_header(const std::string& header, int64_t file_size, int file,
                                          const std::string& field);

}  // namespace attn::pretrained
