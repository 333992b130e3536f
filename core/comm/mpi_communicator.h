// The MPI backend of Communicator (cpu placements): each collective is the
// matching MPI call on one MPI communicator whose error handler is
// MPI_ERRORS_RETURN, so MPI failures come back as Status (via MpiError).
#ifndef TESSERA_CORE_COMM_MPI_COMMUNICATOR_H_
#define TESSERA_CORE_COMM_MPI_COMMUNICATOR_H_

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/comm/communicator.h"
#include "core/common/dtype.h"
#include "core/common/status.h"

namespace tessera::comm {

// MPI_FLOAT, MPI_DOUBLE, MPI_INT32_T, MPI_INT64_T; INVALID_ARGUMENT otherwise.
Result<MPI_Datatype> ToMpiDatatype(DType dtype);
MPI_Op ToMpiOp(ReduceOp op);

class MpiCommunicator final : public Communicator {
 public:
  // Wraps `comm` (not MPI_COMM_NULL) and sets MPI_ERRORS_RETURN on it. With `owned`,
  // the communicator frees `comm` when destroyed, unless MPI is already finalised.
  static Result<std::unique_ptr<MpiCommunicator>> Wrap(MPI_Comm comm, bool owned);
  ~MpiCommunicator() override;

  MPI_Comm comm() const { return comm_; }

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
  Status DoBroadcast(void* buffer, int64_t count, DType dtype, int32_t root) override;
  Status DoSend(const void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag) override;
  Status DoRecv(void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag) override;
  Status DoBarrier() override;
  int64_t max_count() const override;

 private:
  MpiCommunicator(MPI_Comm comm, bool owned, int32_t rank, int32_t size);

  MPI_Comm comm_;
  bool owned_;
  // MPI takes int counts and displacements: converted into these per-rank arrays,
  // sized once, so a collective allocates nothing.
  std::vector<int> ints_[4];
};

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_MPI_COMMUNICATOR_H_
