#include "core/comm/hierarchical_communicator.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/comm/comm_checks.h"
#include "core/comm/env_config.h"
#include "core/comm/mpi_world.h"
#include "core/sbp/balanced_split.h"

namespace tessera::comm {
namespace {

constexpr const char* kCreate = "HierarchicalCommunicator::Create";

Status CheckOptions(const HierarchicalOptions& options) {
  const int algorithm = static_cast<int>(options.algorithm);
  if (algorithm < 0 || algorithm > static_cast<int>(HierarchicalAlgorithm::kHostLeaders)) {
    return InvalidArgument(std::string(kCreate) + ": algorithm value " + Str(algorithm) +
                           " is not auto, flat, sharded_hosts or host_leaders");
  }
  if (options.threshold_bytes < -1) {
    return InvalidArgument(std::string(kCreate) + ": threshold_bytes is " +
                           Str(options.threshold_bytes) + "; it must be >= 0, or -1 for " +
                           kHierarchicalThresholdEnv + " or the default");
  }
  if (options.tune < -1 || options.tune > 1) {
    return InvalidArgument(std::string(kCreate) + ": tune is " + Str(options.tune) +
                           "; it must be 1 (measure), 0 (the fixed rule) or -1 (" +
                           kHierarchicalTuneEnv + ")");
  }
  if (options.ranks_per_host < 0) {
    return InvalidArgument(std::string(kCreate) + ": ranks_per_host is " +
                           Str(options.ranks_per_host) + "; it must be >= 1, or 0 for " +
                           kRanksPerHostEnv + " or the real hosts");
  }
  return Status::Ok();
}

// Wraps a communicator MPI just created for us; frees it when wrapping fails.
Result<std::unique_ptr<MpiCommunicator>> Own(MPI_Comm comm) {
  auto wrapped = MpiCommunicator::Wrap(comm, /*owned=*/true);
  if (!wrapped.ok()) MPI_Comm_free(&comm);
  return wrapped;
}

}  // namespace

const char* HierarchicalAlgorithmName(HierarchicalAlgorithm algorithm) {
  switch (algorithm) {
    case HierarchicalAlgorithm::kAuto: return "auto";
    case HierarchicalAlgorithm::kFlat: return "flat";
    case HierarchicalAlgorithm::kShardedHosts: return "sharded_hosts";
    case HierarchicalAlgorithm::kHostLeaders: return "host_leaders";
  }
  return "invalid";
}

Result<std::unique_ptr<HierarchicalCommunicator>> HierarchicalCommunicator::Create(
    const MpiCommunicator& group, const HierarchicalOptions& options) {
  // Everything that can fail locally is checked before the first collective, so a
  // bad setting fails on every rank instead of leaving the others in a split.
  TESS_RETURN_IF_ERROR(CheckOptions(options));
  int64_t threshold = options.threshold_bytes;
  if (threshold == -1) {
    TESS_ASSIGN_OR_RETURN(std::optional<int64_t> env, EnvInt64(kHierarchicalThresholdEnv, 0));
    threshold = env.value_or(kDefaultHierarchicalThresholdBytes);
  }
  int32_t ranks_per_host = options.ranks_per_host;
  if (ranks_per_host == 0) {
    TESS_ASSIGN_OR_RETURN(ranks_per_host, RanksPerHostFromEnv());
  }
  bool tune = options.tune == 1;
  if (options.tune == -1) {
    TESS_ASSIGN_OR_RETURN(std::optional<bool> env, EnvFlag(kHierarchicalTuneEnv));
    tune = env.value_or(true);
  }
  if (group.poisoned()) {
    return FailedPrecondition(std::string(kCreate) + ": the group communicator is unusable (" +
                              group.poison().message() + ")");
  }

  MPI_Comm dup = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(group.comm(), &dup);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_dup", rc);
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<MpiCommunicator> flat, Own(dup));
  const int32_t me = flat->rank();

