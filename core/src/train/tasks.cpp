// train/tasks.cpp — the lab's data (see tasks.hpp).
#include "attn/train/tasks.hpp"

#include <algorithm>
#include <numeric>

namespace attn::train {

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t Rng::below(uint64_t n) { return n <= 1 ? 0 : next() % n; }

double Rng::uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }

std::vector<uint32_t> decode_utf8(const std::string& s) {
  // Strict UTF-8: overlong forms, surrogates (U+D800..U+DFFF) and code points above U+10FFFF are
  // invalid like any other bad byte, so every code point out is a Unicode scalar value (a model file
  // can then carry the text as JSON that any reader accepts, model_file.cpp).
  std::vector<uint32_t> out;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t len = s.size();
  std::size_t i = 0;
  while (i < len) {
    const unsigned char c = p[i];
    int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
    bool ok = extra >= 0 && i + std::size_t(extra) < len;
    for (int k = 1; ok && k <= extra; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) ok = false; else cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    static const uint32_t kMin[4] = {0, 0x80, 0x800, 0x10000};  // shortest form of each length
    if (ok && (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))) ok = false;
    if (!ok) {
      out.push_back(0xFFFD);
      ++i;
    } else {
      out.push_back(cp);
      i += std::size_t(extra) + 1;
    }
  }
  return out;
}

std::string encode_utf8(const std::vector<uint32_t>& cps) {
  std::string out;
  for (uint32_t cp : cps) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  return out;
}

Task::Task(TaskKind kind, int64_t vocab, int64_t seq_len, const std::string& text, const std::vector<int32_t>* tokens)
    : kind_(kind), vocab_(vocab), n_(seq_len) {
  if (kind == TaskKind::Pairs) {
    pair_alphabet_ = vocab;
    vocab_ = vocab * vocab;
  }
  if (kind == TaskKind::Tokens && tokens) {
    const std::size_t split = tokens->size() * 9 / 10;
    train_ids_.assign(tokens->begin(), tokens->begin() + std::ptrdiff_t(split));
    val_ids_.assign(tokens->begin() + std::ptrdiff_t(split), tokens->end());
    return;
  }
  if (kind != TaskKind::Chars) return;
  const std::vector<uint32_t> cps = decode_utf8(text);
  alphabet_ = cps;
  std::sort(alphabet_.begin(), alphabet_.end());
  alphabet_.erase(std::unique(alphabet_.begin(), alphabet_.end()), alphabet_.end());
  vocab_ = int64_t(alphabet_.size());
  std::vector<int32_t> ids(cps.size());
  for (std::size_t i = 0; i < cps.size(); ++i) {
    ids[i] = int32_t(std::lower_bound(alphabet_.begin(), alphabet_.end(), cps[i]) - alphabet_.begin());
  }
  const std::size_t split = cps.size() * 9 / 10;
  train_ids_.assign(ids.begin(), ids.begin() + std::ptrdiff_t(split));
  val_ids_.assign(ids.begin() + std::ptrdiff_t(split), ids.end());
}

namespace {
Batch empty_batch(int64_t batch, int64_t n) {
  Batch b;
  b.batch = batch;
  b.n = n;
  const std::size_t size = std::size_t(batch * n);
  b.tokens.assign(size, 0);
  b.targets.assign(size, 0);
  b.loss_mask.assign(size, 0.0f);
  b.acc_mask.assign(size, 0.0f);
  b.induction_key.assign(size, -1);
  return b;
}

// Writes the N+1 tokens of `seq` as inputs seq[0..N) and targets seq[1..N].
void put(Batch& b, int64_t row, const std::vector<int32_t>& seq) {
  for (int64_t i = 0; i < b.n; ++i) {
    b.tokens[row * b.n + i] = seq[i];
    b.targets[row * b.n + i] = seq[i + 1];
  }
}
}  // namespace

void Task::copy_sequence(Rng& rng, Batch& b, int64_t row) const {
  const int64_t n = b.n, len = n / 2, sep = vocab_ - 1;
  std::vector<int32_t> seq(static_cast<std::size_t>(n + 1));
  for (int64_t i = 0; i < len; ++i) seq[i] = int32_t(rng.below(uint64_t(vocab_ - 1)));
  seq[len] = int32_t(sep);
  for (int64_t i = 0; i < len; ++i) seq[len + 1 + i] = seq[i];
  for (int64_t i = 2 * len + 1; i <= n; ++i) seq[i] = int32_t(rng.below(uint64_t(vocab_ - 1)));  // odd N: one filler
  put(b, row, seq);
  // input position i in [len, 2 len): target seq[i + 1] is copied token i - len
  for (int64_t i = len; i < 2 * len; ++i) {
    b.loss_mask[row * n + i] = 1.0f;
    b.acc_mask[row * n + i] = 1.0f;
  }
}

int64_t Task::longest_segment() const { return std::max<int64_t>(2, std::min<int64_t>((n_ + 1) / 2, vocab_ - 2)); }

int64_t Task::min_segment() const { return min_segment_ > 0 ? min_segment_ : std::max<int64_t>(2, longest_segment() / 2); }

