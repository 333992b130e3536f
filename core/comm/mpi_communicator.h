// The MPI backend of Communicator (cpu placements): each collective is the
// matching MPI call on one MPI communicator whose error handler is
// MPI_ERRORS_RETURN, so MPI failures come back as Status (via MpiError).
//
// Timeouts (communicator.h). Without one (the default) every call is MPI's blocking
// form. With one, each call issues the nonblocking form (MPI_Iallreduce, MPI_Ireduce,
// MPI_Ireduce_scatter[_block], MPI_Iallgather[v], MPI_Ialltoallv, MPI_Ialltoallw, MPI_Ibcast,
// MPI_Ibarrier, MPI_Isend, MPI_Irecv) and polls MPI_Test until it completes or the
// deadline passes: spinning first, then yielding (the first 100 ms), then sleeping
// with doubling pauses (at most 1 ms), so a rank waiting on an oversubscribed core
// lets the late one run. A timed-out collective is abandoned, not cancelled (a
// timed-out receive IS cancelled): it completes only once the late member joins and
// this rank keeps driving MPI's progress (WaitAbandoned). The destructor releases a
// completed operation; an incomplete one leaves the MPI communicator and its count
// arrays allocated for the rest of the process rather than freeing them under MPI.
//
// Why not always nonblocking: Open MPI 4.1's nonblocking collectives come from
// libnbc, not the tuned blocking algorithms. Measured on 2 ranks (shared memory, an
// otherwise idle 2-core machine), all-reduce nonblocking + polling took 1.3x the
// blocking time at 1 KB, 1.5x at 1 MB and 1.5-1.8x at 16 MB (raw MPI and through
// this class alike); all-to-all took 0.7-1.0x. That is far over a 5% budget, so a
// timeout is off unless asked for, and costs that much on all-reduce when set.
// (On a loaded, oversubscribed machine the ratios swing both ways, often below 1.)
//
// Reduce-scatter. Open MPI 4.1's MPI_Reduce_scatter[_block] (measured on 2-4 ranks
// over shared memory, 256 KB to 64 MB) took 1.5-3x the time of a pairwise exchange
// in which step k sends block (me + k) to rank me + k, receives this rank's block
// from rank me - k and reduces it locally (MPI_Reduce_local). The pairwise form moves
// the least bytes but takes n - 1 rounds, so it runs when blocks average at least
// kPairwiseReduceScatterBytes (single-copy transfers, latency a minor part) and there
// is no timeout; below that, or with a timeout, MPI's own collective runs. Its
// point-to-point traffic uses a private duplicate of the communicator, so it cannot
// match the user's Send / Recv.
//
// All-reduce. From ReduceScatterAllGatherBytes(size()) on, and without a timeout, an
// all-reduce is that pairwise reduce-scatter of balanced blocks, each rank's block
// reduced straight into its place in recv, followed by an in-place MPI_Allgather(v)
// (mpi_pairwise.cc). Open MPI 4.1's MPI_Allreduce took 1.2-2.5x as long from 1 to 64 MB
// on 2-4 ranks (shared memory, bench/boxing/partial_to_broadcast_bench), and this is
// what the boxing cost model assumes an all-reduce costs (core/boxing/boxing_cost.h).
// The thresholds are where that bench crossed over: at 64 KB the composite took 0.77x
// MPI_Allreduce's time on 2 ranks but 1.1-1.3x on 3 and 4; at 256 KB 0.64-0.71x on all.
// Every element is reduced by one rank, so all ranks get the same bits (docs/boxing.md).
//
// Hosts. The pairwise forms run only where no host link is shared by several ranks'
// blocks at once: every rank on one host, or one rank per host (MostRanksOnAHost is the
// size, or 1). With L ranks on each of H hosts, every rank sends a block to each remote
// rank in the same rounds, so a host link carries L * (H - 1) * L blocks of size / n per
// phase where a ring carries n - 1: 4/3 as much on 2 hosts x 2 ranks, where the
// composite all-reduce measured 2.0x MPI_Allreduce's time at 16 and 64 MB at 1 Gbit/s
// (bench/multihost); with one rank per host the two match, and Open MPI's choice for 3
// ranks was slower than the pairwise form there. Elsewhere MPI's collectives run;
// across hosts HierarchicalCommunicator is what pays.
//
// Block collectives. AllToAllBlocks maps each strided BlockView to a derived datatype
// (nested hvectors over a contiguous run) handed to MPI_Alltoallw, so MPI reads and
// writes the strided blocks in place instead of Tessera packing them first. The
// datatypes are cached per layout (up to kMaxCachedDatatypes; the cache is emptied
// when full), so a steady stream of the same exchange builds none. It is always
// MPI_Alltoallw, even where every block is contiguous: a rank sees only its own
// blocks, and all ranks must enter the same collective.
//
// Threads. Every member below that a call uses as scratch (ints_, types_, datatypes_,
// scratch_, p2p_, abandoned_, shm_) belongs to the communicator, not to a call: the
// base class's call_mutex() (communicator.h, "Threads") is held by every public
// method, WaitAbandoned, has_abandoned and ShmReduction, so no two threads touch them
// at once. Calling from several threads needs MPI_THREAD_MULTIPLE (tess_runtime_init's
// mpi_thread_level); at a lower level MPI itself is not safe to enter concurrently.
#ifndef TESSERA_CORE_COMM_MPI_COMMUNICATOR_H_
#define TESSERA_CORE_COMM_MPI_COMMUNICATOR_H_

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/comm/communicator.h"
#include "core/common/dtype.h"
#include "core/common/status.h"

