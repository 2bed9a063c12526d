// train/trainer.cpp — spec checks, the training loop, evaluation, head scores, export/load.
#include "attn/train/trainer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "attn/errors.hpp"
#include "attn/weights.hpp"

namespace attn::train {

namespace {

int64_t int_field(const char* name, const std::optional<double>& v, double lo, double hi, int64_t fallback) {
  if (!v) return fallback;
  const double x = *v;
  if (!std::isfinite(x) || x != std::floor(x)) throw_range(name, std::string(name) + " (" + fmt(x) + ") must be an integer");
  if (x < lo || x > hi) {
    throw_range(name, std::string(name) + " (" + fmt(x) + ") must be between " + fmt(lo) + " and " + fmt(hi));
  }
  return int64_t(x);
}

double real_field(const char* name, const std::optional<double>& v, double lo, double hi, double fallback,
                  bool lo_open) {
  if (!v) return fallback;
  const double x = *v;
  if (!std::isfinite(x) || (lo_open ? x <= lo : x < lo) || x > hi) {
    throw_range(name, std::string(name) + " (" + fmt(x) + ") must be a number " + (lo_open ? "> " : ">= ") + fmt(lo) +
                " and <= " + fmt(hi));
  }
  return x;
}

TaskKind parse_task(const std::optional<std::string>& t) {
  if (!t) throw_type("task", "task is required: one of 'copy', 'induction', 'chars'");
  if (*t == "copy") return TaskKind::Copy;
  if (*t == "induction") return TaskKind::Induction;
  if (*t == "chars") return TaskKind::Chars;
  throw_range("task", "task ('" + t->substr(0, 40) + "') must be one of 'copy', 'induction', 'chars'");
}

constexpr int64_t kEvalSequences = 256;
constexpr int64_t kScoreSequences = 64;

// Parameter floats of a model (a lower bound: LayerNorm vectors and biases are not counted).
double param_floats(const ModelConfig& c) {
  const double d = double(c.attn.d), v = double(c.vocab), n = double(c.attn.n);
  double per_layer = 0;
  for (const auto& slot : weight_slots(c.attn)) per_layer += double(slot.rows) * double(slot.cols);
  if (c.mlp) per_layer += 8.0 * d * d;
  return v * d + n * d + (c.tied ? 0.0 : d * v) + double(c.n_layers) * per_layer;
}

}  // namespace

Trainer::Trainer(const TrainerSpec& spec, double file_bytes) : spec_(spec) {
  const TaskKind kind = parse_task(spec.task);
  const int64_t n = int_field("seqLen", spec.seq_len, 2, 1024, 32);
  batch_size_ = int_field("batchSize", spec.batch_size, 1, 1024, 16);
  const double lr = real_field("learningRate", spec.learning_rate, 0.0, 1.0, 3e-3, true);
  seed_ = uint64_t(int_field("seed", spec.seed, 0, 9007199254740991.0, 0));
  const int64_t n_layers = int_field("model.nLayers", spec.n_layers, 1, 4, 1);
  const int64_t total = int_field("totalSteps", spec.total_steps, 1, 1e9, 2000);
  const int64_t warmup = int_field("warmupSteps", spec.warmup_steps, 0, double(total), std::min<int64_t>(100, total / 10));
  const double wd = real_field("weightDecay", spec.weight_decay, 0.0, 1.0, 0.01, false);
  Activation act = Activation::Gelu;
  if (spec.activation) {
    if (*spec.activation == "relu") act = Activation::Relu;
    else if (*spec.activation != "gelu")
      throw_range("model.activation", "activation ('" + spec.activation->substr(0, 40) + "') must be 'gelu' or 'relu'");
  }

  // Data.
  int64_t vocab = 0;
  if (kind == TaskKind::Chars) {
    if (spec.vocab_size) {
      throw_range("vocabSize", "vocabSize (" + fmt(*spec.vocab_size) +
                  ") does not apply to task 'chars': the vocabulary comes from the text");
    }
    if (!spec.text) throw_type("text", "text is required for task 'chars'");
    task_ = std::make_unique<Task>(kind, 0, n, *spec.text);
    const int64_t chars = int64_t(decode_utf8(*spec.text).size());
    if (chars / 10 < n + 2) {
      throw_range("text", "text (" + fmt(double(chars)) + " characters) is too short for seqLen (" + fmt(double(n)) +
                  "): its last 10 % must hold a window of seqLen + 1 characters (at least " +
                  fmt(double(10 * (n + 2))) + " characters)");
    }
    if (task_->vocab() < 2) throw_range("text", "text has " + fmt(double(task_->vocab())) + " distinct characters, needs at least 2");
  } else {
    if (spec.text) throw_range("text", "text applies to task 'chars' only");
    const bool copy = kind == TaskKind::Copy;
    vocab = int_field("vocabSize", spec.vocab_size, copy ? 3 : 4, 65536, copy ? 16 : 32);
    task_ = std::make_unique<Task>(kind, vocab, n);
  }

  // Model: the attention geometry is checked by the inference core's resolve().
  RawSpec raw = spec.model;
  raw.seq_len = double(n);
  raw.causal = true;
  raw.return_weights = false;
  try {
    cfg_.attn = resolve(raw, Need::Forward);
  } catch (const Error& e) {
    if (e.field().empty() || e.field() == "seqLen") throw;
    throw e.nested("model");  // the geometry's fields live in the model object
  }
  cfg_.vocab = task_->vocab();
  cfg_.n_layers = n_layers;
  cfg_.mlp = spec.mlp.value_or(false);
  cfg_.layer_norm = spec.layer_norm.value_or(true);
  cfg_.tied = spec.tied_embeddings.value_or(false);
  cfg_.activation = act;

  // Working memory of a training step, roughly: activations per layer and the attention maps.
  const double rows = double(batch_size_ * n), d = double(cfg_.attn.d), h = double(cfg_.attn.h);
  const double per_layer = rows * (8.0 * d + 6.0 * h * double(cfg_.attn.d_qk() + cfg_.attn.dh) +
                                   (cfg_.mlp ? 8.0 * 4.0 * d : 0.0)) + 2.0 * double(batch_size_) * h * double(n * n);
  const double bytes = 4.0 * (double(n_layers) * per_layer + 4.0 * rows * double(cfg_.vocab));
  if (bytes > kMaxWorkBytes) {
    throw_range("this trainer needs about " + fmt(std::ceil(bytes / 1048576.0)) +
                " MiB of working memory per step, more than the 1024 MiB limit: lower batchSize, seqLen or dModel");
  }

  // Parameters with their gradients and AdamW's two moments: 16 bytes each.
  const double params = param_floats(cfg_);
  if (16.0 * params > kMaxWorkBytes) {
    throw_range("this model has about " + fmt(std::ceil(params / 1e6)) + " million parameters, needing about " +
                fmt(std::ceil(16.0 * params / 1048576.0)) +
                " MiB with gradients and AdamW moments, more than the 1024 MiB limit: lower dModel, nLayers or vocabSize");
  }
  if (file_bytes >= 0 && 12.0 * params > file_bytes) {
    throw_range("the model needs at least " + fmt(12.0 * params) + " bytes of tensors (weights and two moments), "
                "the file has " + fmt(file_bytes) + " left");
  }
  model_ = std::make_unique<Model>(cfg_, seed_);
  AdamConfig ac;
  ac.lr = lr;
  ac.weight_decay = wd;
  ac.total_steps = total;
  ac.warmup_steps = warmup;
  adam_ = std::make_unique<AdamW>(ac, model_->params());
  rng_ = Rng(seed_ ^ 0x5DEECE66Dull);
  eval_ = task_->eval_set(seed_ ^ 0xE7A1ull, kEvalSequences);
}

StepResult Trainer::step(int64_t n) {
  if (n < 1) throw_range("n", "n (" + fmt(double(n)) + ") must be >= 1");
  if (double(adam_->steps()) + double(n) > 2 * kMaxFileStep) {
    throw_range("n", "n (" + fmt(double(n)) + ") would take the step count past " + fmt(2 * kMaxFileStep));
  }
  double loss = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Batch b = task_->sample(rng_, batch_size_);
    model_->zero_grad();
    loss = model_->forward(b.tokens.data(), b.targets.data(), b.loss_mask.data(), b.batch, b.n);
    model_->backward();
    refuse_non_finite(loss);  // before the update: a refused step leaves the trainer as it was
    adam_->step();
  }
  return {adam_->steps(), loss};
}

