#include "core/comm/world_topology.h"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "core/comm/mpi_world.h"

namespace tessera::comm {
namespace {

std::mutex find_mutex;
std::atomic<const WorldTopology*> found{nullptr};

// Every rank's string of at most `width` bytes, gathered through fixed-size slots.
Result<std::vector<std::string>> AllGatherStrings(MPI_Comm comm, std::string mine, size_t width) {
  int size = 0;
  int rc = MPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_size", rc);
  mine.resize(width, '\0');
  std::vector<char> all(width * static_cast<size_t>(size));
  rc = MPI_Allgather(mine.data(), static_cast<int>(width), MPI_CHAR, all.data(),
                     static_cast<int>(width), MPI_CHAR, comm);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Allgather", rc);
  std::vector<std::string> strings;
  for (int r = 0; r < size; ++r) {
    const char* slot = all.data() + width * static_cast<size_t>(r);
    strings.emplace_back(slot, strnlen(slot, width));
  }
  return strings;
}

// Bytes per second between the first ranks of hosts 0 and 1: the best of a few
// exchanges of kProbeBytes each way at once (MPI_Sendrecv), the same answer on every
// rank. Collective over `world`.
Result<double> MeasureHostLink(MPI_Comm world, const HostLayout& layout) {
  constexpr int kProbeBytes = 4 << 20, kRounds = 3;
  int me = 0;
  int rc = MPI_Comm_rank(world, &me);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_rank", rc);
  int first[2] = {-1, -1};  // the lowest rank of hosts 0 and 1
  for (size_t r = layout.host_of.size(); r-- > 0;) {
    if (layout.host_of[r] < 2) first[layout.host_of[r]] = static_cast<int>(r);
  }
  double best = 0;
  if (me == first[0] || me == first[1]) {
    const int peer = me == first[0] ? first[1] : first[0];
    std::vector<char> out(kProbeBytes, 1), in(kProbeBytes);
    for (int round = 0; round <= kRounds; ++round) {  // round 0 warms the connection up
      const double start = MPI_Wtime();
      rc = MPI_Sendrecv(out.data(), kProbeBytes, MPI_BYTE, peer, 0, in.data(), kProbeBytes,
                        MPI_BYTE, peer, 0, world, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return MpiError("MPI_Sendrecv", rc);
      const double seconds = MPI_Wtime() - start;
      if (round > 0 && seconds > 0) best = std::max(best, kProbeBytes / seconds);
    }
  }
  rc = MPI_Bcast(&best, 1, MPI_DOUBLE, first[0], world);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Bcast", rc);
  return best;
}

Result<std::unique_ptr<WorldTopology>> Find(MPI_Comm world, const std::string& device_label) {
  auto topology = std::make_unique<WorldTopology>();
  TESS_ASSIGN_OR_RETURN(topology->pretend_ranks_per_host, RanksPerHostFromEnv());
  TESS_ASSIGN_OR_RETURN(topology->layout,
                        DetectHostLayout(world, topology->pretend_ranks_per_host));
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  int rc = MPI_Get_processor_name(name, &length);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Get_processor_name", rc);
  TESS_ASSIGN_OR_RETURN(std::vector<std::string> names,
                        AllGatherStrings(world, std::string(name, length), MPI_MAX_PROCESSOR_NAME));
  // A host's name is its first rank's (pretend hosts share one machine's name).
  const HostLayout& layout = topology->layout;
  topology->host_names.resize(layout.host_sizes.size());
  for (size_t r = names.size(); r-- > 0;) topology->host_names[layout.host_of[r]] = names[r];
  TESS_ASSIGN_OR_RETURN(topology->rank_devices, AllGatherStrings(world, device_label, 128));
  if (layout.host_sizes.size() > 1) {
    TESS_ASSIGN_OR_RETURN(HostLinkSetting setting, HostLinkSettingFromEnv());
    const std::optional<double>& gbits = setting.gbits;
    if (setting.measure) {
      TESS_ASSIGN_OR_RETURN(topology->host_link_bytes_per_second, MeasureHostLink(world, layout));
      topology->host_link_source = "measured";
    } else {
      topology->host_link_bytes_per_second = gbits.value_or(kDefaultHostLinkGbits) * 1e9 / 8;
      topology->host_link_source = gbits.has_value() ? kHostLinkEnv : "default";
    }
  }
  return topology;
}

// "0-3", "0, 2, 4", "0-1, 5": consecutive runs as ranges.
std::string RankList(const std::vector<int32_t>& ranks) {
  std::string text;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!text.empty()) text += ", ";
    text += std::to_string(ranks[i]);
    if (j > i) text += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace

Result<HostLinkSetting> HostLinkSettingFromEnv() {
  HostLinkSetting setting;
  const char* value = std::getenv(kHostLinkEnv);
  if (value == nullptr || *value == '\0') return setting;
  if (std::string(value) == "measure") {
    setting.measure = true;
    return setting;
  }
  char* end = nullptr;
  const double gbits = std::strtod(value, &end);
  if (end == value || *end != '\0' || !std::isfinite(gbits) || gbits <= 0 || gbits > 1e6) {
    return InvalidArgument(std::string("environment variable ") + kHostLinkEnv + " is \"" + value +
                           "\"; it must be a speed in Gbit/s (> 0, at most 1e6) or \"measure\"");
  }
  setting.gbits = gbits;
  return setting;
}

Result<const WorldTopology*> FindWorldTopology(const std::string& device_label) {
  std::lock_guard<std::mutex> lock(find_mutex);
  if (const WorldTopology* t = found.load()) return t;
  if (!WorldInitialized()) {
    return FailedPrecondition("FindWorldTopology: MPI is not initialised (tess_runtime_init)");
  }
  // A private duplicate: the program's own traffic on MPI_COMM_WORLD cannot match ours.
  MPI_Comm world = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &world);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_dup", rc);
  Result<std::unique_ptr<WorldTopology>> topology = Find(world, device_label);
  MPI_Comm_free(&world);
  if (!topology.ok()) return topology.status();
  // Kept for the life of the process: MPI cannot restart, so the world never changes.
  found.store(topology->release());
  return found.load();
}

const WorldTopology* FoundWorldTopology() { return found.load(); }

std::string WorldTopologyString(const WorldTopology& topology) {
  const HostLayout& layout = topology.layout;
  const size_t hosts = layout.host_sizes.size();
  std::string text = std::to_string(layout.host_of.size()) + " rank" +
                     (layout.host_of.size() == 1 ? "" : "s") + " on " + std::to_string(hosts) +
                     " host" + (hosts == 1 ? "" : "s");
  text += topology.pretend_ranks_per_host > 0
              ? " (pretend hosts: TESSERA_RANKS_PER_HOST=" +
                    std::to_string(topology.pretend_ranks_per_host) + ")\n"
              : " (found with MPI_COMM_TYPE_SHARED)\n";
  const bool any_device = std::any_of(topology.rank_devices.begin(), topology.rank_devices.end(),
                                      [](const std::string& d) { return !d.empty(); });
  for (size_t h = 0; h < hosts; ++h) {
    std::vector<int32_t> ranks;
    for (size_t r = 0; r < layout.host_of.size(); ++r) {
      if (layout.host_of[r] == static_cast<int32_t>(h)) ranks.push_back(static_cast<int32_t>(r));
    }
    text += "host " + std::to_string(h) + " \"" + topology.host_names[h] + "\": rank" +
            (ranks.size() == 1 ? " " : "s ") + RankList(ranks) + "\n";
    if (!any_device) continue;
    for (int32_t r : ranks) {
      const std::string& device = topology.rank_devices[r];
      text += "  rank " + std::to_string(r) + ": " + (device.empty() ? "no device" : device) + "\n";
    }
  }
  if (topology.host_link_bytes_per_second > 0) {
    char speed[32];
    std::snprintf(speed, sizeof(speed), "%.3g", topology.host_link_bytes_per_second * 8 / 1e9);
    text += std::string("host links: ") + speed + " Gbit/s (" + topology.host_link_source + ")\n";
  }
  return text;
}

}  // namespace tessera::comm
