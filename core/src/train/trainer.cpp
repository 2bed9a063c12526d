// train/trainer.cpp — a training run: spec checks, the training loop, evaluation.
// The probes (head scores, attention maps) are in probes.cpp, the model file in model_file.cpp.
#include "attn/train/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/fields.hpp"
#include "attn/overflow.hpp"
#include "attn/train/model_file.hpp"
#include "attn/weights.hpp"

namespace attn::train {

const std::vector<TrainerNumberField>& trainer_number_fields() {
  static const std::vector<TrainerNumberField> table = {
      {"nLayers", &TrainerSpec::n_layers, true, true, 1, 4},
      {"seqLen", &TrainerSpec::seq_len, false, true, 2, 1024},
      {"batchSize", &TrainerSpec::batch_size, false, true, 1, 1024},
      {"learningRate", &TrainerSpec::learning_rate, false, false, 0, 1, true},
      {"seed", &TrainerSpec::seed, false, true, 0, kMaxSeed},
      {"vocabSize", &TrainerSpec::vocab_size, false, true, 3, 65536},
      {"totalSteps", &TrainerSpec::total_steps, false, true, 1, 1e9},
      {"warmupSteps", &TrainerSpec::warmup_steps, false, true, 0, 1e9},
      {"weightDecay", &TrainerSpec::weight_decay, false, false, 0, 1},
      {"mlpWidth", &TrainerSpec::mlp_width, true, true, 1, kMaxDim},
      {"vHeadDim", &TrainerSpec::v_head_dim, true, true, 1, kMaxDim},
      {"qLoraRank", &TrainerSpec::q_lora_rank, true, true, 1, kMaxDim},
      {"repeatFraction", &TrainerSpec::repeat_fraction, false, false, 0, 1},
      {"repeatRandomFraction", &TrainerSpec::repeat_random_fraction, false, false, 0, 1},
      {"minSegment", &TrainerSpec::min_segment, false, true, 2, 1024},
  };
  return table;
}

const TrainerNumberField& trainer_field(const char* name) {
  for (const auto& f : trainer_number_fields()) {
    if (std::string(f.name) == name) return f;
  }
  throw std::logic_error(std::string("no trainer field ") + name);
}

const std::vector<TrainerFlagField>& trainer_flag_fields() {
  static const std::vector<TrainerFlagField> table = {
      {"mlp", &TrainerSpec::mlp}, {"layerNorm", &TrainerSpec::layer_norm}, {"tiedEmbeddings", &TrainerSpec::tied_embeddings},
  };
  return table;
}

int64_t llama_mlp_width(int64_t d_model) { return (d_model + 2) / 3 * 8; }  // ceil(8 D / 3 / 8) * 8

namespace {

Block parse_block(const std::optional<std::string>& b) {
  if (!b || *b == "gpt") return Block::Gpt;
  if (*b == "llama") return Block::Llama;
  if (*b == "deepseek") return Block::Deepseek;
  throw_range("model.block", "block (" + quoted(*b) + ") must be 'gpt', 'llama' or 'deepseek'");
}

// What blocks 'llama' and 'deepseek' fix (RMSNorms, a SwiGLU MLP): refuses the GPT-style block's
// options that would change it.
void check_llama_like_spec(const TrainerSpec& spec, const std::string& name) {
  if (spec.layer_norm && !*spec.layer_norm) {
    throw_range("model.layerNorm", "layerNorm (false) does not apply to block '" + name + "': it always has its RMSNorms");
  }
  if (spec.mlp && !*spec.mlp) {
    throw_range("model.mlp", "mlp (false) does not apply to block '" + name + "': it always has its SwiGLU MLP");
  }
  if (spec.activation) {
    throw_range("model.activation", "activation (" + quoted(*spec.activation) +
                                        ") does not apply to block '" + name + "': its MLP is SwiGLU (SiLU)");
  }
}

// What block 'deepseek' takes: variant 'mla' with a RoPE key (ropeDim > 0: Hugging Face's
// qk_rope_head_dim is at least 2); rope is its own (the decoupled key), not the flag.
void check_deepseek_spec(const TrainerSpec& spec) {
  const std::string v = spec.model.variant.value_or("");
  if (v != "mla") {
    throw_range("model.variant", "variant (" + quoted(v) + ") is not a block 'deepseek' attention: it takes 'mla' "
                                 "(latentRank = kv_lora_rank, dHead = qk_nope_head_dim, ropeDim = qk_rope_head_dim)");
  }
  if (!spec.model.rope_dim || *spec.model.rope_dim == 0) {
    throw_range("model.ropeDim", "ropeDim (" + (spec.model.rope_dim ? fmt(*spec.model.rope_dim) : std::string("absent")) +
                                     ") must be at least 2 for block 'deepseek': its decoupled RoPE key (qk_rope_head_dim)");
  }
  check_llama_like_spec(spec, "deepseek");
}

// What block 'llama' fixes: refuses the GPT-style block's options that would change it.
void check_llama_spec(const TrainerSpec& spec) {
  const std::string v = spec.model.variant.value_or("");
  if (v == "mla") {
    throw_range("model.variant", "variant ('mla') is not a block 'llama' attention: it takes 'mha', 'mqa' or 'gqa' "
                                 "(block 'deepseek' takes 'mla')");
  }
  check_llama_like_spec(spec, "llama");
}

TaskKind parse_task(const std::optional<std::string>& t) {
  if (!t) throw_type("task", "task is required: one of 'copy', 'induction', 'chars', 'pairs', 'tokens'");
  if (*t == "copy") return TaskKind::Copy;
  if (*t == "induction") return TaskKind::Induction;
  if (*t == "chars") return TaskKind::Chars;
  if (*t == "pairs") return TaskKind::Pairs;
  if (*t == "tokens") return TaskKind::Tokens;
  throw_range("task", "task (" + quoted(*t) + ") must be one of 'copy', 'induction', 'chars', 'pairs', 'tokens'");
}

constexpr int64_t kEvalSequences = 256;

std::string mib(double bytes) { return fmt(std::ceil(bytes / 1048576.0)) + " MiB"; }

}  // namespace

void Trainer::check_text_length(double utf16_units) {
  if (utf16_units > kMaxTextBytes) {
    throw_range("text", "text (" + fmt(utf16_units) + " characters) is longer than " + fmt(kMaxTextBytes) +
                " bytes of UTF-8, the most a model file holds");
  }
}

void Trainer::check_tokens_length(double count) {
  if (count > kMaxTokens) {
    throw_range("tokens", "tokens (" + fmt(count) + " ids) are more than " + fmt(kMaxTokens) + ", the most task 'tokens' takes");
  }
}

Trainer::Trainer(const TrainerSpec& spec, double file_bytes, double file_bytes_per_param) : spec_(spec) {
  const TaskKind kind = parse_task(spec.task);
  auto integer = [&](const char* name, const char* path, int64_t fallback, double hi = -1) {
    const TrainerNumberField& f = trainer_field(name);
    return integer_field(path, spec.*f.member, f.lo, hi >= 0 ? std::min(hi, f.hi) : f.hi, fallback);
  };
  auto number = [&](const char* name, double fallback) {
    const TrainerNumberField& f = trainer_field(name);
    return number_field(name, spec.*f.member, f.lo, f.hi, fallback, f.lo_open);
  };
  const int64_t n = integer("seqLen", "seqLen", 32);
  batch_size_ = integer("batchSize", "batchSize", 16);
  const double lr = number("learningRate", 3e-3);
  seed_ = uint64_t(integer("seed", "seed", 0));
  const int64_t n_layers = integer("nLayers", "model.nLayers", 1);
  const int64_t total = integer("totalSteps", "totalSteps", 2000);
  const int64_t warmup = integer("warmupSteps", "warmupSteps", std::min<int64_t>(100, total / 10), double(total));
  const double wd = number("weightDecay", 0.01);
  Activation act = Activation::Gelu;
  if (spec.activation) {
    if (*spec.activation == "relu") act = Activation::Relu;
    else if (*spec.activation != "gelu")
      throw_range("model.activation", "activation (" + quoted(*spec.activation) + ") must be 'gelu' or 'relu'");
  }

  // Data.
  int64_t vocab = 0;
  if (spec.tokens && kind != TaskKind::Tokens) throw_range("tokens", "tokens applies to task 'tokens' only");
  if (kind == TaskKind::Tokens) {
    if (spec.text) throw_range("text", "text applies to task 'chars' only (task 'tokens' takes tokens)");
    if (!spec.vocab_size) {
      throw_type("vocabSize", "vocabSize is required for task 'tokens': the tokenizer's vocabulary size (ids run from 0 to vocabSize - 1)");
    }
    vocab = integer_field("vocabSize", spec.vocab_size, trainer_field("vocabSize").lo, trainer_field("vocabSize").hi, 0);
    if (!spec.tokens) throw_type("tokens", "tokens is required for task 'tokens': the corpus as token ids");
    const std::vector<int32_t>& ids = *spec.tokens;
    check_tokens_length(double(ids.size()));
    if (int64_t(ids.size()) / 10 < n + 2) {
      throw_range("tokens", "tokens (" + fmt(double(ids.size())) + " ids) are too few for seqLen (" + fmt(double(n)) +
                  "): their last 10 % must hold a window of seqLen + 1 tokens (at least " + fmt(double(10 * (n + 2))) + " ids)");
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0 || ids[i] >= vocab) {
        throw_range("tokens", "tokens[" + fmt(double(i)) + "] (" + fmt(double(ids[i])) + ") is not a token id below vocabSize (" +
                    fmt(double(vocab)) + "): ids run from 0 to " + fmt(double(vocab - 1)));
      }
    }
    task_ = std::make_unique<Task>(kind, vocab, n, "", &ids);
  } else if (kind == TaskKind::Chars) {
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
    const bool copy = kind == TaskKind::Copy, pairs = kind == TaskKind::Pairs;
    // pairs: vocabSize is the alphabet A, and the model predicts one of A^2 ordered pairs.
    vocab = integer_field("vocabSize", spec.vocab_size, copy || pairs ? 3 : 4, pairs ? kMaxPairAlphabet : trainer_field("vocabSize").hi,
                          copy ? 16 : pairs ? 8 : 32);
    task_ = std::make_unique<Task>(kind, vocab, n);
  }
  for (const char* name : {"repeatFraction", "repeatRandomFraction"}) {
    const double f = number(name, 0);
    if (kind != TaskKind::Chars && kind != TaskKind::Tokens && f != 0) {
      throw_range(name, std::string(name) + " (" + fmt(f) + ") applies to tasks 'chars' and 'tokens' only");
    }
  }
  if (spec.min_segment) {
    if (kind != TaskKind::Induction) throw_range("minSegment", "minSegment (" + fmt(*spec.min_segment) + ") applies to task 'induction' only");
    const int64_t shortest = integer_field("minSegment", spec.min_segment, trainer_field("minSegment").lo, trainer_field("minSegment").hi, 0);
    const int64_t longest = task_->longest_segment();
    if (shortest > longest) {
      throw_range("minSegment", "minSegment (" + fmt(double(shortest)) + ") is more than the longest segment, " + fmt(double(longest)) +
                                    " (min((seqLen + 1) / 2, vocabSize - 2))");
    }
    task_->set_min_segment(shortest);
  }
  if (spec.repeat_fraction || spec.repeat_random_fraction) {
    const double text = number("repeatFraction", 0), random = number("repeatRandomFraction", 0);
    if (text + random > 1) {
      throw_range("repeatRandomFraction", "repeatRandomFraction (" + fmt(random) + ") and repeatFraction (" + fmt(text) +
                                              ") are fractions of the same windows: their sum must be at most 1");
    }
    task_->set_repeat_fraction(text);
    task_->set_repeat_random_fraction(random);
  }

