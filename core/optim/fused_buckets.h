// Fused mode of Optimizer (optimizer.h states the behaviour): flat buckets of
// parameters, gradients and state; gradient hooks that fill them and start each
// bucket's all-reduce; one update kernel call per bucket. Internal to core/optim.
#ifndef TESSERA_CORE_OPTIM_FUSED_BUCKETS_H_
#define TESSERA_CORE_OPTIM_FUSED_BUCKETS_H_

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "core/autograd/variable.h"
#include "core/comm/mpi_communicator.h"
#include "core/common/status.h"
#include "core/kernel/kernel.h"
#include "core/optim/optimizer.h"
#include "core/optim/options.h"

namespace tessera {
namespace optim {

class FusedBuckets : public std::enable_shared_from_this<FusedBuckets> {
 public:
  // Packs `params` (already checked by Optimizer::Create) into buckets, rebinds each to a
  // view of its bucket and adds a hook to each. `steps` (one count per parameter) is
  // the optimizer's and outlives this object's use of it.
  static Result<std::shared_ptr<FusedBuckets>> Create(
      const std::vector<autograd::Variable*>& params, const OptimizerOptions& options,
      std::vector<int64_t>* steps);
  ~FusedBuckets();

  Status Step();
  Status ZeroGrad();
  void SetLr(double lr) { options_.lr = lr; }
  OverlapStats stats() const;

 private:
  using Clock = std::chrono::steady_clock;

  struct Slot {
    int param = 0;
    int64_t offset = 0;  // elements into the bucket's arrays (this rank's pieces)
    int64_t count = 0;   // this rank's elements of the parameter
    bool arrived = false;
  };
  struct Bucket {
    // Empty, for parameters like `t`.
    explicit Bucket(const tensor::GlobalTensor& t)
        : dtype(t.dtype()),
          placement(t.placement()),
          nd_sbp(t.nd_sbp()),
          has_local(t.has_local()) {}

    DType dtype;
    Placement placement;
    NdSbp nd_sbp;  // the parameters'
    bool has_local = false;
    std::vector<Slot> slots;
    int64_t logical_bytes = 0;
    int64_t elements = 0;
    // arrays[0] parameters, [1] gradients; shared with the parameters' views, which
    // keep them alive.
    std::shared_ptr<std::vector<std::vector<double>>> arrays;
    // The range of the bucket this rank updates: all of it, or with ZeRO-1 its slice
    // (shard_counts[r] == hi - lo elements for every rank r of the group, in group
    // order, the bucket padded to their sum; hi may pass `elements`). The state covers
    // exactly that range; it is made on the first update. shard_grads receives the
    // slice's reduce-scatter.
    int64_t lo = 0, hi = 0;
    bool sharded = false;
    std::vector<int64_t> shard_counts;
    std::vector<double> shard_grads;
    std::vector<std::vector<double>> states;
    // The current round (gradients since the last reduction, Step or ZeroGrad):
    int arrived = 0;
    bool layout_decided = false;  // grad_sbp and comm set from the round's first gradient
    NdSbp grad_sbp;               // the parameters' nd-sbp with P(sum) on the axes to reduce
    bool needs_reduce = false;
    comm::MpiCommunicator* comm = nullptr;
    MPI_Request request = MPI_REQUEST_NULL;
    bool in_flight = false;
    bool reduced = false;  // the round's gradients are final (reduced, or needed none)
    Clock::time_point started;
  };

  FusedBuckets(const std::vector<autograd::Variable*>& params, const OptimizerOptions& options,
               std::vector<int64_t>* steps)
      : params_(params), options_(options), steps_(steps) {}

  Status Pack();
  struct Hook;
  void AddHooks();
  // Takes this object's hooks off the parameters' records (the destructor).
  void RemoveHooks();
  void OnGradReady(int param, const tensor::Tensor& grad);
  Status Arrive(int param, const tensor::Tensor& grad);
  Status DecideLayout(Bucket& b, const tensor::Tensor& grad);
  // MPI_Test on every bucket in flight.
  Status Progress();
  Status ProgressLocked();  // with mu_ held
  void ProgressLoop();      // the progress thread
  Status TakeError();
  // Waits for `b`'s all-reduce; `in_step` counts the wait as Step's.
  Status Finish(Bucket& b, bool in_step);
  void ResetRound(Bucket& b);
  Status Update(Bucket& b);
  Status Reduce(Bucket& b);
  Status EnsureStates(Bucket& b);
  Status RunKernel(Bucket& b, int64_t offset, int64_t count, int64_t step);
  unsigned char* Array(Bucket& b, int which, int64_t offset) const;

  std::vector<autograd::Variable*> params_;
  // The parameters' records, held so the hooks can be removed even after a Variable
  // object itself is gone.
  std::vector<std::shared_ptr<autograd::AutogradMeta>> metas_;
  OptimizerOptions options_;
  std::vector<int64_t>* steps_;
  int32_t world_rank_ = 0;
  const op::OpDef* def_ = nullptr;
  kernels::KernelFn kernel_ = nullptr;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<int, int>> where_;  // per parameter: (bucket, slot)
  // Between the calling thread and the progress thread (progress_thread option): mu_
  // guards every bucket's in_flight / request / reduced / started while in flight, the
  // counts and stats below and the errors. The calling thread touches a bucket in
  // flight only through Finish and Progress, which take it.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int in_flight_count_ = 0;
  bool stop_ = false;
  std::thread progress_;
  Status error_;         // the first hook failure, for Step
  Status thread_error_;  // the progress thread's first failure
  OverlapStats stats_;
};

}  // namespace optim
}  // namespace tessera

#endif  // TESSERA_CORE_OPTIM_FUSED_BUCKETS_H_
