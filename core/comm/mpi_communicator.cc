#include "core/comm/mpi_communicator.h"

#include <climits>
#include <string>

#include "core/comm/mpi_world.h"

namespace tessera::comm {
namespace {

void ToInts(const std::vector<int64_t>& values, std::vector<int>& out) {
  // Callers checked every value against max_count() (INT_MAX).
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<int>(values[i]);
}

bool AllEqual(const std::vector<int64_t>& counts) {
  for (int64_t c : counts) {
    if (c != counts[0]) return false;
  }
  return true;
}

// Displacements that place equal blocks back to back in rank order.
bool Packed(const std::vector<int64_t>& counts, const std::vector<int64_t>& displs) {
  for (size_t r = 0; r < counts.size(); ++r) {
    if (displs[r] != static_cast<int64_t>(r) * counts[0]) return false;
  }
  return true;
}

}  // namespace

Result<MPI_Datatype> ToMpiDatatype(DType dtype) {
  switch (dtype) {
    case DType::kF32: return MPI_FLOAT;
    case DType::kF64: return MPI_DOUBLE;
    case DType::kI32: return MPI_INT32_T;
    case DType::kI64: return MPI_INT64_T;
    case DType::kF16:
    case DType::kBF16: break;
  }
  return InvalidArgument(std::string("dtype ") + DTypeName(dtype) +
                         " has no MPI datatype (supported: f32, f64, i32, i64)");
}

MPI_Op ToMpiOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return MPI_SUM;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kMin: return MPI_MIN;
  }
  return MPI_OP_NULL;
}

Result<std::unique_ptr<MpiCommunicator>> MpiCommunicator::Wrap(MPI_Comm comm, bool owned) {
  if (comm == MPI_COMM_NULL) return InvalidArgument("MpiCommunicator::Wrap: comm is MPI_COMM_NULL");
  int rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_set_errhandler", rc);
  int rank = 0, size = 0;
  rc = MPI_Comm_rank(comm, &rank);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_rank", rc);
  rc = MPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_size", rc);
  return std::unique_ptr<MpiCommunicator>(new MpiCommunicator(comm, owned, rank, size));
}

MpiCommunicator::MpiCommunicator(MPI_Comm comm, bool owned, int32_t rank, int32_t size)
    : Communicator(rank, size), comm_(comm), owned_(owned) {
  for (std::vector<int>& v : ints_) v.resize(size);
}

MpiCommunicator::~MpiCommunicator() {
  if (!owned_) return;
  // Freeing after MPI_Finalize is an error; the process is ending anyway.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm_);
}

int64_t MpiCommunicator::max_count() const { return INT_MAX; }

Status MpiCommunicator::DoAllReduce(const void* send, void* recv, int64_t count, DType dtype,
                                    ReduceOp op) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const void* s = send == recv ? MPI_IN_PLACE : send;
  int rc = MPI_Allreduce(s, recv, static_cast<int>(count), type, ToMpiOp(op), comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Allreduce", rc);
}

Status MpiCommunicator::DoReduce(const void* send, void* recv, int64_t count, DType dtype,
                                 ReduceOp op, int32_t root) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const void* s = (rank() == root && send == recv) ? MPI_IN_PLACE : send;
  int rc = MPI_Reduce(s, recv, static_cast<int>(count), type, ToMpiOp(op), root, comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Reduce", rc);
}

Status MpiCommunicator::DoReduceScatterV(const void* send, void* recv,
                                         const std::vector<int64_t>& recv_counts, DType dtype,
                                         ReduceOp op) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  // Even blocks take MPI's block form: Open MPI selects algorithms per entry point,
  // and the block form gets the ones tuned for (and benchmarked as) reduce-scatter.
  if (AllEqual(recv_counts)) {
    int rc = MPI_Reduce_scatter_block(send, recv, static_cast<int>(recv_counts[0]), type,
                                      ToMpiOp(op), comm_);
    return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Reduce_scatter_block", rc);
  }
  ToInts(recv_counts, ints_[0]);
  int rc = MPI_Reduce_scatter(send, recv, ints_[0].data(), type, ToMpiOp(op), comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Reduce_scatter", rc);
}

Status MpiCommunicator::DoAllGatherV(const void* send, int64_t send_count, void* recv,
                                     const std::vector<int64_t>& recv_counts,
                                     const std::vector<int64_t>& recv_displs, DType dtype) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const char* own = static_cast<const char*>(recv) + recv_displs[rank()] * DTypeSize(dtype);
  const void* s = (send == own && send != nullptr) ? MPI_IN_PLACE : send;
  // Even, packed blocks take MPI's plain all-gather, whose algorithms Open MPI tunes
  // separately (the common S(0) -> B case of an evenly split tensor).
  if (AllEqual(recv_counts) && Packed(recv_counts, recv_displs)) {
    int count = static_cast<int>(send_count);
    int rc = MPI_Allgather(s, count, type, recv, count, type, comm_);
    return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Allgather", rc);
  }
  ToInts(recv_counts, ints_[0]);
  ToInts(recv_displs, ints_[1]);
  int rc = MPI_Allgatherv(s, static_cast<int>(send_count), type, recv, ints_[0].data(),
                          ints_[1].data(), type, comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Allgatherv", rc);
}

Status MpiCommunicator::DoAllToAllV(const void* send, const std::vector<int64_t>& send_counts,
                                    const std::vector<int64_t>& send_displs, void* recv,
                                    const std::vector<int64_t>& recv_counts,
                                    const std::vector<int64_t>& recv_displs, DType dtype) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  ToInts(send_counts, ints_[0]);
  ToInts(send_displs, ints_[1]);
  ToInts(recv_counts, ints_[2]);
  ToInts(recv_displs, ints_[3]);
  int rc = MPI_Alltoallv(send, ints_[0].data(), ints_[1].data(), type, recv, ints_[2].data(),
                         ints_[3].data(), type, comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Alltoallv", rc);
}

Status MpiCommunicator::DoBroadcast(void* buffer, int64_t count, DType dtype, int32_t root) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  int rc = MPI_Bcast(buffer, static_cast<int>(count), type, root, comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Bcast", rc);
}

Status MpiCommunicator::DoSend(const void* buffer, int64_t count, DType dtype, int32_t peer,
                               int32_t tag) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  int rc = MPI_Send(buffer, static_cast<int>(count), type, peer, tag, comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Send", rc);
}

Status MpiCommunicator::DoRecv(void* buffer, int64_t count, DType dtype, int32_t peer,
                               int32_t tag) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  MPI_Status status;
  int rc = MPI_Recv(buffer, static_cast<int>(count), type, peer, tag, comm_, &status);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Recv", rc);
  int received = 0;
  rc = MPI_Get_count(&status, type, &received);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Get_count", rc);
  if (received != count) {
    return InvalidArgument("Recv: expected " + std::to_string(count) + " elements from rank " +
                           std::to_string(peer) + " (tag " + std::to_string(tag) +
                           ") but the message holds " + std::to_string(received));
  }
  return Status::Ok();
}

Status MpiCommunicator::DoBarrier() {
  int rc = MPI_Barrier(comm_);
  return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Barrier", rc);
}

}  // namespace tessera::comm
