// safetensors_header.cpp — see safetensors_header.hpp.
#include "attn/safetensors_header.hpp"

#include <algorithm>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "attn/errors.hpp"

namespace attn {

namespace {

// A value shown in messages: at most 40 characters, control and non-ASCII bytes as '?'.
std::string shown(const std::string& v) {
  std::string out;
  for (char c : v.substr(0, 40)) out += (c >= 32 && c < 127) ? std::string(1, c) : "?";
  return "'" + out + (v.size() > 40 ? "...'" : "'");
}

// nlohmann-json's SAX reader checks the syntax, the UTF-8, the escapes and what follows the object;
// this handler checks the form: depth 1 the file's object, depth 2 a tensor entry or __metadata__,
// depth 3 a shape or data_offsets array. It stops at the first problem (returns false).
class HeaderReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit HeaderReader(SafetensorsHeader& h) : h_(h) {}
  std::string error;  // why it stopped; empty when the header is valid

  bool null() override { return fail(misplaced("null")); }
  bool boolean(bool) override { return fail(misplaced("a boolean")); }
  bool number_integer(number_integer_t) override {
    return fail(depth_ == 3 ? "a negative integer in " + shown(key_) + " of tensor " + shown(name_) : misplaced("a number"));
  }
  bool number_float(number_float_t, const string_t& text) override {
    return fail(depth_ == 3 ? "a number that is not an integer (" + shown(text) + ") in " + shown(key_) + " of tensor " +
                                  shown(name_)
                            : misplaced("a number"));
  }
  bool binary(binary_t&) override { return fail(misplaced("binary data")); }
  bool number_unsigned(number_unsigned_t v) override {
    if (depth_ != 3) return fail(misplaced("a number"));
    if (v > (uint64_t(1) << 53)) return fail("an integer above 2^53");
    std::vector<uint64_t>& a = in_shape_ ? entry_.shape : offsets_;
    const std::size_t max = in_shape_ ? 8 : 2;
    if (a.size() == max) return fail("an array longer than " + fmt(double(max)));
    a.push_back(v);
    return true;
  }
  bool string(string_t& v) override {
    if (depth_ == 2 && in_metadata_) {
      h_.metadata[key_] = v;
      return true;
    }
    if (depth_ == 2 && key_ == "dtype") {
      entry_.dtype = v;
      return true;
    }
    return fail(misplaced("a string"));
  }
  bool start_object(std::size_t) override {
    if (depth_ == 0) return ++depth_, true;
    if (depth_ != 1) return fail(misplaced("an object"));
    ++depth_;
    in_metadata_ = name_ == "__metadata__";
    keys_.clear();
    entry_ = SafetensorsEntry{};
    seen_dtype_ = seen_shape_ = seen_offsets_ = false;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      if (!names_.insert(k).second) {
        fail("the key " + shown(k) + " appears twice");
        tensor_ = k == "__metadata__" ? std::string() : std::string(k);
        return false;
      }
      name_ = k;
      return true;
    }
    if (!keys_.insert(k).second) return fail("the key " + shown(k) + " appears twice");
    key_ = k;
    if (in_metadata_) return true;
    if (k == "dtype") seen_dtype_ = true;
    else if (k == "shape") seen_shape_ = true;
    else if (k == "data_offsets") seen_offsets_ = true;
    else return fail("tensor " + shown(name_) + " has an unknown key " + shown(k));
    return true;
  }
  bool end_object() override {
    if (--depth_ == 1 && !in_metadata_) {
      if (!seen_dtype_ || !seen_shape_ || !seen_offsets_) {
        return fail("tensor " + shown(name_) + " lacks dtype, shape or data_offsets");
      }
      h_.tensors.emplace(name_, std::move(entry_));
    }
    in_metadata_ = false;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ != 2 || in_metadata_ || key_ == "dtype") return fail(misplaced("an array"));
    ++depth_;
    in_shape_ = key_ == "shape";
    offsets_.clear();
    return true;
  }
  bool end_array() override {
    --depth_;
    if (!in_shape_) {
      if (offsets_.size() != 2) return fail("data_offsets of tensor " + shown(name_) + " must be [begin, end]");
      entry_.begin = offsets_[0];
      entry_.end = offsets_[1];
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();  // "[json.exception.parse_error.101] parse error at line 1, column 7: ..."
    const std::size_t colon = what.find(": ");
    at_ = position;
    error = colon == std::string::npos ? what : what.substr(colon + 2);
    return false;
  }
  std::size_t at() const { return at_; }
  const std::string& tensor() const { return tensor_; }

 private:
  bool fail(const std::string& why) {
    error = why;
    tensor_ = depth_ >= 2 && !in_metadata_ ? name_ : std::string();
    return false;
  }
  // Why a value of this kind cannot stand here.
  std::string misplaced(const std::string& kind) const {
    if (depth_ == 0) return kind + " where the file's object belongs";
    if (depth_ == 1) return "tensor " + shown(name_) + " must be an object, got " + kind;
    if (in_metadata_) return "the __metadata__ value of " + shown(key_) + " must be a string, got " + kind;
    if (depth_ == 2) {
      return "tensor " + shown(name_) + ": " + shown(key_) + " must be " + (key_ == "dtype" ? "a string" : "an array") +
             ", got " + kind;
    }
    return kind + " inside " + shown(key_) + " of tensor " + shown(name_) + ", which holds unsigned integers";
  }
  SafetensorsHeader& h_;
  int depth_ = 0;
  bool in_metadata_ = false, in_shape_ = false, seen_dtype_ = false, seen_shape_ = false, seen_offsets_ = false;
  std::string name_, key_;
  std::unordered_set<std::string> names_, keys_;  // the keys seen at depth 1, and in the current object
  SafetensorsEntry entry_;
  std::vector<uint64_t> offsets_;
  std::size_t at_ = 0;
  std::string tensor_;  // the tensor a failure is about (empty: none)
};

}  // namespace