void Task::induction_sequence(Rng& rng, Batch& b, int64_t row) const {
  const int64_t n = b.n;
  // segment length L in [min_segment(), Lmax], Lmax = min((N+1)/2, V-2): the segment's tokens are
  // distinct and at least two tokens remain for the filler.
  const int64_t l_max = longest_segment(), l_min = min_segment();
  const int64_t len = l_min + int64_t(rng.below(uint64_t(l_max - l_min + 1)));
  const int64_t start = int64_t(rng.below(uint64_t(n + 1 - 2 * len + 1)));
  std::vector<int32_t> perm(static_cast<std::size_t>(vocab_));
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t i = 0; i < len; ++i) std::swap(perm[i], perm[i + int64_t(rng.below(uint64_t(vocab_ - i)))]);
  std::vector<int32_t> seq(static_cast<std::size_t>(n + 1));
  for (int64_t i = 0; i <= n; ++i) seq[i] = perm[len + int64_t(rng.below(uint64_t(vocab_ - len)))];
  for (int64_t k = 0; k < len; ++k) seq[start + k] = seq[start + len + k] = perm[k];
  put(b, row, seq);
  // second occurrence of segment token k at i = start + len + k (k < len - 1): target = token k + 1,
  // which follows the first occurrence at key start + k + 1.
  for (int64_t k = 0; k + 1 < len; ++k) {
    const int64_t i = start + len + k;
    if (i >= n) break;
    b.acc_mask[row * n + i] = 1.0f;
    b.loss_mask[row * n + i] = 1.0f;
    b.induction_key[row * n + i] = int32_t(start + k + 1);
  }
}

std::vector<int32_t> Task::train_symbols() const {
  std::vector<bool> seen(std::size_t(vocab_), false);
  for (int32_t t : train_ids_) seen[std::size_t(t)] = true;
  std::vector<int32_t> ids;
  for (int64_t i = 0; i < vocab_; ++i)
    if (seen[std::size_t(i)]) ids.push_back(int32_t(i));
  return ids;
}

void Task::set_repeat_random_fraction(double f) {
  repeat_random_fraction_ = f;
  if (f > 0 && repeat_symbols_.empty()) repeat_symbols_ = train_symbols();
}

void Task::chars_window(int64_t start, const std::vector<int32_t>& ids, Batch& b, int64_t row, Rng* repeat) const {
  std::vector<int32_t> seq(ids.begin() + start, ids.begin() + start + b.n + 1);  // (N+1)
  const double any = repeat_fraction_ + repeat_random_fraction_;
  const double u = repeat && any > 0 ? repeat->uniform() : 1.0;
  if (u < any) {
    const int64_t n1 = b.n + 1;
    const int64_t len = std::max<int64_t>(1, n1 / 8 + int64_t(repeat->below(uint64_t(std::max<int64_t>(1, n1 / 4)))));
    const int64_t q = len + int64_t(repeat->below(uint64_t(n1 - 2 * len + 1)));  // the copy: [q, q + len)
    const int64_t p = int64_t(repeat->below(uint64_t(q - len + 1)));            // the original: [p, p + len)
    if (u >= repeat_fraction_) {  // random ordinary tokens in place of the original's text
      for (int64_t i = 0; i < len; ++i)
        seq[std::size_t(p + i)] = repeat_symbols_[std::size_t(repeat->below(uint64_t(repeat_symbols_.size())))];
    }
    for (int64_t i = 0; i < len; ++i) seq[std::size_t(q + i)] = seq[std::size_t(p + i)];
  }
  put(b, row, seq);
  for (int64_t i = 0; i < b.n; ++i) {
    b.loss_mask[row * b.n + i] = 1.0f;
    b.acc_mask[row * b.n + i] = 1.0f;
  }
}

void Task::pairs_sequence(Rng& rng, Batch& b, int64_t row) const {
  const int64_t n = b.n, a = pair_alphabet_;
  for (int64_t i = 0; i < n; ++i) b.tokens[row * n + i] = int32_t(rng.below(uint64_t(a)));
  const int32_t* t = b.tokens.data() + row * n;  // (N) this row's tokens
  for (int64_t i = 2; i < n; ++i) {
    b.targets[row * n + i] = int32_t(t[i - 1] * a + t[i - 2]);  // the ordered pair (t_{i-1}, t_{i-2})
    b.loss_mask[row * n + i] = 1.0f;
    b.acc_mask[row * n + i] = 1.0f;
  }
}

Batch Task::sample(Rng& rng, int64_t batch, bool validation) const {
  Batch b = empty_batch(batch, n_);
  for (int64_t row = 0; row < batch; ++row) {
    if (kind_ == TaskKind::Copy) {
      copy_sequence(rng, b, row);
    } else if (kind_ == TaskKind::Induction) {
      induction_sequence(rng, b, row);
    } else if (kind_ == TaskKind::Pairs) {
      pairs_sequence(rng, b, row);
    } else {
      const auto& ids = validation ? val_ids_ : train_ids_;
      chars_window(int64_t(rng.below(uint64_t(int64_t(ids.size()) - n_))), ids, b, row, validation ? nullptr : &rng);
    }
  }
  return b;
}

Batch Task::induction(Rng& rng, int64_t batch) const {
  Batch b = empty_batch(batch, n_);
  for (int64_t row = 0; row < batch; ++row) induction_sequence(rng, b, row);
  return b;
}

Batch Task::eval_set(uint64_t seed, int64_t count) const {
  if (kind_ != TaskKind::Chars && kind_ != TaskKind::Tokens) {
    Rng rng(seed);
    return sample(rng, count, true);
  }
  // Evenly spaced windows over the validation text (as many as fit, at most `count`).
  const int64_t span = int64_t(val_ids_.size()) - n_ - 1;  // last valid start
  const int64_t windows = std::max<int64_t>(1, std::min<int64_t>(count, span + 1));
  Batch b = empty_batch(windows, n_);
  for (int64_t w = 0; w < windows; ++w) {
    const int64_t start = windows == 1 ? 0 : w * span / (windows - 1);
    chars_window(start, val_ids_, b, w);
  }
  return b;
}

}  // namespace attn::train
