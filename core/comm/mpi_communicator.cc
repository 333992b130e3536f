#include "core/comm/mpi_communicator.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <mutex>
#include <string>
#include <utility>

#include "core/comm/block_layout.h"
#include "core/comm/comm_checks.h"
#include "core/comm/deadline.h"
#include "core/comm/mpi_exact_ops.h"
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

// True when `request` (issued by MPI function `call`) completed within `seconds`;
// polled at least once (deadline.h: spin, then yield, then short sleeps).
Result<bool> PollUntil(MPI_Request* request, MPI_Status* status, double seconds, const char* call) {
  return comm::PollUntil(
      DeadlineFrom(PollClock::now(), seconds), /*forever=*/false, [&]() -> Result<bool> {
        int done = 0;
        int rc = MPI_Test(request, &done, status == nullptr ? MPI_STATUS_IGNORE : status);
        if (rc != MPI_SUCCESS) return MpiError(call, rc);
        return done != 0;
      });
}

// Arrays an incomplete abandoned operation may still read: kept until exit.
template <typename T>
void KeepForever(std::vector<T>&& values) {
  static std::mutex mu;
  static auto* kept = new std::vector<std::vector<T>>;  // never freed, by design
  std::lock_guard<std::mutex> lock(mu);
  kept->push_back(std::move(values));
}

}  // namespace

Result<MPI_Datatype> ToMpiDatatype(DType dtype) {
  switch (dtype) {
    case DType::kF32: return MPI_FLOAT;
    case DType::kF64: return MPI_DOUBLE;
    case DType::kI32: return MPI_INT32_T;
    case DType::kI64: return MPI_INT64_T;
    // Bytes: bool only moves (comm_checks refuses reducing it).
    case DType::kBool: return MPI_UINT8_T;
    // MPI has no 2-byte float: the bits move as uint16, and every reduction of them
    // goes through ToMpiOp's user-defined ops, which compute in float.
    case DType::kF16:
    case DType::kBF16: return MPI_UINT16_T;
  }
  return InvalidArgument(std::string("dtype ") + DTypeName(dtype) +
                         " has no MPI datatype (supported: f32, f64, f16, bf16, i32, i64, bool)");
}

Result<std::unique_ptr<MpiCommunicator>> MpiCommunicator::Wrap(MPI_Comm comm, bool owned) {
  if (comm == MPI_COMM_NULL) return InvalidArgument("MpiCommunicator::Wrap: comm is MPI_COMM_NULL");
  TESS_ASSIGN_OR_RETURN(double timeout, DefaultCollectiveTimeout());
  int rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_set_errhandler", rc);
  int rank = 0, size = 0;
  rc = MPI_Comm_rank(comm, &rank);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_rank", rc);
  rc = MPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Comm_size", rc);
  std::unique_ptr<MpiCommunicator> wrapped(new MpiCommunicator(comm, owned, rank, size));
  TESS_RETURN_IF_ERROR(wrapped->SetTimeout(timeout));
  return wrapped;
}

MpiCommunicator::MpiCommunicator(MPI_Comm comm, bool owned, int32_t rank, int32_t size)
    : Communicator(rank, size), comm_(comm), owned_(owned) {
  for (std::vector<int>& v : ints_) v.resize(size);
  for (std::vector<MPI_Datatype>& v : types_) v.resize(size);
}

MpiCommunicator::~MpiCommunicator() {
  // Freeing after MPI_Finalize is an error; the process is ending anyway.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;  // shm_'s window went with MPI; deleting shm_ knows that
  // Freeing the window is collective: after a timeout some members may never get
  // there, so a poisoned communicator keeps it for the rest of the process. (A
  // healthy one whose member is gone would wait here: FinalizeWorld bounds that.)
  if (poisoned()) {
    (void)shm_.release();
  } else {
    shm_.reset();
  }
  // MPI lets a datatype be freed while an operation still uses it.
  FreeDatatypes();
  if (p2p_ != MPI_COMM_NULL) MPI_Comm_free(&p2p_);
  if (abandoned_ != MPI_REQUEST_NULL) {
    int done = 0;
    MPI_Test(&abandoned_, &done, MPI_STATUS_IGNORE);
    if (!done) {
      for (std::vector<int>& v : ints_) KeepForever(std::move(v));
      for (std::vector<MPI_Datatype>& v : types_) KeepForever(std::move(v));
      return;  // and leave comm_ allocated: the operation still uses it
    }
  }
  if (owned_) MPI_Comm_free(&comm_);
}

