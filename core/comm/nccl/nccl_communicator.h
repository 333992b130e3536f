// The NCCL backend of Communicator (cuda placements). Every buffer is CUDA device
// memory of this communicator's device (device()), or memory NCCL can reach from it.
//
// Streams. Work runs on a stream the communicator owns, created on its device. The
// stream is an ordinary (blocking) one, so it waits for work on the legacy default
// stream: inputs written by cudaMemcpy or by kernels on stream 0 are seen. Inputs
// written on other streams must be complete before the call (synchronise that stream,
// or make stream() wait on an event).
//
// Synchrony. Every public call returns only when its work on the device is finished, so
// results can be read and buffers reused at once. While waiting, the call polls NCCL's
// asynchronous error state, so a failed peer or network turns into an error rather than
// an endless wait; after such an error the communicator is aborted and every later call
// returns that error at once.
//
// Timeouts (communicator.h). The deadline covers the wait for the call's device work
// (a cudaStreamQuery loop that also polls ncclCommGetAsyncError, deadline.h's policy);
// when it passes, the call returns DEADLINE_EXCEEDED worded as the MPI backend's, the
// communicator is poisoned (every later call: FAILED_PRECONDITION saying so), the
// fault is noted (mpi_world.h NoteFault: finalize is bounded afterwards) and
// ncclCommAbort stops the communicator's kernels, so the call's buffers are free again.
// An asynchronous NCCL error (a peer gone) ends the wait at once, with or without a
// timeout. Limit: NCCL's blocking communicators can also wait inside an
// enqueue (ncclGroupEnd connecting to a peer on first use), which the deadline does
// not cover. There is no asynchronous form yet: a caller that needs to overlap can
// enqueue its own NCCL work on comm() / stream().
//
// Collectives NCCL lacks, and how they are built (each choice depends only on arguments
// that agree across ranks, never on local displacements, so all ranks make the same
// NCCL calls):
//   ReduceScatterV  equal counts: ncclReduceScatter. Otherwise one ncclReduce per
//                   non-empty block (root r receives block r), all in one
//                   ncclGroupStart/End: no padding and no scratch memory.
//   AllGatherV      equal counts: ncclAllGather, straight into recv when the
//                   displacements are packed, else into a device scratch buffer (grown on
//                   demand, then reused) and one copy per block. Otherwise one
//                   ncclBroadcast per non-empty block (root r sends its block to
//                   recv + recv_displs[r]), all in one group.
//   AllToAllV       one grouped ncclSend / ncclRecv per non-empty peer block; this rank's
//                   own block is a device-to-device copy.
//   AllToAllBlocks  like AllToAllV, per BlockView (block_layout.h): a block that is one
//                   contiguous run in memory is sent or received where it lies; a strided
//                   one is packed into (or unpacked from) a device staging buffer with
//                   cudaMemcpyAsync / 2DAsync / 3DAsync on the stream, the innermost two
//                   levels per call and a loop over the rest (strided_copy.h), before (or
//                   after) the group of sends and receives. The own pair is one strided
//                   device-to-device copy, or a pack and an unpack through staging when the
//                   two blocks pair up differently level by level. Staging comes from the
//                   device's caching allocator and only grows, so calls of a steady shape
//                   allocate nothing. As for Send/Recv, a block whose element count differs
//                   from its peer's is undefined behaviour in NCCL, not an error.
//   Barrier         a one-element allreduce on the stream, waited for.
//
// Point to point. NCCL messages carry neither a tag nor a length: Sends and Recvs
// between two ranks match in the order they are issued, `tag` is checked (>= 0) but not
// used, and a Recv whose count differs from its Send's is undefined behaviour in NCCL (a
// hang or corrupt data), which the MPI backend would report instead.
//
// Counts are size_t in NCCL; max_count() is INT64_MAX / 8 so that byte offsets of every
// dtype fit in int64_t. f16 and bf16 map to ncclFloat16 / ncclBfloat16 (NCCL reduces
// them natively), bool to ncclUint8 (moved, never reduced: comm_checks.h CheckReducibleDType).
#ifndef TESSERA_CORE_COMM_NCCL_NCCL_COMMUNICATOR_H_
#define TESSERA_CORE_COMM_NCCL_NCCL_COMMUNICATOR_H_

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/comm/block_layout.h"
#include "core/comm/communicator.h"
#include "core/comm/nccl/strided_copy.h"
#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/memory/allocator.h"

