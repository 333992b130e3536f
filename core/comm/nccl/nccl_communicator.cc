#include "core/comm/nccl/nccl_communicator.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "core/comm/comm_checks.h"
#include "core/comm/deadline.h"
#include "core/comm/mpi_world.h"
#include "core/comm/nccl/copy_piece_cuda.h"
#include "core/comm/nccl/group_agreement.h"
#include "core/comm/nccl/local_device.h"
#include "core/comm/nccl/nccl_error.h"
#include "core/device/cuda_error.h"
#include "core/device/device_scope.h"
#include "core/memory/device_caching_allocator.h"

namespace tessera::comm {
namespace {

using device::CudaError;
using device::DeviceScope;

// Barrier's word, and the smallest scratch buffer, so Barrier never allocates.
constexpr size_t kMinScratchBytes = 256;

// The unique id travels as 64-bit words over the bootstrap communicator.
static_assert(sizeof(ncclUniqueId) % sizeof(int64_t) == 0, "ncclUniqueId is not whole words");
constexpr int64_t kUniqueIdWords = sizeof(ncclUniqueId) / sizeof(int64_t);

Status Prefixed(const char* method, const Status& status) {
  if (status.ok()) return status;
  return Status(status.code(), std::string(method) + ": " + status.message());
}

bool AllEqual(const std::vector<int64_t>& counts) {
  return std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<int64_t>()) ==
         counts.end();
}

const char* At(const void* base, int64_t elements, size_t element_size) {
  return static_cast<const char*>(base) + elements * static_cast<int64_t>(element_size);
}

char* At(void* base, int64_t elements, size_t element_size) {
  return static_cast<char*>(base) + elements * static_cast<int64_t>(element_size);
}

}  // namespace

Result<ncclDataType_t> ToNcclDataType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return ncclFloat32;
    case DType::kF64: return ncclFloat64;
    case DType::kI32: return ncclInt32;
    case DType::kI64: return ncclInt64;
    case DType::kF16: return ncclFloat16;
    case DType::kBF16: return ncclBfloat16;
    // Bytes: bool only moves (comm_checks refuses reducing it).
    case DType::kBool: return ncclUint8;
  }
  return InvalidArgument("ToNcclDataType: dtype value " + std::to_string(static_cast<int>(dtype)) +
                         " is not a dtype");
}

Result<ncclRedOp_t> ToNcclRedOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return ncclSum;
    case ReduceOp::kMax: return ncclMax;
    case ReduceOp::kMin: return ncclMin;
  }
  return InvalidArgument("ToNcclRedOp: reduce op value " + std::to_string(static_cast<int>(op)) +
                         " is not sum, max or min");
}

// One public call: refuses a broken communicator, makes its device current for the
// call's duration, names the method in every error, and waits for the stream.
class NcclCommunicator::Call {
 public:
  Call(NcclCommunicator& c, const char* method)
      : c_(c), method_(method), start_(std::chrono::steady_clock::now()) {}

  Status Begin() {
    if (!c_.broken_.ok()) return c_.broken_;
    return Prefixed(method_, device_.Enter(c_.device_));
  }

  Status Nccl(const char* call, ncclResult_t result) {
    if (result == ncclSuccess) return Status::Ok();
    return Prefixed(method_, NcclError(call, result, c_.comm_));
  }

  Status Cuda(const char* call, cudaError_t err) {
    if (err == cudaSuccess) return Status::Ok();
    return Prefixed(method_, CudaError(call, err));
  }

  // A local step's error, named by the method.
  Status Wrap(Status status) { return status.ok() ? status : Prefixed(method_, status); }

  // Runs `body` (which enqueues NCCL calls) between ncclGroupStart and ncclGroupEnd, so
  // NCCL schedules the calls together; the group is closed even when body fails.
  template <typename Body>
  Status Group(Body body) {
    TESS_RETURN_IF_ERROR(Nccl("ncclGroupStart", ncclGroupStart()));
    Status status = body();
    Status end = Nccl("ncclGroupEnd", ncclGroupEnd());
    return status.ok() ? end : status;
  }

  // For an error after work was enqueued: waits for that work (within the timeout) so
  // nothing still reads or writes the call's buffers or staging once it returns, then
  // returns `error`.
  Status FailAfterEnqueue(Status error) {
    const Status waited = Wait();
    (void)waited;  // `error` came first and explains the call's failure
    return error;
  }

