// The MPI world as the multi-rank eager tests see it (after mpi_test_main's InitWorld).
#ifndef TESSERA_TESTS_EAGER_WORLD_UTIL_H_
#define TESSERA_TESTS_EAGER_WORLD_UTIL_H_

#include <cstdint>
#include <numeric>
#include <vector>

#include "core/comm/mpi_world.h"
#include "core/placement/placement.h"

namespace tessera {
namespace eager_test {

inline int WorldSize() { return comm::WorldSize().value(); }
inline int WorldRank() { return comm::WorldRank().value(); }

// cpu:[first, first + 1, ..., first + count - 1], 1-d (or cuda:... for `device`).
inline Placement RanksPlacement(int32_t first, int32_t count,
                                DeviceType device = DeviceType::kCpu) {
  std::vector<int32_t> ranks(static_cast<size_t>(count));
  std::iota(ranks.begin(), ranks.end(), first);
  return Placement::Make(device, ranks, {count}).value();
}

// Every rank of the world, 1-d.
inline Placement WorldPlacement() { return RanksPlacement(0, WorldSize()); }

}  // namespace eager_test
}  // namespace tessera

#endif  // TESSERA_TESTS_EAGER_WORLD_UTIL_H_
