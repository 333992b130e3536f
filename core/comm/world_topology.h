// The world's hosts as the runtime found them when it started: which host each rank sits
// on, the hosts' names and, per rank, the accelerator it drives. tess_runtime_init finds
// it once (a few small collectives over a private duplicate of MPI_COMM_WORLD) so that
// asking for it later is local: any rank may print it, alone.
#ifndef TESSERA_CORE_COMM_WORLD_TOPOLOGY_H_
#define TESSERA_CORE_COMM_WORLD_TOPOLOGY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/host_layout.h"
#include "core/common/status.h"

namespace tessera::comm {

struct WorldTopology {
  HostLayout layout;                      // indexed by world rank
  std::vector<std::string> host_names;    // by host: MPI_Get_processor_name of its first rank
  std::vector<std::string> rank_devices;  // by world rank: what it drives, "" for nothing
  // TESSERA_RANKS_PER_HOST when it made the hosts (pretend hosts), else 0: the hosts are
  // the ones MPI_COMM_TYPE_SHARED found.
  int32_t pretend_ranks_per_host = 0;
  // With several hosts: the speed of a host's link to the others, one direction, in
  // bytes per second, from TESSERA_HOST_LINK_GBITS (a number of Gbit/s, or "measure":
  // timed exchanges between the first ranks of hosts 0 and 1 at start-up), else
  // kDefaultHostLinkGbits. 0 with one host. The boxing planner prices by it.
  double host_link_bytes_per_second = 0;
  std::string host_link_source;  // "TESSERA_HOST_LINK_GBITS", "measured" or "default"
};

inline constexpr const char kHostLinkEnv[] = "TESSERA_HOST_LINK_GBITS";
// A common cluster network (10 Gbit/s Ethernet) when nothing says otherwise.
inline constexpr double kDefaultHostLinkGbits = 10;

// TESSERA_HOST_LINK_GBITS as set: `measure` true for "measure", else `gbits` (empty
// when unset). INVALID_ARGUMENT naming the variable and value unless a number of Gbit/s
// > 0 and at most 1e6, or "measure".
struct HostLinkSetting {
  bool measure = false;
  std::optional<double> gbits;
};
Result<HostLinkSetting> HostLinkSettingFromEnv();

// Finds the topology. Collective over the world: every rank calls it, passing a label of
// the device it drives ("cuda:0 pci 0000:3b:00.0"; "" for none). The first successful
// call finds it, later ones return the same (the label is then ignored).
// FAILED_PRECONDITION before InitWorld; INVALID_ARGUMENT for a bad TESSERA_RANKS_PER_HOST.
Result<const WorldTopology*> FindWorldTopology(const std::string& device_label);

// The topology found, or nullptr before the first FindWorldTopology. Any thread.
const WorldTopology* FoundWorldTopology();

// The text form, one line for the world and one per host:
//   4 ranks on 2 hosts (found with MPI_COMM_TYPE_SHARED)
//   host 0 "node1": ranks 0-1
//   host 1 "node2": ranks 2-3
//   host links: 10 Gbit/s (default)
// with each rank's device after the host's ranks when any rank drives one, and the last
// line only with several hosts.
std::string WorldTopologyString(const WorldTopology& topology);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_WORLD_TOPOLOGY_H_
