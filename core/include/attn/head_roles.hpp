// head_roles.hpp — what each head does, measured on its attention maps over the token ids they were
// computed on: the lesson's head-role scores. The trainer's head scores (train/probes.hpp) and a
// checkpoint's (attn.headRoles, docs/api.md) are these. Each score is the mean of one attention
// weight over a set of queries, so it lies in [0, 1]:
//   previous_token   weight on key i-1                                queries i = 1 … N-1
//   diagonal         weight on key i                                  same queries
//   first_token      weight on key 0 (an attention sink)              same queries
//   duplicate_token  weight on the earlier copies of token i          queries whose token came before
//   induction        weight on the keys right after those copies      same queries (a copy at i-1 has none)
// Sums are in double, query by query in order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace attn {

// One head's sums of weights (divided by their query counts at the end).
struct RoleSums {
  double previous_token = 0, diagonal = 0, first_token = 0, duplicate_token = 0, induction = 0;
};

// Adds one sequence's maps p (H, N, N) to sums[0 … H): each query i >= 1 its weights on keys i-1, i
// and 0. Returns the queries added (N - 1).
int64_t add_position_weights(RoleSums* sums, const float* p, int64_t h, int64_t n);

// Adds one sequence's maps p (H, N, N) to sums[0 … H).*field: each query i its weights on keys[i]
// (positions <= i; keys has N lists). Returns the queries that have keys.
int64_t add_key_weights(RoleSums* sums, double RoleSums::*field, const float* p, int64_t h, int64_t n,
                        const std::vector<std::vector<int32_t>>& keys);

// For each position i of ids (N): the earlier positions j < i that hold the same id (duplicate), and
// the positions right after them, j + 1 < i (induction); repeats: the positions that have a duplicate.
struct CopyKeys {
  std::vector<std::vector<int32_t>> duplicate, induction;
  int64_t repeats = 0;
};
CopyKeys copy_keys(const std::vector<int32_t>& ids);

struct HeadRoles {
  int64_t layer, head;
  double previous_token, diagonal, first_token;
  std::optional<double> duplicate_token, induction;  // none when no token of ids repeats
};

// maps: one (H, N, N) per layer, over ids (N >= 1). Per layer and head, in that order.
std::vector<HeadRoles> head_roles(const std::vector<const float*>& maps, int64_t h, const std::vector<int32_t>& ids);

}  // namespace attn