bool MpiCommunicator::TypeKey::operator==(const TypeKey& o) const {
  if (dtype != o.dtype || levels != o.levels || run != o.run || shift != o.shift) return false;
  for (int l = 0; l < levels; ++l) {
    if (count[l] != o.count[l] || stride[l] != o.stride[l]) return false;
  }
  return true;
}

size_t MpiCommunicator::TypeKeyHash::operator()(const TypeKey& key) const {
  size_t h = std::hash<int64_t>()(key.run) ^ (static_cast<size_t>(key.dtype) << 1);
  auto mix = [&h](int64_t v) { h = h * 1000003u ^ std::hash<int64_t>()(v); };
  mix(key.shift);
  mix(key.levels);
  for (int l = 0; l < key.levels; ++l) {
    mix(key.count[l]);
    mix(key.stride[l]);
  }
  return h;
}

void MpiCommunicator::FreeDatatypes() {
  for (auto& entry : datatypes_) MPI_Type_free(&entry.second);
  datatypes_.clear();
}

Status MpiCommunicator::BlockToMpi(const BlockView& block, DType dtype, MPI_Datatype base,
                                   int* count, MPI_Datatype* type, int* displacement) {
  const BlockLayout layout = BlockLayout::Of(block);
  *count = 0;
  *type = base;
  *displacement = 0;
  if (layout.run == 0) return Status::Ok();
  const int64_t elem = static_cast<int64_t>(DTypeSize(dtype));
  // The offset goes into the int byte displacement when it fits, except on one rank:
  // Open MPI 4.1's single-process MPI_Alltoallw (coll/self) scales displacements by
  // the datatype's extent, so there every offset travels inside the datatype.
  const bool fits = size() > 1 && layout.offset <= INT_MAX / elem;
  if (layout.levels == 0 && (fits || layout.offset == 0)) {
    *count = static_cast<int>(layout.run);  // checked against max_count() (INT_MAX)
    *displacement = static_cast<int>(layout.offset * elem);
    return Status::Ok();
  }
  TypeKey key;
  key.dtype = static_cast<int>(dtype);
  key.levels = layout.levels;
  key.run = layout.run;
  key.shift = fits ? 0 : layout.offset;
  for (int l = 0; l < layout.levels; ++l) {
    key.count[l] = layout.count[l];
    key.stride[l] = layout.stride[l];
  }
  auto it = datatypes_.find(key);
  if (it == datatypes_.end()) {
    MPI_Datatype built = base;
    bool derived = false;
    // Each step wraps the previous type; MPI lets the inner one be freed at once.
    auto wrap = [&](int rc, const char* call, MPI_Datatype next) -> Status {
      if (rc != MPI_SUCCESS) {
        if (derived) MPI_Type_free(&built);
        return MpiError(call, rc);
      }
      if (derived) MPI_Type_free(&built);
      built = next;
      derived = true;
      return Status::Ok();
    };
    MPI_Datatype next = MPI_DATATYPE_NULL;
    if (layout.run > 1) {
      const int rc = MPI_Type_contiguous(static_cast<int>(layout.run), base, &next);
      TESS_RETURN_IF_ERROR(wrap(rc, "MPI_Type_contiguous", next));
    }
    for (int l = 0; l < layout.levels; ++l) {
      const int rc =
          MPI_Type_create_hvector(static_cast<int>(layout.count[l]), 1,
                                  static_cast<MPI_Aint>(layout.stride[l] * elem), built, &next);
      TESS_RETURN_IF_ERROR(wrap(rc, "MPI_Type_create_hvector", next));
    }
    // Reached with a run of one element only when there are levels or a shift, so
    // `built` is a derived type by the end.
    if (key.shift != 0) {
      const MPI_Aint shift = static_cast<MPI_Aint>(key.shift * elem);
      const int rc = MPI_Type_create_hindexed_block(1, 1, &shift, built, &next);
      TESS_RETURN_IF_ERROR(wrap(rc, "MPI_Type_create_hindexed_block", next));
    }
    int rc = MPI_Type_commit(&built);
    if (rc != MPI_SUCCESS) {
      MPI_Type_free(&built);
      return MpiError("MPI_Type_commit", rc);
    }
    it = datatypes_.emplace(key, built).first;
  }
  *count = 1;
  *type = it->second;
  *displacement = fits ? static_cast<int>(layout.offset * elem) : 0;
  return Status::Ok();
}

