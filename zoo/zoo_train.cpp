// zoo_train — trains one bundled ("zoo") model natively with the project's own trainer and writes
// it as the page loads it: weights only, float16, a 'chars' text or 'tokens' ids by reference
// (docs/zoo.md).
//
//   zoo_train --spec JSON --seed S --steps N [--text FILE | --tokens FILE.bin] [--out FILE.safetensors]
//             [--hf DIR [--tokenizer tokenizer.json]] [--scores] [--probe DIR]
//             [--warmup JSON --warmup-steps W [--warmup-until SCORE] [--rehearse-every K [--rehearse JSON]]]
//
// --spec is a trainer spec as attn.createTrainer takes it (docs/api.md, "Training"; scripts/zoo.mjs
// writes them: the Shakespeare models' geometry and the labs' tasks), without seed and text; --text
// is the 'chars' corpus; --tokens the 'tokens' corpus, token ids as little-endian uint16 (what
// scripts/train-tokenizer.mjs writes: build-zoo/tinyshakespeare.tokens.bin; the spec gives vocabSize).
// --hf writes the model (blocks 'llama' and 'deepseek') as a Hugging Face checkpoint in DIR: config.json,
// model.safetensors in float16 (hf_checkpoint.hpp) and, with --tokenizer, that tokenizer.json beside them.
// --probe writes what the held-out figures and the head scores read, for tests that re-measure the
// shipped model through the checkpoint loader: DIR/heldout.tokens.bin (the held-out ids, uint16 LE) and
// DIR/probe.json { seqLen, evalStarts (each held-out window's first index in those ids; the first
// scoreRows windows are the previous/diagonal/first scores'), scoreRows, induction: { tokens (64, N),
// pairs [[row, query, key], ...] } }.
// --warmup trains the same model first for W steps with other settings (fields that replace --spec's,
// whose copying curricula are dropped unless given again; not model or vocabSize: e.g.
// {"task":"induction","seqLen":32,"batchSize":64}, or {"seqLen":64,"batchSize":32} for shorter windows
// of the same text), then copies its weights into the run of --spec, which starts from them (its own
// optimiser state and schedule). With --warmup-until, it stops early once one head's induction score
// (head_scores(), on the warm-up task's probe, checked every 100 steps) is at least SCORE: a low loss
// alone is no sign, as models with shared K/V heads solved the induction task without one. The
// schedule is still the one of W steps. The output's "warmup" gives the steps it took, its held-out
// loss and its best induction and previous-token scores.
// --rehearse-every K keeps rehearsing the warm-up's task during the run of --spec: after every K of
// its steps, one step of the warm-up's task (its own trainer, optimiser state and schedule of
// ceil(N / K) steps) on the same weights, copied there and back; --rehearse JSON rehearses another
// task instead (fields that replace --spec's, as --warmup's: e.g. the induction task at the text's
// length). The output's "rehearsal" gives its steps, held-out loss and best scores on its probe at the end.
// --warmup may also be an array of such objects: stages trained in order, each from the weights the one
// before left, each with --warmup-steps and --warmup-until unless it gives its own "steps" or "until"
// (e.g. the induction task on windows that lengthen: [{"task":"induction","seqLen":32,"batchSize":64},
// {"task":"induction","seqLen":64,"batchSize":32,"steps":500}, ...]). "warmup" then sums their steps,
// gives the last stage's figures and lists each stage's in "stages"; rehearsal rehearses the last stage.
// Prints the training loss every 500 steps on stderr (with --scores, the best head scores so far), and one JSON object on stdout: the run's settings, its seconds, the held-out loss,
// bits per token and accuracy of the float16 file it wrote (reloaded, as the page will see it), its
// parameters and KV-cache bytes per token, and with --scores that file's head scores.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/accounting.hpp"
#include "attn/errors.hpp"
#include "attn/spec.hpp"
#include "attn/train/hf_checkpoint.hpp"
#include "attn/train/trainer.hpp"

using attn::train::ExportOptions;
using attn::train::Trainer;
using attn::train::TrainerSpec;

