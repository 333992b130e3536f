// The hosts the boxing planner prices collectives by: which host each world rank sits
// on and how fast a host's link to the others is. A collective whose groups span hosts
// pushes part of its bytes through every host's link, which is far slower than memory
// on a cluster (1-100 Gbit/s against tens of GB/s), so with hosts known the planner
// prefers paths that cross hosts with fewer bytes: (P, P) -> (B, B) on a grid whose
// first axis is the host becomes an intra-host reduce-scatter, an inter-host
// all-reduce of each shard and an intra-host all-gather, instead of one all-reduce
// over every rank.
//
// The runtime sets them once at start-up from the topology it found
// (tess_runtime_init; core/comm/world_topology.h), with the link speed from
// TESSERA_HOST_LINK_GBITS or measured (docs/multihost.md, "Choosing the all-reduce
// and the boxing path"). Unset (one host, or the planner used without the runtime),
// every collective is priced as on one host. Plain data, no MPI: boxing sits below
// the communication layer.
#ifndef TESSERA_CORE_BOXING_HOST_LINKS_H_
#define TESSERA_CORE_BOXING_HOST_LINKS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/status.h"

namespace tessera::boxing {

struct HostLinks {
  std::vector<int32_t> host_of;  // by world rank
  double bytes_per_second = 0;   // one host's link to the others, each direction
};

// Sets the links every later plan is priced with (nullptr: none). INVALID_ARGUMENT for
// an empty host_of, a negative host or a speed that is not a positive finite number.
// Plans cached before keep their prices: call it before planning (at start-up).
Status SetHostLinks(std::shared_ptr<const HostLinks> links);
// The links set, or nullptr. Any thread.
std::shared_ptr<const HostLinks> CurrentHostLinks();

}  // namespace tessera::boxing

#endif  // TESSERA_CORE_BOXING_HOST_LINKS_H_