int64_t MpiCommunicator::max_count() const { return INT_MAX; }

Status MpiCommunicator::DoSetTimeout(double /*seconds*/) { return Status::Ok(); }

Status MpiCommunicator::TimedOut(const char* method) {
  Status error = DeadlineExceeded(
      std::string(method) + ": not complete after the timeout of " +
      SecondsText(timeout_seconds()) + " s on a communicator of " + Str(size()) +
      " ranks (this is rank " + Str(rank()) +
      "); another member is late, hung or dead, and this communicator is now unusable");
  Poison(error);
  NoteFault(timeout_seconds());
  return error;
}

Status MpiCommunicator::Finish(int rc, const char* call, MPI_Request* request, const char* method) {
  if (rc != MPI_SUCCESS) return MpiError(call, rc);
  if (!bounded()) return Status::Ok();
  TESS_ASSIGN_OR_RETURN(bool done, PollUntil(request, nullptr, timeout_seconds(), call));
  if (done) return Status::Ok();
  abandoned_ = *request;
  return TimedOut(method);
}

Status MpiCommunicator::WaitAbandoned(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) {
    return InvalidArgument("WaitAbandoned: seconds is " + SecondsText(seconds) +
                           "; it must be a finite number >= 0");
  }
  std::lock_guard<std::recursive_mutex> lock(call_mutex());
  if (abandoned_ == MPI_REQUEST_NULL) return Status::Ok();
  TESS_ASSIGN_OR_RETURN(bool done, PollUntil(&abandoned_, nullptr, seconds, "MPI_Test"));
  if (done) return Status::Ok();  // MPI_Test reset abandoned_ to MPI_REQUEST_NULL
  return DeadlineExceeded("WaitAbandoned: the operation abandoned by a timeout is still " +
                          std::string("incomplete after ") + SecondsText(seconds) +
                          " s on a communicator of " + Str(size()) + " ranks");
}

Status MpiCommunicator::DoAllReduce(const void* send, void* recv, int64_t count, DType dtype,
                                    ReduceOp op) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  if (!bounded() && size() > 1 &&
      count * static_cast<int64_t>(DTypeSize(dtype)) >= ReduceScatterAllGatherBytes(size())) {
    TESS_ASSIGN_OR_RETURN(const bool suits, PairwiseSuitsHosts());
    if (suits) return ReduceScatterAllGather(send, recv, count, dtype, type, op);
  }
  const void* s = send == recv ? MPI_IN_PLACE : send;
  const int n = static_cast<int>(count);
  MPI_Request request = MPI_REQUEST_NULL;
  if (bounded()) {
    int rc = MPI_Iallreduce(s, recv, n, type, ToMpiOp(op, dtype), comm_, &request);
    return Finish(rc, "MPI_Iallreduce", &request, "AllReduce");
  }
  int rc = MPI_Allreduce(s, recv, n, type, ToMpiOp(op, dtype), comm_);
  return Finish(rc, "MPI_Allreduce", &request, "AllReduce");
}

Status MpiCommunicator::IAllReduce(void* buffer, int64_t count, DType dtype, ReduceOp op,
                                   MPI_Request* request) {
  std::lock_guard<std::recursive_mutex> lock(call_mutex());
  constexpr const char* kMethod = "IAllReduce";
  if (request == nullptr) return InvalidArgument("IAllReduce: request is null");
  *request = MPI_REQUEST_NULL;
  if (poisoned()) {
    return FailedPrecondition(std::string(kMethod) + ": the communicator is unusable after " +
                              poison().message());
  }
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckReduceOp(kMethod, op));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "count", count, max_count()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "buffer", buffer, count));
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const int rc = MPI_Iallreduce(MPI_IN_PLACE, buffer, static_cast<int>(count), type,
                                ToMpiOp(op, dtype), comm_, request);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Iallreduce", rc);
  return Status::Ok();
}