// Finite weights can still overflow float32 (e.g. a model file with weights of 1e30 that passes every
// check): refuse to report a non-finite loss or apply a gradient whose square would overflow AdamW's
// second moment (the trainer's own export would then be refused), naming the largest weight. Both
// found by the fuzzer (tests/fuzz/corpus/model_regression_*).
void Trainer::refuse_non_finite(double loss) {
  bool finite = std::isfinite(loss);
  for (const auto& p : model_->params()) {
    if (!finite) break;
    // |g| <= 1e19: AdamW's second moment adds g^2, which must stay below float32's 3.4e38
    for (float g : *p.grad) finite = finite && std::fabs(g) <= 1e19f;
  }
  if (finite) return;
  throw_range("training step " + fmt(double(adam_->steps() + 1)) + " overflowed float32 (loss " + fmt(loss) +
              ", or a gradient, is not finite or above 1e19, where AdamW's g^2 overflows) although every weight is "
              "finite: " + largest_weight() +
              "; the step was not applied");
}

std::string Trainer::largest_weight() {
  double largest = 0;
  std::string where;
  for (const auto& p : model_->params()) {
    for (float v : *p.value) {
      if (std::fabs(double(v)) > largest) {
        largest = std::fabs(double(v));
        where = p.name;
      }
    }
  }
  return "the largest is |" + where + "| = " + fmt(largest);
}

