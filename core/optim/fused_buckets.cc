#include "core/optim/fused_buckets.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_world.h"
#include "core/kernel/kernel_providers.h"
#include "core/kernel/kernel_registry.h"
#include "core/op/op_registry.h"
#include "core/tensor/global_cast.h"

namespace tessera {
namespace optim {
namespace {

using autograd::Variable;
using tensor::Tensor;

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

bool SameKey(const tensor::GlobalTensor& t, DType dtype, const Placement& placement,
             const NdSbp& nd_sbp) {
  return t.dtype() == dtype && t.placement() == placement && t.nd_sbp() == nd_sbp;
}

}  // namespace

Result<std::shared_ptr<FusedBuckets>> FusedBuckets::Create(const std::vector<Variable*>& params,
                                                           const OptimizerOptions& options,
                                                           std::vector<int64_t>* steps) {
  std::shared_ptr<FusedBuckets> f(new FusedBuckets(params, options, steps));
  TESS_ASSIGN_OR_RETURN(f->world_rank_, comm::WorldRank());
  TESS_ASSIGN_OR_RETURN(f->def_, op::OpRegistry::Global().Find(UpdateOpName(options.algorithm)));
  f->kernel_ = kernels::LinkedKernels().Find(f->def_->name(), kernels::Device::kCpu);
  if (f->kernel_ == nullptr) {
    return FailedPrecondition("Optimizer (fused): no cpu kernel for " + f->def_->name() +
                              " is linked (link //kernels/builtin)");
  }
  if (options.progress_thread && comm::ThreadLevel() != MPI_THREAD_MULTIPLE) {
    return FailedPrecondition(
        "OptimizerOptions: progress_thread is true but MPI provides thread level " +
        std::to_string(comm::ThreadLevel()) + ", not MPI_THREAD_MULTIPLE");
  }
  // Nothing fails after Pack, which rebinds the parameters.
  TESS_RETURN_IF_ERROR(f->Pack());
  f->AddHooks();
  if (options.progress_thread) {
    f->progress_ = std::thread([raw = f.get()] { raw->ProgressLoop(); });
  }
  return f;
}

// The helper thread: while an all-reduce is in flight, MPI_Test every bucket in flight
// about every 50 us (releasing the lock in between, so hooks and Step get in).
void FusedBuckets::ProgressLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (in_flight_count_ == 0) {
      cv_.wait(lock);
      continue;
    }
    Status s = ProgressLocked();
    if (!s.ok() && thread_error_.ok()) thread_error_ = s;
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    lock.lock();
  }
}

FusedBuckets::~FusedBuckets() {
  RemoveHooks();
  if (progress_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    progress_.join();
  }
  // An all-reduce still in flight would write into arrays about to be freed: finish it
  // (a timed-out one is abandoned; its arrays are then leaked, never freed under MPI).
  for (Bucket& b : buckets_) {
    if (b.in_flight && !b.comm->Wait(&b.request).ok()) {
      new std::shared_ptr<std::vector<std::vector<double>>>(b.arrays);  // leaked by design
    }
  }
}

