// train/model_file.cpp — the trainer's model file: export as .safetensors, load it and the older
// ATTNTRN2 / ATTNTRN1 files. The layout, for a reader outside this project: docs/api.md ("Training",
// "The model file").
//
// .safetensors (format version 3, written by export_model):
//   bytes 0..7    N, the JSON header's length, u64 little-endian (N a multiple of 8: space padding)
//   bytes 8..8+N  {"__metadata__": {string: string}, "<tensor>": {"dtype": "F32", "shape": [...],
//                 "data_offsets": [begin, end]}, ...}: tensors sorted by name, offsets relative to the
//                 first data byte, contiguous, in the same order
//   then          float32 little-endian data, row-major
// __metadata__: format = "attention-playground.trainer", formatVersion = "3", the trainer's config
// (task, text for 'chars', the model geometry as given, every training setting with its default
// filled in), step, rng (the data stream's state), crc32 (model_file_checksum, model_file.hpp).
// Tensors: each parameter under its PyTorch-style name (layers.0.attn.wq, layers.0.ln1.weight, ...),
// matrices (d_in, d_out) as the core uses them (y = x W), vectors (biases, LayerNorm) 1-D; AdamW's
// moments under optim.exp_avg.<name> and optim.exp_avg_sq.<name>, same shapes.
//
// ATTNTRN2 (read only; little-endian): "ATTNTRN2", u32 header bytes, header = "key=value\n" lines
// (the spec as given, plus step and rng), u32 text bytes, text, u32 params, then per param: u32 name
// bytes, name, u32 rows, u32 cols, rows*cols float32; then per param AdamW's first and second moments
// (float32); then u32 CRC-32 of every byte before it. ATTNTRN1: the same without the CRC (read with
// every other check, so a flipped weight byte in it goes unnoticed).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attn/errors.hpp"
#include "attn/train/model_file.hpp"
#include "attn/train/trainer.hpp"

namespace attn::train {

namespace {

[[noreturn]] void file_error(const std::string& why) {
  throw Error(Error::Kind::Range, "model file is not valid: " + why, "bytes");
}

// A value shown in messages: at most 40 characters, control and non-ASCII bytes as '?'.
std::string shown(const std::string& v) {
  std::string out;
  for (char c : v.substr(0, 40)) out += (c >= 32 && c < 127) ? std::string(1, c) : "?";
  return "'" + out + (v.size() > 40 ? "...'" : "'");
}

// A whole unsigned decimal number ("0".."18446744073709551615"), or nullopt.
std::optional<uint64_t> parse_u64(const std::string& v) {
  if (v.empty() || v.size() > 20) return std::nullopt;
  uint64_t x = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t d = uint64_t(c - '0');
    if (x > (UINT64_MAX - d) / 10) return std::nullopt;
    x = x * 10 + d;
  }
  return x;
}

// A number in JSON's syntax (-?int(.frac)?(e[+-]?exp)?), finite; no spaces, hex, inf or nan.
std::optional<double> parse_number(const std::string& v) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') ++i;
    return i - from;
  };
  if (i < v.size() && v[i] == '-') ++i;
  const std::size_t int_from = i;
  const std::size_t int_digits = digits();
  if (int_digits == 0 || (int_digits > 1 && v[int_from] == '0')) return std::nullopt;
  if (i < v.size() && v[i] == '.') {
    ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != v.size()) return std::nullopt;
  const double x = std::strtod(v.c_str(), nullptr);
  if (!std::isfinite(x)) return std::nullopt;
  return x;
}