  // Waits for the stream, polling NCCL's asynchronous error so a dead peer cannot keep
  // this rank waiting forever, and, with a timeout set, the deadline counted from the
  // start of the call. A failure here leaves the communicator unusable: it is aborted
  // (ncclCommAbort also stops the in-flight kernels, so unlike MPI the buffers are
  // released) and the error kept for every later call.
  Status Wait() {
    const double timeout = c_.timeout_seconds();
    // deadline.h's loop: spin, yield, then pauses of at most 1 ms.
    Result<bool> done =
        PollUntil(DeadlineFrom(start_, timeout), /*forever=*/timeout <= 0, [&]() -> Result<bool> {
          const cudaError_t err = cudaStreamQuery(c_.stream_);
          if (err == cudaSuccess) return true;
          if (err != cudaErrorNotReady) return Cuda("cudaStreamQuery", err);
          ncclResult_t async = ncclSuccess;
          const ncclResult_t result = ncclCommGetAsyncError(c_.comm_, &async);
          if (result != ncclSuccess) return Nccl("ncclCommGetAsyncError", result);
          if (async != ncclSuccess && async != ncclInProgress) {
            return Nccl("the NCCL operation (asynchronous error)", async);
          }
          return false;
        });
    if (!done.ok()) return c_.Break(done.status());
    if (*done) return Status::Ok();
    // Worded as the MPI backend's timeout (mpi_communicator.cc TimedOut).
    Status expired = DeadlineExceeded(
        std::string(method_) + ": not complete after the timeout of " + SecondsText(timeout) +
        " s on a communicator of " + Str(c_.size()) + " ranks (this is rank " + Str(c_.rank()) +
        "); another member is late, hung or dead, and this communicator is now unusable (NCCL: "
        "it was aborted)");
    c_.Poison(expired);
    NoteFault(timeout);
    return c_.Break(expired);
  }

 private:
  NcclCommunicator& c_;
  const char* method_;
  std::chrono::steady_clock::time_point start_;
  DeviceScope device_;
};

NcclCommunicator::NcclCommunicator(int32_t rank, int32_t size, int device)
    : Communicator(rank, size),
      device_(device),
      send_layouts_(size),
      recv_layouts_(size),
      send_staged_(size, -1),
      recv_staged_(size, -1) {}

NcclCommunicator::~NcclCommunicator() {
  DeviceScope scope;
  // Without the device the calls below would act on another one; leaking is safer.
  if (!scope.Enter(device_).ok()) return;
  // Errors cannot be reported from a destructor; the resources are released either way.
  if (comm_ != nullptr) {
    ncclCommFinalize(comm_);
    ncclCommDestroy(comm_);
  }
  if (staging_ != nullptr) {
    // The caching allocator hands freed memory out again at once; after an abort the
    // stream may still be draining copies that touch it.
    if (stream_ != nullptr) cudaStreamSynchronize(stream_);
    const Status freed = staging_allocator_->Free(staging_);
    (void)freed;
  }
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  if (scratch_ != nullptr) cudaFree(scratch_);
}

Status NcclCommunicator::Break(Status status) {
  broken_ = status;
  if (comm_ != nullptr) {
    ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  return status;
}

// Every call waits for its work through Call::Wait, which checks the deadline.
Status NcclCommunicator::DoSetTimeout(double /*seconds*/) { return Status::Ok(); }

int64_t NcclCommunicator::max_count() const { return std::numeric_limits<int64_t>::max() / 8; }

Result<std::unique_ptr<NcclCommunicator>> NcclCommunicator::Create(Communicator& bootstrap,
                                                                   int device) {
  constexpr const char* kMethod = "NcclCommunicator::Create";
  std::unique_ptr<NcclCommunicator> comm;
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  const Status local = [&]() -> Status {
    int chosen = device;
    if (device == kDefaultDevice) {
      TESS_ASSIGN_OR_RETURN(chosen, DefaultDevice());
    } else {
      TESS_RETURN_IF_ERROR(CheckDevice(device));
    }
    comm.reset(new NcclCommunicator(bootstrap.rank(), bootstrap.size(), chosen));
    return comm->Prepare(&id);
  }();
  TESS_RETURN_IF_ERROR(AgreeAcrossGroup(bootstrap, Prefixed(kMethod, local), kMethod));
  TESS_RETURN_IF_ERROR(Prefixed(kMethod, bootstrap.Broadcast(&id, kUniqueIdWords, DType::kI64, 0)));
  TESS_RETURN_IF_ERROR(Prefixed(kMethod, comm->Init(id)));
  TESS_ASSIGN_OR_RETURN(double timeout, DefaultCollectiveTimeout());
  TESS_RETURN_IF_ERROR(comm->SetTimeout(timeout));
  return comm;
}

Status NcclCommunicator::Prepare(ncclUniqueId* id) {
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device_));
  // A blocking stream: it waits for the legacy default stream (see the header).
  cudaError_t err = cudaStreamCreate(&stream_);
  if (err != cudaSuccess) return CudaError("cudaStreamCreate", err);
  TESS_RETURN_IF_ERROR(ReserveScratch(kMinScratchBytes));
  // Barrier reduces a word of it; a defined value keeps memory checkers quiet.
  err = cudaMemset(scratch_, 0, kMinScratchBytes);
  if (err != cudaSuccess) return CudaError("cudaMemset", err);
  int max_pitch = 0;
  err = cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, device_);
  if (err != cudaSuccess) return CudaError("cudaDeviceGetAttribute(cudaDevAttrMaxPitch)", err);
  max_pitch_ = max_pitch;
  if (rank() == 0) {
    const ncclResult_t result = ncclGetUniqueId(id);
    if (result != ncclSuccess) return NcclError("ncclGetUniqueId", result, nullptr);
  }
  return Status::Ok();
}