// Parameters from the last back, each into the newest bucket of its (dtype, placement,
// nd-sbp) while that stays within bucket_bytes (a bucket always takes its first one).
Status FusedBuckets::Pack() {
  where_.assign(params_.size(), {-1, -1});
  for (int i = static_cast<int>(params_.size()) - 1; i >= 0; --i) {
    const tensor::GlobalTensor& t = *params_[i]->value;
    if (t.placement().device_type() != DeviceType::kCpu) {
      return Unimplemented("Optimizer: parameter " + std::to_string(i) + " (" +
                           t.meta().ToString() +
                           ") is not on a cpu placement; fused mode packs host memory only, "
                           "use per-tensor mode (fused = false)");
    }
    const int64_t bytes = t.shape().num_elements() * static_cast<int64_t>(DTypeSize(t.dtype()));
    // The newest bucket of this key, if the parameter still fits; else a new one.
    int target = -1;
    for (int k = static_cast<int>(buckets_.size()) - 1; k >= 0; --k) {
      const Bucket& b = buckets_[k];
      if (SameKey(t, b.dtype, b.placement, b.nd_sbp)) {
        if (b.logical_bytes + bytes <= options_.bucket_bytes) target = k;
        break;
      }
    }
    if (target < 0) {
      buckets_.emplace_back(t);
      target = static_cast<int>(buckets_.size()) - 1;
    }
    Bucket& b = buckets_[target];
    Slot slot;
    slot.param = i;
    slot.offset = b.elements;
    slot.count = t.has_local() ? t.local_shape().num_elements() : 0;
    where_[i] = {target, static_cast<int>(b.slots.size())};
    b.slots.push_back(slot);
    b.elements += slot.count;
    b.logical_bytes += bytes;
  }
  // Storage, the parameters' values copied in, and the parameters rebound to views.
  for (Bucket& b : buckets_) {
    // Room for ZeRO-1's padding: equal blocks over at most parallel_num() ranks.
    const int64_t capacity = b.elements + b.placement.parallel_num();
    const size_t words = static_cast<size_t>((capacity * DTypeSize(b.dtype) + 7) / 8);
    b.arrays =
        std::make_shared<std::vector<std::vector<double>>>(2, std::vector<double>(words, 0.0));
    b.hi = b.elements;
    for (const Slot& s : b.slots) {
      Variable& p = *params_[s.param];
      unsigned char* data = Array(b, 0, s.offset);
      TESS_RETURN_IF_ERROR(p.value->CopyLocalToHost(data));
      TESS_ASSIGN_OR_RETURN(
          auto view, tensor::GlobalTensor::View(p.value->meta(), world_rank_, data, b.arrays));
      p.value = std::move(view);
    }
  }
  stats_.buckets = static_cast<int64_t>(buckets_.size());
  return Status::Ok();
}

// The hook each parameter gets; a named type, so the destructor can find and remove
// exactly the hooks of its own object (std::function::target).
struct FusedBuckets::Hook {
  std::weak_ptr<FusedBuckets> weak;
  const FusedBuckets* owner;
  int param;
  void operator()(const Tensor& grad) const {
    if (std::shared_ptr<FusedBuckets> self = weak.lock()) self->OnGradReady(param, grad);
  }
};

void FusedBuckets::AddHooks() {
  for (size_t i = 0; i < params_.size(); ++i) {
    metas_.push_back(params_[i]->meta);
    metas_.back()->hooks.push_back(Hook{weak_from_this(), this, static_cast<int>(i)});
  }
}

void FusedBuckets::RemoveHooks() {
  for (const std::shared_ptr<autograd::AutogradMeta>& meta : metas_) {
    std::vector<autograd::GradReadyHook>& hooks = meta->hooks;
    hooks.erase(std::remove_if(hooks.begin(), hooks.end(),
                               [this](const autograd::GradReadyHook& h) {
                                 const Hook* mine = h.target<Hook>();
                                 return mine != nullptr && mine->owner == this;
                               }),
                hooks.end());
  }
}

unsigned char* FusedBuckets::Array(Bucket& b, int which, int64_t offset) const {
  return reinterpret_cast<unsigned char*>((*b.arrays)[which].data()) +
         offset * static_cast<int64_t>(DTypeSize(b.dtype));
}

void FusedBuckets::OnGradReady(int param, const Tensor& grad) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.ok()) return;
  }
  Status s = Arrive(param, grad);
  if (!s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = Status(s.code(), "Optimizer (fused) gradient hook of parameter " +
                                  std::to_string(param) + ": " + s.message());
  }
}