// The shortest of %.15g / %.16g / %.17g that reads back as the same double ("0.003", not
// "0.0030000000000000001").
std::string num(double v) {
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string hex8(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// --- the config: one reader for the key -> value fields of both formats ---------------------------

// The fields of a file's config, as text. Each take() removes its key; what is left is unknown.
struct Fields {
  std::map<std::string, std::string> kv;
  const char* yes;  // how the format writes booleans: "1"/"0" (ATTNTRN), "true"/"false" (safetensors)
  const char* no;

  std::optional<std::string> take(const char* k) {
    auto it = kv.find(k);
    if (it == kv.end()) return std::nullopt;
    std::string v = it->second;
    kv.erase(it);
    return v;
  }
  std::optional<double> take_num(const char* k) {
    auto v = take(k);
    if (!v) return std::nullopt;
    const auto x = parse_number(*v);
    if (!x) file_error("header field '" + std::string(k) + "' (" + shown(*v) + ") is not a finite number");
    return x;
  }
  std::optional<bool> take_bool(const char* k) {
    auto v = take(k);
    if (!v) return std::nullopt;
    if (*v != yes && *v != no) {
      file_error("header field '" + std::string(k) + "' (" + shown(*v) + ") must be " + yes + " or " + no);
    }
    return *v == yes;
  }
};

struct FileConfig {
  TrainerSpec spec;  // the text is set by the caller (each format keeps it elsewhere)
  int64_t step;
  uint64_t rng;
};

// The spec, step and rng of a file; refuses a bad value or an unknown or missing field. The trainer's
// constructor then checks the values' ranges (as for createTrainer).
FileConfig read_config(Fields& f) {
  FileConfig c;
  TrainerSpec& spec = c.spec;
  spec.task = f.take("task");
  spec.model.variant = f.take("variant");
  for (const auto& field : spec_number_fields()) {
    if (field.geometry) spec.model.*field.member = f.take_num(field.name);
  }
  spec.model.rope.enabled = f.take_bool("rope").value_or(false);
  spec.model.rope.base = f.take_num("ropeBase");
  for (const auto& field : trainer_number_fields()) spec.*field.member = f.take_num(field.name);
  for (const auto& field : trainer_flag_fields()) spec.*field.member = f.take_bool(field.name);
  spec.activation = f.take("activation");
  const auto step_text = f.take("step");
  const auto rng_text = f.take("rng");
  if (!f.kv.empty()) file_error("unknown header field " + shown(f.kv.begin()->first));
  if (!step_text) file_error("header field 'step' is missing");
  const auto step = parse_u64(*step_text);
  if (!step || double(*step) > kMaxFileStep) {
    file_error("header field 'step' (" + shown(*step_text) + ") must be an integer between 0 and " + fmt(kMaxFileStep));
  }
  if (!rng_text) file_error("header field 'rng' is missing");
  const auto rng = parse_u64(*rng_text);
  if (!rng) file_error("header field 'rng' (" + shown(*rng_text) + ") must be an unsigned 64-bit integer");
  c.step = int64_t(*step);
  c.rng = *rng;
  return c;
}

// --- the strict JSON reader of a safetensors header -------------------------------------------------

struct Json {
  const uint8_t* p;
  std::size_t n;
  std::size_t i = 0;

  [[noreturn]] void fail(const std::string& why) const {
    file_error("its .safetensors header is not valid JSON of the expected form: " + why + " (at header byte " +
               fmt(double(i)) + ")");
  }
  void ws() {
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) ++i;
  }
  bool at(char c) {
    ws();
    return i < n && p[i] == uint8_t(c);
  }
  void expect(char c) {
    if (!at(c)) fail(std::string("expected '") + c + "'");
    ++i;
  }
  uint32_t hex4() {
    if (n - i < 4) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k, ++i) {
      const uint8_t c = p[i];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail("bad \\u escape");
      v = v * 16 + uint32_t(d);
    }
    return v;
  }
  std::string str() {
    expect('"');
    std::string out;
    for (;;) {
      if (i >= n) fail("unterminated string");
      const uint8_t c = p[i];
      if (c == '"') {
        ++i;
        return out;
      }
      if (c < 0x20) fail("a control character in a string");
      if (c == '\\') {
        if (++i >= n) fail("unterminated string");
        const uint8_t e = p[i++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            uint32_t cp = hex4();
            if (cp >= 0xDC00 && cp <= 0xDFFF) fail("a lone low surrogate escape");
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              if (n - i < 6 || p[i] != '\\' || p[i + 1] != 'u') fail("a lone high surrogate escape");
              i += 2;
              const uint32_t lo = hex4();
              if (lo < 0xDC00 || lo > 0xDFFF) fail("a lone high surrogate escape");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            out += encode_utf8({cp});
            break;
          }
          default: --i; fail("a bad escape");
        }
        continue;
      }
      if (c < 0x80) {
        out += char(c);
        ++i;
        continue;
      }
      // A multi-byte UTF-8 sequence: strictly valid (decode_utf8 gives no U+FFFD for it).
      const int len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
      if (len == 0 || n - i < std::size_t(len)) fail("invalid UTF-8");
      const std::string seq(reinterpret_cast<const char*>(p + i), std::size_t(len));
      const auto cps = decode_utf8(seq);
      if (cps.size() != 1 || cps[0] == 0xFFFD) {
        if (!(cps.size() == 1 && len == 3 && seq == "\xEF\xBF\xBD")) fail("invalid UTF-8");
      }
      out += seq;
      i += std::size_t(len);
    }
  }
  uint64_t uint() {
    ws();
    const std::size_t from = i;
    uint64_t v = 0;
    while (i < n && p[i] >= '0' && p[i] <= '9') {
      v = v * 10 + uint64_t(p[i] - '0');
      if (v > (uint64_t(1) << 53)) fail("an integer above 2^53");
      ++i;
    }
    if (i == from) fail("expected an unsigned integer");
    if (i - from > 1 && p[from] == '0') fail("an integer with a leading zero");
    if (i < n && (p[i] == '.' || p[i] == 'e' || p[i] == 'E')) fail("a number that is not an integer");
    return v;
  }
  std::vector<uint64_t> uints(std::size_t max) {
    expect('[');
    std::vector<uint64_t> out;
    if (at(']')) {
      ++i;
      return out;
    }
    for (;;) {
      if (out.size() == max) fail("an array longer than " + fmt(double(max)));
      out.push_back(uint());
      if (at(',')) {
        ++i;
        continue;
      }
      expect(']');
      return out;
    }
  }
  // Calls item(key) for each key of an object; refuses a key seen twice.
  template <class F>
  void object(F&& item) {
    expect('{');
    if (at('}')) {
      ++i;
      return;
    }
    std::vector<std::string> seen;
    for (;;) {
      const std::size_t key_at = i;
      std::string key = str();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        i = key_at;
        fail("the key " + shown(key) + " appears twice");
      }
      expect(':');
      item(key);
      seen.push_back(std::move(key));
      if (at(',')) {
        ++i;
        continue;
      }
      expect('}');
      return;
    }
  }
};

}  // namespace