namespace {

// A JSON trainer spec read through the core's field tables (the same names as the JS API): the
// geometry's numbers, the trainer's numbers and flags (in `model` where the JS API has them there),
// task, model.variant, model.activation, model.block and model.rope (a boolean, or { base }: RoPE's base).
TrainerSpec spec_of(const nlohmann::json& j) {
  TrainerSpec s;
  const nlohmann::json& m = j.at("model");
  auto number = [](const nlohmann::json& o, const char* k) {
    return o.contains(k) ? std::optional<double>(o.at(k).get<double>()) : std::nullopt;
  };
  s.task = j.at("task").get<std::string>();
  s.model.variant = m.at("variant").get<std::string>();
  for (const auto& f : attn::spec_number_fields()) {
    if (f.geometry) s.model.*f.member = number(m, f.name);
  }
  for (const auto& f : attn::train::trainer_number_fields()) s.*f.member = number(f.in_model ? m : j, f.name);
  for (const auto& f : attn::train::trainer_flag_fields()) {
    if (m.contains(f.name)) s.*f.member = m.at(f.name).get<bool>();
  }
  if (m.contains("activation")) s.activation = m.at("activation").get<std::string>();
  if (m.contains("block")) s.block = m.at("block").get<std::string>();
  if (m.contains("rope") && m.at("rope").is_object()) {  // { base }: RoPE on, with that base
    s.model.rope.enabled = true;
    s.model.rope.base = m.at("rope").at("base").get<double>();
  } else {
    s.model.rope.enabled = m.value("rope", false);
  }
  return s;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

void write_probe(const std::string& dir, const Trainer& t) {
  const auto& val = t.task().val_ids();
  std::string bytes;
  for (int32_t id : val) bytes += {char(id & 0xff), char((id >> 8) & 0xff)};
  write_file(dir + "/heldout.tokens.bin", bytes);
  const attn::train::Batch& e = t.eval_set();  // (windows, N): window w starts where its tokens do
  const int64_t n = e.n;
  nlohmann::json starts = nlohmann::json::array();
  for (int64_t w = 0; w < e.batch; ++w) {
    const int32_t* row = e.tokens.data() + w * n;
    int64_t at = -1;
    for (std::size_t s = 0; s + std::size_t(n) < val.size() && at < 0; ++s)
      if (std::equal(row, row + n, val.begin() + std::ptrdiff_t(s))) at = int64_t(s);
    if (at < 0) throw std::runtime_error("a held-out window is not in the held-out ids");
    starts.push_back(at);
  }
  const attn::train::Batch ind = t.induction_probe();
  nlohmann::json rows = nlohmann::json::array(), pairs = nlohmann::json::array();
  for (int64_t r = 0; r < ind.batch; ++r) {
    rows.push_back(std::vector<int32_t>(ind.tokens.begin() + r * n, ind.tokens.begin() + (r + 1) * n));
    for (int64_t i = 0; i < n; ++i)
      if (int32_t k = ind.induction_key[std::size_t(r * n + i)]; k >= 0) pairs.push_back({r, i, k});
  }
  const nlohmann::json probe = {{"seqLen", n}, {"evalStarts", starts}, {"scoreRows", attn::train::kScoreSequences},
                                {"induction", {{"tokens", rows}, {"pairs", pairs}}}};
  write_file(dir + "/probe.json", probe.dump() + "\n");
}

// Little-endian uint16 ids.
std::vector<int32_t> read_u16_ids(const std::string& path) {
  const std::string bytes = read_file(path);
  if (bytes.size() % 2 != 0) throw std::runtime_error(path + " has an odd number of bytes: not uint16 token ids");
  std::vector<int32_t> ids(bytes.size() / 2);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ids[i] = int32_t(uint8_t(bytes[2 * i])) | (int32_t(uint8_t(bytes[2 * i + 1])) << 8);
  }
  return ids;
}

// Copies every parameter of `from` into `to` (the same model: every name and shape match).
void copy_weights(Trainer& from_t, Trainer& to_t) {
  auto& from = from_t.model().params();
  auto& to = to_t.model().params();
  if (from.size() != to.size()) throw std::runtime_error("--warmup: the models' parameters differ");
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (from[i].name != to[i].name || from[i].value->shape() != to[i].value->shape())
      throw std::runtime_error("--warmup: parameter " + to[i].name + " differs");
    *to[i].value = *from[i].value;
  }
}