// The round's layout: the parameters' nd-sbp, with P(sum) on every axis where the
// first gradient is P(sum) and the parameters are B (the data-parallel axes, reduced
// by the bucket's all-reduce); the communicator of those axes' ranks.
Status FusedBuckets::DecideLayout(Bucket& b, const Tensor& grad) {
  b.grad_sbp = b.nd_sbp;
  b.needs_reduce = false;
  b.sharded = false;
  b.lo = 0;
  b.hi = b.elements;
  std::vector<bool> reduce(b.nd_sbp.num_axes(), false);
  if (grad->placement() == b.placement && grad->nd_sbp().num_axes() == b.nd_sbp.num_axes()) {
    for (int a = 0; a < b.nd_sbp.num_axes(); ++a) {
      if (grad->nd_sbp()[a] == Sbp::PartialSum() && b.nd_sbp[a].is_broadcast()) {
        b.grad_sbp[a] = Sbp::PartialSum();
        reduce[a] = true;
        b.needs_reduce = true;
      }
    }
  }
  b.layout_decided = true;
  if (!b.needs_reduce || !b.has_local) return Status::Ok();
  // This rank's group: the ranks that share its coordinates on every axis not reduced.
  const int64_t me = b.placement.index_of(world_rank_);
  std::vector<int32_t> group;
  for (int64_t j = 0; j < b.placement.parallel_num(); ++j) {
    bool same = true;
    for (int a = 0; a < b.placement.num_axes(); ++a) {
      if (!reduce[a] && b.placement.Coordinate(j, a) != b.placement.Coordinate(me, a)) same = false;
    }
    if (same) group.push_back(b.placement.rank_at(j));
  }
  TESS_ASSIGN_OR_RETURN(b.comm, comm::MpiCommRegistry::Global().ForRanks(group));
  if (options_.zero1) {
    // Equal slices of the bucket padded to a multiple of the group size (the padding,
    // zeros, lies in the arrays' spare room), in group order.
    const int64_t n = b.comm->size();
    const int64_t shard = (b.elements + n - 1) / n;
    b.shard_counts.assign(n, shard);
    b.lo = b.comm->rank() * shard;
    b.hi = b.lo + shard;
    b.shard_grads.assign(static_cast<size_t>((shard * DTypeSize(b.dtype) + 7) / 8), 0.0);
    b.sharded = true;
  }
  return Status::Ok();
}

Status FusedBuckets::Arrive(int param, const Tensor& grad) {
  Bucket& b = buckets_[where_[param].first];
  Slot& slot = b.slots[where_[param].second];
  // A gradient arriving again (accumulation) or into a finished round starts a new one.
  TESS_RETURN_IF_ERROR(Finish(b, /*in_step=*/false));
  if (b.reduced) ResetRound(b);
  if (!b.layout_decided) TESS_RETURN_IF_ERROR(DecideLayout(b, grad));
  Tensor g = grad;
  if (g->placement() != b.placement || g->nd_sbp() != b.grad_sbp) {
    TESS_ASSIGN_OR_RETURN(g, tensor::ToGlobal(g, b.placement, b.grad_sbp));
  }
  if (b.has_local) {
    const int64_t bytes = slot.count * static_cast<int64_t>(DTypeSize(b.dtype));
    if (g->local_bytes() != bytes || g->dtype() != b.dtype) {
      return Internal("gradient piece " + g->meta().ToString() + " holds " +
                      std::to_string(g->local_bytes()) + " bytes; the bucket slot holds " +
                      std::to_string(bytes));
    }
    TESS_RETURN_IF_ERROR(g->CopyLocalToHost(Array(b, 1, slot.offset)));
  }
  if (!slot.arrived) {
    slot.arrived = true;
    ++b.arrived;
  }
  if (b.arrived == static_cast<int>(b.slots.size())) {
    if (b.needs_reduce && b.has_local) {
      std::lock_guard<std::mutex> lock(mu_);
      if (b.sharded) {
        TESS_RETURN_IF_ERROR(b.comm->IReduceScatterBlock(Array(b, 1, 0), b.shard_grads.data(),
                                                         b.hi - b.lo, b.dtype, comm::ReduceOp::kSum,
                                                         &b.request));
      } else {
        TESS_RETURN_IF_ERROR(b.comm->IAllReduce(Array(b, 1, 0), b.elements, b.dtype,
                                                comm::ReduceOp::kSum, &b.request));
      }
      b.in_flight = true;
      b.started = Clock::now();
      ++stats_.started_in_backward;
      ++in_flight_count_;
      cv_.notify_one();
    } else {
      b.reduced = true;
    }
  }
  return Progress();
}

