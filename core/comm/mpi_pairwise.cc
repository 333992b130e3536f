// MpiCommunicator's own large-message reductions (mpi_communicator.h, "Reduce-scatter"
// and "All-reduce"): the pairwise reduce-scatter, and the all-reduce built from it and
// MPI's all-gather.
#include <mpi.h>

#include <cstdint>

#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_exact_ops.h"
#include "core/comm/mpi_world.h"

namespace tessera::comm {
namespace {

// Tag of the pairwise reduce-scatter's messages (on the private duplicate).
constexpr int kPairwiseTag = 0;

}  // namespace

Result<int32_t> MpiCommunicator::MostRanksOnAHost() {
  std::lock_guard<std::recursive_mutex> lock(call_mutex());
  if (most_ranks_on_a_host_ > 0) return most_ranks_on_a_host_;
  MPI_Comm shared = MPI_COMM_NULL;
  int rc = MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank(), MPI_INFO_NULL, &shared);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)", rc);
  int here = 0;
  rc = MPI_Comm_size(shared, &here);
  MPI_Comm_free(&shared);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_size", rc);
  // Each rank sees its own host; the maximum makes the answer every rank's.
  int most = 0;
  rc = MPI_Allreduce(&here, &most, 1, MPI_INT, MPI_MAX, comm_);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Allreduce", rc);
  most_ranks_on_a_host_ = most;
  return most;
}

Result<bool> MpiCommunicator::PairwiseSuitsHosts() {
  TESS_ASSIGN_OR_RETURN(const int32_t most, MostRanksOnAHost());
  return most == size() || most == 1;
}

int64_t MpiCommunicator::ReduceScatterAllGatherBytes(int32_t size) {
  // Measured per communicator size (mpi_communicator.h, "All-reduce").
  return size <= 2 ? kReduceScatterAllGatherBytes2 : kReduceScatterAllGatherBytes;
}

Status MpiCommunicator::PairwiseReduceScatter(const void* send, void* out, DType dtype,
                                              MPI_Datatype type, ReduceOp op) {
  if (p2p_ == MPI_COMM_NULL) {
    // Collective, but every member reaches it in the same call (same counts).
    int rc = MPI_Comm_dup(comm_, &p2p_);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_dup", rc);
    rc = MPI_Comm_set_errhandler(p2p_, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_set_errhandler", rc);
  }
  const int n = size(), me = rank();
  const size_t elem = DTypeSize(dtype);
  const std::vector<int>& counts = ints_[0];
  const std::vector<int>& displs = ints_[1];
  const int mine = counts[me];
  const char* in = static_cast<const char*>(send);
  const char* own = in + displs[me] * elem;
  // `out` holding this rank's own input block (an in-place all-reduce) already holds
  // its contribution; every received block then goes through scratch. Otherwise the
  // first block received goes straight into `out`, and two ranks need no scratch.
  const bool in_place = out == own;
  if ((n > 2 || in_place) && scratch_.size() < mine * elem) scratch_.resize(mine * elem);
  const MPI_Op mpi_op = ToMpiOp(op, dtype);
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n, from = (me - k + n) % n;
    const bool direct = k == 1 && !in_place;
    void* into = direct ? out : static_cast<void*>(scratch_.data());
    int rc = MPI_Sendrecv(in + displs[to] * elem, counts[to], type, to, kPairwiseTag, into, mine,
                          type, from, kPairwiseTag, p2p_, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Sendrecv", rc);
    // out = other op out; a direct first step folds in this rank's own block.
    const void* other = direct ? own : static_cast<const void*>(scratch_.data());
    rc = MPI_Reduce_local(other, out, mine, type, mpi_op);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Reduce_local", rc);
  }
  return Status::Ok();
}

Status MpiCommunicator::ReduceScatterAllGather(const void* send, void* recv, int64_t count,
                                               DType dtype, MPI_Datatype type, ReduceOp op) {
  // Balanced blocks (the first count % n one element longer), each reduced by one
  // rank straight into its place in recv, then gathered in place: every element of
  // the result is computed by one rank, so all ranks get the same bits.
  const int n = size();
  const int64_t base = count / n, extra = count % n;
  for (int r = 0, offset = 0; r < n; ++r) {
    ints_[0][r] = static_cast<int>(base + (r < extra ? 1 : 0));
    ints_[1][r] = offset;
    offset += ints_[0][r];
  }
  char* own = static_cast<char*>(recv) + ints_[1][rank()] * DTypeSize(dtype);
  TESS_RETURN_IF_ERROR(PairwiseReduceScatter(send, own, dtype, type, op));
  // Even blocks take MPI's plain all-gather (tuned separately from the v form).
  const int rc = extra == 0 ? MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv,
                                            static_cast<int>(base), type, comm_)
                            : MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv,
                                             ints_[0].data(), ints_[1].data(), type, comm_);
  if (rc != MPI_SUCCESS) return MpiError(extra == 0 ? "MPI_Allgather" : "MPI_Allgatherv", rc);
  return Status::Ok();
}

}  // namespace tessera::comm
