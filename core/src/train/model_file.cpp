// train/model_file.cpp — the trainer's model file: export as .safetensors, load it and the older
// version-3, ATTNTRN2 and ATTNTRN1 files. The layout, for a reader outside this project: docs/api.md
// ("Training", "The model file").
//
// .safetensors (format version 4, written by export_model):
//   bytes 0..7    N, the JSON header's length, u64 little-endian (N a multiple of 8: space padding)
//   bytes 8..8+N  {"__metadata__": {string: string}, "<tensor>": {"dtype": "F32", "shape": [...],
//                 "data_offsets": [begin, end]}, ...}: tensors sorted by name, offsets relative to the
//                 first data byte, contiguous, in the same order
//   then          float32 little-endian data, row-major
// __metadata__: format = "attention-playground.trainer", formatVersion = "4", the trainer's config
// (task, text for 'chars', the model geometry as given, every training setting with its default
// filled in), step, rng (the data stream's state), crc32: the CRC-32 of the whole file with its own
// 8 digits read as zeros (model_file.hpp). Version 3 (read only) had the same layout and a crc32
// over the data and the metadata lines (model_file_checksum_v3), which left the tensor table out.
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

#include <nlohmann/json.hpp>

#include "attn/errors.hpp"
#include "attn/half.hpp"
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
  spec.block = f.take("block");
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

}  // namespace

SafetensorsHeader parse_safetensors_header(const uint8_t* json, std::size_t n) {
  try {
    return read_safetensors_header(json, n);
  } catch (const SafetensorsError& e) {
    file_error(e.what());
  }
}

void BytesSource::read(uint64_t offset, uint64_t n, uint8_t* dst) const {
  if (n == 0) return;  // an empty file has no data pointer: memcpy must not see it
  std::memcpy(dst, data_ + offset, std::size_t(n));
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

std::size_t crc_digits_at(const uint8_t* header, std::size_t n, std::size_t header_at) {
  static const std::string key = "\"crc32\":\"";
  const uint8_t* at = std::search(header, header + n, key.begin(), key.end());
  if (at == header + n || std::size_t(header + n - at) < key.size() + 8) return 0;
  return header_at + std::size_t(at - header) + key.size();
}

uint32_t crc32_zeroed(const uint8_t* p, std::size_t n, std::size_t at, std::size_t digits_at, uint32_t crc) {
  static const uint8_t zeros[8] = {'0', '0', '0', '0', '0', '0', '0', '0'};
  const std::size_t end = at + n;
  if (digits_at + 8 <= at || digits_at >= end) return crc32(p, n, crc);
  // the piece overlaps the digits: before them, the zeros for the part inside, after them
  const std::size_t from = std::max(at, digits_at), to = std::min(end, digits_at + 8);
  crc = crc32(p, from - at, crc);
  crc = crc32(zeros, to - from, crc);
  return crc32(p + (to - at), end - to, crc);
}

uint32_t model_file_checksum_v3(const std::map<std::string, std::string>& metadata, const uint8_t* data,
                                std::size_t n) {
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

uint64_t u64_at(const uint8_t* b) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(b[i]) << (8 * i);
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

// The first bytes of a file (at most 8).
std::vector<uint8_t> prefix_of(const ModelSource& file) {
  std::vector<uint8_t> p(std::size_t(std::min<uint64_t>(8, file.size())));
  file.read(0, p.size(), p.data());
  return p;
}

}  // namespace

void Trainer::check_model_prefix(const std::vector<uint8_t>& prefix, double total_bytes) {
  if (total_bytes > kMaxModelBytes) {
    file_error("it has " + fmt(total_bytes) + " bytes, above the cap of " + fmt(kMaxModelBytes) +
               " bytes (1 GiB); nothing was read");
  }
  if (starts_with(prefix, kMagicV2) || starts_with(prefix, kMagicV1)) return;
  if (prefix.size() >= 8) {
    const uint64_t n = u64_at(prefix.data());
    if (n >= 2 && n <= kMaxHeaderBytes && double(n) <= total_bytes - 8) return;  // a .safetensors header length
  }
  file_error("it is not a model exported by trainer.exportModel(): it neither starts with a .safetensors header "
             "length that fits the file (and at most " + fmt(double(kMaxHeaderBytes)) + " bytes) nor with " +
             std::string(kMagicV2) + " (or " + kMagicV1 + ")");
}

std::string Trainer::tokens_crc32(const std::vector<int32_t>& tokens) {
  uint32_t crc = 0;
  std::vector<uint8_t> piece;
  piece.reserve(4096);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const uint32_t v = uint32_t(tokens[i]);
    for (int k = 0; k < 4; ++k) piece.push_back(uint8_t(v >> (8 * k)));
    if (piece.size() == 4096 || i + 1 == tokens.size()) {
      crc = crc32(piece.data(), piece.size(), crc);
      piece.clear();
    }
  }
  return hex8(crc);
}