Status MpiCommunicator::IReduceScatterBlock(const void* send, void* recv, int64_t recv_count,
                                            DType dtype, ReduceOp op, MPI_Request* request) {
  std::lock_guard<std::recursive_mutex> lock(call_mutex());
  constexpr const char* kMethod = "IReduceScatterBlock";
  if (request == nullptr) return InvalidArgument("IReduceScatterBlock: request is null");
  *request = MPI_REQUEST_NULL;
  if (poisoned()) {
    return FailedPrecondition(std::string(kMethod) + ": the communicator is unusable after " +
                              poison().message());
  }
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckReduceOp(kMethod, op));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "recv_count", recv_count, max_count() / size()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "send", send, recv_count * size()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "recv", recv, recv_count));
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const int rc = MPI_Ireduce_scatter_block(send, recv, static_cast<int>(recv_count), type,
                                           ToMpiOp(op, dtype), comm_, request);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Ireduce_scatter_block", rc);
  return Status::Ok();
}

Status MpiCommunicator::Test(MPI_Request* request, bool* done) {
  if (request == nullptr || done == nullptr) {
    return InvalidArgument(std::string("Test: ") + (request == nullptr ? "request" : "done") +
                           " is null");
  }
  std::lock_guard<std::recursive_mutex> lock(call_mutex());
  int flag = 1;
  if (*request != MPI_REQUEST_NULL) {
    const int rc = MPI_Test(request, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Test", rc);
  }
  *done = flag != 0;
  return Status::Ok();
}

Status MpiCommunicator::Wait(MPI_Request* request) {
  if (request == nullptr) return InvalidArgument("Wait: request is null");
  std::lock_guard<std::recursive_mutex> lock(call_mutex());
  if (*request == MPI_REQUEST_NULL) return Status::Ok();
  if (!bounded()) {
    const int rc = MPI_Wait(request, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? Status::Ok() : MpiError("MPI_Wait", rc);
  }
  TESS_ASSIGN_OR_RETURN(bool done, PollUntil(request, nullptr, timeout_seconds(), "MPI_Test"));
  if (done) return Status::Ok();
  if (abandoned_ == MPI_REQUEST_NULL) abandoned_ = *request;
  *request = MPI_REQUEST_NULL;
  return TimedOut("Wait");
}

Status MpiCommunicator::DoReduce(const void* send, void* recv, int64_t count, DType dtype,
                                 ReduceOp op, int32_t root) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const void* s = (rank() == root && send == recv) ? MPI_IN_PLACE : send;
  const int n = static_cast<int>(count);
  MPI_Request request = MPI_REQUEST_NULL;
  if (bounded()) {
    int rc = MPI_Ireduce(s, recv, n, type, ToMpiOp(op, dtype), root, comm_, &request);
    return Finish(rc, "MPI_Ireduce", &request, "Reduce");
  }
  int rc = MPI_Reduce(s, recv, n, type, ToMpiOp(op, dtype), root, comm_);
  return Finish(rc, "MPI_Reduce", &request, "Reduce");
}

Status MpiCommunicator::DoReduceScatterV(const void* send, void* recv,
                                         const std::vector<int64_t>& recv_counts, DType dtype,
                                         ReduceOp op) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  if (!bounded() && size() > 1) {
    int64_t total = 0;
    for (int64_t c : recv_counts) total += c;
    const int64_t bytes = total * static_cast<int64_t>(DTypeSize(dtype));
    bool suits = false;
    if (bytes >= kPairwiseReduceScatterBytes * size()) {
      TESS_ASSIGN_OR_RETURN(suits, PairwiseSuitsHosts());
    }
    if (suits) {
      ToInts(recv_counts, ints_[0]);  // the caller checked the sum against INT_MAX
      for (int r = 0, offset = 0; r < size(); ++r) {
        ints_[1][r] = offset;
        offset += ints_[0][r];
      }
      return PairwiseReduceScatter(send, recv, dtype, type, op);
    }
  }
  MPI_Request request = MPI_REQUEST_NULL;
  // Even blocks take MPI's block form: Open MPI selects algorithms per entry point,
  // and the block form gets the ones tuned for (and benchmarked as) reduce-scatter.
  if (AllEqual(recv_counts)) {
    const int n = static_cast<int>(recv_counts[0]);
    if (bounded()) {
      int rc = MPI_Ireduce_scatter_block(send, recv, n, type, ToMpiOp(op, dtype), comm_, &request);
      return Finish(rc, "MPI_Ireduce_scatter_block", &request, "ReduceScatterV");
    }
    int rc = MPI_Reduce_scatter_block(send, recv, n, type, ToMpiOp(op, dtype), comm_);
    return Finish(rc, "MPI_Reduce_scatter_block", &request, "ReduceScatterV");
  }
  ToInts(recv_counts, ints_[0]);
  if (bounded()) {
    int rc =
        MPI_Ireduce_scatter(send, recv, ints_[0].data(), type, ToMpiOp(op, dtype), comm_, &request);
    return Finish(rc, "MPI_Ireduce_scatter", &request, "ReduceScatterV");
  }
  int rc = MPI_Reduce_scatter(send, recv, ints_[0].data(), type, ToMpiOp(op, dtype), comm_);
  return Finish(rc, "MPI_Reduce_scatter", &request, "ReduceScatterV");
}

