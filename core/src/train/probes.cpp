// train/probes.cpp — what a model's attention does: per-head scores and attention maps (probes.hpp).
//
// No clamping: each score is a mean of attention weights, and each weight lies in [0, 1] in float32
// as computed (layers.cpp: p_j = e_j * fl(1 / sum) with e_j = exp(s_j - max) <= 1 and sum >= 1, as the
// largest term is exp(0) = 1), so the mean of k of them, summed in double, stays in [0, 1]. The
// clamp that stood here could only have hidden a NaN, and std::clamp passes NaN through: maps that
// overflowed float32 are refused instead (refuse_non_finite_maps).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/errors.hpp"
#include "attn/overflow.hpp"
#include "attn/head_roles.hpp"
#include "attn/train/trainer.hpp"

namespace attn::train {

std::vector<int32_t> probe_symbols(const Task& task, int64_t vocab) {
  if (task.kind() == TaskKind::Tokens) return task.train_symbols();
  std::vector<int32_t> ids(static_cast<std::size_t>(vocab));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

Batch Trainer::induction_probe() const {
  const std::vector<int32_t> symbols = probe_symbols(*task_, cfg_.vocab);  // probe id -> model id
  if (symbols.size() < 4) return Batch{};
  Task ind(TaskKind::Induction, int64_t(symbols.size()), task_->seq_len());
  Rng rng(seed_ ^ 0x1D0C7ull);
  Batch b = ind.induction(rng, kScoreSequences);  // tokens, induction_key: (64, N)
  for (int32_t& t : b.tokens) t = symbols[std::size_t(t)];
  return b;
}

void Trainer::refuse_non_finite_maps() {
  std::vector<Values> maps;
  for (int64_t l = 0; l < cfg_.n_layers; ++l) {
    const std::vector<float>& p = model_->attention_probs(l);
    maps.push_back({"layer " + fmt(double(l)) + "'s maps", p.data(), p.size()});
  }
  refuse_overflow("attention", "a weight map holds a value that is not finite", maps, weights(), "");
}

std::vector<HeadRoles> Trainer::head_scores() {
  const int64_t layers = cfg_.n_layers, h = cfg_.attn.h, n = task_->seq_len();
  std::vector<RoleSums> sums(static_cast<std::size_t>(layers * h));  // index l * H + head (head_roles.hpp)
  // previous-token, diagonal, first-token: held-out task data, queries i >= 1.
  const int64_t count = std::min<int64_t>(kScoreSequences, eval_.batch);
  double queries = 0;
  for (int64_t start = 0; start < count; start += batch_size_) {
    const int64_t rows_b = std::min(batch_size_, count - start);
    model_->forward(eval_.tokens.data() + start * n, nullptr, nullptr, rows_b, n);  // tokens (rows_b, N)
    refuse_non_finite_maps();
    for (int64_t r = 0; r < rows_b; ++r) {
      for (int64_t l = 0; l < layers; ++l)  // maps (rows_b, H, N, N): row r's (H, N, N)
        add_position_weights(sums.data() + l * h, model_->attention_probs(l).data() + r * h * n * n, h, n);
      queries += double(n - 1);
    }
  }
  // induction: on induction-style sequences (needs a vocabulary of at least 4 tokens), from each
  // second occurrence to the key right after the first. Task 'tokens' draws them from its ordinary
  // tokens, the ids its training text holds (a BPE vocabulary's unused byte tokens and never-trained
  // special ids share untrained embeddings and would say nothing of the heads).
  double pairs = 0;
  if (probe_symbols(*task_, cfg_.vocab).size() >= 4) {
    const Batch b = induction_probe();  // tokens, induction_key: (64, N)
    for (int64_t start = 0; start < b.batch; start += batch_size_) {
      const int64_t rows_b = std::min(batch_size_, b.batch - start);
      model_->forward(b.tokens.data() + start * n, nullptr, nullptr, rows_b, n);
      refuse_non_finite_maps();
      for (int64_t r = 0; r < rows_b; ++r) {
        // (N) query -> its one key (right after the first occurrence) and that occurrence, or none
        std::vector<std::vector<int32_t>> keys(static_cast<std::size_t>(n)), copies(static_cast<std::size_t>(n));
        const int32_t* key = b.induction_key.data() + (start + r) * n;  // (N), -1 where no pair
        for (int64_t i = 0; i < n; ++i)
          if (key[i] >= 0) keys[std::size_t(i)].push_back(key[i]), copies[std::size_t(i)].push_back(key[i] - 1);
        int64_t added = 0;
        for (int64_t l = 0; l < layers; ++l) {
          const float* p = model_->attention_probs(l).data() + r * h * n * n;  // (H, N, N)
          added = add_key_weights(sums.data() + l * h, &RoleSums::induction, p, h, n, keys);
          add_key_weights(sums.data() + l * h, &RoleSums::duplicate_token, p, h, n, copies);
        }
        pairs += double(added);
      }
    }
  }
  std::vector<HeadRoles> scores;  // (layers * H), index l * H + head
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t hh = 0; hh < h; ++hh) {
      const RoleSums& s = sums[std::size_t(l * h + hh)];
      scores.push_back({l, hh, s.previous_token / queries, s.diagonal / queries, s.first_token / queries,
                        pairs > 0 ? s.duplicate_token / pairs : 0, pairs > 0 ? s.induction / pairs : 0});
    }
  return scores;
}

void Trainer::check_attention_length(double n) const {
  if (n < 1 || n > double(task_->seq_len())) {
    throw_range("tokens", "tokens has " + fmt(n) + " elements, must be between 1 and seqLen (" +
                fmt(double(task_->seq_len())) + ")");
  }
}

void Trainer::forward_tokens(const std::vector<int32_t>& tokens) {
  const int64_t n = int64_t(tokens.size());
  check_attention_length(double(n));
  for (int64_t i = 0; i < n; ++i) {
    if (tokens[i] < 0 || tokens[i] >= cfg_.vocab) {
      throw_range("tokens", "tokens[" + fmt(double(i)) + "] (" + fmt(tokens[i]) + ") must be between 0 and vocabSize - 1 (" +
                  fmt(double(cfg_.vocab - 1)) + ")");
    }
  }
  model_->forward(tokens.data(), nullptr, nullptr, 1, n);
  refuse_non_finite_maps();
}

xt::xtensor<float, 4> Trainer::attention(const std::vector<int32_t>& tokens) {
  const int64_t n = int64_t(tokens.size()), h = cfg_.attn.h, layers = cfg_.n_layers;
  forward_tokens(tokens);
  auto out = xt::xtensor<float, 4>::from_shape({std::size_t(layers), std::size_t(h), std::size_t(n), std::size_t(n)});
  for (int64_t l = 0; l < layers; ++l) {
    const std::vector<float>& p = model_->attention_probs(l);  // (1, H, N, N)
    std::copy(p.begin(), p.end(), out.data() + l * h * n * n);
  }
  return out;
}

LayerView Trainer::layer(const std::vector<int32_t>& tokens, int64_t layer) {
  if (layer < 0 || layer >= cfg_.n_layers) {
    throw_range("layer", "layer (" + fmt(double(layer)) + ") must be between 0 and nLayers - 1 (" +
                fmt(double(cfg_.n_layers - 1)) + ")");
  }
  if (cfg_.block == Block::Deepseek) {
    throw_range("layer", "layer() does not apply to block 'deepseek': its MLA (latent norms, RoPE on adjacent pairs) "
                         "is not the inference core's; use attention(tokens) for its maps");
  }
  forward_tokens(tokens);
  return {layer_shape(cfg_, int64_t(tokens.size())), model_->attention_input(layer), &model_->attention_weights(layer)};
}

std::vector<float> Trainer::next_token_probs(const std::vector<int32_t>& tokens) {
  forward_tokens(tokens);
  const int64_t v = cfg_.vocab;
  const float* last = model_->logits().data() + (int64_t(tokens.size()) - 1) * v;  // (V) of the last position
  const float top = *std::max_element(last, last + v);
  std::vector<float> p(std::size_t(v), 0.0f);
  double sum = 0;
  for (int64_t i = 0; i < v; ++i) sum += (p[std::size_t(i)] = std::exp(last[i] - top));
  for (float& x : p) x = float(x / sum);
  return p;
}

}  // namespace attn::train
