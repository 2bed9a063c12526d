// train/model_file.hpp — the pieces of the trainer's model file format that stand alone: the
// strict reader of a .safetensors JSON header, the checksum, the format's names and limits.
// Trainer::export_model / load_model (model_file.cpp) write and read the files; the layout is in
// docs/api.md ("Training", "The model file").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attn::train {

// "__metadata__" fields that identify a trainer's file (version 3; ATTNTRN1 = 1, ATTNTRN2 = 2).
constexpr const char* kFormatName = "attention-playground.trainer";
constexpr const char* kFormatVersion = "3";
// The reference safetensors reader's header cap (bytes of JSON).
constexpr uint64_t kMaxHeaderBytes = 100000000;
// The longest 'chars' text a trainer takes (bytes of UTF-8): escaped, it fits the header cap.
constexpr double kMaxTextBytes = 16000000;

// One tensor of a safetensors header: dtype, shape (row-major, outermost first), byte range
// [begin, end) relative to the first byte after the header.
struct TensorEntry {
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;
};

struct SafetensorsHeader {
  std::map<std::string, std::string> metadata;  // "__metadata__": string -> string
  std::map<std::string, TensorEntry> tensors;
};

// Parses the JSON header of a safetensors file strictly: one object of tensor entries
// {"dtype": string, "shape": [uint...], "data_offsets": [uint, uint]} (each key once, no others)
// and an optional "__metadata__" object of string -> string; valid UTF-8; integers without sign,
// fraction or exponent, at most 2^53; duplicate keys refused; trailing spaces allowed (padding).
// Throws attn::Error (field "bytes") saying what is wrong and where.
SafetensorsHeader parse_safetensors_header(const uint8_t* json, std::size_t n);

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320): zlib's crc32. `crc` continues a previous one.
uint32_t crc32(const uint8_t* p, std::size_t n, uint32_t crc = 0);

// The checksum stored in "__metadata__"."crc32" (8 lowercase hex digits): the CRC-32 of the tensor
// data (every byte after the header) followed by the metadata without "crc32", as "key=value\n"
// lines sorted by key. In Python:
//   zlib.crc32(data + "".join(f"{k}={v}\n" for k, v in sorted(meta.items()) if k != "crc32").encode())
uint32_t model_file_checksum(const std::map<std::string, std::string>& metadata, const uint8_t* data,
                             std::size_t n);

}  // namespace attn::train
