// zoo_train — trains one bundled ("zoo") model natively with the project's own trainer and writes
// it as the page loads it: weights only, float16, the 'chars' text by reference (docs/zoo.md).
//
//   zoo_train --text FILE --variant mha|gqa|mqa|mla [--kv G] [--latent R] --seed S --steps N
//             [--out FILE.safetensors] [--scores]
//
// Prints one JSON object: the run's settings, its seconds, the held-out bits/char of the float16
// file it wrote (reloaded, as the page will see it) and, with --scores, that file's head scores.
// The model's geometry is the zoo's one (kGeometry below); scripts/zoo.mjs runs the seeds.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "attn/accounting.hpp"
#include "attn/errors.hpp"
#include "attn/spec.hpp"
#include "attn/train/trainer.hpp"

using attn::train::ExportOptions;
using attn::train::Trainer;
using attn::train::TrainerSpec;

namespace {

// The zoo's geometry: 4 layers of 8 heads of width 8 (dModel 64), a GELU MLP, LayerNorm, tied
// embeddings, learned positions; nanoGPT's "baby GPT" schedule (context 64, batch 12).
TrainerSpec zoo_spec(const std::map<std::string, std::string>& a, const std::string& text) {
  TrainerSpec s;
  s.task = "chars";
  s.text = text;
  s.model.variant = a.at("variant");
  s.model.d_model = 64;
  s.model.n_heads = 8;
  if (a.count("kv")) s.model.n_kv_heads = std::stod(a.at("kv"));
  if (a.count("latent")) s.model.latent_rank = std::stod(a.at("latent"));
  s.n_layers = 4;
  s.mlp = true;
  s.layer_norm = true;
  s.tied_embeddings = true;
  s.seq_len = 64;
  s.batch_size = 12;
  s.seed = std::stod(a.at("seed"));
  s.total_steps = std::stod(a.at("steps"));
  s.allow_long_work = true;
  return s;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k.rfind("--", 0) != 0) { std::cerr << "zoo_train: unexpected argument " << k << "\n"; return 2; }
    if (k == "--scores") { a["scores"] = "1"; continue; }
    if (i + 1 >= argc) { std::cerr << "zoo_train: " << k << " needs a value\n"; return 2; }
    a[k.substr(2)] = argv[++i];
  }
  for (const char* k : {"text", "variant", "seed", "steps"}) {
    if (!a.count(k)) { std::cerr << "zoo_train: --" << k << " is required\n"; return 2; }
  }
  try {
    const std::string text = read_file(a["text"]);
    const TrainerSpec spec = zoo_spec(a, text);
    const auto t0 = std::chrono::steady_clock::now();
    Trainer t(spec);
    const int64_t steps = std::stoll(a["steps"]);
    double last_loss = 0;
    for (int64_t done = 0; done < steps; done += 100) last_loss = t.step(std::min<int64_t>(100, steps - done)).loss;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double f32_bits = t.evaluate().bits_per_token;

    ExportOptions o;
    o.weights_only = o.float16 = o.text_by_reference = true;
    const std::vector<uint8_t> file = t.export_model(o);
    auto shipped = Trainer::load_model(file, true, text);  // what the page will load
    const auto e = shipped->evaluate();
    nlohmann::json out = {{"variant", a["variant"]}, {"seed", spec.seed.value()}, {"steps", steps},
                          {"seconds", seconds}, {"trainLoss", last_loss}, {"valLoss", e.loss},
                          {"bitsPerChar", e.bits_per_token}, {"bitsPerCharFloat32", f32_bits},
                          {"params", t.model().param_count()}, {"fileBytes", file.size()}};
    // The KV cache one token adds, all layers, float32 as the core keeps it (accounting.hpp).
    attn::RawSpec geometry = spec.model;
    geometry.seq_len = 1;
    const double kv_floats = attn::kv_cache_floats_per_token(attn::resolve(geometry, attn::Need::Shape));
    out["kvBytesPerToken"] = kv_floats * 4 * spec.n_layers.value();
    if (a.count("kv")) out["nKvHeads"] = std::stoi(a["kv"]);
    if (a.count("latent")) out["latentRank"] = std::stoi(a["latent"]);
    if (a.count("scores")) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& h : shipped->head_scores()) {
        rows.push_back({{"layer", h.layer}, {"head", h.head}, {"previousToken", h.previous_token},
                        {"induction", h.induction}, {"firstToken", h.first_token}, {"diagonal", h.diagonal}});
      }
      out["headScores"] = rows;
    }
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
