// decode_native — a checkpoint's decoding natively, for profiling it (perf record, valgrind): opens a
// checkpoint folder (config.json, model.safetensors) through the core's loader as the JS API does,
// appends a prompt, then one token per append, and prints the median time per token beside the floor
// its bytes set at this process's memcpy bandwidth. The same Session::append as the page's decode view.
//
//   decode_native DIR [--prompt 64] [--steps 32]
//
// A SmolLM2-135M-shaped folder with random BF16 weights: node scripts/bench-pretrained.mjs --write DIR.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/pretrained/checkpoint.hpp"
#include "attn/pretrained/safetensors.hpp"
#include "attn/pretrained/session.hpp"

using namespace attn::pretrained;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// memcpy of 256 MB, best of 5: bytes copied per second.
double copy_bandwidth() {
  const std::size_t n = std::size_t(256) << 20;
  std::vector<uint8_t> a(n, 1), b(n, 2);
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = Clock::now();
    std::memcpy(b.data(), a.data(), n);
    best = std::min(best, ms_since(t0));
  }
  return double(n) / (best / 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: decode_native DIR [--prompt 64] [--steps 32]\n";
    return 2;
  }
  int64_t prompt = 64, steps = 32;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--prompt") prompt = std::stoll(argv[i + 1]);
    else if (std::string(argv[i]) == "--steps") steps = std::stoll(argv[i + 1]);
  }
  try {
    const std::string dir = argv[1];
    std::ifstream cf(dir + "/config.json");
    const nlohmann::json config = nlohmann::json::parse(cf);
    const std::vector<uint8_t> file = read_bytes(dir + "/model.safetensors");
    const int64_t header = safetensors_header_length(file.data(), int64_t(file.size()), int64_t(file.size()), "weights");
    const auto index = parse_safetensors_header(std::string(reinterpret_cast<const char*>(file.data()) + 8, std::size_t(header)),
                                                int64_t(file.size()), 0, "weights");
    const auto t_open = Clock::now();
    CheckpointLoader loader(config, {index});
    for (std::size_t i = 0; i < loader.copies().size(); ++i) {
      const auto& c = loader.copies()[i];
      std::memcpy(loader.destination(i), file.data() + c.begin, std::size_t(c.end - c.begin));
    }
    const auto model = loader.finish();
    const double open_ms = ms_since(t_open);
    const ModelConfig& mc = model->config();
    Session session(*model, prompt + steps + 1);
    std::vector<int32_t> ids(static_cast<std::size_t>(prompt));
    for (int64_t i = 0; i < prompt; ++i) ids[std::size_t(i)] = int32_t((i * 7919 + 13) % mc.vocab);
    const auto t_prefill = Clock::now();
    session.append(ids, false);
    const double prefill_ms = ms_since(t_prefill);
    std::vector<double> times;
    for (int64_t s = 0; s < steps; ++s) {
      const auto t0 = Clock::now();
      session.append({int32_t((s * 31 + 7) % mc.vocab)}, false);
      times.push_back(ms_since(t0));
    }
    const double gbs = copy_bandwidth() / 1e9;
    // every weight once (the tied head is the embedding, read once), and the float32 cache read
    const double weight_bytes = double(file.size() - 8 - std::size_t(header));
    const double cache_bytes = session.cache_bytes();
    const double floor_ms = (weight_bytes + cache_bytes) / (gbs * 1e9) * 1e3;
    const double med = median(times);
    std::cout << "| open ms | prefill " << prompt << " ms | decode ms/token (median of " << steps
              << ") | min | bytes/token | copy GB/s | floor ms | decode / floor |\n|--:|--:|--:|--:|--:|--:|--:|--:|\n"
              << "| " << open_ms << " | " << prefill_ms << " | " << med << " | " << *std::min_element(times.begin(), times.end())
              << " | " << (weight_bytes + cache_bytes) / 1e6 << " MB | " << gbs << " | " << floor_ms << " | " << med / floor_ms << "x |\n";
  } catch (const std::exception& e) {
    std::cerr << "decode_native: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
