// safetensors_header.hpp — the one reader of a .safetensors JSON header, and the one check of its
// layout, shared by the trainer's model files (train/model_file.hpp) and checkpoints
// (pretrained/safetensors.hpp). The format (huggingface/safetensors, README "Format"):
//
//   u64 (little-endian) n | n bytes of JSON header | data
//   header: { name: { "dtype": string, "shape": [uint, ...], "data_offsets": [begin, end) }, ...,
//             "__metadata__": { string: string } (optional) }
//
// Offsets count from the first byte of the data. The format requires the tensors to cover the data
// exactly once: sorted by offset, each starts where the previous one ends, the first at 0, the last
// at the data's end (safetensors' own reader refuses anything else). A file that breaks this would
// otherwise load as another model: a duplicate key (the last one wins), overlapping tensors, a header
// length a few bytes short (every tensor shifted), bytes after the last tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attn {

// One tensor of a header: dtype as written, shape (row-major, outermost first), byte range
// [begin, end) relative to the first byte of the data.
struct SafetensorsEntry {
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;
};

struct SafetensorsHeader {
  std::map<std::string, std::string> metadata;        // "__metadata__": string -> string
  std::map<std::string, SafetensorsEntry> tensors;    // by name
};

// What is wrong with a header or its layout, and the tensor it is about (empty: the file as a whole).
// Each caller turns it into its own attn::Error (the trainer: field "bytes"; checkpoints: the tensor
// "weights.<name>" or the file "weights[i]").
class SafetensorsError : public std::runtime_error {
 public:
  SafetensorsError(const std::string& why, std::string tensor) : std::runtime_error(why), tensor_(std::move(tensor)) {}
  const std::string& tensor() const noexcept { return tensor_; }

 private:
  std::string tensor_;
};

// The header's JSON parsed strictly (nlohmann-json's SAX reader, which checks the syntax, UTF-8 and
// escapes): one object of tensor entries {"dtype": string, "shape": [uint...] (at most 8),
// "data_offsets": [uint, uint]} (each key once, no others) and an optional "__metadata__" object of
// string -> string; integers without sign, fraction or exponent, at most 2^53; a key twice in one
// object is refused (a hash set per object: linear); trailing spaces allowed (padding).
// Throws SafetensorsError.
SafetensorsHeader read_safetensors_header(const uint8_t* json, std::size_t n);

// Bytes per element of a dtype safetensors defines ("F32": 4, "BF16": 2, "BOOL": 1, ...), 0 for
// any other string.
uint64_t safetensors_dtype_bytes(const std::string& dtype);

// The layout checked against `data_bytes`, the bytes after the header: every dtype one that
// safetensors defines, every tensor's byte length its shape's element count times its dtype's size,
// and the tensors covering [0, data_bytes) exactly once, contiguously. Returns the tensors sorted by
// offset (the order to read them in). Throws SafetensorsError naming the first tensor at fault (a
// truncated file: the tensor that ends past the data, with "truncated" in the message).
std::vector<std::pair<const std::string*, const SafetensorsEntry*>> check_safetensors_layout(
    const SafetensorsHeader& h, uint64_t data_bytes);

}  // namespace attn