// The best previous-token and induction scores of a trainer's heads on its own probe.
std::pair<double, double> best_scores(Trainer& t) {
  double prev = 0, induction = 0;
  for (const auto& h : t.head_scores()) prev = std::max(prev, h.previous_token), induction = std::max(induction, *h.induction);
  return {prev, induction};
}

// The spec of `spec_json`'s model on the task of `warmup_json` (its fields replace the spec's, the
// copying curricula dropped), over `steps` steps.
TrainerSpec warm_spec(const nlohmann::json& spec_json, const TrainerSpec& spec, const std::string& warmup_json, int64_t steps) {
  const nlohmann::json warmup = nlohmann::json::parse(warmup_json);
  if (warmup.contains("model") || warmup.contains("vocabSize")) throw std::runtime_error("--warmup: its model and vocabSize come from --spec");
  nlohmann::json j = spec_json;
  j.erase("repeatFraction");
  j.erase("repeatRandomFraction");
  for (const auto& [k, v] : warmup.items()) j[k] = v;
  TrainerSpec w = spec_of(j);
  if (w.task == spec.task) {  // the same corpus (another task has none)
    w.text = spec.text;
    w.tokens = spec.tokens;
  }
  w.seed = spec.seed;
  w.total_steps = double(steps);
  w.allow_long_work = true;
  return w;
}

// Trains `spec_json`'s model on the task of `warmup_json` for `steps` steps, printing its progress, and
// copies its weights into `t`; with `from`, it starts from that trainer's weights (the stage before's, in `t`).
struct WarmUp { int64_t steps; double val_loss, induction, previous_token; };

WarmUp warm_up(Trainer& t, const nlohmann::json& spec_json, const TrainerSpec& spec, const std::string& warmup_json, int64_t steps,
               double until, Trainer* from = nullptr) {
  if (steps < 1) throw std::runtime_error("--warmup needs --warmup-steps of at least 1");
  Trainer warm(warm_spec(spec_json, spec, warmup_json, steps));
  if (from) copy_weights(*from, warm);
  WarmUp out{0, 0, 0, 0};
  while (out.steps < steps) {
    const double loss = warm.step(std::min<int64_t>(100, steps - out.steps)).loss;
    out.steps = std::min<int64_t>(out.steps + 100, steps);
    const bool check = until > 0;
    if (check || out.steps % 500 == 0 || out.steps == steps) std::tie(out.previous_token, out.induction) = best_scores(warm);
    const bool done = out.steps == steps || (check && out.induction >= until);
    if (out.steps % 500 == 0 || done) {
      out.val_loss = warm.evaluate().loss;
      std::cerr << "zoo_train: warm-up step " << out.steps << " loss " << loss << " held-out " << out.val_loss
                << " best previous-token " << out.previous_token << " induction " << out.induction << "\n";
    }
    if (done) break;
  }
  copy_weights(warm, t);
  return out;
}

// One stage of a staged warm-up: its task's fields, and its steps and early stop (the command line's
// unless the stage gives "steps" or "until").
struct Stage { std::string task_json; int64_t steps; double until; };

// --warmup's stages: one object, or an array of them, trained in order, each starting from the
// weights the one before left (e.g. the induction task on windows that lengthen 32 -> 64 -> 128 -> 256).
std::vector<Stage> warm_stages(const std::string& warmup_json, int64_t steps, double until) {
  const nlohmann::json w = nlohmann::json::parse(warmup_json);
  std::vector<Stage> out;
  for (nlohmann::json stage : w.is_array() ? w : nlohmann::json::array({w})) {
    if (!stage.is_object()) throw std::runtime_error("--warmup: each stage is an object, not " + stage.dump());
    Stage s{"", steps, until};
    if (stage.contains("steps")) s.steps = stage.at("steps").get<int64_t>(), stage.erase("steps");
    if (stage.contains("until")) s.until = stage.at("until").get<double>(), stage.erase("until");
    s.task_json = stage.dump();
    out.push_back(s);
  }
  if (out.empty()) throw std::runtime_error("--warmup: no stage");
  return out;
}