EvalResult Trainer::measure(const Batch& b) {
  const int64_t v = cfg_.vocab, n = b.n;
  double loss_sum = 0, loss_count = 0, correct = 0, acc_count = 0;
  for (int64_t start = 0; start < b.batch; start += batch_size_) {
    const int64_t rows_b = std::min(batch_size_, b.batch - start);
    const std::size_t off = std::size_t(start * n);
    double weight = 0;
    for (int64_t r = 0; r < rows_b * n; ++r) weight += b.loss_mask[off + r];
    const double loss = model_->forward(b.tokens.data() + off, b.targets.data() + off, b.loss_mask.data() + off,
                                        rows_b, n);
    loss_sum += loss * weight;
    loss_count += weight;
    const float* logits = model_->logits().data();
    for (int64_t r = 0; r < rows_b * n; ++r) {
      if (b.acc_mask[off + r] == 0.0f) continue;
      const float* l = logits + r * v;
      const int64_t best = int64_t(std::max_element(l, l + v) - l);
      correct += best == b.targets[off + r] ? 1.0 : 0.0;
      acc_count += 1.0;
    }
  }
  EvalResult e;
  e.loss = loss_count > 0 ? loss_sum / loss_count : 0.0;
  e.bits_per_token = e.loss / std::log(2.0);
  e.accuracy = acc_count > 0 ? correct / acc_count : 0.0;
  return e;
}

EvalResult Trainer::evaluate() {
  const EvalResult e = measure(eval_);
  if (!std::isfinite(e.loss)) {
    throw_range("evaluate overflowed float32 (the loss is " + fmt(e.loss) + ") although every weight is finite: " +
                largest_weight());
  }
  return e;
}