  // Model: the attention geometry is checked by the inference core's resolve().
  const Block block = parse_block(spec.block);
  if (block == Block::Llama) check_llama_spec(spec);
  if (block == Block::Deepseek) check_deepseek_spec(spec);
  if (block == Block::Gpt && spec.mlp_width) {
    throw_range("model.mlpWidth", "mlpWidth (" + fmt(*spec.mlp_width) + ") applies to blocks 'llama' and 'deepseek' only");
  }
  for (const auto& [name, value] : {std::pair<const char*, const std::optional<double>&>{"vHeadDim", spec.v_head_dim},
                                    {"qLoraRank", spec.q_lora_rank}}) {
    if (block != Block::Deepseek && value) {
      throw_range(std::string("model.") + name, std::string(name) + " (" + fmt(*value) + ") applies to block 'deepseek' only");
    }
  }
  RawSpec raw = spec.model;
  if (block == Block::Llama) raw.rope.enabled = true;  // Llama rotates q and k in every layer
  raw.causal = true;
  raw.return_weights = false;
  try {
    cfg_.attn = resolve(raw, Need::Shape);
  } catch (const Error& e) {
    if (e.field().empty()) throw;
    throw e.nested("model");  // the geometry's fields live in the model object
  }
  cfg_.attn.n = n;
  cfg_.attn.causal = true;
  cfg_.vocab = task_->vocab();
  cfg_.n_layers = n_layers;
  cfg_.mlp = spec.mlp.value_or(false);
  cfg_.layer_norm = spec.layer_norm.value_or(true);
  cfg_.tied = spec.tied_embeddings.value_or(false);
  cfg_.activation = act;
  cfg_.block = block;
  if (llama_like(block)) {
    cfg_.mlp = cfg_.layer_norm = true;
    cfg_.ffn = spec.mlp_width ? integer("mlpWidth", "model.mlpWidth", 0) : llama_mlp_width(cfg_.attn.d);
    cfg_.norm_eps = kLlamaNormEps;
  }
  if (block == Block::Deepseek) {
    cfg_.v_head_dim = integer("vHeadDim", "model.vHeadDim", cfg_.attn.dh);
    cfg_.q_lora_rank = spec.q_lora_rank ? integer("qLoraRank", "model.qLoraRank", 0) : 0;
  }

