// train/tasks.hpp — seeded training data for the lab.
//
// A batch is B sequences of N input tokens and their N next-token targets (the sequence shifted by
// one), with two (B, N) masks: which positions the loss counts, and which the accuracy counts.
//   copy       t_1 .. t_L SEP t_1 .. t_L   (L = N/2, tokens < V-1, SEP = V-1): loss and accuracy on
//              the copied half only (the positions whose target is a copied token).
//   induction  filler, a segment A B C .. of L distinct tokens, the same segment again, filler
//              (filler tokens never occur in the segment): loss and accuracy only on the positions
//              of the second occurrence whose target is the next segment token (A B .. A -> B);
//              the filler is unpredictable and, trained on, only slows the induction heads down
//              (measured: >95 % at step 250 vs ~70 % at step 1000). induction_key[i] = the key
//              right after the first occurrence.
//   chars      character-level LM of a text: vocabulary = the sorted distinct code points of the
//              text; random windows from the first 90 % (train) or the last 10 % (validation).
//   tokens     next-token prediction on a sequence of token ids given with the spec (vocabulary =
//              vocabSize): random windows from the first 90 % of the ids (train) or the last 10 %
//              (validation), as for chars.
//   pairs      N random tokens of an alphabet of A; at each position i >= 2 the target is the ordered
//              pair of the two tokens before it, (t_{i-1}, t_{i-2}), as one class t_{i-1} * A + t_{i-2}
//              of A^2 (the model's vocabulary; its inputs use the first A). Loss and accuracy on those
//              positions. One head cannot do it well: its one softmax averages the two values, and
//              a readout linear in that average cannot tell (p, q) from (q, p) or from (p, p) and
//              (q, q) (the average of (p, q) is a mix of theirs); two heads, one per position, can.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn::train {

// splitmix64: the same numbers in every build (std distributions differ between libstdc++ and libc++).
class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : state_(seed) {}
  uint64_t next();
  uint64_t below(uint64_t n);  // uniform in [0, n)
  double uniform();            // [0, 1)
  uint64_t state() const { return state_; }
  void set_state(uint64_t s) { state_ = s; }

 private:
  uint64_t state_;
};

struct Batch {
  int64_t batch = 0, n = 0;
  std::vector<int32_t> tokens, targets;     // (B, N)
  std::vector<float> loss_mask, acc_mask;   // (B, N) 0 or 1
  std::vector<int32_t> induction_key;       // (B, N) key index for the induction score, -1 if none
};

enum class TaskKind { Copy, Induction, Chars, Pairs, Tokens };

class Task {
 public:
  // vocab: for copy/induction the vocabulary size (>= 3 / >= 4); for pairs the alphabet A (the
  // vocabulary is A^2); ignored for chars (from the text). tokens: the ids of task 'tokens' (each
  // below vocab; the Trainer checks them).
  Task(TaskKind kind, int64_t vocab, int64_t seq_len, const std::string& text = "",
       const std::vector<int32_t>* tokens = nullptr);
  TaskKind kind() const { return kind_; }
  int64_t vocab() const { return vocab_; }
  // The tokens a sequence is drawn from: the vocabulary, or for pairs the alphabet A (what the
  // spec's vocabSize gives).
  int64_t symbols() const { return kind_ == TaskKind::Pairs ? pair_alphabet_ : vocab_; }
  int64_t seq_len() const { return n_; }
  const std::vector<uint32_t>& alphabet() const { return alphabet_; }  // chars: id -> code point
  // chars, tokens: the ids of the training part and of the held-out tail (the last 10 %).
  const std::vector<int32_t>& train_ids() const { return train_ids_; }
  const std::vector<int32_t>& val_ids() const { return val_ids_; }
  // chars, tokens: the distinct ids of the training part, ascending (the ordinary tokens that random
  // repeats and the induction probe draw from).
  std::vector<int32_t> train_symbols() const;

  // chars, tokens: the fraction of training windows that repeat a stretch of themselves (a copying
  // curriculum): in such a window of N+1 tokens, a stretch of L in [N/8, 3N/8) tokens starting at p is
  // written again at q >= p + L (p, q, L drawn from the stream), so its second occurrence is
  // predictable from its first. 0 (the default) draws nothing more from the stream.
  void set_repeat_fraction(double f) { repeat_fraction_ = f; }
  double repeat_fraction() const { return repeat_fraction_; }
  // chars, tokens: the fraction of training windows whose repeated stretch is not their own text but L
  // random ordinary tokens (drawn uniformly from the distinct ids of the training part), written at p
  // and again at q as above: a window repeats its own text (repeat_fraction), random tokens (this) or
  // nothing, by one draw from the stream (made only when either fraction is above 0).
  void set_repeat_random_fraction(double f);
  double repeat_random_fraction() const { return repeat_random_fraction_; }

  // induction: the segment lengths L drawn uniformly from [min_segment, longest_segment()], the longest
  // min((N+1)/2, vocab-2) (at least 2); the shortest by default max(2, longest/2).
  int64_t longest_segment() const;
  void set_min_segment(int64_t l) { min_segment_ = l; }
  int64_t min_segment() const;
  bool min_segment_given() const { return min_segment_ > 0; }

  Batch sample(Rng& rng, int64_t batch, bool validation = false) const;
  // Induction-style sequences over this task's vocabulary (for the heads' induction score).
  Batch induction(Rng& rng, int64_t batch) const;
  // The held-out set evaluate() uses: fixed, drawn from `seed` (chars, tokens: evenly spaced windows).
  Batch eval_set(uint64_t seed, int64_t count) const;

 private:
  void copy_sequence(Rng& rng, Batch& b, int64_t row) const;
  void induction_sequence(Rng& rng, Batch& b, int64_t row) const;
  void chars_window(int64_t start, const std::vector<int32_t>& ids, Batch& b, int64_t row,
                    Rng* repeat = nullptr) const;
  void pairs_sequence(Rng& rng, Batch& b, int64_t row) const;

  TaskKind kind_;
  int64_t vocab_ = 0, n_ = 0, pair_alphabet_ = 0;
  double repeat_fraction_ = 0, repeat_random_fraction_ = 0;
  int64_t min_segment_ = 0;  // 0: the default
  std::vector<int32_t> repeat_symbols_;  // train_symbols(), kept once random repeats are asked for
  std::vector<uint32_t> alphabet_;
  std::vector<int32_t> train_ids_, val_ids_;
};

// UTF-8 -> code points (strict: each invalid byte, overlong form, surrogate or code point above
// U+10FFFF becomes U+FFFD, so every result is a Unicode scalar value).
std::vector<uint32_t> decode_utf8(const std::string& s);
// Unicode scalar values -> UTF-8 (encode_utf8(decode_utf8(s)) == s for valid UTF-8).
std::string encode_utf8(const std::vector<uint32_t>& cps);

}  // namespace attn::train