std::vector<HeadScore> Trainer::head_scores() {
  const int64_t layers = cfg_.n_layers, h = cfg_.attn.h, n = task_->seq_len();
  std::vector<HeadScore> scores;
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t hh = 0; hh < h; ++hh) scores.push_back({l, hh, 0, 0, 0, 0});
  // previous-token, diagonal, first-token: held-out task data, queries i >= 1.
  const int64_t count = std::min<int64_t>(kScoreSequences, eval_.batch);
  double queries = 0;
  for (int64_t start = 0; start < count; start += batch_size_) {
    const int64_t rows_b = std::min(batch_size_, count - start);
    model_->forward(eval_.tokens.data() + start * n, nullptr, nullptr, rows_b, n);
    for (int64_t l = 0; l < layers; ++l) {
      const std::vector<float>& p = model_->attention_probs(l);  // (B, H, N, N)
      for (int64_t b = 0; b < rows_b; ++b)
        for (int64_t hh = 0; hh < h; ++hh) {
          const float* m = p.data() + (b * h + hh) * n * n;
          HeadScore& s = scores[std::size_t(l * h + hh)];
          for (int64_t i = 1; i < n; ++i) {
            s.previous_token += m[i * n + i - 1];
            s.diagonal += m[i * n + i];
            s.first_token += m[i * n];
          }
        }
    }
    queries += double(rows_b * (n - 1));
  }
  for (auto& s : scores) {
    s.previous_token /= queries;
    s.diagonal /= queries;
    s.first_token /= queries;
  }
  // induction: on induction-style sequences (needs a vocabulary of at least 4 tokens).
  if (cfg_.vocab >= 4) {
    Task ind(TaskKind::Induction, cfg_.vocab, n);
    Rng rng(seed_ ^ 0x1D0C7ull);
    const Batch b = ind.induction(rng, kScoreSequences);
    double pairs = 0;
    for (int64_t start = 0; start < b.batch; start += batch_size_) {
      const int64_t rows_b = std::min(batch_size_, b.batch - start);
      model_->forward(b.tokens.data() + start * n, nullptr, nullptr, rows_b, n);
      for (int64_t r = 0; r < rows_b; ++r)
        for (int64_t i = 0; i < n; ++i) {
          const int32_t key = b.induction_key[std::size_t((start + r) * n + i)];
          if (key < 0) continue;
          pairs += 1;
          for (int64_t l = 0; l < layers; ++l) {
            const std::vector<float>& p = model_->attention_probs(l);
            for (int64_t hh = 0; hh < h; ++hh)
              scores[std::size_t(l * h + hh)].induction += p[std::size_t(((r * h + hh) * n + i) * n + key)];
          }
        }
    }
    if (pairs > 0)
      for (auto& s : scores) s.induction /= pairs;
  }
  for (auto& s : scores) {
    for (double* v : {&s.previous_token, &s.induction, &s.first_token, &s.diagonal}) *v = std::clamp(*v, 0.0, 1.0);
  }
  return scores;
}

xt::xtensor<float, 4> Trainer::attention(const std::vector<int32_t>& tokens) {
  const int64_t n = int64_t(tokens.size()), h = cfg_.attn.h, layers = cfg_.n_layers;
  if (n < 1 || n > task_->seq_len()) {
    throw_range("tokens", "tokens has " + fmt(double(n)) + " elements, must be between 1 and seqLen (" +
                fmt(double(task_->seq_len())) + ")");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (tokens[i] < 0 || tokens[i] >= cfg_.vocab) {
      throw_range("tokens", "tokens[" + fmt(double(i)) + "] (" + fmt(tokens[i]) + ") must be between 0 and vocabSize - 1 (" +
                  fmt(double(cfg_.vocab - 1)) + ")");
    }
  }
  model_->forward(tokens.data(), nullptr, nullptr, 1, n);
  for (int64_t l = 0; l < layers; ++l)
    for (float p : model_->attention_probs(l))
      if (!std::isfinite(p)) {
        throw_range("attention overflowed float32 (a weight map holds " + fmt(p) + ") although every weight is finite: " +
                    largest_weight());
      }
  auto out = xt::xtensor<float, 4>::from_shape({std::size_t(layers), std::size_t(h), std::size_t(n), std::size_t(n)});
  for (int64_t l = 0; l < layers; ++l) {
    const std::vector<float>& p = model_->attention_probs(l);
    std::copy(p.begin(), p.end(), out.data() + l * h * n * n);
  }
  return out;
}

// --- export / load -------------------------------------------------------------------------------
// Format (little-endian): "ATTNTRN2", u32 header bytes, header = "key=value\n" lines (the spec as
// given, plus step and rng), u32 text bytes, text, u32 params, then per param: u32 name bytes, name,
// u32 rows, u32 cols, rows*cols float32; then per param AdamW's first and second moments (float32),
// so that a loaded trainer continues exactly where the exported one stood; then u32 CRC-32 (IEEE,
// zlib's crc32) of every byte before it.
// Version 1 files ("ATTNTRN1", exported before the checksum existed) are the same without the CRC:
// they are still read, with every other check, so a flipped weight byte in them goes unnoticed.