Status MpiCommunicator::DoAllGatherV(const void* send, int64_t send_count, void* recv,
                                     const std::vector<int64_t>& recv_counts,
                                     const std::vector<int64_t>& recv_displs, DType dtype) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const char* own = static_cast<const char*>(recv) + recv_displs[rank()] * DTypeSize(dtype);
  const void* s = (send == own && send != nullptr) ? MPI_IN_PLACE : send;
  const int n = static_cast<int>(send_count);
  MPI_Request request = MPI_REQUEST_NULL;
  // Even, packed blocks take MPI's plain all-gather, whose algorithms Open MPI tunes
  // separately (the common S(0) -> B case of an evenly split tensor).
  if (AllEqual(recv_counts) && Packed(recv_counts, recv_displs)) {
    if (bounded()) {
      int rc = MPI_Iallgather(s, n, type, recv, n, type, comm_, &request);
      return Finish(rc, "MPI_Iallgather", &request, "AllGatherV");
    }
    int rc = MPI_Allgather(s, n, type, recv, n, type, comm_);
    return Finish(rc, "MPI_Allgather", &request, "AllGatherV");
  }
  ToInts(recv_counts, ints_[0]);
  ToInts(recv_displs, ints_[1]);
  if (bounded()) {
    int rc =
        MPI_Iallgatherv(s, n, type, recv, ints_[0].data(), ints_[1].data(), type, comm_, &request);
    return Finish(rc, "MPI_Iallgatherv", &request, "AllGatherV");
  }
  int rc = MPI_Allgatherv(s, n, type, recv, ints_[0].data(), ints_[1].data(), type, comm_);
  return Finish(rc, "MPI_Allgatherv", &request, "AllGatherV");
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
  MPI_Request request = MPI_REQUEST_NULL;
  if (bounded()) {
    int rc = MPI_Ialltoallv(send, ints_[0].data(), ints_[1].data(), type, recv, ints_[2].data(),
                            ints_[3].data(), type, comm_, &request);
    return Finish(rc, "MPI_Ialltoallv", &request, "AllToAllV");
  }
  int rc = MPI_Alltoallv(send, ints_[0].data(), ints_[1].data(), type, recv, ints_[2].data(),
                         ints_[3].data(), type, comm_);
  return Finish(rc, "MPI_Alltoallv", &request, "AllToAllV");
}

