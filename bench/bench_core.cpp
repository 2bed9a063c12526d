// bench_core.cpp — the native side of `npm run bench`: Google Benchmark over bench/workloads.json.
// Each workload reports its time and a GFLOP/s counter (attention_flops / time).
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <stdexcept>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "workloads.hpp"
#include "attn/train/trainer.hpp"

namespace {

attn::RawSpec raw_from_json(const nlohmann::json& j) {
  attn::RawSpec r;
  r.variant = j.at("variant").get<std::string>();
  auto num = [&](const char* k, std::optional<double>& dst) { if (j.contains(k)) dst = j.at(k).get<double>(); };
  num("seqLen", r.seq_len); num("dModel", r.d_model); num("nHeads", r.n_heads); num("nKvHeads", r.n_kv_heads);
  num("dHead", r.d_head); num("latentRank", r.latent_rank); num("ropeDim", r.rope_dim); num("maxLen", r.max_len);
  num("seed", r.seed);
  if (j.contains("causal")) r.causal = j.at("causal").get<bool>();
  if (j.contains("rope")) r.rope.enabled = j.at("rope").get<bool>();
  return r;
}

// A training workload's spec; its text (task 'chars') is the file `textFile` names, relative to the
// repository (the directory above bench/workloads.json).
attn::train::TrainerSpec trainer_from_json(const nlohmann::json& wl) {
  const nlohmann::json& j = wl.at("spec");
  attn::train::TrainerSpec t;
  t.task = j.at("task").get<std::string>();
  if (wl.contains("textFile")) {
    const std::string repo = std::string(ATTN_WORKLOADS).substr(0, std::string(ATTN_WORKLOADS).rfind("/bench/"));
    std::ifstream in(repo + "/" + wl.at("textFile").get<std::string>(), std::ios::binary);
    t.text = std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (t.text->empty()) throw std::runtime_error("bench: cannot read " + wl.at("textFile").get<std::string>());
  }
  auto num = [](const nlohmann::json& o, const char* k, std::optional<double>& dst) {
    if (o.contains(k)) dst = o.at(k).get<double>();
  };
  num(j, "seqLen", t.seq_len); num(j, "batchSize", t.batch_size); num(j, "learningRate", t.learning_rate);
  num(j, "seed", t.seed);
  const auto& m = j.at("model");
  t.model.variant = m.at("variant").get<std::string>();
  num(m, "dModel", t.model.d_model); num(m, "nHeads", t.model.n_heads); num(m, "nKvHeads", t.model.n_kv_heads);
  num(m, "nLayers", t.n_layers);
  if (m.contains("rope")) t.model.rope.enabled = m.at("rope").get<bool>();
  if (m.contains("layerNorm")) t.layer_norm = m.at("layerNorm").get<bool>();
  if (m.contains("mlp")) t.mlp = m.at("mlp").get<bool>();
  if (m.contains("tiedEmbeddings")) t.tied_embeddings = m.at("tiedEmbeddings").get<bool>();
  return t;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // glibc hands blocks above 128 KiB back to the kernel when they are freed (mmap, heap trimming),
  // so every call page-faults its packed weights and outputs in again: ~27 % of workload A's time,
  // a cost of this allocator's defaults, not of the kernels. Keep freed memory for reuse, as the
  // wasm heap (never returned) and the peers' allocators (NumPy's cache, ORT's arena) do.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, -1);
#endif
  std::ifstream f(ATTN_WORKLOADS);
  const auto workloads = nlohmann::json::parse(f).at("workloads");
  for (const auto& wl : workloads) {
    const std::string id = wl.at("id");
    const attn::RawSpec raw = raw_from_json(wl.at("spec"));
    if (wl.contains("decode")) {
      const int64_t cache_len = wl.at("decode").at("cacheLen").get<int64_t>();
      benchmark::RegisterBenchmark(id.c_str(), [raw, cache_len](benchmark::State& st) {
        attn::DecodeWorkload w = attn::make_decode_workload(raw, cache_len);
        for (auto _ : st) w.step();
        st.counters["flops"] = w.flops;
        st.counters["GFLOPs"] = benchmark::Counter(w.flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
      })->Unit(benchmark::kMillisecond)->UseRealTime();
    } else {
      benchmark::RegisterBenchmark(id.c_str(), [raw](benchmark::State& st) {
        const attn::ForwardWorkload w = attn::make_forward_workload(raw);
        for (auto _ : st) {
          attn::ForwardResult r = attn::forward(w.shape, w.weights, w.x);
          benchmark::DoNotOptimize(r.output.data());
        }
        st.counters["flops"] = w.flops;
        st.counters["GFLOPs"] = benchmark::Counter(w.flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
      })->Unit(benchmark::kMillisecond)->UseRealTime();
    }
  }
  // Training: one optimiser step (forward + backward + AdamW) per iteration; tokens/s.
  for (const auto& wl : nlohmann::json::parse(std::ifstream(ATTN_WORKLOADS)).value("training", nlohmann::json::array())) {
    const std::string id = wl.at("id");
    const attn::train::TrainerSpec spec = trainer_from_json(wl);
    const double tokens = wl.at("tokensPerStep").get<double>();
    benchmark::RegisterBenchmark(id.c_str(), [spec, tokens](benchmark::State& st) {
      attn::train::Trainer t(spec);
      t.step(5);  // past the first allocations
      for (auto _ : st) benchmark::DoNotOptimize(t.step(1).loss);
      st.counters["tokens_per_s"] = benchmark::Counter(tokens, benchmark::Counter::kIsIterationInvariantRate);
    })->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
