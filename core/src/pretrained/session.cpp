// session.cpp — KV-cache decoding of a checkpoint (see session.hpp).
#include "attn/pretrained/session.hpp"

#include <cmath>

#include "attn/errors.hpp"
#include "attn/spec.hpp"

namespace attn::pretrained {

void check_session_length(const ModelConfig& c, double max_len) {
  const double hi = c.n_positions > 0 ? double(c.n_positions) : kMaxDim;
  if (!std::isfinite(max_len) || max_len != std::floor(max_len) || max_len < 1 || max_len > hi) {
    throw_range("maxLen", "maxLen (" + fmt(max_len) + ") must be an integer between 1 and " + fmt(hi) +
                              (c.n_positions > 0 ? " (the model's learned positions, config.n_positions)" : ""));
  }
  const double bytes = 4.0 * max_len * double(c.cache_floats_per_token()) * double(c.n_layers);
  if (bytes > kMaxWorkBytes) {
    throw_range("maxLen", "maxLen (" + fmt(max_len) + ") needs a KV cache of " + fmt(std::ceil(bytes / 1048576.0)) +
                              " MiB, above the cap of " + fmt(kMaxWorkBytes / 1048576.0) + " MiB");
  }
}

Session::Session(const PretrainedModel& model, int64_t max_len) : model_(model), max_len_(max_len) {
  check_session_length(model.config(), double(max_len));
  for (int64_t l = 0; l < model.config().n_layers; ++l) caches_.push_back(make_layer_cache(model.config().shape(), max_len));
}

double Session::cache_bytes() const {
  return 4.0 * double(model_.config().cache_floats_per_token()) * double(model_.config().n_layers) * double(length_);
}

ModelOutput Session::append(const std::vector<int32_t>& ids, bool attentions) {
  const ModelConfig& c = model_.config();
  const int64_t k = int64_t(ids.size());
  if (k < 1) throw_range("ids", "append needs at least one token id, got 0");
  if (length_ + k > max_len_) {
    throw_range("ids", "appending " + fmt(double(k)) + " tokens to a session holding " + fmt(double(length_)) +
                           " would exceed maxLen (" + fmt(double(max_len_)) + ")");
  }
  model_.check_ids(ids, length_);
  const int64_t total = length_ + k;
  ModelOutput r;
  Matrix x = model_.embed(ids, length_);
  for (std::size_t l = 0; l < caches_.size(); ++l) {
    float* maps = nullptr;
    if (attentions) {
      r.attentions.push_back(Tensor3::from_shape({std::size_t(c.n_heads), std::size_t(k), std::size_t(total)}));
      maps = r.attentions.back().data();
    }
    decoder_layer(c, model_.layers()[l], x, length_, caches_[l], maps);
    model_.check_layer_output(x, int64_t(l));  // refused: the cache keeps length_ (the rows written past it are unused)
  }
  r.logits = model_.logits(x);
  model_.check_logits(r.logits);
  length_ = total;
  return r;
}

}  // namespace attn::pretrained