namespace {

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

void put_bytes(std::vector<uint8_t>& out, const void* p, std::size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  out.insert(out.end(), b, b + n);
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), the checksum of zlib, PNG and gzip.
uint32_t crc32(const uint8_t* p, std::size_t n) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

[[noreturn]] void file_error(const std::string& why) {
  throw Error(Error::Kind::Range, "model file is not valid: " + why, "bytes");
}

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

constexpr char kMagicV1[] = "ATTNTRN1";
constexpr char kMagicV2[] = "ATTNTRN2";

bool starts_with(const std::vector<uint8_t>& b, const char* magic) {
  return b.size() >= 8 && std::memcmp(b.data(), magic, 8) == 0;
}

// A header value shown in messages: at most 40 characters, control characters escaped.
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

}  // namespace

void Trainer::check_model_prefix(const std::vector<uint8_t>& prefix, double total_bytes) {
  if (total_bytes > kMaxModelBytes) {
    file_error("it has " + fmt(total_bytes) + " bytes, above the cap of " + fmt(kMaxModelBytes) +
               " bytes (1 GiB); nothing was read");
  }
  if (!starts_with(prefix, kMagicV2) && !starts_with(prefix, kMagicV1)) {
    file_error("it does not start with " + std::string(kMagicV2) + " (or " + kMagicV1 +
               "): not a model exported by trainer.exportModel()");
  }
}

std::vector<uint8_t> Trainer::export_model() const {
  std::string header;
  auto add = [&](const char* k, const std::string& v) { header += std::string(k) + "=" + v + "\n"; };
  auto add_num = [&](const char* k, const std::optional<double>& v) { if (v) add(k, num(*v)); };
  auto add_bool = [&](const char* k, const std::optional<bool>& v) { if (v) add(k, *v ? "1" : "0"); };
  const RawSpec& m = spec_.model;
  if (spec_.task) add("task", *spec_.task);
  if (m.variant) add("variant", *m.variant);
  add_num("dModel", m.d_model);
  add_num("nHeads", m.n_heads);
  add_num("nKvHeads", m.n_kv_heads);
  add_num("dHead", m.d_head);
  add_num("latentRank", m.latent_rank);
  add_num("ropeDim", m.rope_dim);
  if (m.rope.enabled) add("rope", "1");
  if (m.rope.base) add("ropeBase", num(*m.rope.base));
  add_num("nLayers", spec_.n_layers);
  add_bool("mlp", spec_.mlp);
  add_bool("layerNorm", spec_.layer_norm);
  add_bool("tiedEmbeddings", spec_.tied_embeddings);
  if (spec_.activation) add("activation", *spec_.activation);
  add_num("seqLen", spec_.seq_len);
  add_num("batchSize", spec_.batch_size);
  add_num("learningRate", spec_.learning_rate);
  add_num("seed", spec_.seed);
  add_num("vocabSize", spec_.vocab_size);
  add_num("totalSteps", spec_.total_steps);
  add_num("warmupSteps", spec_.warmup_steps);
  add_num("weightDecay", spec_.weight_decay);
  add("step", std::to_string(adam_->steps()));
  add("rng", std::to_string(rng_.state()));

  std::vector<uint8_t> out;
  put_bytes(out, kMagicV2, 8);
  put_u32(out, uint32_t(header.size()));
  put_bytes(out, header.data(), header.size());
  const std::string text = spec_.text.value_or("");
  put_u32(out, uint32_t(text.size()));
  put_bytes(out, text.data(), text.size());
  auto& params = model_->params();
  put_u32(out, uint32_t(params.size()));
  for (const auto& p : params) {
    put_u32(out, uint32_t(p.name.size()));
    put_bytes(out, p.name.data(), p.name.size());
    put_u32(out, uint32_t(p.value->shape(0)));
    put_u32(out, uint32_t(p.value->shape(1)));
    put_bytes(out, p.value->data(), p.value->size() * sizeof(float));
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    put_bytes(out, adam_->first_moment(i).data(), adam_->first_moment(i).size() * sizeof(float));
    put_bytes(out, adam_->second_moment(i).data(), adam_->second_moment(i).size() * sizeof(float));
  }
  put_u32(out, crc32(out.data(), out.size()));
  return out;
}

