// weight_memory.hpp — what a module's memory holds: the checkpoint weights of every model (and loader)
// alive, counted so that a second checkpoint that would not fit beside the first, or a call whose
// working memory would not fit beside the weights, is refused up front, naming the field, before
// anything is read or allocated; and the storage of each tensor, checked against the memory that
// actually exists (Emscripten 3.1.6's emmalloc was seen to return a block ending past the end of the
// memory for malloc(1.5 GiB) with 2.98 GiB in use).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace attn::pretrained {

// All a module may hold of weights and working memory together: 3.75 GiB of the 4 GiB a wasm32
// memory can have (the rest: code, stack, the stores' own bookkeeping, the results copied out).
constexpr double kMaxModuleBytes = 3.75 * 1024 * 1024 * 1024;

// Bytes of weights held now by the models and loaders alive in this module.
double held_weight_bytes();

// A share of held_weight_bytes(), returned when it is destroyed (or set to 0).
class WeightReservation {
 public:
  WeightReservation() = default;
  WeightReservation(const WeightReservation&) = delete;
  WeightReservation& operator=(const WeightReservation&) = delete;
  WeightReservation(WeightReservation&& o) noexcept : bytes_(o.bytes_) { o.bytes_ = 0; }
  ~WeightReservation() { set(0); }
  void set(double bytes);
  double bytes() const { return bytes_; }

 private:
  double bytes_ = 0;
};

// Storage for `bytes` of a tensor (at least 1), or an attn::Error naming `field` when the memory
// cannot give it: the allocation failed, or (WebAssembly) the block it returned does not lie inside
// the memory.
std::unique_ptr<uint8_t[]> allocate_weights(int64_t bytes, const std::string& field);

// Refuses (RangeError naming `field`) `bytes` of working memory for `what` when, beside the weights
// held, they would exceed kMaxModuleBytes.
void check_work_memory(double bytes, const std::string& field, const std::string& what);

}  // namespace attn::pretrained