  TESS_ASSIGN_OR_RETURN(HostLayout layout, DetectHostLayout(flat->comm(), ranks_per_host));

  MPI_Comm intra = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  rc = MPI_Comm_split(flat->comm(), layout.host_of[me], me, &intra);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_split", rc);
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<MpiCommunicator> intra_comm, Own(intra));
  rc = MPI_Comm_split(flat->comm(), layout.local_rank_of[me], layout.host_of[me], &inter);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_split", rc);
  TESS_ASSIGN_OR_RETURN(std::unique_ptr<MpiCommunicator> inter_comm, Own(inter));

  std::unique_ptr<HierarchicalCommunicator> result(
      new HierarchicalCommunicator(std::move(flat), std::move(intra_comm), std::move(inter_comm),
                                   std::move(layout), options.algorithm, threshold, tune));
  TESS_RETURN_IF_ERROR(result->SetTimeout(group.timeout_seconds()));
  return result;
}

HierarchicalCommunicator::HierarchicalCommunicator(std::unique_ptr<MpiCommunicator> flat,
                                                   std::unique_ptr<MpiCommunicator> intra,
                                                   std::unique_ptr<MpiCommunicator> inter,
                                                   HostLayout layout,
                                                   HierarchicalAlgorithm algorithm,
                                                   int64_t threshold_bytes, bool tune)
    : Communicator(flat->rank(), flat->size()),
      flat_(std::move(flat)),
      intra_(std::move(intra)),
      inter_(std::move(inter)),
      layout_(std::move(layout)),
      algorithm_(algorithm),
      threshold_bytes_(threshold_bytes),
      tune_(tune),
      shard_counts_(intra_->size(), 0) {}

int64_t HierarchicalCommunicator::max_count() const { return INT_MAX; }

Status HierarchicalCommunicator::DoSetTimeout(double seconds) {
  TESS_RETURN_IF_ERROR(flat_->SetTimeout(seconds));
  TESS_RETURN_IF_ERROR(intra_->SetTimeout(seconds));
  return inter_->SetTimeout(seconds);
}

Status HierarchicalCommunicator::Step(Status status, const MpiCommunicator& sub, const char* step) {
  if (status.ok()) return status;
  if (step != nullptr) {
    status = Status(status.code(),
                    std::string("AllReduce, hierarchical ") + step + " step: " + status.message());
  }
  if (sub.poisoned()) Poison(status);
  return status;
}

bool HierarchicalCommunicator::StaysFlat(int64_t count, DType dtype) const {
  // One host covers one real host: there every step shares one memory (header).
  const bool trivial = layout_.host_sizes.size() == 1 || layout_.max_host_size == 1;
  return trivial || count * static_cast<int64_t>(DTypeSize(dtype)) < threshold_bytes_;
}

HierarchicalAlgorithm HierarchicalCommunicator::Rule(int64_t count) const {
  if (layout_.min_host_size == 1 || count < layout_.min_host_size) {
    return HierarchicalAlgorithm::kHostLeaders;
  }
  return HierarchicalAlgorithm::kShardedHosts;
}

int HierarchicalCommunicator::Candidates(int64_t count, HierarchicalAlgorithm out[3]) const {
  int n = 0;
  out[n++] = HierarchicalAlgorithm::kFlat;
  if (Rule(count) == HierarchicalAlgorithm::kShardedHosts) {
    out[n++] = HierarchicalAlgorithm::kShardedHosts;
  }
  out[n++] = HierarchicalAlgorithm::kHostLeaders;
  return n;
}

namespace {

// floor(log2(bytes)) for bytes >= 1; 0 for 0.
int SizeClass(int64_t bytes) {
  int c = 0;
  while (bytes > 1) {
    bytes >>= 1;
    ++c;
  }
  return c;
}

}  // namespace

std::pair<int, int> HierarchicalCommunicator::TuningSlot(int64_t count, DType dtype) const {
  return {SizeClass(count * static_cast<int64_t>(DTypeSize(dtype))),
          Rule(count) == HierarchicalAlgorithm::kShardedHosts ? 1 : 0};
}

