// HierarchicalCommunicator: a Communicator over a group of ranks (the world or any
// placement's ranks) whose AllReduce goes host by host, the Horovod / Bagua way:
//
//   1. intra-host reduce-scatter: local rank i of each host gets shard i of the
//      reduction over its host;
//   2. inter-host all-reduce of shard i among the ranks with local index i (one rank
//      per host);
//   3. intra-host all-gather of the shards.
//
// Only 1/local_size of the payload crosses hosts per rank, so when links between
// hosts are the bottleneck this beats a flat all-reduce. A second form, for tiny
// payloads, is intra-host reduce to local rank 0, all-reduce among those leaders,
// intra-host broadcast. Every other collective is the flat one.
//
// Why a Communicator and not a function over communicators: boxing
// (core/boxing/box_1d.h) and BucketedAllReducer take a Communicator&, so a
// HierarchicalCommunicator plugs into them unchanged, and the per-call scratch and
// count arrays have an owner, so a warm call allocates nothing.
//
// Hosts. By default, ranks that share memory (MPI_Comm_split_type with
// MPI_COMM_TYPE_SHARED) form a host. TESSERA_RANKS_PER_HOST=k (or
// HierarchicalOptions::ranks_per_host) instead makes world ranks [0, k), [k, 2k), ...
// pretend to be hosts: world rank r sits on pretend host r / k, so when k does not
// divide the world size the last host is smaller (k = 2 on 3 ranks: hosts {0,1} and
// {2}). Hosts are numbered by their lowest group rank; local ranks follow group
// order. Hosts of unequal size work: shards are cut for the smallest host (size m),
// local ranks >= m of bigger hosts get empty shards, and the inter-host step runs
// among local ranks < m.
//
// Choosing. HierarchicalAlgorithm::kAuto is flat
//   - on one real host: every rank of the group in one MPI_COMM_TYPE_SHARED group
//     and no pretend hosts (ranks_per_host 0 and TESSERA_RANKS_PER_HOST unset).
//     Every step would then move its bytes through the same memory: there is no
//     slow link to spare, and what the sharded form wins or loses against the flat
//     all-reduce is only a different algorithm over one memory system. Measured
//     with 2 pretend hosts x 2 ranks on one 2-core machine (bench/comm, medians of
//     3 runs): 1.08x the flat time at 1 MB, 0.89x at 16 MB, 0.79x at 64 MB; an
//     earlier run, 0.95-1.8x. Where that pays, it belongs in the flat backend;
//   - whenever the hierarchy is trivial in the same way: one host (also pretend
//     hosts of at least the group's size) or one rank per host;
//   - for payloads under threshold_bytes (default kDefaultHierarchicalThresholdBytes,
//     1 MiB, or TESSERA_HIERARCHICAL_ALLREDUCE_BYTES): below it an all-reduce is
//     latency-bound and two extra intra-host steps cost more than the inter-host
//     bytes saved.
// Otherwise, by default, it measures (tuning): the first calls of each payload size
// class (bytes rounded down to a power of two) run each candidate form in turn, flat,
// sharded (when every host has several ranks and the payload at least that many
// elements) and leaders, kTuningTrials times each; then one small all-reduce (MAX over
// the ranks, so every rank sees the same numbers) gives each form's slowest rank per
// trial, and the form with the fastest such trial serves that size class from then
// on. So across hosts it is never slower than the flat all-reduce by more than the
// noise of the trials, whatever the machine: on 2 emulated hosts x 2 ranks sharing
// two cores the flat form wins (docs/multihost.md, "Benchmarks"), on 3 x 2 the
// two-level ones. Every rank makes the same calls in the same order (collectives
// must), so every rank runs the same trials and agrees at the same call. With tuning
// off (HierarchicalOptions::tune 0, or TESSERA_HIERARCHICAL_TUNE=0) it uses a fixed
// rule instead: the leader form when the smallest host has one rank or the payload
// has fewer elements than shards, else the sharded form. The other values
// force one form, whatever the hosts (so the forms can be tested and measured on
// one machine, with real or pretend hosts).
//
// Creation is collective over the group (it splits MPI communicators). The object
// owns a duplicate of the group's communicator plus its intra- and inter-host
// communicators, so SetTimeout here sets all three and leaves the group's own
// communicator alone. Timeouts (communicator.h) bound each step, so a hierarchical
// all-reduce fails after at most three of them, with an error that names the step.
#ifndef TESSERA_CORE_COMM_HIERARCHICAL_COMMUNICATOR_H_
#define TESSERA_CORE_COMM_HIERARCHICAL_COMMUNICATOR_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/host_layout.h"
#include "core/comm/mpi_communicator.h"
#include "core/common/dtype.h"
#include "core/common/status.h"