Status FusedBuckets::Progress() {
  std::lock_guard<std::mutex> lock(mu_);
  return ProgressLocked();
}

Status FusedBuckets::ProgressLocked() {
  for (Bucket& b : buckets_) {
    if (!b.in_flight) continue;
    bool done = false;
    TESS_RETURN_IF_ERROR(b.comm->Test(&b.request, &done));
    if (done) {
      b.in_flight = false;
      --in_flight_count_;
      b.reduced = true;
      stats_.in_flight_seconds += Seconds(Clock::now() - b.started);
    }
  }
  return Status::Ok();
}

Status FusedBuckets::Finish(Bucket& b, bool in_step) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!b.in_flight) return Status::Ok();
  const Clock::time_point t0 = Clock::now();
  b.in_flight = false;
  --in_flight_count_;
  TESS_RETURN_IF_ERROR(b.comm->Wait(&b.request));
  const Clock::time_point t1 = Clock::now();
  if (in_step) stats_.step_wait_seconds += Seconds(t1 - t0);
  stats_.in_flight_seconds += Seconds(t1 - b.started);
  b.reduced = true;
  return Status::Ok();
}

void FusedBuckets::ResetRound(Bucket& b) {
  for (Slot& s : b.slots) s.arrived = false;
  b.arrived = 0;
  b.layout_decided = false;
  b.reduced = false;
}

OverlapStats FusedBuckets::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

// The first error of a hook or of the progress thread, cleared.
Status FusedBuckets::TakeError() {
  std::lock_guard<std::mutex> lock(mu_);
  Status e = !error_.ok() ? error_ : thread_error_;
  error_ = Status::Ok();
  thread_error_ = Status::Ok();
  return e;
}

Status FusedBuckets::Step() {
  TESS_RETURN_IF_ERROR(TakeError());
  for (Bucket& b : buckets_) TESS_RETURN_IF_ERROR(Finish(b, /*in_step=*/true));
  for (Bucket& b : buckets_) TESS_RETURN_IF_ERROR(Update(b));
  return Status::Ok();
}

// An incomplete round's gradients made final in Step (the absent slices zeroed first):
// all-reduced, or with ZeRO-1 reduce-scattered into this rank's slice.
Status FusedBuckets::Reduce(Bucket& b) {
  for (const Slot& s : b.slots) {
    if (!s.arrived) std::memset(Array(b, 1, s.offset), 0, s.count * DTypeSize(b.dtype));
  }
  if (b.needs_reduce && b.has_local) {
    unsigned char* grads = Array(b, 1, 0);
    if (b.sharded) {
      TESS_RETURN_IF_ERROR(b.comm->ReduceScatterV(grads, b.shard_grads.data(), b.shard_counts,
                                                  b.dtype, comm::ReduceOp::kSum));
    } else {
      TESS_RETURN_IF_ERROR(
          b.comm->AllReduce(grads, grads, b.elements, b.dtype, comm::ReduceOp::kSum));
    }
    ++stats_.run_in_step;
  }
  b.reduced = true;
  return Status::Ok();
}

Status FusedBuckets::EnsureStates(Bucket& b) {
  const size_t words = static_cast<size_t>(((b.hi - b.lo) * DTypeSize(b.dtype) + 7) / 8);
  if (b.states.empty()) {
    b.states.assign(NumStates(options_.algorithm), std::vector<double>(words, 0.0));
    stats_.state_bytes += static_cast<int64_t>(b.states.size() * words * 8);
  } else if (b.states[0].size() != words) {
    return FailedPrecondition(
        "Optimizer (fused): a bucket's gradients changed layout between steps (its state covers " +
        std::to_string(b.states[0].size() * 8) + " bytes, the new slice " +
        std::to_string(words * 8) + ")");
  }
  return Status::Ok();
}