HierarchicalAlgorithm HierarchicalCommunicator::TunedAlgorithm(int64_t count, DType dtype) const {
  const auto [size_class, sharded] = TuningSlot(count, dtype);
  return tuning_[size_class][sharded].chosen;
}

Status HierarchicalCommunicator::Run(HierarchicalAlgorithm algorithm, const void* send, void* recv,
                                     int64_t count, DType dtype, ReduceOp op) {
  last_algorithm_ = algorithm;
  switch (algorithm) {
    case HierarchicalAlgorithm::kShardedHosts: return ShardedHosts(send, recv, count, dtype, op);
    case HierarchicalAlgorithm::kHostLeaders: return HostLeaders(send, recv, count, dtype, op);
    case HierarchicalAlgorithm::kAuto:
    case HierarchicalAlgorithm::kFlat: break;
  }
  last_algorithm_ = HierarchicalAlgorithm::kFlat;
  return Step(flat_->AllReduce(send, recv, count, dtype, op), *flat_, nullptr);
}

Status HierarchicalCommunicator::Trial(Tuning& tuning, const void* send, void* recv, int64_t count,
                                       DType dtype, ReduceOp op) {
  HierarchicalAlgorithm candidates[3];
  const int n = Candidates(count, candidates);
  // Round robin, so a slow spell of the machine hits every form alike.
  const int candidate = tuning.calls % n, trial = tuning.calls / n;
  const auto start = std::chrono::steady_clock::now();
  TESS_RETURN_IF_ERROR(Run(candidates[candidate], send, recv, count, dtype, op));
  tuning.seconds[candidate * kTuningTrials + trial] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (++tuning.calls < n * kTuningTrials) return Status::Ok();
  // A call is as slow as its slowest rank: agree on the MAX, so every rank decides alike.
  TESS_RETURN_IF_ERROR(Step(flat_->AllReduce(tuning.seconds, tuning.seconds, n * kTuningTrials,
                                             DType::kF64, ReduceOp::kMax),
                            *flat_, "tuning agreement"));
  double best = 0;
  for (int c = 0; c < n; ++c) {
    double fastest = tuning.seconds[c * kTuningTrials];
    for (int t = 1; t < kTuningTrials; ++t) {
      fastest = std::min(fastest, tuning.seconds[c * kTuningTrials + t]);
    }
    if (c == 0 || fastest < best) {
      best = fastest;
      tuning.chosen = candidates[c];
    }
  }
  return Status::Ok();
}

Status HierarchicalCommunicator::DoAllReduce(const void* send, void* recv, int64_t count,
                                             DType dtype, ReduceOp op) {
  if (algorithm_ != HierarchicalAlgorithm::kAuto)
    return Run(algorithm_, send, recv, count, dtype, op);
  if (StaysFlat(count, dtype))
    return Run(HierarchicalAlgorithm::kFlat, send, recv, count, dtype, op);
  if (!tune_) return Run(Rule(count), send, recv, count, dtype, op);
  const auto [size_class, sharded] = TuningSlot(count, dtype);
  Tuning& tuning = tuning_[size_class][sharded];
  if (tuning.chosen != HierarchicalAlgorithm::kAuto) {
    return Run(tuning.chosen, send, recv, count, dtype, op);
  }
  return Trial(tuning, send, recv, count, dtype, op);
}