SafetensorsHeader read_safetensors_header(const uint8_t* json, std::size_t n) {
  SafetensorsHeader h;
  HeaderReader reader(h);
  const bool ok = nlohmann::json::sax_parse(json, json + n, &reader);
  if (!ok || !reader.error.empty()) {
    throw SafetensorsError("its .safetensors header is not valid JSON of the expected form: " +
                               (reader.error.empty() ? std::string("not one object") : reader.error) +
                               (reader.at() ? " (at header byte " + fmt(double(reader.at())) + ")" : ""),
                           reader.tensor());
  }
  return h;
}

uint64_t safetensors_dtype_bytes(const std::string& d) {
  // safetensors/src/tensor.rs, Dtype
  static const std::map<std::string, uint64_t> sizes = {
      {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
      {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4}, {"F64", 8}, {"I64", 8}, {"U64", 8}};
  const auto it = sizes.find(d);
  return it == sizes.end() ? 0 : it->second;
}

std::vector<std::pair<const std::string*, const SafetensorsEntry*>> check_safetensors_layout(
    const SafetensorsHeader& h, uint64_t data_bytes) {
  std::vector<std::pair<const std::string*, const SafetensorsEntry*>> order;
  for (const auto& [name, e] : h.tensors) {
    const uint64_t width = safetensors_dtype_bytes(e.dtype);
    if (width == 0) throw SafetensorsError("tensor " + shown(name) + " has dtype " + shown(e.dtype) + ", which safetensors does not define", name);
    double count = 1;
    for (uint64_t d : e.shape) count *= double(d);
    if (e.end < e.begin || double(e.end - e.begin) != double(width) * count) {
      throw SafetensorsError("tensor " + shown(name) + " has data_offsets [" + fmt(double(e.begin)) + ", " +
                                 fmt(double(e.end)) + "] that do not hold its shape's " + fmt(count) + " elements of " +
                                 e.dtype + " (" + fmt(double(width) * count) + " bytes)",
                             name);
    }
    order.push_back({&name, &e});
  }
  // By offset; among equal offsets, empty tensors first (they cover nothing).
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->begin != b.second->begin ? a.second->begin < b.second->begin : a.second->end < b.second->end;
  });
  uint64_t next = 0;
  for (const auto& [name, e] : order) {
    if (e->begin != next) {
      throw SafetensorsError("tensor " + shown(*name) + " starts at data byte " + fmt(double(e->begin)) + ", expected " +
                                 fmt(double(next)) + (e->begin < next ? " (it overlaps the tensor before it)" : " (a gap before it)") +
                                 ": tensors must cover the data contiguously, each byte once",
                             *name);
    }
    next = e->end;
  }
  if (next != data_bytes) {
    const std::string last = order.empty() ? std::string() : *order.back().first;
    throw SafetensorsError(
        "its tensors cover " + fmt(double(next)) + " bytes of data, the file has " + fmt(double(data_bytes)) +
            (next > data_bytes ? ": tensor " + shown(last) + " ends past the end of the file (a truncated file)"
                               : ": " + fmt(double(data_bytes - next)) + " bytes after the last tensor" +
                                     (last.empty() ? std::string() : " " + shown(last)) +
                                     " (or a header length too short)"),
        last);
  }
  return order;
}

}  // namespace attn