namespace tessera::comm {

class ShmReduction;  // shm_reduction.h

// MPI_FLOAT, MPI_DOUBLE, MPI_INT32_T, MPI_INT64_T; INVALID_ARGUMENT otherwise.
Result<MPI_Datatype> ToMpiDatatype(DType dtype);

class MpiCommunicator final : public Communicator {
 public:
  static constexpr int64_t kPairwiseReduceScatterBytes = 32 * 1024;
  // All-reduces of at least this many bytes run as the pairwise reduce-scatter plus
  // MPI's all-gather (see above, "All-reduce"): on 2 ranks, and on 3 or more.
  static constexpr int64_t kReduceScatterAllGatherBytes2 = 64 * 1024;
  static constexpr int64_t kReduceScatterAllGatherBytes = 256 * 1024;
  static int64_t ReduceScatterAllGatherBytes(int32_t size);
  // Whether the pairwise forms suit this communicator's hosts (see "Hosts" above).
  Result<bool> PairwiseSuitsHosts();
  static constexpr size_t kMaxCachedDatatypes = 1024;

  // Wraps `comm` (not MPI_COMM_NULL) and sets MPI_ERRORS_RETURN on it. With `owned`,
  // the communicator frees `comm` when destroyed, unless MPI is already finalised.
  // A bad TESSERA_COLLECTIVE_TIMEOUT_S is an error here (and `comm` stays the
  // caller's to free).
  static Result<std::unique_ptr<MpiCommunicator>> Wrap(MPI_Comm comm, bool owned);
  ~MpiCommunicator() override;

  MPI_Comm comm() const { return comm_; }

  // The most ranks of this communicator on one host (MPI_COMM_TYPE_SHARED's nodes): the
  // size on one host, 1 with one rank per host; the same answer on every rank. Found on
  // the first call, which is collective (a split and an all-reduce): every member must
  // make it at the same point (the large all-reduce and reduce-scatter make it on their
  // first call, all ranks alike). MPI's error otherwise.
  Result<int32_t> MostRanksOnAHost();

  // After a timeout: keeps driving MPI's progress for up to `seconds` so that, once
  // the late member joins, the abandoned operation completes and MPI lets go of its
  // buffers. OK when nothing is pending (no timeout happened, or it has completed);
  // DEADLINE_EXCEEDED when it is still pending; INVALID_ARGUMENT for a negative or
  // non-finite `seconds`. The communicator stays poisoned either way.
  Status WaitAbandoned(double seconds);
  // Non-blocking in-place all-reduce (MPI_Iallreduce): starts buffer[k] := op over ranks
  // of buffer[k], for k < count, and returns at once with *request set; finish it with
  // Test or Wait. Until it completes, `buffer` must be neither read nor written nor freed.
  // It is ordered with the communicator's other collectives by the time it is STARTED
  // (MPI's rule), so every member starts it in the same position. Arguments are checked
  // as AllReduce checks them (INVALID_ARGUMENT naming "IAllReduce" and the argument);
  // FAILED_PRECONDITION on a poisoned communicator. Open MPI progresses a non-blocking
  // collective only inside MPI calls on this process, so a caller that wants it to
  // advance while it computes calls Test now and then (core/optim does, from its
  // gradient hooks).
  Status IAllReduce(void* buffer, int64_t count, DType dtype, ReduceOp op, MPI_Request* request);
  // Non-blocking reduce-scatter of equal blocks (MPI_Ireduce_scatter_block): `send`
  // holds size() * recv_count elements, block r of them going to rank r, which
  // receives op over ranks of its block into `recv` (recv_count elements). Buffers
  // must not overlap and stay untouched until the request completes; finish it with
  // Test or Wait. Checks as IAllReduce.
  Status IReduceScatterBlock(const void* send, void* recv, int64_t recv_count, DType dtype,
                             ReduceOp op, MPI_Request* request);
  // One MPI_Test of a request from IAllReduce or IReduceScatterBlock: *done when it
  // completed (the request is
  // then MPI_REQUEST_NULL). A null request is done.
  Status Test(MPI_Request* request, bool* done);
  // Waits for a request from IAllReduce or IReduceScatterBlock. With a timeout
  // (communicator.h), after timeout_seconds() of waiting it returns DEADLINE_EXCEEDED
  // naming "Wait" and poisons the communicator; the operation is abandoned (the
  // request is set to MPI_REQUEST_NULL and kept by the communicator, as for a blocking
  // call: its buffers must then stay valid for the life of the process unless
  // WaitAbandoned says they were released; only one abandoned operation is tracked,
  // later ones are leaked).
  Status Wait(MPI_Request* request);