namespace tessera::comm {

inline constexpr const char kHierarchicalThresholdEnv[] = "TESSERA_HIERARCHICAL_ALLREDUCE_BYTES";
inline constexpr int64_t kDefaultHierarchicalThresholdBytes = int64_t{1} << 20;
inline constexpr const char kHierarchicalTuneEnv[] = "TESSERA_HIERARCHICAL_TUNE";
// Timed calls per candidate form and size class before kAuto decides (header).
inline constexpr int kTuningTrials = 2;

// Values are stable: append only.
enum class HierarchicalAlgorithm : int {
  kAuto = 0,
  kFlat = 1,          // one all-reduce over the whole group
  kShardedHosts = 2,  // intra reduce-scatter, inter all-reduce, intra all-gather
  kHostLeaders = 3,   // intra reduce, leaders all-reduce, intra broadcast
};

// "auto", "flat", "sharded_hosts", "host_leaders".
const char* HierarchicalAlgorithmName(HierarchicalAlgorithm algorithm);

struct HierarchicalOptions {
  HierarchicalAlgorithm algorithm = HierarchicalAlgorithm::kAuto;
  // kAuto goes hierarchical from this many bytes. -1: TESSERA_HIERARCHICAL_ALLREDUCE_BYTES,
  // or kDefaultHierarchicalThresholdBytes when that is unset.
  int64_t threshold_bytes = -1;
  // > 0: pretend hosts of this many consecutive world ranks. 0: TESSERA_RANKS_PER_HOST,
  // or the real hosts when that is unset.
  int32_t ranks_per_host = 0;
  // kAuto across hosts: 1 measures the forms per size class (header), 0 uses the fixed
  // rule, -1 TESSERA_HIERARCHICAL_TUNE (1 or unset: measure; 0: the rule).
  int32_t tune = -1;
};

class HierarchicalCommunicator final : public Communicator {
 public:
  // Collective over `group`'s members. INVALID_ARGUMENT for bad options or a bad
  // TESSERA_RANKS_PER_HOST / TESSERA_HIERARCHICAL_ALLREDUCE_BYTES (naming the
  // variable and the value). The timeout starts at `group`'s.
  static Result<std::unique_ptr<HierarchicalCommunicator>> Create(
      const MpiCommunicator& group, const HierarchicalOptions& options = {});

  const HostLayout& layout() const { return layout_; }
  int64_t threshold_bytes() const { return threshold_bytes_; }
  // The form the last AllReduce used (never kAuto); kAuto before the first.
  HierarchicalAlgorithm last_algorithm() const { return last_algorithm_; }
  bool tuning() const { return tune_; }
  // The form kAuto settled on for `count` x `dtype` payloads (their size class), or kAuto
  // while that class is still being measured (or was never called).
  HierarchicalAlgorithm TunedAlgorithm(int64_t count, DType dtype) const;

