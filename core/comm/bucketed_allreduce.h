// BucketedAllReducer: all-reduces many tensors of one dtype (data-parallel
// gradients) with few collectives, by flattening them into contiguous buckets
// (Horovod's tensor fusion, PyTorch DDP's and Bagua's buckets).
//
// Plan. Tensors are taken in list order and packed greedily into buckets of at
// most bucket_bytes (default 25 MiB, DDP's). Inside a bucket each tensor starts at
// an offset aligned to align_bytes (default 64: a cache line, so no two tensors
// share one and each slice starts on a vector-load boundary; the padding is at most
// 60 bytes per tensor and rides along in the all-reduce). A tensor larger than
// bucket_bytes, or alone in its bucket, is all-reduced in place, without a copy.
// Empty tensors are skipped. Buckets are reduced in bucket order.
//
// Paths of a bucket of several tensors:
// - Shared memory (ShmReduction), when the communicator is an MpiCommunicator
//   without a timeout whose ranks all share one node and options.shared_memory is
//   set: the tensors are the pieces of one ShmReduction::AllReduce, with no
//   staging buffer and no MPI collective.
// - Otherwise one Communicator::AllReduce per bucket (so a HierarchicalCommunicator
//   works too): through a private staging buffer, or, when the bucket has no
//   alignment padding and this rank's tensors already lie back to back in memory,
//   in place on them. Either way the message has the same layout and count, so
//   ranks may differ in which of these two they take.
// Shared memory or MPI is decided from the communicator and the options only,
// never from where a rank's tensors lie, so every rank takes the same one.
//
// Reuse. The plan is cached by (dtype, element counts); up to max_plans plans are
// kept (least recently used evicted), all sharing one staging area as big as the
// largest bucket (the private buffer, allocated on the first call that needs it, or
// the communicator's shared segments). A call whose counts match a cached plan
// allocates nothing.
//
// SPMD: every rank of the communicator calls with the same dtype and counts, in the
// same order, with the same options and the same timeout setting on the
// communicator; buffers may differ. Tensors must not overlap. One thread at a time.
#ifndef TESSERA_CORE_COMM_BUCKETED_ALLREDUCE_H_
#define TESSERA_CORE_COMM_BUCKETED_ALLREDUCE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/shm_reduction.h"
#include "core/common/dtype.h"
#include "core/common/status.h"

namespace tessera::comm {

// One tensor to all-reduce in place: `count` elements of `dtype` at `data`.
struct BucketTensor {
  void* data = nullptr;
  int64_t count = 0;
  DType dtype = DType::kF32;
};

struct BucketOptions {
  int64_t bucket_bytes = int64_t{25} << 20;
  // A power of two. Values below the element size mean "no padding".
  int64_t align_bytes = 64;
  int32_t max_plans = 4;
  // Reduce buckets in shared memory where the communicator allows it (see above).
  bool shared_memory = true;
};

class BucketedAllReducer {
 public:
  // INVALID_ARGUMENT naming the option for bucket_bytes < 1, align_bytes not a
  // power of two, or max_plans < 1.
  static Result<std::unique_ptr<BucketedAllReducer>> Create(const BucketOptions& options = {});

  // tensors[i] := op over ranks of tensors[i], for every i. Collective over `comm`.
  // INVALID_ARGUMENT, before any communication, for a dtype other than tensors[0]'s
  // (naming the index and both dtypes), a dtype communicators do not carry, a
  // negative count, NULL data with a non-zero count, or a bad op. A failure inside
  // a bucket's all-reduce is returned as is; tensors of that bucket and later ones
  // are then unspecified.
  Status AllReduce(Communicator& comm, const std::vector<BucketTensor>& tensors, ReduceOp op);

  struct Stats {
    int64_t calls = 0;
    int64_t plans_built = 0;            // cache misses
    int64_t buckets = 0;                // in the last call's plan
    int64_t in_place_buckets = 0;       // of those, one tensor all-reduced in place
    int64_t shared_memory_buckets = 0;  // reduced through ShmReduction
    int64_t zero_copy_buckets = 0;      // several tensors, already back to back
    int64_t staging_bytes = 0;          // the largest bucket's bytes, over all plans
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Slot {
    int32_t tensor;  // index into the call's list
    int64_t offset;  // element offset in the staging buffer
  };
  struct Bucket {
    int32_t first_slot;
    int32_t end_slot;
    int64_t elements;  // including alignment padding
    bool dense;        // no padding: slot offsets are the prefix sums of the counts
  };
  struct Plan {
    DType dtype;
    std::vector<int64_t> counts;  // the cache key, with dtype
    std::vector<Slot> slots;
    std::vector<Bucket> buckets;
    int64_t staging_bytes = 0;  // the largest bucket of several tensors
    int64_t last_used = 0;
  };

  explicit BucketedAllReducer(const BucketOptions& options) : options_(options) {}

  Status Validate(const std::vector<BucketTensor>& tensors, ReduceOp op) const;
  Plan* Find(const std::vector<BucketTensor>& tensors);
  Plan* Build(const std::vector<BucketTensor>& tensors);
  Status Run(Communicator& comm, const Plan& plan, const std::vector<BucketTensor>& tensors,
             ReduceOp op);
  // The bucket's tensors all-reduced through one Communicator::AllReduce.
  Status RunStaged(Communicator& comm, const Plan& plan, const Bucket& bucket,
                   const std::vector<BucketTensor>& tensors, ReduceOp op);
  void EnsureStaging(int64_t bytes);

  BucketOptions options_;
  std::vector<std::unique_ptr<Plan>> plans_;
  // Private staging buffer, over-allocated by align_bytes so staging_ can start
  // aligned; staging_capacity_ bytes from staging_.
  std::unique_ptr<unsigned char[]> staging_storage_;
  unsigned char* staging_ = nullptr;
  int64_t staging_capacity_ = 0;
  // A shared-memory bucket's tensors, refilled per bucket.
  std::vector<ShmPiece> shm_pieces_;
  Stats stats_;
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_BUCKETED_ALLREDUCE_H_
