// head_roles.cpp — the lesson's head-role scores of attention maps (head_roles.hpp).
#include "attn/head_roles.hpp"

#include <unordered_map>

namespace attn {

int64_t add_position_weights(RoleSums* sums, const float* p, int64_t h, int64_t n) {
  for (int64_t hh = 0; hh < h; ++hh) {
    const float* m = p + hh * n * n;  // (N, N) of head hh
    RoleSums& s = sums[hh];
    for (int64_t i = 1; i < n; ++i) {
      s.previous_token += m[i * n + i - 1];
      s.diagonal += m[i * n + i];
      s.first_token += m[i * n];
    }
  }
  return n > 0 ? n - 1 : 0;
}

int64_t add_key_weights(RoleSums* sums, double RoleSums::*field, const float* p, int64_t h, int64_t n,
                        const std::vector<std::vector<int32_t>>& keys) {
  int64_t queries = 0;
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<int32_t>& ks = keys[std::size_t(i)];
    if (ks.empty()) continue;
    ++queries;
    for (int64_t hh = 0; hh < h; ++hh) {
      const float* row = p + (hh * n + i) * n;  // (N) query i of head hh
      double& s = sums[hh].*field;
      for (int32_t k : ks) s += row[k];
    }
  }
  return queries;
}

CopyKeys copy_keys(const std::vector<int32_t>& ids) {
  const std::size_t n = ids.size();
  CopyKeys c;
  c.duplicate.resize(n);
  c.induction.resize(n);
  std::unordered_map<int32_t, std::vector<int32_t>> seen;  // id -> its positions so far
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int32_t>& before = seen[ids[i]];
    for (int32_t j : before) {
      c.duplicate[i].push_back(j);
      if (std::size_t(j) + 1 < i) c.induction[i].push_back(j + 1);
    }
    if (!before.empty()) ++c.repeats;
    before.push_back(int32_t(i));
  }
  return c;
}

std::vector<HeadRoles> head_roles(const std::vector<const float*>& maps, int64_t h, const std::vector<int32_t>& ids) {
  const int64_t n = int64_t(ids.size());
  const CopyKeys c = copy_keys(ids);
  std::vector<HeadRoles> out;
  for (std::size_t l = 0; l < maps.size(); ++l) {
    std::vector<RoleSums> s(static_cast<std::size_t>(h));
    const double queries = double(add_position_weights(s.data(), maps[l], h, n));
    add_key_weights(s.data(), &RoleSums::duplicate_token, maps[l], h, n, c.duplicate);
    add_key_weights(s.data(), &RoleSums::induction, maps[l], h, n, c.induction);
    for (int64_t hh = 0; hh < h; ++hh) {
      const RoleSums& r = s[std::size_t(hh)];
      HeadRoles x{int64_t(l), hh, 0, 0, 0, std::nullopt, std::nullopt};
      if (queries > 0) x.previous_token = r.previous_token / queries, x.diagonal = r.diagonal / queries, x.first_token = r.first_token / queries;
      if (c.repeats > 0) x.duplicate_token = r.duplicate_token / double(c.repeats), x.induction = r.induction / double(c.repeats);
      out.push_back(x);
    }
  }
  return out;
}

}  // namespace attn