Status NcclCommunicator::Init(const ncclUniqueId& id) {
  DeviceScope scope;
  TESS_RETURN_IF_ERROR(scope.Enter(device_));
  const ncclResult_t result = ncclCommInitRank(&comm_, size(), id, rank());
  if (result != ncclSuccess) {
    comm_ = nullptr;
    return NcclError("ncclCommInitRank", result, nullptr);
  }
  return Status::Ok();
}

Status NcclCommunicator::ReserveScratch(size_t bytes) {
  if (bytes <= scratch_bytes_) return Status::Ok();
  // Every public call waits for its work, so the old buffer is idle here.
  if (scratch_ != nullptr) {
    cudaError_t err = cudaFree(scratch_);
    scratch_ = nullptr;
    scratch_bytes_ = 0;
    if (err != cudaSuccess) return CudaError("cudaFree", err);
  }
  cudaError_t err = cudaMalloc(&scratch_, bytes);
  if (err != cudaSuccess) {
    scratch_ = nullptr;
    return CudaError("cudaMalloc(" + std::to_string(bytes) + " bytes of scratch)", err);
  }
  scratch_bytes_ = bytes;
  return Status::Ok();
}

Status NcclCommunicator::ReserveStaging(size_t bytes) {
  if (bytes <= staging_bytes_) return Status::Ok();
  if (staging_allocator_ == nullptr) {
    TESS_ASSIGN_OR_RETURN(memory::CachingAllocator * allocator,
                          memory::DeviceCachingAllocator(device_));
    staging_allocator_ = allocator;
  }
  // Every call leaves the stream idle (it waits, also on its error paths), so no copy
  // still uses the old buffer.
  if (staging_ != nullptr) {
    void* old = staging_;
    staging_ = nullptr;
    staging_bytes_ = 0;
    TESS_RETURN_IF_ERROR(staging_allocator_->Free(old));
  }
  TESS_ASSIGN_OR_RETURN(staging_, staging_allocator_->Allocate(bytes));
  staging_bytes_ = bytes;
  return Status::Ok();
}

Status NcclCommunicator::EnqueueCopy(Call& call, const void* src, void* dst,
                                     const StridedCopy& copy, size_t element) {
  return ForEachCopyPiece(copy, static_cast<int64_t>(element), max_pitch_,
                          [&](const CopyPiece& p) -> Status {
                            const char* name = nullptr;
                            const cudaError_t err = EnqueueCopyPiece(p, src, dst, stream_, &name);
                            return call.Cuda(name, err);
                          });
}

Status NcclCommunicator::DoAllReduce(const void* send, void* recv, int64_t count, DType dtype,
                                     ReduceOp op) {
  Call call(*this, "AllReduce");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  TESS_ASSIGN_OR_RETURN(ncclRedOp_t red, ToNcclRedOp(op));
  // Counts agree across ranks, so every rank skips an empty call alike.
  if (count == 0) return Status::Ok();
  Result<const void*> keyed = KeysIfNeeded(send, count, dtype, op, &type);
  TESS_RETURN_IF_ERROR(call.Wrap(keyed.status()));
  const void* in = *keyed;
  TESS_RETURN_IF_ERROR(
      call.Nccl("ncclAllReduce", ncclAllReduce(in, recv, count, type, red, comm_, stream_)));
  TESS_RETURN_IF_ERROR(call.Wrap(FloatsIfKeyed(in != send, recv, count, dtype)));
  return call.Wait();
}