// Updates this rank's range of the bucket: one kernel call when every parameter has a
// gradient and the same step count, else one per parameter that has one (its part of
// the range); with ZeRO-1 the slices are then all-gathered into every rank's bucket.
Status FusedBuckets::Update(Bucket& b) {
  if (b.arrived == 0) return Status::Ok();
  if (!b.reduced) TESS_RETURN_IF_ERROR(Reduce(b));
  TESS_RETURN_IF_ERROR(EnsureStates(b));
  // ZeRO-1: this rank's reduced slice, into place for the kernel. The range stops at
  // the bucket's end: the padding beyond it is never updated.
  const int64_t end = std::min(b.hi, b.elements);
  if (b.sharded && end > b.lo) {
    std::memcpy(Array(b, 1, b.lo), b.shard_grads.data(), (end - b.lo) * DTypeSize(b.dtype));
  }
  bool uniform = b.arrived == static_cast<int>(b.slots.size());
  for (const Slot& s : b.slots) {
    uniform = uniform && (*steps_)[s.param] == (*steps_)[b.slots[0].param];
  }
  if (uniform) {
    if (end > b.lo) {
      TESS_RETURN_IF_ERROR(RunKernel(b, b.lo, end - b.lo, (*steps_)[b.slots[0].param] + 1));
    }
  } else {
    for (const Slot& s : b.slots) {
      const int64_t from = std::max(s.offset, b.lo), to = std::min(s.offset + s.count, b.hi);
      if (s.arrived && to > from) {
        TESS_RETURN_IF_ERROR(RunKernel(b, from, to - from, (*steps_)[s.param] + 1));
      }
    }
  }
  if (b.sharded) {
    unsigned char* params = Array(b, 0, 0);
    TESS_RETURN_IF_ERROR(
        b.comm->AllGatherV(Array(b, 0, b.lo), b.hi - b.lo, params, b.shard_counts, {}, b.dtype));
  }
  for (const Slot& s : b.slots) {
    if (s.arrived) ++(*steps_)[s.param];
  }
  return Status::Ok();
}

// The update op's kernel over `count` elements from `offset` of every array, outputs
// aliasing inputs (kernels/common/optim_math.h allows it).
Status FusedBuckets::RunKernel(Bucket& b, int64_t offset, int64_t count, int64_t step) {
  if (!b.has_local || count == 0) return Status::Ok();
  const int num_arrays = 2 + static_cast<int>(b.states.size());
  const Shape shape{count};
  kernels::LocalTensor ins[4], outs[3];
  for (int a = 0; a < 2; ++a) ins[a] = {Array(b, a, offset), shape, b.dtype};
  for (int a = 2; a < num_arrays; ++a) {
    ins[a] = {reinterpret_cast<unsigned char*>(b.states[a - 2].data()) +
                  (offset - b.lo) * static_cast<int64_t>(DTypeSize(b.dtype)),
              shape, b.dtype};
  }
  outs[0] = ins[0];
  for (int a = 2; a < num_arrays; ++a) outs[a - 1] = ins[a];
  const op::AttrMap attrs = UpdateAttrs(options_, step);
  kernels::KernelContext ctx{def_, &attrs, ins, num_arrays, outs, num_arrays - 1, nullptr};
  return kernel_(ctx);
}

Status FusedBuckets::ZeroGrad() {
  Status first;
  for (Bucket& b : buckets_) {
    Status s = Finish(b, /*in_step=*/false);
    if (first.ok() && !s.ok()) first = s;
    ResetRound(b);
  }
  Status hook_error = TakeError();
  return first.ok() ? hook_error : first;
}

}  // namespace optim
}  // namespace tessera