std::unique_ptr<Trainer> Trainer::load_model(const std::vector<uint8_t>& bytes) {
  check_model_prefix(bytes, double(bytes.size()));
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
  std::map<std::string, std::string> kv;
  for (std::size_t i = 0; i < header.size();) {
    const std::size_t eol = header.find('\n', i);
    const std::string line = header.substr(i, eol == std::string::npos ? std::string::npos : eol - i);
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) r.fail("bad header line " + shown(line));
    if (!kv.emplace(line.substr(0, eq), line.substr(eq + 1)).second) {
      r.fail("header field '" + line.substr(0, std::min<std::size_t>(eq, 40)) + "' appears twice");
    }
    if (eol == std::string::npos) break;
    i = eol + 1;
  }
  auto take = [&](const char* k) -> std::optional<std::string> {
    auto it = kv.find(k);
    if (it == kv.end()) return std::nullopt;
    std::string v = it->second;
    kv.erase(it);
    return v;
  };
  auto take_num = [&](const char* k) -> std::optional<double> {
    auto v = take(k);
    if (!v) return std::nullopt;
    char* end_ptr = nullptr;
    const double x = std::strtod(v->c_str(), &end_ptr);
    if (v->empty() || end_ptr != v->c_str() + v->size() || !std::isfinite(x)) {
      r.fail("header field '" + std::string(k) + "' (" + shown(*v) + ") is not a finite number");
    }
    return x;
  };
  auto take_bool = [&](const char* k) -> std::optional<bool> {
    auto v = take(k);
    if (!v) return std::nullopt;
    if (*v != "0" && *v != "1") r.fail("header field '" + std::string(k) + "' (" + shown(*v) + ") must be 0 or 1");
    return *v == "1";
  };
  TrainerSpec spec;
  spec.task = take("task");
  spec.model.variant = take("variant");
  spec.model.d_model = take_num("dModel");
  spec.model.n_heads = take_num("nHeads");
  spec.model.n_kv_heads = take_num("nKvHeads");
  spec.model.d_head = take_num("dHead");
  spec.model.latent_rank = take_num("latentRank");
  spec.model.rope_dim = take_num("ropeDim");
  spec.model.rope.enabled = take_bool("rope").value_or(false);
  spec.model.rope.base = take_num("ropeBase");
  spec.n_layers = take_num("nLayers");
  spec.mlp = take_bool("mlp");
  spec.layer_norm = take_bool("layerNorm");
  spec.tied_embeddings = take_bool("tiedEmbeddings");
  spec.activation = take("activation");
  spec.seq_len = take_num("seqLen");
  spec.batch_size = take_num("batchSize");
  spec.learning_rate = take_num("learningRate");
  spec.seed = take_num("seed");
  spec.vocab_size = take_num("vocabSize");
  spec.total_steps = take_num("totalSteps");
  spec.warmup_steps = take_num("warmupSteps");
  spec.weight_decay = take_num("weightDecay");
  const auto step_text = take("step");
  const auto rng_text = take("rng");
  if (!kv.empty()) r.fail("unknown header field '" + kv.begin()->first.substr(0, 40) + "'");
  if (!step_text) r.fail("header field 'step' is missing");
  const auto step = parse_u64(*step_text);
  if (!step || double(*step) > kMaxFileStep) {
    r.fail("header field 'step' (" + shown(*step_text) + ") must be an integer between 0 and " + fmt(kMaxFileStep));
  }
  if (!rng_text) r.fail("header field 'rng' is missing");
  const auto rng = parse_u64(*rng_text);
  if (!rng) r.fail("header field 'rng' (" + shown(*rng_text) + ") must be an unsigned 64-bit integer");
  const std::string text = r.str(r.u32());
  if (spec.task && *spec.task == "chars") spec.text = text;

  std::unique_ptr<Trainer> t;
  try {
    t = std::make_unique<Trainer>(spec, double(end - r.pos));
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
  t->adam_->set_steps(int64_t(*step));
  t->rng_.set_state(*rng);
  return t;
}

}  // namespace attn::train