SafetensorsHeader parse_safetensors_header(const uint8_t* json, std::size_t n) {
  Json j{json, n};
  SafetensorsHeader h;
  j.object([&](const std::string& key) {
    if (key == "__metadata__") {
      j.object([&](const std::string& k) { h.metadata[k] = j.str(); });
      return;
    }
    TensorEntry e;
    bool dtype = false, shape = false, offsets = false;
    j.object([&](const std::string& k) {
      if (k == "dtype") {
        e.dtype = j.str();
        dtype = true;
      } else if (k == "shape") {
        e.shape = j.uints(8);
        shape = true;
      } else if (k == "data_offsets") {
        const auto o = j.uints(2);
        if (o.size() != 2) j.fail("data_offsets of tensor " + shown(key) + " must be [begin, end]");
        e.begin = o[0];
        e.end = o[1];
        offsets = true;
      } else {
        j.fail("tensor " + shown(key) + " has an unknown key " + shown(k));
      }
    });
    if (!dtype || !shape || !offsets) j.fail("tensor " + shown(key) + " lacks dtype, shape or data_offsets");
    h.tensors.emplace(key, std::move(e));
  });
  j.ws();
  if (j.i != n) j.fail("bytes after the JSON object");
  return h;
}

uint32_t crc32(const uint8_t* p, std::size_t n, uint32_t crc) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = crc ^ 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t model_file_checksum(const std::map<std::string, std::string>& metadata, const uint8_t* data, std::size_t n) {
  uint32_t c = crc32(data, n);
  for (const auto& [k, v] : metadata) {  // std::map: sorted by key, byte-wise
    if (k == "crc32") continue;
    const std::string line = k + "=" + v + "\n";
    c = crc32(reinterpret_cast<const uint8_t*>(line.data()), line.size(), c);
  }
  return c;
}

