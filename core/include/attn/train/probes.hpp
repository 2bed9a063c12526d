// train/probes.hpp — what a trained model's attention does: per-head scores and attention maps.
//
// The scores (Trainer::head_scores, probes.cpp, summed as attn/head_roles.hpp sums them), per layer and head, each the mean of one attention
// weight over a set of queries (weights are probabilities, so each score lies in [0, 1] by
// construction, with no clamping; docs/api.md, "Training"):
//   previousToken  weight on key i-1      queries i >= 1 of the held-out task data
//   diagonal       weight on key i        same queries
//   firstToken     weight on key 0        same queries
//   induction      weight on the key right after the first occurrence of the query's token, at the
//                  second occurrence (64 induction-style sequences; vocabularies of >= 4 tokens;
//                  task 'tokens' draws them from the ids its training text holds: probe_symbols;
//                  0 when the vocabulary is smaller)
//   duplicateToken weight on the first occurrence itself, same queries
// They are attn::HeadRoles (head_roles.hpp), every field set.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/head_roles.hpp"
#include "attn/train/tasks.hpp"

namespace attn::train {

// Sequences the probes run: previous/diagonal/first use up to this many held-out sequences, the
// induction score this many induction-style sequences.
constexpr int64_t kScoreSequences = 64;

// The model ids the induction probe draws from, in order: for task 'tokens' the ids that occur in its
// training text (its ordinary tokens), for every other task the whole vocabulary [0, vocab).
std::vector<int32_t> probe_symbols(const Task& task, int64_t vocab);

}  // namespace attn::train
