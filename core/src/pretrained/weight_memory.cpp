// weight_memory.cpp — see weight_memory.hpp.
#include "attn/pretrained/weight_memory.hpp"

#include <algorithm>
#include <cmath>
#include <new>

#include "attn/errors.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#endif

namespace attn::pretrained {

namespace {
double held = 0;  // one module, one thread
std::string mib(double bytes) { return fmt(std::ceil(bytes / 1048576.0)) + " MiB"; }
}  // namespace

double held_weight_bytes() { return held; }

void WeightReservation::set(double bytes) {
  held += bytes - bytes_;
  bytes_ = bytes;
}

std::unique_ptr<uint8_t[]> allocate_weights(int64_t bytes, const std::string& field) {
  const std::size_t n = std::size_t(std::max<int64_t>(bytes, 1));
  std::unique_ptr<uint8_t[]> p(new (std::nothrow) uint8_t[n]);
  bool inside = p != nullptr;
#ifdef __EMSCRIPTEN__
  // the block must end inside the memory as it is now (it grew for it, or the allocator erred)
  inside = inside && uint64_t(reinterpret_cast<uintptr_t>(p.get())) + uint64_t(n) <= uint64_t(emscripten_get_heap_size());
#endif
  if (!inside) {
    p.reset();
    throw_range(field, field + " needs " + mib(double(n)) + " of memory that the WebAssembly memory cannot give (" +
                           mib(held) + " of weights are held already): dispose models you no longer use, or open a smaller checkpoint");
  }
  return p;
}

void check_work_memory(double bytes, const std::string& field, const std::string& what) {
  if (held + bytes > kMaxModuleBytes) {
    throw_range(field, what + " needs about " + mib(bytes) + " of working memory, which does not fit beside the " +
                           mib(held) + " of checkpoint weights this module holds (" + mib(kMaxModuleBytes) +
                           " in all): pass fewer ids, or dispose models you no longer use");
  }
}

}  // namespace attn::pretrained
