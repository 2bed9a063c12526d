// train/trainer.cpp — a training run: spec checks, the training loop, evaluation.
// The probes (head scores, attention maps) are in probes.cpp, the model file in model_file.cpp.
#include "attn/train/trainer.hpp"

#include <algorithm>
#include <cmath>

#include "attn/errors.hpp"
#include "attn/fields.hpp"
#include "attn/train/model_file.hpp"
#include "attn/weights.hpp"

namespace attn::train {

const std::vector<TrainerNumberField>& trainer_number_fields() {
  static const std::vector<TrainerNumberField> table = {
      {"nLayers", &TrainerSpec::n_layers, true},          {"seqLen", &TrainerSpec::seq_len, false},
      {"batchSize", &TrainerSpec::batch_size, false},     {"learningRate", &TrainerSpec::learning_rate, false},
      {"seed", &TrainerSpec::seed, false},                {"vocabSize", &TrainerSpec::vocab_size, false},
      {"totalSteps", &TrainerSpec::total_steps, false},   {"warmupSteps", &TrainerSpec::warmup_steps, false},
      {"weightDecay", &TrainerSpec::weight_decay, false},
  };
  return table;
}

const std::vector<TrainerFlagField>& trainer_flag_fields() {
  static const std::vector<TrainerFlagField> table = {
      {"mlp", &TrainerSpec::mlp}, {"layerNorm", &TrainerSpec::layer_norm}, {"tiedEmbeddings", &TrainerSpec::tied_embeddings},
  };
  return table;
}

namespace {

TaskKind parse_task(const std::optional<std::string>& t) {
  if (!t) throw_type("task", "task is required: one of 'copy', 'induction', 'chars'");
  if (*t == "copy") return TaskKind::Copy;
  if (*t == "induction") return TaskKind::Induction;
  if (*t == "chars") return TaskKind::Chars;
  throw_range("task", "task (" + quoted(*t) + ") must be one of 'copy', 'induction', 'chars'");
}

constexpr int64_t kEvalSequences = 256;

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
  const int64_t n = integer_field("seqLen", spec.seq_len, 2, 1024, 32);
  batch_size_ = integer_field("batchSize", spec.batch_size, 1, 1024, 16);
  const double lr = number_field("learningRate", spec.learning_rate, 0.0, 1.0, 3e-3, true);
  seed_ = uint64_t(integer_field("seed", spec.seed, 0, 9007199254740991.0, 0));
  const int64_t n_layers = integer_field("model.nLayers", spec.n_layers, 1, 4, 1);
  const int64_t total = integer_field("totalSteps", spec.total_steps, 1, 1e9, 2000);
  const int64_t warmup = integer_field("warmupSteps", spec.warmup_steps, 0, double(total), std::min<int64_t>(100, total / 10));
  const double wd = number_field("weightDecay", spec.weight_decay, 0.0, 1.0, 0.01);
  Activation act = Activation::Gelu;
  if (spec.activation) {
    if (*spec.activation == "relu") act = Activation::Relu;
    else if (*spec.activation != "gelu")
      throw_range("model.activation", "activation (" + quoted(*spec.activation) + ") must be 'gelu' or 'relu'");
  }

  // Data.
  int64_t vocab = 0;
  if (kind == TaskKind::Chars) {
    if (spec.vocab_size) {
      throw_range("vocabSize", "vocabSize (" + fmt(*spec.vocab_size) +
                  ") does not apply to task 'chars': the vocabulary comes from the text");
    }
    if (!spec.text) throw_type("text", "text is required for task 'chars'");
    if (double(spec.text->size()) > kMaxTextBytes) {
      throw_range("text", "text (" + fmt(double(spec.text->size())) + " bytes of UTF-8) is longer than " +
                  fmt(kMaxTextBytes) + " bytes, the most a model file holds");
    }
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
    vocab = integer_field("vocabSize", spec.vocab_size, copy ? 3 : 4, 65536, copy ? 16 : 32);
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
    const Batch b = task_->sample(rng_, batch_size_);  // tokens, targets, masks: (batchSize, seqLen)
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
    const float* logits = model_->logits().data();  // (rows_b * N, V)
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

}  // namespace attn::train
