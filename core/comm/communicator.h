// Communicator: the collectives boxing needs, over an ordered group of ranks.
// Backends: MPI (cpu placements, mpi_communicator.h); NCCL (cuda placements,
// nccl/nccl_communicator.h, --config=cuda builds only).
//
// Units. Every count and displacement is a number of ELEMENTS of the call's dtype,
// never bytes, and every buffer holds elements of that dtype. Counts are int64_t at
// this interface; a backend rejects a count it cannot express (MPI: > INT_MAX).
//
// Ranks. rank() and every rank argument (root, peer, the index into a counts
// vector) are ranks of THIS communicator (0..size()-1), not world ranks.
//
// Buffers. A NULL buffer is accepted only where its count is 0 (ranks with an
// empty slice of an uneven split). Buffers must not overlap unless a method
// documents an in-place form.
//
// Errors. Arguments are checked here, before any backend call, and reported as
// INVALID_ARGUMENT / OUT_OF_RANGE naming the method, the argument and its value.
// The checks are local, so a rank whose arguments are wrong returns an error while
// the others enter the collective and wait: arguments must agree across ranks (SPMD).
//
// Threads. Every public method may be called from any thread. A communicator
// serialises its own calls with a per-communicator mutex (call_mutex(); uncontended,
// it costs one atomic exchange each way, see docs/reliability.md "Threads"), so its
// scratch state (displacement arrays, datatype cache, scratch blocks, the shared-memory
// window) is never used by two calls at once. What the lock cannot give is ORDER:
// collectives on one communicator must be issued in the same order on every member,
// and threads racing for the lock reach it in an order that differs between ranks. So
// a program that issues collectives on one communicator from several threads must
// order them itself (one thread, or its own lock or turn taken in the same order on
// every rank); the lock then keeps them from tearing each other's state. Distinct
// communicators may be used from distinct threads with no ordering between them.
// Callers that must run several calls as one unit (the bucketed all-reducer's buckets,
// the shared-memory reduction) hold call_mutex() across them; it is recursive.
//
// Timeouts (the one statement of them; backends' headers add only what is theirs).
// A member that crashed or stopped issuing collectives would leave the others
// blocked forever. With a timeout of t seconds, a call that has not completed t
// seconds after it started returns DEADLINE_EXCEEDED on the ranks still waiting,
// naming the call, the communicator size and t, and poisons the communicator: every
// later call fails at once with FAILED_PRECONDITION citing the timeout. t comes from
// SetTimeout or, for a new communicator, DefaultCollectiveTimeout()
// (TESSERA_COLLECTIVE_TIMEOUT_S); 0, the default, waits forever. The timed-out call's
// buffers must stay valid until the backend has let go of the operation: MPI cannot
// cancel a collective, so keep them for the life of the process unless
// MpiCommunicator::WaitAbandoned says they were released; NCCL aborts its
// communicator, which frees them at once. How a backend bounds its calls, and what
// that costs, is in its header.
#ifndef TESSERA_CORE_COMM_COMMUNICATOR_H_
#define TESSERA_CORE_COMM_COMMUNICATOR_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"

namespace tessera::comm {

// Values may appear in a future C API: append only.
enum class ReduceOp : int { kSum = 0, kMax = 1, kMin = 2 };

// "sum", "max", "min".
const char* ReduceOpName(ReduceOp op);

// Seconds; read by backends when they create a communicator. Unset, empty or 0: no
// timeout.
inline constexpr const char kCollectiveTimeoutEnv[] = "TESSERA_COLLECTIVE_TIMEOUT_S";

// The process default timeout from TESSERA_COLLECTIVE_TIMEOUT_S (0 when unset);
// INVALID_ARGUMENT naming the variable and its value when it is not a number >= 0.
// After SetDefaultCollectiveTimeout, that value instead (the variable is not read).
Result<double> DefaultCollectiveTimeout();

// Overrides TESSERA_COLLECTIVE_TIMEOUT_S for communicators created from now on (the
// C API's tess_comm_set_collective_timeout); existing ones keep theirs. INVALID_ARGUMENT
// for a negative, NaN or infinite value. Thread-safe.
Status SetDefaultCollectiveTimeout(double seconds);

// One block of a local buffer in a block collective (AllToAllBlocks): the sub-box
// `box` at `begin` of a row-major tensor of shape `tensor`, counted in elements of
// the call's dtype and read or written in row-major order of the box. A block need
// not be contiguous, so a caller exchanges slices of a tensor without packing them;
// the backend moves them as they lie where it can (MPI: derived datatypes).
struct BlockView {
  Shape tensor;
  Shape box;
  int64_t begin[Shape::kMaxDims] = {};

