#include "core/comm/bucketed_allreduce.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#include "core/comm/comm_checks.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/shm_reduction.h"

namespace tessera::comm {
namespace {

constexpr const char* kAllReduce = "BucketedAllReducer::AllReduce";

std::string TensorField(size_t index, const char* field) {
  return "tensors[" + Str(static_cast<int64_t>(index)) + "]." + field;
}

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

Result<std::unique_ptr<BucketedAllReducer>> BucketedAllReducer::Create(
    const BucketOptions& options) {
  constexpr const char* kCreate = "BucketedAllReducer::Create";
  if (options.bucket_bytes < 1) {
    return InvalidArgument(std::string(kCreate) + ": bucket_bytes is " + Str(options.bucket_bytes) +
                           "; it must be >= 1");
  }
  const int64_t align = options.align_bytes;
  if (align < 1 || (align & (align - 1)) != 0) {
    return InvalidArgument(std::string(kCreate) + ": align_bytes is " + Str(align) +
                           "; it must be a power of two");
  }
  if (options.max_plans < 1) {
    return InvalidArgument(std::string(kCreate) + ": max_plans is " + Str(options.max_plans) +
                           "; it must be >= 1");
  }
  return std::unique_ptr<BucketedAllReducer>(new BucketedAllReducer(options));
}

Status BucketedAllReducer::Validate(const std::vector<BucketTensor>& tensors, ReduceOp op) const {
  TESS_RETURN_IF_ERROR(CheckReduceOp(kAllReduce, op));
  if (tensors.empty()) return Status::Ok();
  const DType dtype = tensors[0].dtype;
  TESS_RETURN_IF_ERROR(CheckCommDType(kAllReduce, dtype));
  TESS_RETURN_IF_ERROR(CheckReducibleDType(kAllReduce, dtype));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const BucketTensor& t = tensors[i];
    // Field names are built only on failure: this loop runs on every call.
    if (t.dtype != dtype) {
      const int value = static_cast<int>(t.dtype);
      const std::string name =
          IsValidDType(value) ? DTypeName(t.dtype) : "value " + Str(value) + " (not a dtype)";
      return InvalidArgument(std::string(kAllReduce) + ": " + TensorField(i, "dtype") + " is " +
                             name + " but tensors[0].dtype is " + DTypeName(dtype) +
                             "; all tensors must share one dtype");
    }
    if (t.count < 0) {
      return CheckCount(kAllReduce, TensorField(i, "count").c_str(), t.count, INT64_MAX);
    }
    if (t.data == nullptr && t.count > 0) {
      return CheckBuffer(kAllReduce, TensorField(i, "data").c_str(), t.data, t.count);
    }
  }
  return Status::Ok();
}

BucketedAllReducer::Plan* BucketedAllReducer::Find(const std::vector<BucketTensor>& tensors) {
  for (const std::unique_ptr<Plan>& plan : plans_) {
    if (plan->dtype != tensors[0].dtype || plan->counts.size() != tensors.size()) continue;
    bool same = true;
    for (size_t i = 0; i < tensors.size() && same; ++i) same = plan->counts[i] == tensors[i].count;
    if (same) return plan.get();
  }
  return nullptr;
}

BucketedAllReducer::Plan* BucketedAllReducer::Build(const std::vector<BucketTensor>& tensors) {
  auto plan = std::make_unique<Plan>();
  plan->dtype = tensors[0].dtype;
  const int64_t element = static_cast<int64_t>(DTypeSize(plan->dtype));
  const int64_t align = std::max<int64_t>(1, options_.align_bytes / element);
  const int64_t limit = options_.bucket_bytes / element;  // elements per bucket
  Bucket open{0, 0, 0, true};
  auto close = [&] {
    if (open.end_slot > open.first_slot) plan->buckets.push_back(open);
    open = Bucket{open.end_slot, open.end_slot, 0, true};
  };
  for (size_t i = 0; i < tensors.size(); ++i) {
    const int64_t count = tensors[i].count;
    plan->counts.push_back(count);
    if (count == 0) continue;
    const int32_t index = static_cast<int32_t>(i);
    if (count > limit) {  // its own bucket, reduced in place
      close();
      plan->slots.push_back({index, 0});
      open.end_slot++;
      open.elements = count;
      close();
      continue;
    }
    int64_t offset = RoundUp(open.elements, align);
    if (open.end_slot > open.first_slot && offset + count > limit) {
      close();
      offset = 0;
    }
    if (offset != open.elements) open.dense = false;
    plan->slots.push_back({index, offset});
    open.end_slot++;
    open.elements = offset + count;
  }
  close();

  for (const Bucket& b : plan->buckets) {
    if (b.end_slot - b.first_slot > 1) {
      plan->staging_bytes = std::max(plan->staging_bytes, b.elements * element);
      shm_pieces_.reserve(std::max<size_t>(shm_pieces_.capacity(), b.end_slot - b.first_slot));
    }
  }
  stats_.staging_bytes = std::max(stats_.staging_bytes, plan->staging_bytes);

  if (static_cast<int32_t>(plans_.size()) >= options_.max_plans) {
    auto oldest = std::min_element(plans_.begin(), plans_.end(), [](const auto& a, const auto& b) {
      return a->last_used < b->last_used;
    });
    plans_.erase(oldest);
  }
  stats_.plans_built++;
  plans_.push_back(std::move(plan));
  return plans_.back().get();
}

void BucketedAllReducer::EnsureStaging(int64_t bytes) {
  if (bytes <= staging_capacity_) return;
  // Zeroed, so alignment padding never holds uninitialised bytes.
  const int64_t align_bytes = options_.align_bytes;
  staging_storage_.reset(new unsigned char[bytes + align_bytes]());
  const uintptr_t base = reinterpret_cast<uintptr_t>(staging_storage_.get());
  staging_ = staging_storage_.get() +
             (RoundUp(static_cast<int64_t>(base), align_bytes) - static_cast<int64_t>(base));
  staging_capacity_ = bytes;
}

Status BucketedAllReducer::RunStaged(Communicator& comm, const Plan& plan, const Bucket& bucket,
                                     const std::vector<BucketTensor>& tensors, ReduceOp op) {
  const size_t element = DTypeSize(plan.dtype);
  if (bucket.dense) {
    // Back to back in memory: the bucket's message is the tensors themselves.
    const unsigned char* next =
        static_cast<const unsigned char*>(tensors[plan.slots[bucket.first_slot].tensor].data);
    bool contiguous = true;
    for (int32_t s = bucket.first_slot; s < bucket.end_slot && contiguous; ++s) {
      const BucketTensor& t = tensors[plan.slots[s].tensor];
      contiguous = t.data == next;
      next += t.count * element;
    }
    if (contiguous) {
      void* first = tensors[plan.slots[bucket.first_slot].tensor].data;
      stats_.zero_copy_buckets++;
      return comm.AllReduce(first, first, bucket.elements, plan.dtype, op);
    }
  }
  for (int32_t s = bucket.first_slot; s < bucket.end_slot; ++s) {
    const BucketTensor& t = tensors[plan.slots[s].tensor];
    std::memcpy(staging_ + plan.slots[s].offset * element, t.data, t.count * element);
  }
  TESS_RETURN_IF_ERROR(comm.AllReduce(staging_, staging_, bucket.elements, plan.dtype, op));
  for (int32_t s = bucket.first_slot; s < bucket.end_slot; ++s) {
    const BucketTensor& t = tensors[plan.slots[s].tensor];
    std::memcpy(t.data, staging_ + plan.slots[s].offset * element, t.count * element);
  }
  return Status::Ok();
}

Status BucketedAllReducer::Run(Communicator& comm, const Plan& plan,
                               const std::vector<BucketTensor>& tensors, ReduceOp op) {
  // The buckets run as one unit on `comm`: another thread's call cannot land between
  // them, nor use the shared-memory window (the communicator's) meanwhile.
  std::lock_guard<std::recursive_mutex> lock(comm.call_mutex());
  stats_.buckets = static_cast<int64_t>(plan.buckets.size());
  stats_.in_place_buckets = stats_.shared_memory_buckets = stats_.zero_copy_buckets = 0;
  // Decided from the communicator and the options only, so the same on every rank.
  ShmReduction* shm = nullptr;
  if (options_.shared_memory && plan.staging_bytes > 0 && comm.timeout_seconds() == 0 &&
      !comm.poisoned()) {
    if (auto* mpi = dynamic_cast<MpiCommunicator*>(&comm)) {
      TESS_ASSIGN_OR_RETURN(shm, ShmReduction::For(*mpi));
      if (shm != nullptr) TESS_RETURN_IF_ERROR(shm->Reserve(plan.staging_bytes));
    }
  }
  if (shm == nullptr) EnsureStaging(plan.staging_bytes);
  for (const Bucket& bucket : plan.buckets) {
    if (bucket.end_slot - bucket.first_slot == 1) {
      const BucketTensor& t = tensors[plan.slots[bucket.first_slot].tensor];
      stats_.in_place_buckets++;
      TESS_RETURN_IF_ERROR(comm.AllReduce(t.data, t.data, t.count, plan.dtype, op));
      continue;
    }
    if (shm == nullptr) {
      TESS_RETURN_IF_ERROR(RunStaged(comm, plan, bucket, tensors, op));
      continue;
    }
    // The capacity reserved at Build, so this allocates nothing.
    shm_pieces_.clear();
    for (int32_t s = bucket.first_slot; s < bucket.end_slot; ++s) {
      const BucketTensor& t = tensors[plan.slots[s].tensor];
      shm_pieces_.push_back({t.data, plan.slots[s].offset, t.count});
    }
    TESS_RETURN_IF_ERROR(shm->AllReduce(shm_pieces_, bucket.elements, plan.dtype, op));
    stats_.shared_memory_buckets++;
  }
  return Status::Ok();
}

Status BucketedAllReducer::AllReduce(Communicator& comm, const std::vector<BucketTensor>& tensors,
                                     ReduceOp op) {
  TESS_RETURN_IF_ERROR(Validate(tensors, op));
  stats_.calls++;
  if (tensors.empty()) {
    stats_.buckets = stats_.in_place_buckets = 0;
    stats_.shared_memory_buckets = stats_.zero_copy_buckets = 0;
    return Status::Ok();
  }
  Plan* plan = Find(tensors);
  if (plan == nullptr) plan = Build(tensors);
  plan->last_used = stats_.calls;
  return Run(comm, *plan, tensors, op);
}

}  // namespace tessera::comm
