#include "core/comm/host_layout.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <unordered_map>

#include "core/comm/env_config.h"
#include "core/comm/mpi_world.h"

namespace tessera::comm {
namespace {

// This rank's host identifier: its pretend host, or the lowest group rank among the
// ranks it shares memory with.
Result<int64_t> HostKey(MPI_Comm group, int32_t group_rank, int32_t ranks_per_host) {
  if (ranks_per_host > 0) {
    TESS_ASSIGN_OR_RETURN(int32_t world_rank, WorldRank());
    return int64_t{world_rank / ranks_per_host};
  }
  MPI_Comm shared = MPI_COMM_NULL;
  int rc = MPI_Comm_split_type(group, MPI_COMM_TYPE_SHARED, group_rank, MPI_INFO_NULL, &shared);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_split_type", rc);
  int leader = group_rank;  // shared rank 0 has the lowest group rank (key = group rank)
  rc = MPI_Bcast(&leader, 1, MPI_INT, 0, shared);
  MPI_Comm_free(&shared);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Bcast", rc);
  return int64_t{leader};
}

}  // namespace

Result<HostLayout> HostLayoutFromKeys(const std::vector<int64_t>& host_keys) {
  if (host_keys.empty()) return InvalidArgument("HostLayoutFromKeys: host_keys is empty");
  HostLayout layout;
  std::unordered_map<int64_t, int32_t> host_of_key;
  for (int64_t key : host_keys) {
    auto [it, added] = host_of_key.emplace(key, static_cast<int32_t>(layout.host_sizes.size()));
    if (added) layout.host_sizes.push_back(0);
    layout.host_of.push_back(it->second);
    layout.local_rank_of.push_back(layout.host_sizes[it->second]++);
  }
  layout.min_host_size = layout.max_host_size = layout.host_sizes[0];
  for (int32_t size : layout.host_sizes) {
    layout.min_host_size = std::min(layout.min_host_size, size);
    layout.max_host_size = std::max(layout.max_host_size, size);
  }
  return layout;
}

Result<int32_t> RanksPerHostFromEnv() {
  TESS_ASSIGN_OR_RETURN(std::optional<int64_t> env, EnvInt64(kRanksPerHostEnv, 1));
  return static_cast<int32_t>(std::min<int64_t>(env.value_or(0), INT32_MAX));
}

Result<HostLayout> DetectHostLayout(MPI_Comm group, int32_t ranks_per_host) {
  int rank = 0, size = 0;
  int rc = MPI_Comm_rank(group, &rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(group, &size);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_rank/size", rc);
  TESS_ASSIGN_OR_RETURN(int64_t key, HostKey(group, rank, ranks_per_host));
  std::vector<int64_t> keys(size);
  rc = MPI_Allgather(&key, 1, MPI_INT64_T, keys.data(), 1, MPI_INT64_T, group);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Allgather", rc);
  return HostLayoutFromKeys(keys);
}

}  // namespace tessera::comm