Status NcclCommunicator::DoReduce(const void* send, void* recv, int64_t count, DType dtype,
                                  ReduceOp op, int32_t root) {
  Call call(*this, "Reduce");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  TESS_ASSIGN_OR_RETURN(ncclRedOp_t red, ToNcclRedOp(op));
  if (count == 0) return Status::Ok();
  Result<const void*> keyed = KeysIfNeeded(send, count, dtype, op, &type);
  TESS_RETURN_IF_ERROR(call.Wrap(keyed.status()));
  const void* in = *keyed;
  // NCCL reads recvbuff on the root only; elsewhere it may be NULL.
  TESS_RETURN_IF_ERROR(
      call.Nccl("ncclReduce", ncclReduce(in, recv, count, type, red, root, comm_, stream_)));
  if (rank() == root)
    TESS_RETURN_IF_ERROR(call.Wrap(FloatsIfKeyed(in != send, recv, count, dtype)));
  return call.Wait();
}

Status NcclCommunicator::DoReduceScatterV(const void* send, void* recv,
                                          const std::vector<int64_t>& recv_counts, DType dtype,
                                          ReduceOp op) {
  Call call(*this, "ReduceScatterV");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  TESS_ASSIGN_OR_RETURN(ncclRedOp_t red, ToNcclRedOp(op));
  int64_t total = 0;
  for (int64_t c : recv_counts) total += c;
  const int64_t mine = recv_counts[rank()];
  if (total == 0) return Status::Ok();
  Result<const void*> keyed = KeysIfNeeded(send, total, dtype, op, &type);
  TESS_RETURN_IF_ERROR(call.Wrap(keyed.status()));
  const void* in = *keyed;
  if (AllEqual(recv_counts)) {
    TESS_RETURN_IF_ERROR(
        call.Nccl("ncclReduceScatter",
                  ncclReduceScatter(in, recv, recv_counts[0], type, red, comm_, stream_)));
    TESS_RETURN_IF_ERROR(call.Wrap(FloatsIfKeyed(in != send, recv, mine, dtype)));
    return call.Wait();
  }
  const size_t element = DTypeSize(dtype);
  TESS_RETURN_IF_ERROR(call.Group([&]() -> Status {
    int64_t offset = 0;
    for (int32_t r = 0; r < size(); ++r) {
      if (recv_counts[r] > 0) {
        void* out = r == rank() ? recv : nullptr;
        TESS_RETURN_IF_ERROR(
            call.Nccl("ncclReduce", ncclReduce(At(in, offset, element), out, recv_counts[r], type,
                                               red, r, comm_, stream_)));
      }
      offset += recv_counts[r];
    }
    return Status::Ok();
  }));
  TESS_RETURN_IF_ERROR(call.Wrap(FloatsIfKeyed(in != send, recv, mine, dtype)));
  return call.Wait();
}

// send_count equals recv_counts[rank()] (checked by the base class).
Status NcclCommunicator::DoAllGatherV(const void* send, int64_t /*send_count*/, void* recv,
                                      const std::vector<int64_t>& recv_counts,
                                      const std::vector<int64_t>& recv_displs, DType dtype) {
  Call call(*this, "AllGatherV");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  const size_t element = DTypeSize(dtype);
  if (AllEqual(recv_counts)) {
    const int64_t count = recv_counts[0];
    if (count == 0) return Status::Ok();
    bool packed = true;
    for (int32_t r = 0; r < size(); ++r) packed = packed && recv_displs[r] == r * count;
    if (packed) {
      // In place when send == recv + rank * count, which NCCL detects itself.
      TESS_RETURN_IF_ERROR(
          call.Nccl("ncclAllGather", ncclAllGather(send, recv, count, type, comm_, stream_)));
      return call.Wait();
    }
    // Other ranks may have packed displacements and call ncclAllGather too: gather
    // packed into scratch, then move each block to its displacement.
    const size_t block = static_cast<size_t>(count) * element;
    TESS_RETURN_IF_ERROR(Prefixed("AllGatherV", ReserveScratch(block * size())));
    TESS_RETURN_IF_ERROR(
        call.Nccl("ncclAllGather", ncclAllGather(send, scratch_, count, type, comm_, stream_)));
    for (int32_t r = 0; r < size(); ++r) {
      TESS_RETURN_IF_ERROR(call.Cuda(
          "cudaMemcpyAsync",
          cudaMemcpyAsync(At(recv, recv_displs[r], element), At(scratch_, r * count, element),
                          block, cudaMemcpyDeviceToDevice, stream_)));
    }
    return call.Wait();
  }
  TESS_RETURN_IF_ERROR(call.Group([&]() -> Status {
    for (int32_t r = 0; r < size(); ++r) {
      if (recv_counts[r] == 0) continue;
      void* out = At(recv, recv_displs[r], element);
      // The root sends from `send` (== out when in place); the others only receive.
      const void* in = r == rank() ? send : out;
      TESS_RETURN_IF_ERROR(call.Nccl(
          "ncclBroadcast", ncclBroadcast(in, out, recv_counts[r], type, r, comm_, stream_)));
    }
    return Status::Ok();
  }));
  return call.Wait();
}