  // True while an operation abandoned by a timeout has not completed.
  bool has_abandoned() const {
    std::lock_guard<std::recursive_mutex> lock(call_mutex());
    return abandoned_ != MPI_REQUEST_NULL;
  }

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
  // ShmReduction::For creates its state on first use and keeps it in shm_.
  friend class ShmReduction;

  MpiCommunicator(MPI_Comm comm, bool owned, int32_t rank, int32_t size);

  bool bounded() const { return timeout_seconds() > 0; }
  // Finishes a call: the blocking form's return code `rc` of MPI function `call`, or,
  // when bounded(), waits for the nonblocking form's `request`.
  Status Finish(int rc, const char* call, MPI_Request* request, const char* method);
  // DEADLINE_EXCEEDED for `method`, which also poisons the communicator.
  Status TimedOut(const char* method);

  // The pairwise reduce-scatter (see above, mpi_pairwise.cc) of the blocks whose
  // counts and element displacements in `send` are in ints_[0] and ints_[1]; this
  // rank's reduced block goes to `out`, which may be its own block of `send` (in
  // place) but must not overlap any other. `type` is dtype's MPI datatype.
  Status PairwiseReduceScatter(const void* send, void* out, DType dtype, MPI_Datatype type,
                               ReduceOp op);
  // All-reduce as PairwiseReduceScatter into recv's own block, then an in-place
  // all-gather(-v) of the blocks (see above, "All-reduce"). In place when send == recv.
  Status ReduceScatterAllGather(const void* send, void* recv, int64_t count, DType dtype,
                                MPI_Datatype type, ReduceOp op);

  // A derived datatype's layout: `run` contiguous elements of `dtype`, repeated by
  // nested levels (innermost first) of `count` copies `stride` elements apart, the
  // whole shifted by `shift` elements (non-zero only when the block's byte offset
  // does not fit MPI_Alltoallw's int displacements).
  struct TypeKey {
    int dtype = 0;
    int levels = 0;
    int64_t run = 0;
    int64_t shift = 0;
    int64_t count[Shape::kMaxDims] = {};
    int64_t stride[Shape::kMaxDims] = {};
    bool operator==(const TypeKey& o) const;
  };
  struct TypeKeyHash {
    size_t operator()(const TypeKey& key) const;
  };
  // How MPI_Alltoallw addresses `block`: `*count` items of `*type` at byte
  // `*displacement`. Strided layouts get a cached derived datatype.
  Status BlockToMpi(const BlockView& block, DType dtype, MPI_Datatype base, int* count,
                    MPI_Datatype* type, int* displacement);
  void FreeDatatypes();

  MPI_Comm comm_;
  bool owned_;
  MPI_Comm p2p_ = MPI_COMM_NULL;      // private duplicate for internal point-to-point
  int32_t most_ranks_on_a_host_ = 0;  // MostRanksOnAHost's answer once found
  MPI_Request abandoned_ = MPI_REQUEST_NULL;
  // MPI takes int counts and displacements: converted into these per-rank arrays,
  // sized once, so a collective allocates nothing. A nonblocking v-collective reads
  // them until it completes, which is why an abandoned one keeps them alive.
  std::vector<int> ints_[4];
  std::vector<MPI_Datatype> types_[2];  // per-rank datatypes of MPI_Alltoallw
  std::unordered_map<TypeKey, MPI_Datatype, TypeKeyHash> datatypes_;
  std::vector<unsigned char> scratch_;  // the pairwise reduce-scatter's receive block
  // The shared-memory reduction among this communicator's ranks (shm_reduction.h).
  // Held here rather than cached as an MPI attribute: under MPI_THREAD_MULTIPLE
  // every MPI_Comm_get_attr takes Open MPI's global attribute lock. Freed before
  // comm_ (its window is freed collectively, as comm_ is). The deleter comes from
  // shm_reduction.cc, so this library does not depend on that one.
  std::unique_ptr<ShmReduction, void (*)(ShmReduction*)> shm_{nullptr, nullptr};
  bool shm_checked_ = false;  // whether ShmReduction::For decided shm_ yet
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_MPI_COMMUNICATOR_H_