 protected:
  Status DoAllReduce(const void* send, void* recv, int64_t count, DType dtype,
                     ReduceOp op) override;
  Status DoReduce(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op,
                  int32_t root) override;
  Status DoReduceScatterV(const void* send, void* recv, const std::vector<int64_t>& recv_counts,
                          DType dtype, ReduceOp op) override;
  Status DoAllGatherV(const void* send, int64_t send_count, void* recv,
                      const std::vector<int64_t>& recv_counts,
                      const std::vector<int64_t>& recv_displs, DType dtype) override;
  Status DoAllToAllV(const void* send, const std::vector<int64_t>& send_counts,
                     const std::vector<int64_t>& send_displs, void* recv,
                     const std::vector<int64_t>& recv_counts,
                     const std::vector<int64_t>& recv_displs, DType dtype) override;
  Status DoBroadcast(void* buffer, int64_t count, DType dtype, int32_t root) override;
  Status DoSend(const void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag) override;
  Status DoRecv(void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag) override;
  Status DoBarrier() override;
  Status DoSetTimeout(double seconds) override;
  int64_t max_count() const override;

 private:
  HierarchicalCommunicator(std::unique_ptr<MpiCommunicator> flat,
                           std::unique_ptr<MpiCommunicator> intra,
                           std::unique_ptr<MpiCommunicator> inter, HostLayout layout,
                           HierarchicalAlgorithm algorithm, int64_t threshold_bytes, bool tune);

  // Per size class (floor(log2(bytes))): the trials so far and the choice once made.
  struct Tuning {
    int32_t calls = 0;                                            // trial calls made
    HierarchicalAlgorithm chosen = HierarchicalAlgorithm::kAuto;  // kAuto: still measuring
    // seconds[candidate * kTuningTrials + trial], this rank's, then the ranks' MAX.
    double seconds[3 * kTuningTrials] = {};
  };

  // The fixed rule (header) for payloads kAuto sends by host.
  HierarchicalAlgorithm Rule(int64_t count) const;
  // Whether kAuto keeps `count` x `dtype` flat without measuring: one host, one rank
  // per host, or under the threshold.
  bool StaysFlat(int64_t count, DType dtype) const;
  // The candidate forms for `count` elements, flat first; returns how many.
  int Candidates(int64_t count, HierarchicalAlgorithm out[3]) const;
  // tuning_'s index for `count` x `dtype` payloads: size class, sharded a candidate.
  std::pair<int, int> TuningSlot(int64_t count, DType dtype) const;
  Status Run(HierarchicalAlgorithm algorithm, const void* send, void* recv, int64_t count,
             DType dtype, ReduceOp op);
  // kAuto while measuring: runs the size class's next trial and, after the last, agrees
  // the choice.
  Status Trial(Tuning& tuning, const void* send, void* recv, int64_t count, DType dtype,
               ReduceOp op);
  Status ShardedHosts(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op);
  Status HostLeaders(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op);
  // Passes `status` of a step on `sub` through; when that step poisoned `sub`, this
  // communicator is poisoned too, with the step named.
  Status Step(Status status, const MpiCommunicator& sub, const char* step);

  std::unique_ptr<MpiCommunicator> flat_;   // the whole group
  std::unique_ptr<MpiCommunicator> intra_;  // this rank's host
  std::unique_ptr<MpiCommunicator> inter_;  // one rank per host: same local rank
  HostLayout layout_;
  HierarchicalAlgorithm algorithm_;
  int64_t threshold_bytes_;
  bool tune_;
  // By size class x whether the sharded form is a candidate (a class with tiny payloads
  // can hold counts both sides of min_host_size); fixed, so a call allocates nothing.
  Tuning tuning_[64][2];
  HierarchicalAlgorithm last_algorithm_ = HierarchicalAlgorithm::kAuto;
  std::vector<int64_t> shard_counts_;  // per local rank, refilled per call
  std::vector<unsigned char> shard_;   // this rank's shard; grows, never shrinks
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_HIERARCHICAL_COMMUNICATOR_H_