  // `count` consecutive elements from element `offset` on.
  static BlockView Run(int64_t offset, int64_t count);
  // `box` at `begin` (box.ndim() entries) of `tensor`.
  static BlockView Box(const Shape& tensor, const int64_t* begin, const Shape& box);
  int64_t num_elements() const { return box.num_elements(); }
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int32_t rank() const { return rank_; }
  int32_t size() const { return size_; }

  // recv[k] = op over ranks of send[k], for k < count, on every rank.
  // In place: send == recv.
  Status AllReduce(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op);

  // Like AllReduce, but only `root` receives; recv is ignored (may be NULL) elsewhere.
  // In place on the root: send == recv.
  Status Reduce(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op,
                int32_t root);

  // send holds sum(recv_counts) elements: block r (recv_counts[r] elements, blocks
  // consecutive in rank order). Rank r receives op over ranks of block r into recv.
  // recv_counts has size() entries, identical on all ranks; entries may be 0.
  Status ReduceScatterV(const void* send, void* recv, const std::vector<int64_t>& recv_counts,
                        DType dtype, ReduceOp op);

  // Every rank contributes send_count elements; rank r's land in recv at element
  // offset recv_displs[r]. recv_counts[rank()] must equal send_count. An empty
  // recv_displs means packed: displs are the prefix sums of recv_counts.
  // recv_counts AND recv_displs must be identical on every rank (MPI would allow
  // per-rank displacements, but backends pick their algorithm from both, e.g. MPI's
  // plain all-gather for equal packed blocks, and every rank must pick the same one).
  // In place: send == recv + recv_displs[rank()] (this rank's block already there).
  Status AllGatherV(const void* send, int64_t send_count, void* recv,
                    const std::vector<int64_t>& recv_counts,
                    const std::vector<int64_t>& recv_displs, DType dtype);

  // Rank p sends send_counts[q] elements from send + send_displs[q] to rank q, which
  // receives them at recv + recv_displs[p] (recv_counts[p] elements; it must equal
  // what p sends to it). Empty displacement vectors mean packed (prefix sums).
  Status AllToAllV(const void* send, const std::vector<int64_t>& send_counts,
                   const std::vector<int64_t>& send_displs, void* recv,
                   const std::vector<int64_t>& recv_counts, const std::vector<int64_t>& recv_displs,
                   DType dtype);

  // Like AllToAllV, with each block a BlockView of its buffer: rank p sends block
  // send_blocks[q] of `send` to rank q, which receives it into block recv_blocks[p]
  // of `recv`; the two hold the same number of elements (their shapes may differ:
  // elements pair up in row-major order). This rank's own pair is a local copy.
  // Blocks of `recv` must not overlap. Empty blocks move nothing. UNIMPLEMENTED
  // from a backend that cannot address strided blocks (the default; MPI and NCCL can,
  // the hierarchical communicator cannot).
  Status AllToAllBlocks(const void* send, const std::vector<BlockView>& send_blocks, void* recv,
                        const std::vector<BlockView>& recv_blocks, DType dtype);

  // The root's buffer is copied into every rank's buffer (in place by nature).
  Status Broadcast(void* buffer, int64_t count, DType dtype, int32_t root);

