// kv_cache.cpp — KV-cache decoding (see kv_cache.hpp).
#include "attn/kv_cache.hpp"

#include <algorithm>
#include <cmath>

#include "attn/accounting.hpp"
#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/spec.hpp"

namespace attn {

DecodeProjections pack_decode(const Shape& s, const Weights& w) {
  DecodeProjections p;
  if (s.variant == Variant::MLA) {
    p.latent = pack_absorbed(s, w);
  } else {
    p.grouped = pack_grouped(w);
  }
  return p;
}

Matrix append_rows(const Shape& s, const DecodeProjections& p, LayerCache& cache, const float* x, int64_t rows,
                   int64_t pos0, float* maps) {
  if (s.variant == Variant::MLA) return latent_block_rows(s, PackedAbsorbedRows(s, p.latent), cache, x, rows, pos0, maps);
  return grouped_block_rows(s, PackedGroupedRows(s, p.grouped), cache, x, rows, pos0, maps);  // (rows, D)
}

Session::Session(const Shape& s, const Weights& w)
    : shape_(s), proj_(pack_decode(s, w)), cache_(make_layer_cache(s, s.max_len)) {}

int64_t Session::row_width() const { return cache_row_width(shape_); }

double Session::cache_bytes() const { return kv_cache_floats_per_token(shape_) * double(length_) * 4.0; }

void Session::truncate(int64_t new_length) {
  if (new_length < 0 || new_length > length_) {
    throw_range("n", "truncate length (" + fmt(double(new_length)) + ") must be between 0 and the session length (" +
                fmt(double(length_)) + ")");
  }
  length_ = new_length;
}

void Session::set_cache(const std::vector<Matrix>& tensors) {
  const int64_t w = row_width();
  if (int64_t(tensors.size()) != cache_tensors()) {
    throw_range("cache", "a " + std::string(variant_name(shape_.variant)) + " cache holds " +
                fmt(double(cache_tensors())) + " tensors, got " + fmt(double(tensors.size())));
  }
  const int64_t tokens = int64_t(tensors[0].shape(0));
  if (tokens > shape_.max_len) {
    throw_range("cache", "cache rows (" + fmt(double(tokens)) + ") exceed maxLen (" + fmt(double(shape_.max_len)) + ")");
  }
  Matrix* caches[2] = {shape_.variant == Variant::MLA ? &cache_.ckr : &cache_.k, &cache_.v};
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    if (int64_t(tensors[t].shape(0)) != tokens || int64_t(tensors[t].shape(1)) != w) {
      throw_range("cache", "cache tensor " + fmt(double(t)) + " must be (" + fmt(double(tokens)) + ", " +
                  fmt(double(w)) + ")");
    }
    std::copy_n(tensors[t].data(), tokens * w, caches[t]->data());
  }
  length_ = tokens;
}

void Session::check_append(int64_t k) const {
  const Shape& s = shape_;
  if (k < 1) throw_range("x", "append needs at least one token, got 0");
  if (length_ + k > s.max_len) {
    throw_range("x", "appending " + fmt(double(k)) + " tokens to a session holding " + fmt(double(length_)) +
                " would exceed maxLen (" + fmt(double(s.max_len)) + ")");
  }
  if (session_work_bytes(s, k) > kMaxWorkBytes) {
    throw_range("appending " + fmt(double(k)) + " tokens at once needs about " +
                fmt(std::ceil(session_work_bytes(s, k) / 1048576.0)) + " MiB, above the cap of " +
                fmt(kMaxWorkBytes / 1048576.0) + " MiB: append fewer tokens per call" +
                (s.return_weights ? " or do not ask for returnWeights" : ""));
  }
  check_sync_time(append_cost(s, k, length_), s.allow_long_work);
}

ForwardResult Session::append(const Matrix& x) {
  const Shape& s = shape_;
  const int64_t k = int64_t(x.shape(0));
  check_append(k);
  // The k new queries attend over all length_ + k keys, the cached ones and their own (causally).
  ForwardResult r = make_forward_result(s, k, length_ + k);
  r.output = append_rows(s, proj_, cache_, x.data(), k, length_, r.maps());
  length_ += k;
  return r;
}

}  // namespace attn