  // Memory, before anything is allocated: a step's activations; the parameters with their gradients
  // and AdamW's two moments (16 bytes each); and what exporting the trainer and loading that export
  // while it lives take together (the trainer twice, or the trainer and its file).
  const double activations = step_activation_bytes(cfg_, batch_size_);
  if (activations > kMaxWorkBytes) {
    throw_range("this trainer needs about " + mib(activations) +
                " of working memory per step, more than the 1024 MiB limit: lower batchSize, seqLen or dModel");
  }
  const double params = model_param_floats(cfg_);
  if (16.0 * params > kMaxWorkBytes) {
    throw_range("model.dModel", "this model has about " + fmt(std::ceil(params / 1e6)) +
                " million parameters, needing about " + mib(16.0 * params) +
                " with gradients and AdamW moments, more than the 1024 MiB limit: lower dModel, nLayers or vocabSize");
  }
  const double text_bytes = kind == TaskKind::Chars ? double(spec.text->size()) : 0.0;
  const double heap = trainer_heap_bytes(cfg_, batch_size_), file = model_file_bytes(cfg_, text_bytes);
  if (heap + std::max(heap, file) > kMaxTrainingHeapBytes) {
    throw_range("model.dModel", "this trainer could not be exported and loaded again: it takes about " + mib(heap) +
                " of memory and its model file about " + mib(file) + ", and loading that file while the trainer lives "
                "needs about " + mib(heap + std::max(heap, file)) + ", more than the " + mib(kMaxTrainingHeapBytes) +
                " the training module may take: lower dModel, nLayers, batchSize or seqLen");
  }
  if (file_bytes >= 0 && file_bytes_per_param * params > file_bytes) {
    throw_range("the model needs at least " + fmt(file_bytes_per_param * params) + " bytes of tensors (" +
                (file_bytes_per_param == 12 ? "weights and two moments" : "its weights") + "), the file has " +
                fmt(file_bytes) + " left");
  }
  // Time: every synchronous call of this trainer within the cap (cost.hpp), unless allowLongWork.
  allow_long_work_ = spec.allow_long_work.value_or(false);
  costs_ = trainer_costs(cfg_, batch_size_, text_bytes);
  for (const Cost* c : {&costs_.create, &costs_.step, &costs_.evaluate, &costs_.head_scores, &costs_.export_model,
                        &costs_.load_model}) {
    check_sync_time(*c, allow_long_work_, "pass allowLongWork: true in the trainer spec");
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

int64_t Trainer::max_steps_per_call() const {
  if (allow_long_work_) return int64_t(kMaxFileStep);
  return std::max<int64_t>(1, int64_t(std::floor(kMaxSyncSeconds / costs_.step.seconds())));
}

StepResult Trainer::step(int64_t n) {
  if (n < 1) throw_range("n", "n (" + fmt(double(n)) + ") must be >= 1");
  if (n > max_steps_per_call()) {
    throw_range("n", "n (" + fmt(double(n)) + ") is above the cap of a synchronous step(n): " +
                         fmt(double(max_steps_per_call())) + " steps here (about " + fmt(kMaxSyncSeconds) +
                         " s of work; one step of batchSize (" + fmt(double(batch_size_)) + ") x seqLen (" +
                         fmt(double(task_->seq_len())) + ") tokens is estimated at " +
                         fmt(costs_.step.seconds() * 1000.0) + " ms): call step in a loop, or use "
                         "trainer.train({ steps, signal, onProgress })");
  }
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
    refuse_non_finite_update();
    adam_->step();
  }
  return {adam_->steps(), loss};
}

// Finite weights can still overflow float32 (e.g. a model file with weights of 1e30 that passes every
// check): refuse to report a non-finite loss or apply a gradient whose square would overflow AdamW's
// second moment (the trainer's own export would then be refused), naming the largest weight. Both
// found by the fuzzer (tests/fuzz/corpus/model_regression_*).
void Trainer::refuse_non_finite(double loss) {
  const float l = float(loss);
  std::vector<Values> results = {{"loss", &l, 1}};
  // |g| <= 1e19: AdamW's second moment adds g^2, which must stay below float32's 3.4e38
  for (const auto& p : model_->params()) results.push_back({p.name, p.grad->data(), p.grad->size()});
  refuse_overflow("training step " + fmt(double(adam_->steps() + 1)),
                  "loss " + fmt(loss) + ", or a gradient, is not finite or above 1e19, where AdamW's g^2 overflows",
                  results, weights(), "the step was not applied", 1e19f);
}

// Finite gradients can still give a non-finite update: AdamW divides the first moment by the square
// root of the second, and a model file may carry moments far out of scale (found by the fuzzer: a
// first moment of 1e30 beside a second moment of 0 turned a weight into -Infinity, which the trainer's
// own export then could not load). Refused before anything is written, naming the parameter.
void Trainer::refuse_non_finite_update() {
  const auto bad = adam_->non_finite_update();
  if (!bad) return;
  const ParamRef& p = model_->params()[bad->param];
  throw_range("training step " + fmt(double(adam_->steps() + 1)) + ": the AdamW update of '" + p.name + "' at index " +
              fmt(double(bad->index)) + " is not finite (the weight would be " + fmt(double(bad->weight)) +
              "): its optimizer moments are out of scale with its gradient; the step was not applied");
}

std::vector<Values> Trainer::weights() {
  std::vector<Values> in;
  for (const auto& p : model_->params()) in.push_back({p.name, p.value->data(), p.value->size()});
  return in;
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
  const float loss = float(e.loss);
  refuse_overflow("evaluate", "the loss is " + fmt(e.loss), {{"loss", &loss, 1}}, weights(), "");
  return e;
}

}  // namespace attn::train
