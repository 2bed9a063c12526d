// model_overflow.cpp — a checkpoint's forward refuses a result that overflowed float32 (see model.hpp,
// check_layer_output / check_logits): finite weights can still overflow (q and k near 1e30 give scores
// of Infinity, an lm_head near 3e38 gives Infinity logits, BF16's largest values do both). Like the
// attention API (overflow.hpp), the refusal names the input of the largest magnitude: here the
// tensor of the layer (or of the LM head) with the largest value, as error.field "weights.<name>".
#include <cmath>
#include <cstring>

#include "attn/errors.hpp"
#include "attn/overflow.hpp"
#include "attn/pretrained/model.hpp"

namespace attn::pretrained {

namespace {

double stored_max(const StoredTensor& t) {
  const int64_t n = t.size / dtype_bytes(t.dtype);
  double m = 0;
  for (int64_t i = 0; i < n; ++i) {
    float v;
    if (t.dtype == DType::F32) {
      std::memcpy(&v, t.bytes.get() + 4 * i, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, t.bytes.get() + 2 * i, 2);
      v = t.dtype == DType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
    }
    m = std::max(m, double(std::fabs(v)));
  }
  return m;
}

bool starts(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

void PretrainedModel::refuse_overflow_of(const std::string& what, const Matrix& result,
                                         const std::vector<std::string>& tensor_names) const {
  const float* d = result.data();
  const std::size_t count = result.size();
  bool finite = true;
  for (std::size_t i = 0; i < count; ++i) finite = finite && std::fabs(d[i]) <= 3.4028234663852886e38f;
  if (finite) return;
  // The tensors that made it, each with its largest magnitude (read only now, on the way to the error).
  std::vector<Values> inputs;
  for (const auto& [name, t] : tensors_) {
    bool in = false;
    for (const auto& p : tensor_names) in = in || (p.back() == '.' ? starts(name, p) : name == p);
    if (in) inputs.emplace_back("weights." + config_.tensor_prefix + name, nullptr, 0, "weights." + config_.tensor_prefix + name, stored_max(t));
  }
  for (auto& v : inputs) {  // lm_head is saved without the base model's prefix
    if (v.name == "weights." + config_.tensor_prefix + "lm_head.weight") v.name = v.field = "weights.lm_head.weight";
  }
  refuse_overflow(what, "Infinity or NaN", {Values("result", d, count)}, inputs,
                  "the checkpoint's weights are finite but too large for float32 arithmetic");
}

void PretrainedModel::check_layer_output(const Matrix& x, int64_t layer) const {
  const std::string l = std::to_string(layer);
  const bool gpt = config_.arch == Arch::GPT2 || config_.arch == Arch::GPTBigCode;
  std::vector<std::string> names = {gpt ? "h." + l + "." : "layers." + l + "."};
  if (layer == 0) {  // its input came from the embeddings
    names.push_back(gpt ? "wte.weight" : "embed_tokens.weight");
    if (gpt) names.push_back("wpe.weight");
  }
  refuse_overflow_of("layer " + l + "'s output", x, names);
}

void PretrainedModel::check_logits(const Matrix& logits) const {
  const bool gpt = config_.arch == Arch::GPT2 || config_.arch == Arch::GPTBigCode;
  std::vector<std::string> names = {gpt ? "ln_f." : "norm.weight"};
  names.push_back(config_.tied ? (gpt ? "wte.weight" : "embed_tokens.weight") : "lm_head.weight");
  refuse_overflow_of("the logits", logits, names);
}

}  // namespace attn::pretrained
