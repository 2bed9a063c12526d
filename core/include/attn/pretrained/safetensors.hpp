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

// The longest JSON header read (bytes), checked from the 8-byte length before the header is read:
// about 10,000 tensor entries, several times what a dense checkpoint holds in one file (a 128-layer
// model has about 2,000 tensors). The format allows 100,000,000; a header of 8 MiB (90,000 tensors)
// took 10 s to parse in the wasm build on the shared machine, so a longer one is refused up front.
constexpr int64_t kMaxHeaderBytes = 1024 * 1024;

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

// The header (its n bytes, after the 8-byte length) parsed and checked by the reader shared with the
// trainer's model files (safetensors_header.hpp): strict JSON, each key once, each tensor a dtype that
// safetensors defines, a shape and offsets [begin, end) of its size, the tensors covering the data
// (file_size - 8 - n bytes) exactly once, contiguously. Errors name the tensor ("weights.<name>",
// the file in the message) or, for the header as a whole, the file (`field`).
SafetensorsIndex parse_safetensors_header(const std::string& header, int64_t file_size, int file,
                                          const std::string& field);

}  // namespace attn::pretrained
