// ShmReduction: an all-reduce among ranks that share one node's memory, done in
// MPI-3 shared-memory windows instead of through an MPI collective. The bucketed
// all-reduce uses it for its fused buckets.
//
// Why. Open MPI's all-reduce of a few MB on one node moves every byte through its
// point-to-point protocol (fragments or a CMA copy per message, a local reduction
// into a temporary per algorithm round), and a caller that holds many tensors must
// first pack them into one buffer and unpack the result. Here each rank reads and
// writes every byte of its tensors once per phase, and never the bytes it alone
// reduces more than once:
//
// One AllReduce over n ranks, of a buffer of `count` elements whose pieces lie at
// the caller's pointers (the bucket's tensors); segment S_r of rank r; block b a
// cache-line aligned, balanced 1/n of the elements:
//   1. rank r copies the parts of its pieces outside block r into S_r;
//   2. barrier;
//   3. rank r reduces block r: its own pieces' elements there, op the other ranks'
//      S_q, into S_r and into its pieces at once;
//   4. barrier;
//   5. rank r copies block b (b != r) of the result from S_b into its pieces.
// Each rank has two segments and alternates between them: a segment is written
// again two AllReduces later, after every rank passed the first barrier of the one
// in between, so after every rank finished reading it. Every element of the result
// is computed by one rank, so all ranks get the same bits.
//
// Measured (bench/comm, 2 ranks on a 2-core VM, 100 f32 tensors of 1-64 KB, 3.2 MB):
// 0.16 ms, against 0.45-0.52 ms for packing a staging buffer, MPI_Allreduce and
// unpacking. Its phases take about 35 us (1), 75 us (3) and 40 us (5): each byte
// crosses between the cores once each way and is written once into shared lines
// the other core last held, which is the least traffic an all-reduce of private
// buffers needs, so this is close to the floor on that machine.
//
// SPMD: every rank of the communicator makes the same calls with the same counts,
// dtype, op and piece offsets (the pointers differ). The barriers go through
// Communicator::Barrier, but nothing here is bounded by a timeout (window creation
// is MPI's blocking collective): callers use it only on communicators without one,
// which is also what keeps every rank on the same path (MPI does not match blocking
// with nonblocking collectives either).
//
// Lifetime. The state is cached on the MPI communicator as an attribute: created by
// the first For (collective) and freed with the communicator (MPI_Comm_free is
// collective, so the window's MPI_Win_free is too). One thread at a time.
#ifndef TESSERA_CORE_COMM_SHM_REDUCTION_H_
#define TESSERA_CORE_COMM_SHM_REDUCTION_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/mpi_communicator.h"
#include "core/common/dtype.h"
#include "core/common/status.h"

namespace tessera::comm {

// Elements [offset, offset + count) of the reduced buffer live at `data`.
struct ShmPiece {
  void* data = nullptr;
  int64_t offset = 0;
  int64_t count = 0;
};

class ShmReduction {
 public:
  // The reduction cached on `comm`, created on the first call (collective over
  // comm: MPI_Comm_split_type); nullptr when comm has one rank or its ranks do not
  // all share one node. FAILED_PRECONDITION when comm has a timeout or is poisoned
  // (see above).
  static Result<ShmReduction*> For(MpiCommunicator& comm);

  ShmReduction(const ShmReduction&) = delete;
  ShmReduction& operator=(const ShmReduction&) = delete;
  ~ShmReduction();

  // Collective: segments of at least `bytes` (they grow, never shrink; growing
  // waits for every rank to finish reading the old ones). INVALID_ARGUMENT for a
  // negative `bytes`.
  Status Reserve(MpiCommunicator& comm, int64_t bytes);
  int64_t capacity_bytes() const { return capacity_; }

  // Collective: every piece's elements := op over ranks of that rank's elements at
  // the same offsets. Pieces are in offset order, inside [0, count), and do not
  // overlap; elements no piece covers are not reduced. INVALID_ARGUMENT, before any
  // communication, for a count beyond capacity_bytes(), a dtype communicators do not
  // carry, a bad op, or pieces out of order or out of range; a barrier's error as is.
  Status AllReduce(MpiCommunicator& comm, const std::vector<ShmPiece>& pieces, int64_t count,
                   DType dtype, ReduceOp op);

 private:
  ShmReduction(MPI_Comm comm, int32_t rank, int32_t size)
      : comm_(comm), rank_(rank), size_(size), starts_(size + 1, 0), peers_(size, nullptr) {}

  unsigned char* Segment(int32_t rank) const { return segments_[rank] + parity_ * capacity_; }
  void FreeWindow();
  Status Barrier(MpiCommunicator& comm);

  MPI_Comm comm_;  // the communicator the state is cached on; lives as long as it
  int32_t rank_;
  int32_t size_;
  MPI_Win window_ = MPI_WIN_NULL;
  int64_t capacity_ = 0;                  // bytes per segment; each rank holds two
  std::vector<unsigned char*> segments_;  // every rank's pair, mapped here
  int parity_ = 0;                        // the segment the next AllReduce uses
  std::vector<int64_t> starts_;           // block b is elements [starts_[b], starts_[b + 1])
  std::vector<const void*> peers_;        // per-call scratch: the other ranks' inputs
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_SHM_REDUCTION_H_
