// kv_cache.cpp — KV-cache decoding (see kv_cache.hpp).
#include "attn/kv_cache.hpp"

#include <algorithm>
#include <cmath>

#include "attn/accounting.hpp"
#include "attn/cost.hpp"
#include "attn/errors.hpp"
#include "attn/spec.hpp"

namespace attn {

Session::Session(const Shape& s, const Weights& w) : shape_(s), cache_(make_layer_cache(s, s.max_len)) {
  if (s.variant == Variant::MLA) {
    latent_ = pack_absorbed(s, w);
  } else {
    grouped_ = pack_grouped(w);
  }
}

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
  const int64_t pos0 = length_, total = length_ + k, w = row_width();
  ForwardResult r = make_forward_result(s, k, total);
  // The k new queries attend over all `total` keys, the cached ones and their own (causally).
  if (s.variant == Variant::MLA) {
    // new cache rows [c | kr] (k, r+dr) written in place; q (k, H*(r+dr)) per head [q~_h | qr_h]
    const Matrix q = project_latent_absorbed(s, latent_, x.data(), k, cache_.ckr.data() + pos0 * w, w, pos0);
    const Matrix o = attend_latent_cache(s, q.data(), s.h * (s.r + s.dr), cache_, k, pos0, r.maps());  // (k, H*r)
    r.output = output_latent_absorbed(s, latent_, o);  // (k, D)
  } else {
    // new k and v rows (k, G*dh) written in place; q (k, H*dh)
    const Matrix q = project_grouped(s, grouped_, x.data(), k, cache_.k.data() + pos0 * w,
                                     cache_.v.data() + pos0 * w, w, pos0);
    const Matrix o = attend_grouped_cache(s, q.data(), s.h * s.dh, cache_, k, pos0, r.maps());  // (k, H*dh)
    r.output = matmul(o, grouped_.wo);  // (k, D)
  }
  length_ = total;
  return r;
}

}  // namespace attn