Status NcclCommunicator::DoAllToAllV(const void* send, const std::vector<int64_t>& send_counts,
                                     const std::vector<int64_t>& send_displs, void* recv,
                                     const std::vector<int64_t>& recv_counts,
                                     const std::vector<int64_t>& recv_displs, DType dtype) {
  Call call(*this, "AllToAllV");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  const size_t element = DTypeSize(dtype);
  const int32_t me = rank();
  if (send_counts[me] > 0) {
    TESS_RETURN_IF_ERROR(call.Cuda(
        "cudaMemcpyAsync",
        cudaMemcpyAsync(At(recv, recv_displs[me], element), At(send, send_displs[me], element),
                        send_counts[me] * element, cudaMemcpyDeviceToDevice, stream_)));
  }
  // recv_counts[p] equals what p sends here (the interface's rule), so both ends of
  // every pair skip an empty block alike.
  TESS_RETURN_IF_ERROR(call.Group([&]() -> Status {
    for (int32_t q = 0; q < size(); ++q) {
      if (q == me) continue;
      if (send_counts[q] > 0) {
        TESS_RETURN_IF_ERROR(call.Nccl(
            "ncclSend",
            ncclSend(At(send, send_displs[q], element), send_counts[q], type, q, comm_, stream_)));
      }
      if (recv_counts[q] > 0) {
        TESS_RETURN_IF_ERROR(call.Nccl(
            "ncclRecv",
            ncclRecv(At(recv, recv_displs[q], element), recv_counts[q], type, q, comm_, stream_)));
      }
    }
    return Status::Ok();
  }));
  return call.Wait();
}