namespace tessera::comm {

// ncclFloat32, ncclFloat64, ncclInt32, ncclInt64, ncclFloat16, ncclBfloat16;
// INVALID_ARGUMENT for a value that is no DType.
Result<ncclDataType_t> ToNcclDataType(DType dtype);
// ncclSum, ncclMax, ncclMin; INVALID_ARGUMENT for a value that is no ReduceOp.
Result<ncclRedOp_t> ToNcclRedOp(ReduceOp op);

class NcclCommunicator final : public Communicator {
 public:
  // Create's `device` argument meaning "LocalRank() % device count" (local_device.h).
  static constexpr int kDefaultDevice = -1;

  // Collective over `bootstrap` (any Communicator over the same ranks, normally the MPI
  // one of the placement): the NCCL communicator has bootstrap's size, and this rank's
  // NCCL rank is bootstrap.rank(). Rank 0 makes the ncclUniqueId and broadcasts it over
  // `bootstrap`. Every rank first checks its device locally and the group agrees on the
  // outcome, so a rank without a usable device makes every rank return an error instead
  // of leaving them blocked in NCCL: UNAVAILABLE "NcclCommunicator::Create: no CUDA device
  // visible" where no GPU is visible, INVALID_ARGUMENT / OUT_OF_RANGE for a bad `device`.
  // NCCL itself refuses two ranks of one communicator on the same device ("Duplicate GPU
  // detected"). The calling thread's current device is left as it was.
  static Result<std::unique_ptr<NcclCommunicator>> Create(Communicator& bootstrap,
                                                          int device = kDefaultDevice);
  // Collective like NCCL's finalize (it flushes outstanding work on every member), so
  // members destroy communicators in the same order.
  ~NcclCommunicator() override;

  int device() const { return device_; }
  // NULL once the communicator was aborted after an asynchronous error.
  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  // Bytes of AllToAllBlocks' staging buffer (0 until a call packs a strided block).
  size_t staging_bytes() const { return staging_bytes_; }

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
  Status DoAllToAllBlocks(const void* send, const std::vector<BlockView>& send_blocks, void* recv,
                          const std::vector<BlockView>& recv_blocks, DType dtype) override;
  Status DoBroadcast(void* buffer, int64_t count, DType dtype, int32_t root) override;
  Status DoSend(const void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag) override;
  Status DoRecv(void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag) override;
  Status DoBarrier() override;
  Status DoSetTimeout(double seconds) override;
  int64_t max_count() const override;

 private:
  class Call;

  NcclCommunicator(int32_t rank, int32_t size, int device);

  // Local half of Create: device, stream, scratch, and (on rank 0) the unique id.
  Status Prepare(ncclUniqueId* id);
  Status Init(const ncclUniqueId& id);
  // Makes scratch_ hold at least `bytes`.
  Status ReserveScratch(size_t bytes);
  // For an f32 / f64 max or min: queues `send`'s order-preserving keys into scratch_,
  // sets *type to their integer type and returns scratch_; otherwise returns `send`
  // (nccl_keyed_minmax.cc).
  Result<const void*> KeysIfNeeded(const void* send, int64_t count, DType dtype, ReduceOp op,
                                   ncclDataType_t* type);
  // When `keyed`, queues the inverse map of recv's `count` keys back to floats.
  Status FloatsIfKeyed(bool keyed, void* recv, int64_t count, DType dtype);
  // Makes staging_ hold at least `bytes`, from the device caching allocator.
  Status ReserveStaging(size_t bytes);
  // Enqueues `copy` from src to dst on the stream, one CUDA call per piece.
  Status EnqueueCopy(Call& call, const void* src, void* dst, const StridedCopy& copy,
                     size_t element);
  // Keeps `status` as the answer to every later call and aborts the NCCL communicator.
  Status Break(Status status);

  int device_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  // Device memory for Barrier's word, AllGatherV's packed detour and the keys of a
  // float max / min.
  void* scratch_ = nullptr;
  size_t scratch_bytes_ = 0;
  // cudaDevAttrMaxPitch: the widest row pitch a 2-d / 3-d copy accepts.
  int64_t max_pitch_ = 0;
  // AllToAllBlocks' packed images of strided blocks; kept between calls, grow only.
  memory::Allocator* staging_allocator_ = nullptr;
  void* staging_ = nullptr;
  size_t staging_bytes_ = 0;
  // Per rank, reused by every AllToAllBlocks call so it allocates nothing: the blocks'
  // layouts and where each strided one sits in staging (elements; -1 when it moves in
  // place or is empty).
  std::vector<BlockLayout> send_layouts_;
  std::vector<BlockLayout> recv_layouts_;
  std::vector<int64_t> send_staged_;
  std::vector<int64_t> recv_staged_;
  // Set by the first asynchronous error; returned by every later call.
  Status broken_;
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_NCCL_COMMUNICATOR_H_