namespace {

constexpr char kMagicV1[] = "ATTNTRN1";
constexpr char kMagicV2[] = "ATTNTRN2";

bool starts_with(const std::vector<uint8_t>& b, const char* magic) {
  return b.size() >= 8 && std::memcmp(b.data(), magic, 8) == 0;
}

uint64_t u64_at(const std::vector<uint8_t>& b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(b[std::size_t(i)]) << (8 * i);
  return v;
}

// The name of a parameter in a .safetensors file: PyTorch's LayerNorm names (weight, bias) for the
// core's gamma and beta; the rest as the model names them (wte, layers.0.attn.wq, unembed, ...).
std::string file_name(const std::string& name) {
  auto ends = [&](const std::string& s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
  if (ends(".gamma")) return name.substr(0, name.size() - 6) + ".weight";
  if (ends(".beta")) return name.substr(0, name.size() - 5) + ".bias";
  return name;
}

// Vectors (biases and LayerNorm parameters, the parameters AdamW does not decay) are (1, n) in the
// core and 1-D in the file; matrices keep their (rows, cols).
std::vector<uint64_t> file_shape(const ParamRef& p) {
  if (!p.decay) return {uint64_t(p.value->shape(1))};
  return {uint64_t(p.value->shape(0)), uint64_t(p.value->shape(1))};
}

void json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);  // valid UTF-8 (texts are re-encoded from their code points)
        }
    }
  }
  out += '"';
}

}  // namespace

void Trainer::check_model_prefix(const std::vector<uint8_t>& prefix, double total_bytes) {
  if (total_bytes > kMaxModelBytes) {
    file_error("it has " + fmt(total_bytes) + " bytes, above the cap of " + fmt(kMaxModelBytes) +
               " bytes (1 GiB); nothing was read");
  }
  if (starts_with(prefix, kMagicV2) || starts_with(prefix, kMagicV1)) return;
  if (prefix.size() >= 8) {
    const uint64_t n = u64_at(prefix);
    if (n >= 2 && n <= kMaxHeaderBytes && double(n) <= total_bytes - 8) return;  // a .safetensors header length
  }
  file_error("it is not a model exported by trainer.exportModel(): it neither starts with a .safetensors header "
             "length that fits the file (and at most " + fmt(double(kMaxHeaderBytes)) + " bytes) nor with " +
             std::string(kMagicV2) + " (or " + kMagicV1 + ")");
}

