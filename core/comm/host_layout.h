// Which host each rank of a communicator sits on. By default ranks that share memory
// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED) form a host: on a cluster, the
// processes of one machine. TESSERA_RANKS_PER_HOST=k instead makes world ranks
// [0, k), [k, 2k), ... pretend to be hosts, so the hierarchical paths can be tested on
// one machine: world rank r sits on pretend host r / k, and when k does not divide the
// world size the last host is smaller. Hosts are numbered by their lowest rank; local
// ranks follow rank order.
#ifndef TESSERA_CORE_COMM_HOST_LAYOUT_H_
#define TESSERA_CORE_COMM_HOST_LAYOUT_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "core/common/status.h"

namespace tessera::comm {

inline constexpr const char kRanksPerHostEnv[] = "TESSERA_RANKS_PER_HOST";

// Where a group's ranks sit. Indexed by group rank unless named otherwise.
struct HostLayout {
  std::vector<int32_t> host_of;
  std::vector<int32_t> local_rank_of;
  std::vector<int32_t> host_sizes;  // indexed by host
  int32_t min_host_size = 0;
  int32_t max_host_size = 0;
};

// The layout of ranks whose host identifiers are `host_keys` (one per group rank;
// equal keys = same host). INVALID_ARGUMENT when empty.
Result<HostLayout> HostLayoutFromKeys(const std::vector<int64_t>& host_keys);

// TESSERA_RANKS_PER_HOST: the pretend host size, or 0 when unset (real hosts).
// INVALID_ARGUMENT naming the variable and value unless it is an integer >= 1.
Result<int32_t> RanksPerHostFromEnv();

// The layout of `group`'s ranks: pretend hosts of `ranks_per_host` consecutive world
// ranks when > 0, else the hosts MPI_COMM_TYPE_SHARED finds. Collective over `group`.
Result<HostLayout> DetectHostLayout(MPI_Comm group, int32_t ranks_per_host);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_HOST_LAYOUT_H_