Status HierarchicalCommunicator::ShardedHosts(const void* send, void* recv, int64_t count,
                                              DType dtype, ReduceOp op) {
  // Shards are cut for the smallest host, so every shard index exists on every host
  // and the inter-host communicator of local rank i < m spans all hosts.
  const int32_t shards = layout_.min_host_size;
  const int32_t local = intra_->rank();
  for (int32_t i = 0; i < intra_->size(); ++i) {
    shard_counts_[i] = i < shards ? BalancedRange(count, shards, i).size() : 0;
  }
  const int64_t mine = shard_counts_[local];
  const size_t bytes = static_cast<size_t>(mine) * DTypeSize(dtype);
  if (shard_.size() < bytes) shard_.resize(bytes);
  // The shard goes to scratch rather than into recv, so in-place calls (send ==
  // recv) need no special case: send is dead once the reduce-scatter is done.
  void* shard = shard_.data();
  TESS_RETURN_IF_ERROR(Step(intra_->ReduceScatterV(send, shard, shard_counts_, dtype, op), *intra_,
                            "intra-host reduce-scatter"));
  if (local < shards) {
    TESS_RETURN_IF_ERROR(
        Step(inter_->AllReduce(shard, shard, mine, dtype, op), *inter_, "inter-host all-reduce"));
  }
  return Step(intra_->AllGatherV(shard, mine, recv, shard_counts_, {}, dtype), *intra_,
              "intra-host all-gather");
}

Status HierarchicalCommunicator::HostLeaders(const void* send, void* recv, int64_t count,
                                             DType dtype, ReduceOp op) {
  TESS_RETURN_IF_ERROR(
      Step(intra_->Reduce(send, recv, count, dtype, op, 0), *intra_, "intra-host reduce"));
  if (intra_->rank() == 0) {
    TESS_RETURN_IF_ERROR(
        Step(inter_->AllReduce(recv, recv, count, dtype, op), *inter_, "leaders' all-reduce"));
  }
  return Step(intra_->Broadcast(recv, count, dtype, 0), *intra_, "intra-host broadcast");
}

Status HierarchicalCommunicator::DoReduce(const void* send, void* recv, int64_t count, DType dtype,
                                          ReduceOp op, int32_t root) {
  return Step(flat_->Reduce(send, recv, count, dtype, op, root), *flat_, nullptr);
}

Status HierarchicalCommunicator::DoReduceScatterV(const void* send, void* recv,
                                                  const std::vector<int64_t>& recv_counts,
                                                  DType dtype, ReduceOp op) {
  return Step(flat_->ReduceScatterV(send, recv, recv_counts, dtype, op), *flat_, nullptr);
}

Status HierarchicalCommunicator::DoAllGatherV(const void* send, int64_t send_count, void* recv,
                                              const std::vector<int64_t>& recv_counts,
                                              const std::vector<int64_t>& recv_displs,
                                              DType dtype) {
  return Step(flat_->AllGatherV(send, send_count, recv, recv_counts, recv_displs, dtype), *flat_,
              nullptr);
}

Status HierarchicalCommunicator::DoAllToAllV(const void* send,
                                             const std::vector<int64_t>& send_counts,
                                             const std::vector<int64_t>& send_displs, void* recv,
                                             const std::vector<int64_t>& recv_counts,
                                             const std::vector<int64_t>& recv_displs, DType dtype) {
  return Step(
      flat_->AllToAllV(send, send_counts, send_displs, recv, recv_counts, recv_displs, dtype),
      *flat_, nullptr);
}

Status HierarchicalCommunicator::DoBroadcast(void* buffer, int64_t count, DType dtype,
                                             int32_t root) {
  return Step(flat_->Broadcast(buffer, count, dtype, root), *flat_, nullptr);
}

Status HierarchicalCommunicator::DoSend(const void* buffer, int64_t count, DType dtype,
                                        int32_t peer, int32_t tag) {
  return Step(flat_->Send(buffer, count, dtype, peer, tag), *flat_, nullptr);
}

Status HierarchicalCommunicator::DoRecv(void* buffer, int64_t count, DType dtype, int32_t peer,
                                        int32_t tag) {
  return Step(flat_->Recv(buffer, count, dtype, peer, tag), *flat_, nullptr);
}

Status HierarchicalCommunicator::DoBarrier() { return Step(flat_->Barrier(), *flat_, nullptr); }

}  // namespace tessera::comm
