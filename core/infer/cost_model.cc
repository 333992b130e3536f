#include "core/infer/cost_model.h"

namespace tessera {
namespace infer {

double PartialPenalty(double bytes, int64_t n_from, int64_t n_to) {
  if (n_from <= 1 && n_to <= 1) return 0;
  return 4.0 * bytes * static_cast<double>(n_from + n_to);
}

double SbpCopyCost(const Sbp& from, const Sbp& to, double bytes, int64_t n) {
  if (from == to || n <= 1) return 0;
  const double t = bytes;
  const double n1 = static_cast<double>(n - 1);
  if (to.is_partial()) {
    const double reduce_first = from.is_partial() ? 2 * t * n1 : 0;
    return reduce_first + PartialPenalty(t, n, n);
  }
  if (to.is_split()) {
    if (from.is_broadcast()) return 0;
    if (from.is_split()) return t * n1 / static_cast<double>(n);
    return t * n1;  // partial -> split: reduce-scatter
  }
  // to is B.
  if (from.is_split()) return t * n1;  // all-gather
  return 2 * t * n1;                   // partial -> B: all-reduce
}

double NdSbpCopyCost(const NdSbp& from, const NdSbp& to, const std::vector<int64_t>& hierarchy,
                     double bytes) {
  const int k = from.num_axes();
  if (k == 1) return SbpCopyCost(from[0], to[0], bytes, hierarchy[0]);
  NdSbp state = from;
  double cost = 0;
  for (int i = k - 1; i >= 0; --i) {
    if (state[i] == to[i] || hierarchy[i] <= 1) {
      state[i] = to[i];
      continue;
    }
    double groups = 1;
    double share = bytes;
    for (int j = 0; j < k; ++j) {
      if (j == i) continue;
      groups *= static_cast<double>(hierarchy[j]);
      if (state[j].is_split()) share /= static_cast<double>(hierarchy[j]);
    }
    cost += groups * SbpCopyCost(state[i], to[i], share, hierarchy[i]);
    state[i] = to[i];
  }
  return cost;
}

double CopyCost(const Placement& from_placement, const NdSbp& from, const Placement& to_placement,
                const NdSbp& to, double bytes) {
  if (from_placement == to_placement) {
    return NdSbpCopyCost(from, to, from_placement.hierarchy(), bytes);
  }
  double broadcast_copies = 1;
  for (int i = 0; i < to.num_axes(); ++i) {
    if (to[i].is_broadcast()) broadcast_copies *= static_cast<double>(to_placement.hierarchy()[i]);
  }
  double partial_parts = 1;
  for (int i = 0; i < from.num_axes(); ++i) {
    if (from[i].is_partial()) partial_parts *= static_cast<double>(from_placement.hierarchy()[i]);
  }
  double cost = bytes + bytes * (broadcast_copies - 1) + bytes * (partial_parts - 1);
  for (int i = 0; i < to.num_axes(); ++i) {
    if (to[i].is_partial()) {
      cost += PartialPenalty(bytes, from_placement.parallel_num(), to_placement.parallel_num());
    }
  }
  return cost;
}

}  // namespace infer
}  // namespace tessera