std::vector<uint8_t> Trainer::export_model(const ExportOptions& options) const {
  // The config: the model geometry as given, the training settings with their defaults filled in.
  nlohmann::json meta = nlohmann::json::object();  // keys sorted, as std::map
  const RawSpec& m = spec_.model;
  const AdamConfig& ac = adam_->config();
  auto put_num = [&](const char* k, const std::optional<double>& v) { if (v) meta[k] = num(*v); };
  auto put_bool = [&](const char* k, bool v) { meta[k] = v ? "true" : "false"; };
  meta["format"] = kFormatName;
  meta["formatVersion"] = kFormatVersion;
  if (spec_.task) meta["task"] = *spec_.task;
  if (task_->kind() == TaskKind::Chars) {
    const std::string text = encode_utf8(decode_utf8(spec_.text.value_or("")));
    if (options.text_by_reference) {
      meta["textBytes"] = std::to_string(text.size());
      meta["textCrc32"] = hex8(crc32(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    } else {
      meta["text"] = text;
    }
  }
  if (task_->kind() == TaskKind::Tokens) {  // always by reference: loadModel is given the ids, and checks them
    meta["tokenCount"] = std::to_string(spec_.tokens ? spec_.tokens->size() : 0);
    meta["tokensCrc32"] = tokens_crc32(spec_.tokens.value_or(std::vector<int32_t>{}));
  }
  if (options.weights_only) meta["weightsOnly"] = "true";
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
  if (task_->kind() != TaskKind::Chars) run.vocab_size = double(task_->symbols());
  run.total_steps = double(ac.total_steps);
  run.warmup_steps = double(ac.warmup_steps);
  run.weight_decay = ac.weight_decay;
  if (task_->repeat_fraction() > 0) run.repeat_fraction = task_->repeat_fraction();  // the data stream
  if (task_->repeat_random_fraction() > 0) run.repeat_random_fraction = task_->repeat_random_fraction();
  if (task_->min_segment_given()) run.min_segment = double(task_->min_segment());
  if (llama_like(cfg_.block)) run.mlp_width = double(cfg_.ffn);
  if (cfg_.block == Block::Deepseek) {
    run.v_head_dim = double(cfg_.v_head_dim);
    if (cfg_.q_lora_rank > 0) run.q_lora_rank = double(cfg_.q_lora_rank);
  }
  for (const auto& field : trainer_number_fields()) put_num(field.name, run.*field.member);
  for (const auto& field : trainer_flag_fields()) put_bool(field.name, *(run.*field.member));
  if (llama_like(cfg_.block)) {
    // its MLP width is mlpWidth above (deepseek: vHeadDim, qLoraRank too); no activation (SwiGLU)
    meta["block"] = cfg_.block == Block::Llama ? "llama" : "deepseek";
  } else {
    meta["activation"] = cfg_.activation == Activation::Relu ? "relu" : "gelu";
  }
  meta["step"] = std::to_string(adam_->steps());
  meta["rng"] = std::to_string(rng_.state());
  meta["crc32"] = "00000000";  // the checksum's place, filled in last

  // The tensors, sorted by name (as the header lists them), their data in the same order.
  struct Out {
    const float* data;
    std::size_t count;
    bool half;  // written as float16
  };
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = std::move(meta);  // '_' sorts before the tensors' lowercase names: first
  std::map<std::string, Out> tensors;
  const auto& params = model_->params();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const ParamRef& p = params[i];
    const std::string name = file_name(p.name);
    const auto shape = file_shape(p);
    tensors[name] = {p.value->data(), p.value->size(), options.float16};
    header[name] = {{"dtype", options.float16 ? "F16" : "F32"}, {"shape", shape}};
    if (options.weights_only) continue;
    tensors["optim.exp_avg." + name] = {adam_->first_moment(i).data(), adam_->first_moment(i).size(), false};
    tensors["optim.exp_avg_sq." + name] = {adam_->second_moment(i).data(), adam_->second_moment(i).size(), false};
    for (const std::string k : {"optim.exp_avg.", "optim.exp_avg_sq."}) {
      header[k + name] = {{"dtype", "F32"}, {"shape", shape}};
    }
  }
  std::size_t at = 0;
  for (const auto& [name, t] : tensors) {
    const std::size_t bytes = (t.half ? 2 : 4) * t.count;
    header[name]["data_offsets"] = {at, at + bytes};
    at += bytes;
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  if (json.size() > kMaxHeaderBytes) {
    throw_range("the model file's header would have " + fmt(double(json.size())) + " bytes, above the cap of " +
                fmt(double(kMaxHeaderBytes)));
  }

  // The file, written once: the header's length, the header, the data; then the checksum's digits.
  std::vector<uint8_t> out(8 + json.size() + at);
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = uint8_t(uint64_t(json.size()) >> (8 * i));
  std::memcpy(out.data() + 8, json.data(), json.size());
  uint8_t* data = out.data() + 8 + json.size();
  for (const auto& [name, t] : tensors) {  // little-endian hosts (x86, wasm)
    if (t.half) {
      for (std::size_t j = 0; j < t.count; ++j, data += 2) {
        const uint16_t h = f32_to_f16(t.data[j]);
        std::memcpy(data, &h, 2);
      }
    } else {
      std::memcpy(data, t.data, 4 * t.count);
      data += 4 * t.count;
    }
  }
  const std::size_t digits = crc_digits_at(out.data() + 8, json.size());
  const std::string crc = hex8(crc32(out.data(), out.size()));  // the digits are "00000000" now
  std::memcpy(out.data() + digits, crc.data(), 8);
  return out;
}

std::unique_ptr<Trainer> Trainer::load_model(const std::vector<uint8_t>& bytes, bool allow_long_work,
                                             const std::optional<std::string>& text,
                                             const std::optional<std::vector<int32_t>>& tokens) {
  return load_model(BytesSource(bytes), allow_long_work, text, tokens);
}

std::unique_ptr<Trainer> Trainer::load_model(const ModelSource& file, bool allow_long_work,
                                             const std::optional<std::string>& text,
                                             const std::optional<std::vector<int32_t>>& tokens) {
  const std::vector<uint8_t> prefix = prefix_of(file);
  check_model_prefix(prefix, double(file.size()));
  if (starts_with(prefix, kMagicV2) || starts_with(prefix, kMagicV1)) {
    if (text) throw_range("text", "text applies only to a model file saved without its text (textBytes, textCrc32)");
    if (tokens) throw_range("tokens", "tokens applies only to a model file of task 'tokens'");
    return load_attntrn(file, allow_long_work);
  }
  return load_safetensors(file, allow_long_work, text, tokens);
}

namespace {

// Where each tensor of a trainer goes when its file is read: a parameter or one of its moments.
struct Destination {
  float* data;
  std::size_t count;
  bool half;          // stored as float16 in the file
  std::vector<uint64_t> shape;
  std::string what;   // for messages: "parameter 'wte'", "AdamW's first moment of parameter 'wte'"
  int kind;           // 0 a parameter, 1 a first moment, 2 a second moment (finite and >= 0)
};

// The CRC-32 of bytes [from, to) of a file, read in pieces of 1 MiB (nothing kept), with the digits
// at `digits_at` read as '0' (0: none), continuing `crc`.
uint32_t stream_crc(const ModelSource& file, uint64_t from, uint64_t to, std::size_t digits_at, uint32_t crc = 0) {
  std::vector<uint8_t> piece(std::size_t(std::min<uint64_t>(to - from, 1 << 20)));
  for (uint64_t at = from; at < to;) {
    const std::size_t n = std::size_t(std::min<uint64_t>(to - at, piece.size()));
    file.read(at, n, piece.data());
    crc = digits_at ? crc32_zeroed(piece.data(), n, std::size_t(at), digits_at, crc) : crc32(piece.data(), n, crc);
    at += n;
  }
  return crc;
}

[[noreturn]] void checksum_error(const std::string& stored, const std::string& computed) {
  file_error("its checksum does not match its contents (CRC-32 stored " + stored + ", computed " + computed +
             "): the file was changed or damaged after export");
}

// Checks the values a tensor was read into (the checksum matched): finite, second moments >= 0.
void check_values(const Destination& d) {
  for (std::size_t j = 0; j < d.count; ++j) {
    const float v = d.data[j];
    if (!std::isfinite(v) || (d.kind == 2 && v < 0)) {
      file_error(d.what + " holds " + (d.kind == 0 ? "a non-finite value (" : "") + fmt(v) + (d.kind == 0 ? ")" : "") +
                 " at index " + fmt(double(j)) +
                 (d.kind == 2 ? " (must be finite and >= 0)" : d.kind == 1 ? " (must be finite)" : ""));
    }
  }
}

}  // namespace

std::unique_ptr<Trainer> Trainer::load_safetensors(const ModelSource& file, bool allow_long_work,
                                                   const std::optional<std::string>& given_text,
                                                   const std::optional<std::vector<int32_t>>& given_tokens) {
  // check_model_prefix: 2 <= n <= kMaxHeaderBytes, 8 + n <= size. Only the header is read first.
  std::vector<uint8_t> prefix = prefix_of(file);
  const std::size_t n = std::size_t(u64_at(prefix.data()));
  std::vector<uint8_t> header_bytes(n);
  file.read(8, n, header_bytes.data());
  const SafetensorsHeader h = parse_safetensors_header(header_bytes.data(), n);
  const uint64_t data_at = 8 + n, data_bytes = file.size() - data_at;

  // What the file is, before any field is believed.
  Fields f{h.metadata, "true", "false"};
  const auto format = f.take("format");
  if (!format || *format != kFormatName) {
    file_error("it is a .safetensors file but not a trainer's export: its __metadata__ has format " +
               (format ? shown(*format) : std::string("(none)")) + ", expected '" + kFormatName + "'");
  }
  const auto version = f.take("formatVersion");
  if (!version || (*version != kFormatVersion && *version != "3")) {
    file_error("header field 'formatVersion' (" + (version ? shown(*version) : std::string("missing")) +
               ") must be " + kFormatVersion + " or 3 (this build reads versions 4 and 3, ATTNTRN2 and ATTNTRN1)");
  }
  const bool v3 = *version == "3";
  const auto stored = f.take("crc32");
  if (!stored) file_error("header field 'crc32' is missing");
  const std::size_t digits = v3 ? 0 : crc_digits_at(header_bytes.data(), n);
  if (!v3 && (digits == 0 || std::memcmp(header_bytes.data() + (digits - 8), stored->data(),
                                         std::min<std::size_t>(8, stored->size())) != 0 || stored->size() != 8)) {
    file_error("header field 'crc32' (" + shown(*stored) + ") must be 8 hex digits written as \"crc32\":\"...\"");
  }

  // The tensors' layout: F32 (weights may be F16), then the format's own rules (safetensors_header.hpp):
  // sizes that match their shapes, contiguous and covering the data exactly once.
  for (const auto& [name, e] : h.tensors) {
    const bool moment = name.rfind("optim.", 0) == 0;
    if (e.dtype != "F32" && (moment || e.dtype != "F16")) {
      file_error("tensor " + shown(name) + " has dtype " + shown(e.dtype) + ", expected 'F32'" +
                 (moment ? "" : " or 'F16'"));
    }
  }
  std::vector<std::pair<const std::string*, const TensorEntry*>> order;
  try {
    order = check_safetensors_layout(h, data_bytes);
  } catch (const SafetensorsError& e) {
    file_error(e.what());
  }

  // The checksum, read through the file once (nothing kept): a damaged file is refused as such.
  uint32_t crc = 0;
  if (v3) {
    crc = stream_crc(file, data_at, file.size(), 0);
    for (const auto& [k, v] : h.metadata) {  // std::map: sorted by key, byte-wise
      if (k == "crc32") continue;
      const std::string line = k + "=" + v + "\n";
      crc = crc32(reinterpret_cast<const uint8_t*>(line.data()), line.size(), crc);
    }
  } else {
    crc = crc32_zeroed(prefix.data(), 8, 0, digits);
    crc = crc32_zeroed(header_bytes.data(), n, 8, digits, crc);
    crc = stream_crc(file, data_at, file.size(), digits, crc);
  }
  if (*stored != hex8(crc)) checksum_error(shown(*stored), "'" + hex8(crc) + "'");

  // The config, then the trainer (refused before allocation when the data cannot hold its tensors
  // or its calls would not fit the caps).
  const auto text = f.take("text");
  const auto text_bytes = f.take("textBytes"), text_crc = f.take("textCrc32");
  const auto token_count = f.take("tokenCount"), tokens_crc = f.take("tokensCrc32");
  const auto weights_only = f.take_bool("weightsOnly").value_or(false);
  FileConfig c = read_config(f);
  const bool tokens_task = c.spec.task && *c.spec.task == "tokens";
  if (!tokens_task && (token_count || tokens_crc)) {
    file_error(std::string("header field '") + (token_count ? "tokenCount" : "tokensCrc32") + "' applies to task 'tokens' only");
  }
  if (!tokens_task && given_tokens) throw_range("tokens", "tokens applies only to a model file of task 'tokens'");
  if (tokens_task) {  // the ids by reference: the caller gives them, their count and CRC-32 must match
    if (!token_count || !tokens_crc) file_error("header fields 'tokenCount' and 'tokensCrc32' are required for task 'tokens'");
    const auto count = parse_u64(*token_count);
    if (!count || double(*count) > kMaxTokens) {
      file_error("header field 'tokenCount' (" + shown(*token_count) + ") must be an integer between 0 and " + fmt(kMaxTokens));
    }
    if (tokens_crc->size() != 8 || tokens_crc->find_first_not_of("0123456789abcdef") != std::string::npos) {
      file_error("header field 'tokensCrc32' (" + shown(*tokens_crc) + ") must be 8 lowercase hex digits");
    }
    if (!given_tokens) {
      throw_type("tokens", "this model file was trained on task 'tokens' (" + fmt(double(*count)) + " ids, CRC-32 " + *tokens_crc +
                 ") and does not hold them: pass them as loadModel(bytes, { tokens })");
    }
    const std::string crc = tokens_crc32(*given_tokens);
    if (given_tokens->size() != *count || crc != *tokens_crc) {
      throw_range("tokens", "tokens (" + fmt(double(given_tokens->size())) + " ids, CRC-32 " + crc +
                  ") are not the ids this model was trained on (" + fmt(double(*count)) + " ids, CRC-32 " + *tokens_crc + ")");
    }
    c.spec.tokens = given_tokens;
  }
  const bool chars = c.spec.task && *c.spec.task == "chars";
  if (!chars && (text || text_bytes || text_crc)) {
    file_error(std::string("header field '") + (text ? "text" : text_bytes ? "textBytes" : "textCrc32") +
               "' applies to task 'chars' only");
  }
  if (text && (text_bytes || text_crc)) file_error("header fields 'text' and 'textBytes' / 'textCrc32' exclude each other");
  if (!text && (text_bytes.has_value() != text_crc.has_value())) {
    file_error("header fields 'textBytes' and 'textCrc32' go together");
  }
  if (text_bytes) {  // the text by reference: the caller gives it, its size and CRC-32 must match
    const auto n_text = parse_u64(*text_bytes);
    if (!n_text || double(*n_text) > kMaxTextBytes) {
      file_error("header field 'textBytes' (" + shown(*text_bytes) + ") must be an integer between 0 and " +
                 fmt(kMaxTextBytes));
    }
    if (!given_text) {
      throw_type("text", "this model file was saved without its 'chars' text (" + fmt(double(*n_text)) +
                 " bytes of UTF-8, CRC-32 " + *text_crc + "): pass the text it was trained on as loadModel(bytes, { text })");
    }
    const std::string normal = encode_utf8(decode_utf8(*given_text));
    const std::string crc = hex8(crc32(reinterpret_cast<const uint8_t*>(normal.data()), normal.size()));
    if (normal.size() != *n_text || crc != *text_crc) {
      throw_range("text", "text (" + fmt(double(normal.size())) + " bytes of UTF-8, CRC-32 " + crc +
                  ") is not the text this model was trained on (" + fmt(double(*n_text)) + " bytes, CRC-32 " +
                  *text_crc + ")");
    }
    c.spec.text = normal;
  } else {
    if (given_text) throw_range("text", "text applies only to a model file saved without its text (textBytes, textCrc32)");
    if (chars) c.spec.text = text;
  }
  c.spec.allow_long_work = allow_long_work;
  // What each parameter takes in the file at least: a half (weights only, float16) or more.
  const double per_param = weights_only ? 2 : 12;
  std::unique_ptr<Trainer> t;
  try {
    t = std::make_unique<Trainer>(c.spec, double(data_bytes), per_param);
  } catch (const Error& e) {
    file_error(std::string("its header describes no valid trainer: ") + e.message());
  }

  // Each parameter (and its two moments, unless the file holds the weights only), by name, with the
  // expected shape.
  auto& params = t->model_->params();
  const std::size_t per = weights_only ? 1 : 3;
  if (h.tensors.size() != per * params.size()) {
    file_error("it has " + fmt(double(h.tensors.size())) + " tensors, this model has " + fmt(double(per * params.size())) +
               (weights_only ? " (each parameter; weightsOnly)" : " (each parameter and its two AdamW moments)"));
  }
  std::map<std::string, Destination> dest;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string base = file_name(params[i].name);
    const auto shape = file_shape(params[i]);
    const std::size_t count = params[i].value->size();
    dest[base] = {params[i].value->data(), count, false, shape, "parameter '" + base + "'", 0};
    if (weights_only) continue;
    dest["optim.exp_avg." + base] = {t->adam_->first_moment(i).data(), count, false, shape,
                                     "AdamW's first moment of parameter '" + base + "'", 1};
    dest["optim.exp_avg_sq." + base] = {t->adam_->second_moment(i).data(), count, false, shape,
                                        "AdamW's second moment of parameter '" + base + "'", 2};
  }
  for (auto& [name, d] : dest) {
    const auto it = h.tensors.find(name);
    if (it == h.tensors.end()) file_error("tensor " + shown(name) + " is missing");
    if (it->second.shape != d.shape) file_error("tensor " + shown(name) + " has the wrong shape");
    d.half = it->second.dtype == "F16";
  }

  // The data, in file order, straight into the trainer (halves widened); then the values.
  std::vector<uint16_t> halves;
  for (const auto& [name, e] : order) {
    const Destination& d = dest.at(*name);
    if (d.half) {
      halves.resize(d.count);
      file.read(data_at + e->begin, 2 * d.count, reinterpret_cast<uint8_t*>(halves.data()));  // little-endian hosts
      for (std::size_t j = 0; j < d.count; ++j) d.data[j] = f16_to_f32(halves[j]);
    } else {
      file.read(data_at + e->begin, 4 * d.count, reinterpret_cast<uint8_t*>(d.data));  // little-endian hosts (x86, wasm)
    }
  }
  for (const auto& [name, d] : dest) check_values(d);
  t->adam_->set_steps(c.step);
  t->rng_.set_state(c.rng);
  return t;
}

// --- ATTNTRN2 / ATTNTRN1 (read only) ------------------------------------------------------------------

namespace {

// Reads a file front to back.
struct Reader {
  const ModelSource& file;
  uint64_t end;  // the checksum, when there is one, is not read as data
  uint64_t pos = 0;
  [[noreturn]] void fail(const std::string& why) const { file_error(why + " (at byte " + fmt(double(pos)) + ")"); }
  void bytes(uint8_t* dst, uint64_t n) {
    if (n > end - pos) fail("truncated");
    file.read(pos, n, dst);
    pos += n;
  }
  uint32_t u32() {
    uint8_t b[4];
    bytes(b, 4);
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
  }
  std::string str(uint64_t n) {
    if (n > end - pos) fail("truncated");
    std::string s(std::size_t(n), '\0');
    bytes(reinterpret_cast<uint8_t*>(s.data()), n);
    return s;
  }
};

}  // namespace

std::unique_ptr<Trainer> Trainer::load_attntrn(const ModelSource& file, bool allow_long_work) {
  const std::vector<uint8_t> magic = prefix_of(file);
  const bool v2 = starts_with(magic, kMagicV2);
  uint64_t end = file.size();
  if (v2) {  // ATTNTRN2 ends with the CRC-32 of every byte before it: checked first, read through once
    if (end < 12) file_error("truncated: " + fmt(double(end)) + " bytes");
    end -= 4;
    uint8_t b[4];
    file.read(end, 4, b);
    const uint32_t stored = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    const uint32_t actual = stream_crc(file, 0, end, 0);
    if (stored != actual) checksum_error(fmt(double(stored)), fmt(double(actual)));
  }
  Reader r{file, end};
  r.str(8);  // the magic
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
  c.spec.allow_long_work = allow_long_work;

  std::unique_ptr<Trainer> t;
  try {
    t = std::make_unique<Trainer>(c.spec, double(end - r.pos));
  } catch (const Error& e) {
    file_error(std::string("its header describes no valid trainer: ") + e.message());
  }
  auto& params = t->model_->params();
  if (r.u32() != params.size()) r.fail("wrong number of parameters for this spec");
  std::vector<Destination> read;
  for (auto& p : params) {
    const std::string name = r.str(r.u32());
    if (name != p.name) r.fail("parameter " + shown(name) + " where '" + p.name + "' was expected");
    const uint32_t rows = r.u32(), cols = r.u32();
    if (rows != p.value->shape(0) || cols != p.value->shape(1)) r.fail("parameter '" + name + "' has the wrong shape");
    r.bytes(reinterpret_cast<uint8_t*>(p.value->data()), uint64_t(rows) * cols * sizeof(float));
    read.push_back({p.value->data(), p.value->size(), false, {}, "parameter '" + name + "'", 0});
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    for (int k = 1; k <= 2; ++k) {
      std::vector<float>& m = k == 1 ? t->adam_->first_moment(i) : t->adam_->second_moment(i);
      r.bytes(reinterpret_cast<uint8_t*>(m.data()), m.size() * sizeof(float));
      read.push_back({m.data(), m.size(), false, {}, std::string("AdamW's ") + (k == 1 ? "first" : "second") +
                                                   " moment of parameter '" + params[i].name + "'", k});
    }
  }
  if (r.pos != end) r.fail("trailing bytes");
  for (const Destination& d : read) check_values(d);
  t->adam_->set_steps(c.step);
  t->rng_.set_state(c.rng);
  return t;
}

}  // namespace attn::train