  // Blocking point-to-point. tag >= 0. A rank may not send to or receive from itself
  // (a blocking self-send deadlocks once the message outgrows the eager limit).
  // Recv fails when the matching message does not hold exactly `count` elements.
  Status Send(const void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag);
  Status Recv(void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag);

  Status Barrier();

  // 0 = no limit. INVALID_ARGUMENT for a negative, NaN or infinite value;
  // UNIMPLEMENTED from a backend that cannot bound its calls. Allowed on a poisoned
  // communicator (it changes nothing there). Local: no communication.
  Status SetTimeout(double seconds);
  double timeout_seconds() const { return timeout_s_.load(std::memory_order_relaxed); }
  // OK while usable; after a timeout, the DEADLINE_EXCEEDED error that poisoned it
  // (written once, before poisoned() turns true, and never again).
  const Status& poison() const {
    static const Status kOk;
    return poisoned() ? poison_ : kOk;
  }
  bool poisoned() const { return poisoned_.load(std::memory_order_acquire); }

  // The lock every public method takes for its whole call (see Threads above).
  std::recursive_mutex& call_mutex() const { return call_mu_; }

 protected:
  Communicator(int32_t rank, int32_t size) : rank_(rank), size_(size) {}

  // Called by SetTimeout with a validated value before it is stored. The default
  // refuses: a backend must say it honours timeouts.
  virtual Status DoSetTimeout(double seconds);
  // Marks the communicator unusable; every later call fails at once, citing `why`.
  void Poison(Status why);

  // Backend hooks, called only after the public method validated its arguments.
  // Displacement vectors arrive filled (never empty).
  virtual Status DoAllReduce(const void* send, void* recv, int64_t count, DType dtype,
                             ReduceOp op) = 0;
  virtual Status DoReduce(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op,
                          int32_t root) = 0;
  virtual Status DoReduceScatterV(const void* send, void* recv,
                                  const std::vector<int64_t>& recv_counts, DType dtype,
                                  ReduceOp op) = 0;
  virtual Status DoAllGatherV(const void* send, int64_t send_count, void* recv,
                              const std::vector<int64_t>& recv_counts,
                              const std::vector<int64_t>& recv_displs, DType dtype) = 0;
  virtual Status DoAllToAllV(const void* send, const std::vector<int64_t>& send_counts,
                             const std::vector<int64_t>& send_displs, void* recv,
                             const std::vector<int64_t>& recv_counts,
                             const std::vector<int64_t>& recv_displs, DType dtype) = 0;
  // Default: UNIMPLEMENTED (see AllToAllBlocks).
  virtual Status DoAllToAllBlocks(const void* send, const std::vector<BlockView>& send_blocks,
                                  void* recv, const std::vector<BlockView>& recv_blocks,
                                  DType dtype);
  virtual Status DoBroadcast(void* buffer, int64_t count, DType dtype, int32_t root) = 0;
  virtual Status DoSend(const void* buffer, int64_t count, DType dtype, int32_t peer,
                        int32_t tag) = 0;
  virtual Status DoRecv(void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag) = 0;
  virtual Status DoBarrier() = 0;

  // The largest count or displacement the backend can express; checked up front so
  // the message names the argument.
  virtual int64_t max_count() const = 0;

 private:
  // Packed displacements for an empty displs argument, computed into scratch so
  // the call allocates nothing after the first use.
  const std::vector<int64_t>& PackedDispls(const std::vector<int64_t>& counts,
                                           std::vector<int64_t>& scratch);

  // The error every call returns once poisoned: FAILED_PRECONDITION naming `method`.
  Status PoisonedError(const char* method) const;

  int32_t rank_;
  int32_t size_;
  mutable std::recursive_mutex call_mu_;
  std::atomic<double> timeout_s_{0};
  std::atomic<bool> poisoned_{false};
  Status poison_;  // written once by Poison, under call_mu_, before poisoned_
  std::vector<int64_t> send_displs_scratch_;
  std::vector<int64_t> recv_displs_scratch_;
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_COMMUNICATOR_H_