Status MpiCommunicator::DoAllToAllBlocks(const void* send,
                                         const std::vector<BlockView>& send_blocks, void* recv,
                                         const std::vector<BlockView>& recv_blocks, DType dtype) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype base, ToMpiDatatype(dtype));
  const int n = size();
  // Emptied before, not during, the mapping: this call's types must outlive it.
  if (!datatypes_.empty() && datatypes_.size() + 2 * static_cast<size_t>(n) > kMaxCachedDatatypes) {
    FreeDatatypes();
  }
  for (int r = 0; r < n; ++r) {
    TESS_RETURN_IF_ERROR(
        BlockToMpi(send_blocks[r], dtype, base, &ints_[0][r], &types_[0][r], &ints_[1][r]));
    TESS_RETURN_IF_ERROR(
        BlockToMpi(recv_blocks[r], dtype, base, &ints_[2][r], &types_[1][r], &ints_[3][r]));
  }
  MPI_Request request = MPI_REQUEST_NULL;
  if (bounded()) {
    int rc = MPI_Ialltoallw(send, ints_[0].data(), ints_[1].data(), types_[0].data(), recv,
                            ints_[2].data(), ints_[3].data(), types_[1].data(), comm_, &request);
    return Finish(rc, "MPI_Ialltoallw", &request, "AllToAllBlocks");
  }
  int rc = MPI_Alltoallw(send, ints_[0].data(), ints_[1].data(), types_[0].data(), recv,
                         ints_[2].data(), ints_[3].data(), types_[1].data(), comm_);
  return Finish(rc, "MPI_Alltoallw", &request, "AllToAllBlocks");
}

Status MpiCommunicator::DoBroadcast(void* buffer, int64_t count, DType dtype, int32_t root) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const int n = static_cast<int>(count);
  MPI_Request request = MPI_REQUEST_NULL;
  if (bounded()) {
    int rc = MPI_Ibcast(buffer, n, type, root, comm_, &request);
    return Finish(rc, "MPI_Ibcast", &request, "Broadcast");
  }
  int rc = MPI_Bcast(buffer, n, type, root, comm_);
  return Finish(rc, "MPI_Bcast", &request, "Broadcast");
}

Status MpiCommunicator::DoSend(const void* buffer, int64_t count, DType dtype, int32_t peer,
                               int32_t tag) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  const int n = static_cast<int>(count);
  MPI_Request request = MPI_REQUEST_NULL;
  if (bounded()) {
    int rc = MPI_Isend(buffer, n, type, peer, tag, comm_, &request);
    return Finish(rc, "MPI_Isend", &request, "Send");
  }
  int rc = MPI_Send(buffer, n, type, peer, tag, comm_);
  return Finish(rc, "MPI_Send", &request, "Send");
}

Status MpiCommunicator::DoRecv(void* buffer, int64_t count, DType dtype, int32_t peer,
                               int32_t tag) {
  TESS_ASSIGN_OR_RETURN(MPI_Datatype type, ToMpiDatatype(dtype));
  MPI_Status status;
  if (bounded()) {
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = MPI_Irecv(buffer, static_cast<int>(count), type, peer, tag, comm_, &request);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Irecv", rc);
    TESS_ASSIGN_OR_RETURN(bool done, PollUntil(&request, &status, timeout_seconds(), "MPI_Irecv"));
    if (!done) {
      // Unlike a collective, an unmatched receive can be cancelled, so nothing is
      // left in flight; if the message matched meanwhile, the receive just succeeded.
      rc = MPI_Cancel(&request);
      if (rc != MPI_SUCCESS) return MpiError("MPI_Cancel", rc);
      rc = MPI_Wait(&request, &status);
      if (rc != MPI_SUCCESS) return MpiError("MPI_Wait", rc);
      int cancelled = 0;
      MPI_Test_cancelled(&status, &cancelled);
      if (cancelled) return TimedOut("Recv");
    }
  } else {
    int rc = MPI_Recv(buffer, static_cast<int>(count), type, peer, tag, comm_, &status);
    if (rc != MPI_SUCCESS) return MpiError("MPI_Recv", rc);
  }
  int received = 0;
  int rc = MPI_Get_count(&status, type, &received);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Get_count", rc);
  if (received != count) {
    return InvalidArgument("Recv: expected " + std::to_string(count) + " elements from rank " +
                           std::to_string(peer) + " (tag " + std::to_string(tag) +
                           ") but the message holds " + std::to_string(received));
  }
  return Status::Ok();
}

Status MpiCommunicator::DoBarrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  if (bounded()) return Finish(MPI_Ibarrier(comm_, &request), "MPI_Ibarrier", &request, "Barrier");
  return Finish(MPI_Barrier(comm_), "MPI_Barrier", &request, "Barrier");
}

}  // namespace tessera::comm
