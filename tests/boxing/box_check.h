// The multi-rank check shared by the Box tests on host and device memory: every rank
// derives its source piece from the closed-form logical tensor (oracle.h), boxes, and
// then all ranks gather every destination piece and rebuild the logical tensor from
// them by plain loops (for non-partial destinations each rank also compares its own
// piece with the slice). One collective per case keeps large sweeps fast on
// oversubscribed ranks.
#ifndef TESSERA_TESTS_BOXING_BOX_CHECK_H_
#define TESSERA_TESTS_BOXING_BOX_CHECK_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/placement/placement.h"
#include "core/sbp/physical_layout.h"
#include "core/sbp/sbp.h"
#include "tests/boxing/oracle.h"

namespace tessera::boxing::oracle {

inline int32_t Me() { return comm::WorldRank().value(); }

inline int64_t LocalCount(const Shape& shape, const Placement& placement, const NdSbp& nd) {
  if (!placement.contains(Me())) return 0;
  return PhysicalLayoutOfRank(shape, placement, nd, Me()).value().local_shape.num_elements();
}

// Every rank's piece of (dst_p, dst) plus one verdict element, gathered on every
// rank: `pieces[i]` for each parallel index i, and whether any rank's verdict was 1.
// One collective per case keeps the 1296-pair test fast on oversubscribed ranks.
template <typename T>
bool GatherPieces(const std::vector<T>& mine, bool failed, const Shape& shape,
                  const Placement& dst_p, const NdSbp& dst, std::vector<std::vector<T>>* pieces) {
  comm::Communicator* world = comm::MpiCommRegistry::Global().World().value();
  const int32_t n = world->size();
  std::vector<int64_t> counts(n);
  int64_t total = 0;
  for (int32_t r = 0; r < n; ++r) {
    counts[r] = 1;
    if (dst_p.contains(r)) {
      counts[r] += PhysicalLayoutOfRank(shape, dst_p, dst, r).value().local_shape.num_elements();
    }
    total += counts[r];
  }
  std::vector<T> send = mine;
  send.push_back(T(failed ? 1 : 0));
  std::vector<T> all(total);
  EXPECT_TRUE(world
                  ->AllGatherV(send.data(), counts[world->rank()], all.data(), counts, {},
                               DTypeOf<T>::value)
                  .ok());
  bool any_failed = false;
  int64_t offset = 0;
  pieces->assign(dst_p.parallel_num(), {});
  for (int32_t r = 0; r < n; ++r) {
    if (dst_p.contains(r)) {
      (*pieces)[dst_p.index_of(r)].assign(all.begin() + offset,
                                          all.begin() + offset + counts[r] - 1);
    }
    any_failed = any_failed || all[offset + counts[r] - 1] != T(0);
    offset += counts[r];
  }
  return any_failed;
}

// Boxes (src_p, src) -> (dst_p, dst) on every rank of the world with
// `box(input, output)` and checks the result; "" on success (the same verdict on every
// rank), else what went wrong. `input` is this rank's source piece (empty where it holds
// none); `output` holds the destination piece's elements plus one sentinel past them,
// which `box` must carry through untouched.
template <typename T, typename BoxFn>
std::string CheckBoxing(const Shape& shape, const Placement& src_p, const NdSbp& src,
                        const Placement& dst_p, const NdSbp& dst, BoxFn&& box) {
  const int32_t me = Me();
  const std::vector<T> logical = Logical<T>(shape);
  std::vector<T> input;
  if (src_p.contains(me)) input = LocalOf(logical, shape, src_p, src, src_p.index_of(me));
  const int64_t out_count = LocalCount(shape, dst_p, dst);
  // One sentinel element past the end catches writes beyond the local piece.
  const T kSentinel = T(12345);
  std::vector<T> output(out_count + 1, kSentinel);
  const Status status = box(input, output);
  std::string error;
  if (!status.ok()) error = "Box failed: " + status.ToString();
  if (error.empty() && output.back() != kSentinel) error = "wrote past the end of out_local";
  output.pop_back();
  bool any_partial = false;
  for (int a = 0; a < dst.num_axes(); ++a) any_partial = any_partial || dst[a].is_partial();
  if (error.empty() && dst_p.contains(me) && !any_partial) {
    const std::string e = Compare(output, LocalOf(logical, shape, dst_p, dst, dst_p.index_of(me)));
    if (!e.empty()) error = "own piece: " + e;
  }
  // Every rank rebuilds the logical tensor from all destination pieces, and sees
  // every rank's verdict, so all ranks agree.
  std::vector<std::vector<T>> pieces;
  const bool any_failed = GatherPieces(output, !error.empty(), shape, dst_p, dst, &pieces);
  if (!error.empty()) return error;
  if (any_failed) return "another rank failed";
  return Compare(Reconstruct(pieces, shape, dst_p, dst), logical);
}

}  // namespace tessera::boxing::oracle

#endif  // TESSERA_TESTS_BOXING_BOX_CHECK_H_
