// The copy-cost model: estimated bytes moved, summed over all ranks, to turn a tensor
// of T logical bytes from one placed nd-sbp into another. One model serves 1-d and
// N-d placements; on a 1-d placement of n ranks it is OneFlow's table
// (reference/oneflow-notes.md section 2):
//
//   equal                    0
//   B -> S(i)                0            (each rank slices its own copy)
//   S(i) -> S(j)             T(n-1)/n     (all-to-all)
//   P* -> S, S -> B          T(n-1)       (reduce-scatter, all-gather)
//   P* -> B                  2T(n-1)      (all-reduce)
//   X -> P* (X != that P*)   Penalty = 4T(n+n), plus 2T(n-1) first when X is a
//                            different partial kind (it must be reduced)
//
// where P* is any of P, P(max), P(min). The penalty charges a consumer that accepts a
// partial value: no bytes move now, but someone must reduce it later. n = 1 costs 0.
//
// N-d, same placement: the boxing is modelled as one 1-d step per differing hierarchy
// axis, last axis first (the order OneFlow's generic N-d boxing uses). The step on
// axis i runs inside each of the prod_{j != i} h_j groups along that axis, on the
// group's share of the tensor, T / prod{h_j : j != i, axis j currently split}, and
// costs the 1-d table for h_i ranks. On a 1-d placement, or one whose other axes have
// size 1, this is exactly the table above.
//
// Different placements (never inside inference: mixed input placements are an
// error; the boxing planner uses it):
//   T + T(prod of the target's B axes - 1) + T(prod of the source's P axes - 1)
//     + Penalty per target P axis
// which on 1-d placements is OneFlow's T + [B]T(n_c-1) + [P]T(n_p-1) + [P]Penalty.
#ifndef TESSERA_CORE_INFER_COST_MODEL_H_
#define TESSERA_CORE_INFER_COST_MODEL_H_

#include <cstdint>
#include <vector>

#include "core/placement/placement.h"
#include "core/sbp/sbp.h"

namespace tessera {
namespace infer {

// 4T(n_from + n_to) (OneFlow's default penalty policy); 0 when both are 1 rank.
double PartialPenalty(double bytes, int64_t n_from, int64_t n_to);

// One placement axis of n ranks.
double SbpCopyCost(const Sbp& from, const Sbp& to, double bytes, int64_t n);

// Same placement, hierarchy `hierarchy` (from.num_axes() == to.num_axes() ==
// hierarchy.size()).
double NdSbpCopyCost(const NdSbp& from, const NdSbp& to, const std::vector<int64_t>& hierarchy,
                     double bytes);

// Any two placed nd-sbps.
double CopyCost(const Placement& from_placement, const NdSbp& from, const Placement& to_placement,
                const NdSbp& to, double bytes);

}  // namespace infer
}  // namespace tessera

#endif  // TESSERA_CORE_INFER_COST_MODEL_H_