Status NcclCommunicator::DoAllToAllBlocks(const void* send,
                                          const std::vector<BlockView>& send_blocks, void* recv,
                                          const std::vector<BlockView>& recv_blocks, DType dtype) {
  constexpr const char* kMethod = "AllToAllBlocks";
  Call call(*this, kMethod);
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  const size_t element = DTypeSize(dtype);
  const int32_t me = rank();
  // Staging holds, packed, every strided peer block this rank sends, then every strided
  // one it receives, then the own pair's detour when it needs one.
  int64_t staged = 0;
  auto stage = [&staged](const BlockLayout& layout) -> int64_t {
    if (layout.empty() || layout.contiguous()) return -1;
    const int64_t at = staged;
    staged += layout.num_elements();
    return at;
  };
  for (int32_t q = 0; q < size(); ++q) {
    send_layouts_[q] = BlockLayout::Of(send_blocks[q]);
    recv_layouts_[q] = BlockLayout::Of(recv_blocks[q]);
    send_staged_[q] = q == me ? -1 : stage(send_layouts_[q]);
    recv_staged_[q] = q == me ? -1 : stage(recv_layouts_[q]);
  }
  const BlockLayout& own_send = send_layouts_[me];
  const BlockLayout& own_recv = recv_layouts_[me];
  const bool own_detour = !own_send.empty() && !own_send.contiguous() && !own_recv.contiguous() &&
                          !own_send.SameShapeAs(own_recv);
  const int64_t own_staged = own_detour ? staged : -1;
  if (own_detour) staged += own_send.num_elements();
  TESS_RETURN_IF_ERROR(Prefixed(kMethod, ReserveStaging(static_cast<size_t>(staged) * element)));

  Status enqueued = [&]() -> Status {
    for (int32_t q = 0; q < size(); ++q) {
      if (send_staged_[q] < 0) continue;
      TESS_RETURN_IF_ERROR(EnqueueCopy(
          call, send, staging_, StridedCopy::Pack(send_layouts_[q], send_staged_[q]), element));
    }
    if (!own_send.empty()) {
      // A contiguous block is its own packed image, so it is one end of a pack or unpack.
      if (own_detour) {
        TESS_RETURN_IF_ERROR(
            EnqueueCopy(call, send, staging_, StridedCopy::Pack(own_send, own_staged), element));
        TESS_RETURN_IF_ERROR(
            EnqueueCopy(call, staging_, recv, StridedCopy::Unpack(own_staged, own_recv), element));
      } else if (own_send.contiguous()) {
        TESS_RETURN_IF_ERROR(EnqueueCopy(call, At(send, own_send.offset, element), recv,
                                         StridedCopy::Unpack(0, own_recv), element));
      } else if (own_recv.contiguous()) {
        TESS_RETURN_IF_ERROR(EnqueueCopy(call, send, At(recv, own_recv.offset, element),
                                         StridedCopy::Pack(own_send, 0), element));
      } else {
        TESS_RETURN_IF_ERROR(
            EnqueueCopy(call, send, recv, StridedCopy::Between(own_send, own_recv), element));
      }
    }
    // Block q here holds what q's block for this rank holds (the interface's rule), so
    // both ends of every pair skip an empty block alike.
    TESS_RETURN_IF_ERROR(call.Group([&]() -> Status {
      for (int32_t q = 0; q < size(); ++q) {
        if (q == me) continue;
        const BlockLayout& out = send_layouts_[q];
        if (!out.empty()) {
          const void* from = send_staged_[q] >= 0 ? At(staging_, send_staged_[q], element)
                                                  : At(send, out.offset, element);
          TESS_RETURN_IF_ERROR(
              call.Nccl("ncclSend", ncclSend(from, out.num_elements(), type, q, comm_, stream_)));
        }
        const BlockLayout& in = recv_layouts_[q];
        if (!in.empty()) {
          void* into = recv_staged_[q] >= 0 ? At(staging_, recv_staged_[q], element)
                                            : At(recv, in.offset, element);
          TESS_RETURN_IF_ERROR(
              call.Nccl("ncclRecv", ncclRecv(into, in.num_elements(), type, q, comm_, stream_)));
        }
      }
      return Status::Ok();
    }));
    for (int32_t q = 0; q < size(); ++q) {
      if (recv_staged_[q] < 0) continue;
      TESS_RETURN_IF_ERROR(EnqueueCopy(
          call, staging_, recv, StridedCopy::Unpack(recv_staged_[q], recv_layouts_[q]), element));
    }
    return Status::Ok();
  }();
  if (!enqueued.ok()) return call.FailAfterEnqueue(enqueued);
  return call.Wait();
}

Status NcclCommunicator::DoBroadcast(void* buffer, int64_t count, DType dtype, int32_t root) {
  Call call(*this, "Broadcast");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  if (count == 0) return Status::Ok();
  TESS_RETURN_IF_ERROR(
      call.Nccl("ncclBroadcast", ncclBroadcast(buffer, buffer, count, type, root, comm_, stream_)));
  return call.Wait();
}

Status NcclCommunicator::DoSend(const void* buffer, int64_t count, DType dtype, int32_t peer,
                                int32_t /*tag: NCCL has none*/) {
  Call call(*this, "Send");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  if (count == 0) return Status::Ok();
  TESS_RETURN_IF_ERROR(call.Nccl("ncclSend", ncclSend(buffer, count, type, peer, comm_, stream_)));
  return call.Wait();
}

Status NcclCommunicator::DoRecv(void* buffer, int64_t count, DType dtype, int32_t peer,
                                int32_t /*tag: NCCL has none*/) {
  Call call(*this, "Recv");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_ASSIGN_OR_RETURN(ncclDataType_t type, ToNcclDataType(dtype));
  if (count == 0) return Status::Ok();
  TESS_RETURN_IF_ERROR(call.Nccl("ncclRecv", ncclRecv(buffer, count, type, peer, comm_, stream_)));
  return call.Wait();
}

Status NcclCommunicator::DoBarrier() {
  Call call(*this, "Barrier");
  TESS_RETURN_IF_ERROR(call.Begin());
  TESS_RETURN_IF_ERROR(call.Nccl(
      "ncclAllReduce", ncclAllReduce(scratch_, scratch_, 1, ncclInt32, ncclSum, comm_, stream_)));
  return call.Wait();
}

}  // namespace tessera::comm
