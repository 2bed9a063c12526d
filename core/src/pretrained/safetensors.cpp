// safetensors.cpp — see safetensors.hpp.
#include "attn/pretrained/safetensors.hpp"

#include "attn/errors.hpp"
#include "attn/safetensors_header.hpp"

namespace attn::pretrained {

namespace {

std::optional<DType> loadable(const std::string& d) {
  if (d == "F32") return DType::F32;
  if (d == "F16") return DType::F16;
  if (d == "BF16") return DType::BF16;
  return std::nullopt;
}

}  // namespace

int64_t safetensors_header_length(const uint8_t* first, int64_t available, int64_t file_size, const std::string& field) {
  if (available < 8 || file_size < 8) {
    throw_range(field, field + " has " + fmt(double(file_size)) +
                           " bytes: a .safetensors file starts with an 8-byte header length");
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | first[i];
  if (n > uint64_t(kMaxHeaderBytes) || int64_t(n) > file_size - 8) {
    throw_range(field, field + ": the safetensors header length (" + fmt(double(n)) + " bytes) is larger than " +
                           (n > uint64_t(kMaxHeaderBytes) ? "the loader reads (" + fmt(double(kMaxHeaderBytes)) +
                                                                " bytes, checked before the header is read)"
                                                          : "the rest of the file (" + fmt(double(file_size - 8)) + ")") +
                           ": not a .safetensors file, or a truncated one");
  }
  return int64_t(n);
}

SafetensorsIndex parse_safetensors_header(const std::string& header, int64_t file_size, int file,
                                          const std::string& field) {
  // One reader and one layout check with the trainer's model files (safetensors_header.hpp): a key
  // twice, overlapping or shifted tensors, gaps and trailing bytes are refused, naming the tensor.
  auto refuse = [&](const SafetensorsError& e) {
    throw_range(e.tensor().empty() ? field : "weights." + e.tensor(), field + ": " + e.what());
  };
  SafetensorsHeader h;
  try {
    h = read_safetensors_header(reinterpret_cast<const uint8_t*>(header.data()), header.size());
    check_safetensors_layout(h, uint64_t(file_size - 8 - int64_t(header.size())));
  } catch (const SafetensorsError& e) {
    refuse(e);
  }
  SafetensorsIndex index;
  index.file_size = file_size;
  const int64_t data_start = 8 + int64_t(header.size());
  for (auto& [name, t] : h.tensors) {
    TensorEntry e;
    e.name = name;
    e.file = file;
    e.dtype_name = t.dtype;
    e.dtype = loadable(t.dtype);
    for (uint64_t d : t.shape) e.shape.push_back(int64_t(d));
    e.begin = data_start + int64_t(t.begin);
    e.end = data_start + int64_t(t.end);
    index.tensors.push_back(std::move(e));
  }
  return index;
}

}  // namespace attn::pretrained