std::vector<uint8_t> Trainer::export_model() const {
  // The config: the model geometry as given, the training settings with their defaults filled in.
  std::map<std::string, std::string> meta;
  const RawSpec& m = spec_.model;
  const AdamConfig& ac = adam_->config();
  auto put_num = [&](const char* k, const std::optional<double>& v) { if (v) meta[k] = num(*v); };
  auto put_bool = [&](const char* k, bool v) { meta[k] = v ? "true" : "false"; };
  meta["format"] = kFormatName;
  meta["formatVersion"] = kFormatVersion;
  if (spec_.task) meta["task"] = *spec_.task;
  if (task_->kind() == TaskKind::Chars) meta["text"] = encode_utf8(decode_utf8(spec_.text.value_or("")));
  if (m.variant) meta["variant"] = *m.variant;
  for (const auto& field : spec_number_fields()) {
    if (field.geometry) put_num(field.name, m.*field.member);
  }
  if (m.rope.enabled) put_bool("rope", true);
  put_num("ropeBase", m.rope.base);
  // The training settings as they run, defaults filled in (the vocabulary of 'chars' comes from its text).
  TrainerSpec run;
  run.n_layers = double(cfg_.n_layers);
  run.mlp = cfg_.mlp;
  run.layer_norm = cfg_.layer_norm;
  run.tied_embeddings = cfg_.tied;
  run.seq_len = double(task_->seq_len());
  run.batch_size = double(batch_size_);
  run.learning_rate = ac.lr;
  run.seed = double(seed_);
  if (task_->kind() != TaskKind::Chars) run.vocab_size = double(cfg_.vocab);
  run.total_steps = double(ac.total_steps);
  run.warmup_steps = double(ac.warmup_steps);
  run.weight_decay = ac.weight_decay;
  for (const auto& field : trainer_number_fields()) put_num(field.name, run.*field.member);
  for (const auto& field : trainer_flag_fields()) put_bool(field.name, *(run.*field.member));
  meta["activation"] = cfg_.activation == Activation::Relu ? "relu" : "gelu";
  meta["step"] = std::to_string(adam_->steps());
  meta["rng"] = std::to_string(rng_.state());

  // The tensors, sorted by name; their data in the same order.
  struct Out {
    std::string name;
    std::vector<uint64_t> shape;
    const float* data;
    std::size_t count;
  };
  std::vector<Out> tensors;
  const auto& params = model_->params();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const ParamRef& p = params[i];
    const std::string name = file_name(p.name);
    const auto shape = file_shape(p);
    tensors.push_back({name, shape, p.value->data(), p.value->size()});
    tensors.push_back({"optim.exp_avg." + name, shape, adam_->first_moment(i).data(), adam_->first_moment(i).size()});
    tensors.push_back({"optim.exp_avg_sq." + name, shape, adam_->second_moment(i).data(), adam_->second_moment(i).size()});
  }
  std::sort(tensors.begin(), tensors.end(), [](const Out& a, const Out& b) { return a.name < b.name; });
  std::size_t data_bytes = 0;
  for (const auto& t : tensors) data_bytes += 4 * t.count;
  std::vector<uint8_t> data(data_bytes);
  std::size_t at = 0;
  for (const auto& t : tensors) {
    std::memcpy(data.data() + at, t.data, 4 * t.count);  // little-endian hosts (x86, wasm)
    at += 4 * t.count;
  }
  meta["crc32"] = hex8(model_file_checksum(meta, data.data(), data.size()));

  // The JSON header: __metadata__ first (format, version, checksum, then the rest by key).
  std::string json = "{\"__metadata__\":{";
  bool first = true;
  auto put_meta = [&](const std::string& k, const std::string& v) {
    if (!first) json += ',';
    first = false;
    json_string(json, k);
    json += ':';
    json_string(json, v);
  };
  for (const char* k : {"format", "formatVersion", "crc32"}) put_meta(k, meta[k]);
  for (const auto& [k, v] : meta)
    if (k != "format" && k != "formatVersion" && k != "crc32") put_meta(k, v);
  json += '}';
  at = 0;
  for (const auto& t : tensors) {
    json += ',';
    json_string(json, t.name);
    json += ":{\"dtype\":\"F32\",\"shape\":[";
    for (std::size_t d = 0; d < t.shape.size(); ++d) json += (d ? "," : "") + std::to_string(t.shape[d]);
    json += "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + 4 * t.count) + "]}";
    at += 4 * t.count;
  }
  json += '}';
  json.append((8 - json.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  if (json.size() > kMaxHeaderBytes) {
    throw_range("the model file's header would have " + fmt(double(json.size())) + " bytes, above the cap of " +
                fmt(double(kMaxHeaderBytes)));
  }

  std::vector<uint8_t> out;
  out.reserve(8 + json.size() + data.size());
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(uint64_t(json.size()) >> (8 * i)));
  out.insert(out.end(), json.begin(), json.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::unique_ptr<Trainer> Trainer::load_model(const std::vector<uint8_t>& bytes) {
  check_model_prefix(bytes, double(bytes.size()));
  if (starts_with(bytes, kMagicV2) || starts_with(bytes, kMagicV1)) return load_attntrn(bytes);
  return load_safetensors(bytes);
}

std::unique_ptr<Trainer> Trainer::load_safetensors(const std::vector<uint8_t>& bytes) {
  // check_model_prefix: 2 <= n <= kMaxHeaderBytes, 8 + n <= size.
  const std::size_t n = std::size_t(u64_at(bytes));
  const SafetensorsHeader h = parse_safetensors_header(bytes.data() + 8, n);
  const uint8_t* data = bytes.data() + 8 + n;
  const std::size_t data_bytes = bytes.size() - 8 - n;

  // What the file is, then its checksum, before any field is believed.
  Fields f{h.metadata, "true", "false"};
  const auto format = f.take("format");
  if (!format || *format != kFormatName) {
    file_error("it is a .safetensors file but not a trainer's export: its __metadata__ has format " +
               (format ? shown(*format) : std::string("(none)")) + ", expected '" + kFormatName + "'");
  }
  const auto version = f.take("formatVersion");
  if (!version || *version != kFormatVersion) {
    file_error("header field 'formatVersion' (" + (version ? shown(*version) : std::string("missing")) +
               ") must be " + kFormatVersion + " (this build reads version 3, ATTNTRN2 and ATTNTRN1)");
  }
  const auto stored = f.take("crc32");
  if (!stored) file_error("header field 'crc32' is missing");
  const uint32_t actual = model_file_checksum(h.metadata, data, data_bytes);
  if (*stored != hex8(actual)) {
    file_error("its checksum does not match its contents (CRC-32 stored " + shown(*stored) + ", computed '" +
               hex8(actual) + "'): the file was changed or damaged after export");
  }

  // The tensors' layout: F32, sizes that match their shapes, contiguous and covering the data.
  std::vector<std::pair<const std::string*, const TensorEntry*>> order;
  for (const auto& [name, e] : h.tensors) {
    if (e.dtype != "F32") file_error("tensor " + shown(name) + " has dtype " + shown(e.dtype) + ", expected 'F32'");
    double count = 1;
    for (uint64_t d : e.shape) count *= double(d);
    if (e.end < e.begin || double(e.end - e.begin) != 4.0 * count) {
      file_error("tensor " + shown(name) + " has data_offsets [" + fmt(double(e.begin)) + ", " + fmt(double(e.end)) +
                 "] that do not hold its shape's " + fmt(count) + " floats");
    }
    order.push_back({&name, &e});
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second->begin < b.second->begin; });
  uint64_t next = 0;
  for (const auto& [name, e] : order) {
    if (e->begin != next) {
      file_error("tensor " + shown(*name) + " starts at data byte " + fmt(double(e->begin)) + ", expected " +
                 fmt(double(next)) + " (tensors must be contiguous and not overlap)");
    }
    next = e->end;
  }
  if (next != data_bytes) {
    file_error("its tensors cover " + fmt(double(next)) + " bytes of data, the file has " + fmt(double(data_bytes)));
  }

  // The config, then the trainer (refused before allocation when the data cannot hold its tensors).
  const auto text = f.take("text");
  FileConfig c = read_config(f);
  if (c.spec.task && *c.spec.task == "chars") c.spec.text = text;
  else if (text) file_error("header field 'text' applies to task 'chars' only");
  std::unique_ptr<Trainer> t;
  try {
    t = std::make_unique<Trainer>(c.spec, double(data_bytes));
  } catch (const Error& e) {
    file_error(std::string("its header describes no valid trainer: ") + e.what());
  }

  // Each parameter and its two moments, by name, with the expected shape and finite values.
  auto& params = t->model_->params();
  if (h.tensors.size() != 3 * params.size()) {
    file_error("it has " + fmt(double(h.tensors.size())) + " tensors, this model has " + fmt(double(3 * params.size())) +
               " (each parameter and its two AdamW moments)");
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string base = file_name(params[i].name);
    const auto shape = file_shape(params[i]);
    const char* what[3] = {"parameter", "AdamW's first moment of parameter", "AdamW's second moment of parameter"};
    float* dest[3] = {params[i].value->data(), t->adam_->first_moment(i).data(), t->adam_->second_moment(i).data()};
    const std::string names[3] = {base, "optim.exp_avg." + base, "optim.exp_avg_sq." + base};
    for (int k = 0; k < 3; ++k) {
      const auto it = h.tensors.find(names[k]);
      if (it == h.tensors.end()) file_error("tensor " + shown(names[k]) + " is missing");
      if (it->second.shape != shape) file_error("tensor " + shown(names[k]) + " has the wrong shape");
      const std::size_t count = params[i].value->size();
      std::memcpy(dest[k], data + it->second.begin, 4 * count);
      for (std::size_t j = 0; j < count; ++j) {
        const float v = dest[k][j];
        if (!std::isfinite(v) || (k == 2 && v < 0)) {
          file_error(std::string(what[k]) + " '" + base + "' holds " + (k == 0 ? "a non-finite value (" : "") + fmt(v) +
                     (k == 0 ? ")" : "") + " at index " + fmt(double(j)) +
                     (k == 2 ? " (must be finite and >= 0)" : k == 1 ? " (must be finite)" : ""));
        }
      }
    }
  }
  t->adam_->set_steps(c.step);
  t->rng_.set_state(c.rng);
  return t;
}

// --- ATTNTRN2 / ATTNTRN1 (read only) ------------------------------------------------------------------

namespace {

struct Reader {
  const std::vector<uint8_t>& b;
  std::size_t end;  // the checksum, when there is one, is not read as data
  std::size_t pos = 0;
  [[noreturn]] void fail(const std::string& why) const { file_error(why + " (at byte " + fmt(double(pos)) + ")"); }
  uint32_t u32() {
    if (pos + 4 > end) fail("truncated");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(b[pos + i]) << (8 * i);
    pos += 4;
    return v;
  }
  std::string str(std::size_t n) {
    if (n > end - pos) fail("truncated");
    std::string s(reinterpret_cast<const char*>(b.data() + pos), n);
    pos += n;
    return s;
  }
};

}  // namespace

std::unique_ptr<Trainer> Trainer::load_attntrn(const std::vector<uint8_t>& bytes) {
  const bool v2 = starts_with(bytes, kMagicV2);
  std::size_t end = bytes.size();
  if (v2) {
    if (bytes.size() < 12) file_error("truncated: " + fmt(double(bytes.size())) + " bytes");
    end -= 4;
    uint32_t stored = 0;
    for (int i = 0; i < 4; ++i) stored |= uint32_t(bytes[end + i]) << (8 * i);
    const uint32_t actual = crc32(bytes.data(), end);
    if (stored != actual) {
      file_error("its checksum does not match its contents (CRC-32 stored " + fmt(double(stored)) + ", computed " +
                 fmt(double(actual)) + "): the file was changed or damaged after export");
    }
  }
  Reader r{bytes, end};
  r.pos = 8;
  const std::string header = r.str(r.u32());
  Fields f{{}, "1", "0"};
  for (std::size_t i = 0; i < header.size();) {
    const std::size_t eol = header.find('\n', i);
    const std::string line = header.substr(i, eol == std::string::npos ? std::string::npos : eol - i);
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) r.fail("bad header line " + shown(line));
    if (!f.kv.emplace(line.substr(0, eq), line.substr(eq + 1)).second) {
      r.fail("header field '" + line.substr(0, std::min<std::size_t>(eq, 40)) + "' appears twice");
    }
    if (eol == std::string::npos) break;
    i = eol + 1;
  }
  FileConfig c = read_config(f);
  const std::string text = r.str(r.u32());
  if (c.spec.task && *c.spec.task == "chars") c.spec.text = text;

  std::unique_ptr<Trainer> t;
  try {
    t = std::make_unique<Trainer>(c.spec, double(end - r.pos));
  } catch (const Error& e) {
    file_error(std::string("its header describes no valid trainer: ") + e.what());
  }
  auto& params = t->model_->params();
  if (r.u32() != params.size()) r.fail("wrong number of parameters for this spec");
  for (auto& p : params) {
    const std::string name = r.str(r.u32());
    if (name != p.name) r.fail("parameter " + shown(name) + " where '" + p.name + "' was expected");
    const uint32_t rows = r.u32(), cols = r.u32();
    if (rows != p.value->shape(0) || cols != p.value->shape(1)) r.fail("parameter '" + name + "' has the wrong shape");
    const std::string data = r.str(std::size_t(rows) * cols * sizeof(float));
    std::memcpy(p.value->data(), data.data(), data.size());
    for (std::size_t i = 0; i < p.value->size(); ++i)
      if (!std::isfinite(p.value->data()[i])) {
        r.fail("parameter '" + name + "' holds a non-finite value (" + fmt(p.value->data()[i]) + " at index " +
               fmt(double(i)) + ")");
      }
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    const char* which[2] = {"first", "second"};
    int k = 0;
    for (std::vector<float>* m : {&t->adam_->first_moment(i), &t->adam_->second_moment(i)}) {
      const std::string data = r.str(m->size() * sizeof(float));
      std::memcpy(m->data(), data.data(), data.size());
      for (std::size_t j = 0; j < m->size(); ++j) {
        const float v = (*m)[j];
        if (!std::isfinite(v) || (k == 1 && v < 0)) {
          r.fail(std::string("AdamW's ") + which[k] + " moment of parameter '" + params[i].name + "' holds " +
                 fmt(v) + " at index " + fmt(double(j)) + (k == 1 ? " (must be finite and >= 0)" : " (must be finite)"));
        }
      }
      ++k;
    }
  }
  if (r.pos != end) r.fail("trailing bytes");
  t->adam_->set_steps(c.step);
  t->rng_.set_state(c.rng);
  return t;
}

}  // namespace attn::train
