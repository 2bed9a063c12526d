// train/model_file.hpp — the pieces of the trainer's model file format that stand alone: where the
// loader reads a file from, the strict reader of a .safetensors JSON header, the checksum, the
// format's names and limits. Trainer::export_model / load_model (model_file.cpp) write and read the
// files; the layout is in docs/api.md ("Training", "The model file").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attn/safetensors_header.hpp"

namespace attn::train {

// "__metadata__" fields that identify a trainer's file. Version 4: the CRC-32 covers the whole file;
// version 3 (read too): it covered the tensor data and the metadata, not the tensor table.
// (ATTNTRN1 and ATTNTRN2, read too, were versions 1 and 2.)
constexpr const char* kFormatName = "attention-playground.trainer";
constexpr const char* kFormatVersion = "4";
// The reference safetensors reader's header cap (bytes of JSON).
constexpr uint64_t kMaxHeaderBytes = 100000000;
// The longest 'chars' text a trainer takes (bytes of UTF-8): escaped, it fits the header cap.
constexpr double kMaxTextBytes = 16000000;

// A model file as the loader reads it: its size and a way to copy any range of it. The binding
// reads straight from the caller's Uint8Array, so that a file refused on its header is never copied
// whole into the wasm heap, and the tensors go straight to the trainer's parameters.
class ModelSource {
 public:
  virtual ~ModelSource() = default;
  virtual uint64_t size() const = 0;
  // Copies bytes [offset, offset + n) to dst; offset + n <= size().
  virtual void read(uint64_t offset, uint64_t n, uint8_t* dst) const = 0;
};
// A file in memory.
class BytesSource : public ModelSource {
 public:
  BytesSource(const uint8_t* data, std::size_t n) : data_(data), n_(n) {}
  explicit BytesSource(const std::vector<uint8_t>& b) : data_(b.data()), n_(b.size()) {}
  uint64_t size() const override { return n_; }
  void read(uint64_t offset, uint64_t n, uint8_t* dst) const override;

 private:
  const uint8_t* data_;
  std::size_t n_;
};

// A safetensors header, as the one reader shared with checkpoints reads it (safetensors_header.hpp).
using TensorEntry = attn::SafetensorsEntry;
using SafetensorsHeader = attn::SafetensorsHeader;

// read_safetensors_header (safetensors_header.hpp: strict JSON of the expected form, each key once),
// its errors thrown as attn::Error (field "bytes") saying what is wrong and where.
SafetensorsHeader parse_safetensors_header(const uint8_t* json, std::size_t n);

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320): zlib's crc32. `crc` continues a previous one.
uint32_t crc32(const uint8_t* p, std::size_t n, uint32_t crc = 0);

// Version 4's checksum, stored in "__metadata__"."crc32" as 8 lowercase hex digits: the CRC-32 of the
// whole file with those 8 digits read as "00000000". In Python:
//   at = b.index(b'"crc32":"', 8) + 9;  zlib.crc32(b[:at] + b"00000000" + b[at + 8:])
// The digits sit after the first `"crc32":"` of the JSON header (header_at: the header's offset in
// the file, 8): returns their offset in the file, or 0 when the header holds no such text.
std::size_t crc_digits_at(const uint8_t* header, std::size_t n, std::size_t header_at = 8);
// The CRC-32 of `n` bytes of the file starting at file offset `at`, with the digits at `digits_at`
// read as '0' (continuing `crc`): a file is checked in pieces, as it is read.
uint32_t crc32_zeroed(const uint8_t* p, std::size_t n, std::size_t at, std::size_t digits_at, uint32_t crc = 0);

// Version 3's checksum: the CRC-32 of the tensor data followed by the metadata without "crc32", as
// "key=value\n" lines sorted by key.
uint32_t model_file_checksum_v3(const std::map<std::string, std::string>& metadata, const uint8_t* data,
                                std::size_t n);

}  // namespace attn::train
