// safetensors.cpp — see safetensors.hpp.
#include "attn/pretrained/safetensors.hpp"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "attn/errors.hpp"

namespace attn::pretrained {

namespace {

// Element sizes of the dtypes safetensors defines (safetensors/src/tensor.rs, Dtype).
const std::map<std::string, int64_t>& dtype_sizes() {
  static const std::map<std::string, int64_t> sizes = {
      {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
      {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4}, {"F64", 8}, {"I64", 8}, {"U64", 8}};
  return sizes;
}

std::optional<DType> loadable(const std::string& d) {
  if (d == "F32") return DType::F32;
  if (d == "F16") return DType::F16;
  if (d == "BF16") return DType::BF16;
  return std::nullopt;
}

// A JSON number that is an integer in [0, 2^53]: its value, or -1.
int64_t whole(const nlohmann::json& v) {
  if (v.is_number_unsigned() || v.is_number_integer()) {
    const auto x = v.get<int64_t>();
    return x >= 0 && x <= (int64_t(1) << 53) ? x : -1;
  }
  return -1;
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
                           (n > uint64_t(kMaxHeaderBytes) ? "the format allows (" + fmt(double(kMaxHeaderBytes)) + ")"
                                                          : "the rest of the file (" + fmt(double(file_size - 8)) + ")") +
                           ": not a .safetensors file, or a truncated one");
  }
  return int64_t(n);
}

SafetensorsIndex parse_safetensors_header(const std::string& header, int64_t file_size, int file,
                                          const std::string& field) {
  const nlohmann::json h = nlohmann::json::parse(header, nullptr, false);
  if (h.is_discarded() || !h.is_object()) {
    throw_range(field, field + ": the safetensors header is not a JSON object: not a .safetensors file");
  }
  SafetensorsIndex index;
  index.file_size = file_size;
  const int64_t data_start = 8 + int64_t(header.size());
  for (const auto& [name, t] : h.items()) {
    if (name == "__metadata__") continue;
    const std::string where = field + ": tensor '" + name + "'";
    const std::string tensor_field = "weights." + name;
    if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
        !t["shape"].is_array() || !t.contains("data_offsets") || !t["data_offsets"].is_array() ||
        t["data_offsets"].size() != 2) {
      throw_range(tensor_field, where + " must be { dtype, shape, data_offsets: [begin, end] } in the header");
    }
    TensorEntry e;
    e.name = name;
    e.file = file;
    e.dtype_name = t["dtype"].get<std::string>();
    e.dtype = loadable(e.dtype_name);
    double count = 1;
    for (const auto& d : t["shape"]) {
      const int64_t v = whole(d);
      if (v < 0) throw_range(tensor_field, where + " has a shape entry that is not a non-negative integer");
      e.shape.push_back(v);
      count *= double(v);
    }
    const int64_t b = whole(t["data_offsets"][0]), en = whole(t["data_offsets"][1]);
    if (b < 0 || en < b) throw_range(tensor_field, where + " has data_offsets that are not [begin, end) with begin <= end");
    const auto size = dtype_sizes().find(e.dtype_name);
    if (size != dtype_sizes().end() && double(en - b) != count * double(size->second)) {
      throw_range(tensor_field, where + " holds " + fmt(double(en - b)) + " bytes, but its shape and dtype " +
                                    e.dtype_name + " need " + fmt(count * double(size->second)));
    }
    e.begin = data_start + b;
    e.end = data_start + en;
    index.tensors.push_back(std::move(e));
  }
  return index;
}

}  // namespace attn::pretrained