// Every stage of --warmup in turn, its weights passed on through `t`: each stage's trainer starts from
// the weights the stage before copied into `t`, and copies its own there. Returns each stage's figures.
std::vector<WarmUp> warm_up_stages(Trainer& t, const nlohmann::json& spec_json, const TrainerSpec& spec, const std::vector<Stage>& stages) {
  std::vector<WarmUp> out;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (stages.size() > 1) std::cerr << "zoo_train: warm-up stage " << i + 1 << " of " << stages.size() << ": " << stages[i].task_json << "\n";
    out.push_back(warm_up(t, spec_json, spec, stages[i].task_json, stages[i].steps, stages[i].until, i > 0 ? &t : nullptr));
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // A step allocates and frees buffers of up to tens of MB (logits, their gradient): by default glibc
  // maps each afresh and returns it to the system on free, so every step paid page faults on them
  // (about a tenth of the time, perf). Keep freed memory for the next step instead.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  std::map<std::string, std::string> a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k.rfind("--", 0) != 0) { std::cerr << "zoo_train: unexpected argument " << k << "\n"; return 2; }
    if (k == "--scores") { a["scores"] = "1"; continue; }
    if (i + 1 >= argc) { std::cerr << "zoo_train: " << k << " needs a value\n"; return 2; }
    a[k.substr(2)] = argv[++i];
  }
  for (const char* k : {"spec", "seed", "steps"}) {
    if (!a.count(k)) { std::cerr << "zoo_train: --" << k << " is required\n"; return 2; }
  }
  try {
    const std::optional<std::string> text = a.count("text") ? std::optional<std::string>(read_file(a["text"])) : std::nullopt;
    const std::optional<std::vector<int32_t>> tokens =
        a.count("tokens") ? std::optional<std::vector<int32_t>>(read_u16_ids(a["tokens"])) : std::nullopt;
    const nlohmann::json spec_json = nlohmann::json::parse(a["spec"]);
    TrainerSpec spec = spec_of(spec_json);
    spec.text = text;
    spec.tokens = tokens;
    spec.seed = std::stod(a["seed"]);
    spec.total_steps = std::stod(a["steps"]);
    spec.allow_long_work = true;
    const auto t0 = std::chrono::steady_clock::now();
    Trainer t(spec);
    std::vector<Stage> stages;
    std::vector<WarmUp> warmed;
    if (a.count("warmup")) {
      stages = warm_stages(a["warmup"], std::stoll(a.count("warmup-steps") ? a["warmup-steps"] : "0"),
                           a.count("warmup-until") ? std::stod(a["warmup-until"]) : 0.0);
      warmed = warm_up_stages(t, spec_json, spec, stages);
    }
    const int64_t steps = std::stoll(a["steps"]);
    // --rehearse-every K: the warm-up's task, one step after every K (its own trainer on the same weights)
    const int64_t every = a.count("rehearse-every") ? std::stoll(a["rehearse-every"]) : 0;
    if (every < 0 || (every > 0 && !a.count("warmup"))) throw std::runtime_error("--rehearse-every needs --warmup and K >= 1");
    std::unique_ptr<Trainer> rehearsal;
    if (every > 0) {
      rehearsal = std::make_unique<Trainer>(
          warm_spec(spec_json, spec, a.count("rehearse") ? a["rehearse"] : stages.back().task_json, (steps + every - 1) / every));
    }
    int64_t rehearsed = 0;
    double last_loss = 0;
    const int64_t chunk = every > 0 ? every : 100;
    for (int64_t done = 0; done < steps;) {
      const int64_t n = std::min<int64_t>(chunk, steps - done);
      last_loss = t.step(n).loss;
      done += n;
      if (rehearsal) {
        copy_weights(t, *rehearsal);
        rehearsal->step(1);
        copy_weights(*rehearsal, t);
        ++rehearsed;
      }
      if (done % 500 != 0) continue;
      std::cerr << "zoo_train: step " << done << " loss " << last_loss;
      if (a.count("scores")) {  // how the heads are forming: the best of each score so far
        const auto [prev, induction] = best_scores(t);
        std::cerr << " best previous-token " << prev << " induction " << induction;
      }
      std::cerr << "\n";
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double f32_bits = t.evaluate().bits_per_token;

    ExportOptions o;
    o.weights_only = o.float16 = o.text_by_reference = true;
    const std::vector<uint8_t> file = t.export_model(o);
    auto shipped = Trainer::load_model(file, true, text, tokens);  // what the page will load
    const auto e = shipped->evaluate();
    nlohmann::json out = {{"variant", *spec.model.variant}, {"seed", spec.seed.value()}, {"steps", steps},
                          {"seconds", seconds}, {"trainLoss", last_loss}, {"valLoss", e.loss},
                          {"bitsPerChar", e.bits_per_token}, {"bitsPerCharFloat32", f32_bits},
                          {"accuracy", e.accuracy}, {"params", t.model().param_count()}, {"fileBytes", file.size()}};
    if (!warmed.empty()) {  // the last stage's figures, its steps summed over every stage
      const WarmUp& w = warmed.back();
      int64_t total = 0;
      nlohmann::json each = nlohmann::json::array();
      for (std::size_t i = 0; i < warmed.size(); ++i) {
        total += warmed[i].steps;
        each.push_back({{"task", nlohmann::json::parse(stages[i].task_json)}, {"steps", warmed[i].steps}, {"valLoss", warmed[i].val_loss},
                        {"induction", warmed[i].induction}, {"previousToken", warmed[i].previous_token}});
      }
      out["warmup"] = {{"steps", total}, {"valLoss", w.val_loss}, {"induction", w.induction}, {"previousToken", w.previous_token}};
      if (warmed.size() > 1) out["warmup"]["stages"] = each;
    }
    if (rehearsal) {
      const auto [prev, induction] = best_scores(*rehearsal);
      out["rehearsal"] = {{"every", every}, {"steps", rehearsed}, {"valLoss", rehearsal->evaluate().loss}, {"induction", induction},
                          {"previousToken", prev}};
    }
    if (tokens) {
      out["bitsPerToken"] = e.bits_per_token;
      out["tokens"] = tokens->size();
      out["vocabSize"] = t.task().vocab();
    }
    // The KV cache one token adds, all layers, float32 as the core keeps it (accounting.hpp).
    attn::RawSpec geometry = spec.model;
    geometry.seq_len = 1;
    const double kv_floats = attn::kv_cache_floats_per_token(attn::resolve(geometry, attn::Need::Shape));
    out["kvBytesPerToken"] = kv_floats * 4 * spec.n_layers.value_or(1);
    if (a.count("scores")) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& h : shipped->head_scores()) {
        rows.push_back({{"layer", h.layer}, {"head", h.head}, {"previousToken", h.previous_token},
                        {"induction", *h.induction}, {"duplicateToken", *h.duplicate_token}, {"firstToken", h.first_token},
                        {"diagonal", h.diagonal}});
      }
      out["headScores"] = rows;
    }
    if (a.count("hf")) {
      const attn::train::HfCheckpoint ck = attn::train::export_hf_checkpoint(t.model(), true);
      write_file(a["hf"] + "/config.json", ck.config_json);
      write_file(a["hf"] + "/model.safetensors", std::string(ck.safetensors.begin(), ck.safetensors.end()));
      if (a.count("tokenizer")) write_file(a["hf"] + "/tokenizer.json", read_file(a["tokenizer"]));
    }
    if (a.count("probe")) write_probe(a["probe"], *shipped);
    if (a.count("out")) {
      std::ofstream f(a["out"], std::ios::binary);
      f.write(reinterpret_cast<const char*>(file.data()), std::streamsize(file.size()));
      if (!f) throw std::runtime_error("cannot write " + a["out"]);
    }
    std::cout << out.dump() << "\n";
  } catch (const attn::Error& e) {
    std::cerr << "zoo_train: " << e.what() << " (field " << e.field() << ")\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "zoo_train: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
