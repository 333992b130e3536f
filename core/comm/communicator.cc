#include "core/comm/communicator.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "core/comm/comm_checks.h"
#include "core/comm/env_config.h"

namespace tessera::comm {
namespace {

// The value of SetDefaultCollectiveTimeout; negative while never set.
std::atomic<double>& DefaultTimeoutOverride() {
  static std::atomic<double> seconds{-1.0};
  return seconds;
}

Status CheckRank(const char* method, const char* name, int32_t value, int32_t size) {
  if (value < 0 || value >= size) {
    return OutOfRange(std::string(method) + ": " + name + " " + Str(value) +
                      " is outside the communicator of " + Str(size) + " ranks");
  }
  return Status::Ok();
}

// One entry per rank, each a valid count; `total` receives their sum.
Status CheckVector(const char* method, const char* name, const std::vector<int64_t>& values,
                   int32_t size, int64_t max, int64_t* total) {
  TESS_RETURN_IF_ERROR(CheckEntries(method, name, values.size(), size));
  int64_t sum = 0;
  for (size_t r = 0; r < values.size(); ++r) {
    // The entry's name is built only on failure: these checks run on every call of a hot
    // path (callgrind: naming each entry up front was a tenth of a small all-gather's
    // instructions).
    if (values[r] < 0 || values[r] > max) {
      const std::string entry = std::string(name) + "[" + Str(r) + "]";
      return CheckCount(method, entry.c_str(), values[r], max);
    }
    sum += values[r];
  }
  if (total != nullptr) *total = sum;
  return Status::Ok();
}

Status CheckTag(const char* method, int32_t tag) {
  if (tag < 0) {
    return InvalidArgument(std::string(method) + ": tag is " + Str(tag) + "; it must be >= 0");
  }
  return Status::Ok();
}

}  // namespace

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
  }
  return "invalid";
}

const std::vector<int64_t>& Communicator::PackedDispls(const std::vector<int64_t>& counts,
                                                       std::vector<int64_t>& scratch) {
  scratch.resize(counts.size());
  int64_t offset = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    scratch[r] = offset;
    offset += counts[r];
  }
  return scratch;
}

Status Communicator::AllReduce(const void* send, void* recv, int64_t count, DType dtype,
                               ReduceOp op) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "AllReduce";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckReduceOp(kMethod, op));
  TESS_RETURN_IF_ERROR(CheckReducibleDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "count", count, max_count()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "send", send, count));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "recv", recv, count));
  return DoAllReduce(send, recv, count, dtype, op);
}

Status Communicator::Reduce(const void* send, void* recv, int64_t count, DType dtype, ReduceOp op,
                            int32_t root) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "Reduce";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckReduceOp(kMethod, op));
  TESS_RETURN_IF_ERROR(CheckReducibleDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckRank(kMethod, "root", root, size_));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "count", count, max_count()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "send", send, count));
  if (rank_ == root) TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "recv (on the root)", recv, count));
  return DoReduce(send, recv, count, dtype, op, root);
}

Status Communicator::ReduceScatterV(const void* send, void* recv,
                                    const std::vector<int64_t>& recv_counts, DType dtype,
                                    ReduceOp op) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "ReduceScatterV";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckReduceOp(kMethod, op));
  TESS_RETURN_IF_ERROR(CheckReducibleDType(kMethod, dtype));
  int64_t total = 0;
  TESS_RETURN_IF_ERROR(
      CheckVector(kMethod, "recv_counts", recv_counts, size_, max_count(), &total));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "sum(recv_counts)", total, max_count()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "send", send, total));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "recv", recv, recv_counts[rank_]));
  return DoReduceScatterV(send, recv, recv_counts, dtype, op);
}

Status Communicator::AllGatherV(const void* send, int64_t send_count, void* recv,
                                const std::vector<int64_t>& recv_counts,
                                const std::vector<int64_t>& recv_displs, DType dtype) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "AllGatherV";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "send_count", send_count, max_count()));
  int64_t total = 0;
  TESS_RETURN_IF_ERROR(
      CheckVector(kMethod, "recv_counts", recv_counts, size_, max_count(), &total));
  if (recv_counts[rank_] != send_count) {
    return InvalidArgument(std::string(kMethod) + ": send_count is " + Str(send_count) +
                           " but recv_counts[" + Str(rank_) + "] (this rank) is " +
                           Str(recv_counts[rank_]));
  }
  if (!recv_displs.empty()) {
    TESS_RETURN_IF_ERROR(
        CheckVector(kMethod, "recv_displs", recv_displs, size_, max_count(), nullptr));
  }
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "send", send, send_count));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "recv", recv, total));
  const std::vector<int64_t>& displs =
      recv_displs.empty() ? PackedDispls(recv_counts, recv_displs_scratch_) : recv_displs;
  // Packed displacements are prefix sums, which can outgrow the backend's limit.
  TESS_RETURN_IF_ERROR(
      CheckCount(kMethod, "the last packed displacement", displs.back(), max_count()));
  return DoAllGatherV(send, send_count, recv, recv_counts, displs, dtype);
}

Status Communicator::AllToAllV(const void* send, const std::vector<int64_t>& send_counts,
                               const std::vector<int64_t>& send_displs, void* recv,
                               const std::vector<int64_t>& recv_counts,
                               const std::vector<int64_t>& recv_displs, DType dtype) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "AllToAllV";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  int64_t send_total = 0, recv_total = 0;
  TESS_RETURN_IF_ERROR(
      CheckVector(kMethod, "send_counts", send_counts, size_, max_count(), &send_total));
  TESS_RETURN_IF_ERROR(
      CheckVector(kMethod, "recv_counts", recv_counts, size_, max_count(), &recv_total));
  TESS_RETURN_IF_ERROR(
      CheckToSelf(kMethod, rank_, send_counts[rank_], "recv_counts", "is", recv_counts[rank_]));
  if (!send_displs.empty()) {
    TESS_RETURN_IF_ERROR(
        CheckVector(kMethod, "send_displs", send_displs, size_, max_count(), nullptr));
  }
  if (!recv_displs.empty()) {
    TESS_RETURN_IF_ERROR(
        CheckVector(kMethod, "recv_displs", recv_displs, size_, max_count(), nullptr));
  }
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "send", send, send_total));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "recv", recv, recv_total));
  const std::vector<int64_t>& sd =
      send_displs.empty() ? PackedDispls(send_counts, send_displs_scratch_) : send_displs;
  const std::vector<int64_t>& rd =
      recv_displs.empty() ? PackedDispls(recv_counts, recv_displs_scratch_) : recv_displs;
  // Packed displacements are prefix sums, which can outgrow the backend's limit.
  TESS_RETURN_IF_ERROR(
      CheckCount(kMethod, "the last packed send displacement", sd.back(), max_count()));
  TESS_RETURN_IF_ERROR(
      CheckCount(kMethod, "the last packed recv displacement", rd.back(), max_count()));
  return DoAllToAllV(send, send_counts, sd, recv, recv_counts, rd, dtype);
}

BlockView BlockView::Run(int64_t offset, int64_t count) {
  // set_dim, not a literal: bad values are for AllToAllBlocks to report, not a CHECK.
  BlockView view;
  view.tensor = Shape{0};
  view.tensor.set_dim(0, offset + count);
  view.box = Shape{0};
  view.box.set_dim(0, count);
  view.begin[0] = offset;
  return view;
}

BlockView BlockView::Box(const Shape& tensor, const int64_t* begin, const Shape& box) {
  BlockView view;
  view.tensor = tensor;
  view.box = box;
  for (int d = 0; d < box.ndim(); ++d) view.begin[d] = begin[d];
  return view;
}

Status Communicator::AllToAllBlocks(const void* send, const std::vector<BlockView>& send_blocks,
                                    void* recv, const std::vector<BlockView>& recv_blocks,
                                    DType dtype) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "AllToAllBlocks";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  int64_t send_total = 0, recv_total = 0;
  TESS_RETURN_IF_ERROR(
      CheckBlocks(kMethod, "send_blocks", send_blocks, size_, max_count(), &send_total));
  TESS_RETURN_IF_ERROR(
      CheckBlocks(kMethod, "recv_blocks", recv_blocks, size_, max_count(), &recv_total));
  TESS_RETURN_IF_ERROR(CheckToSelf(kMethod, rank_, send_blocks[rank_].num_elements(), "recv_blocks",
                                   "holds", recv_blocks[rank_].num_elements()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "send", send, send_total));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "recv", recv, recv_total));
  return DoAllToAllBlocks(send, send_blocks, recv, recv_blocks, dtype);
}

Status Communicator::DoAllToAllBlocks(const void* /*send*/,
                                      const std::vector<BlockView>& /*send_blocks*/, void* /*recv*/,
                                      const std::vector<BlockView>& /*recv_blocks*/,
                                      DType /*dtype*/) {
  return Unimplemented(
      "AllToAllBlocks: this communicator's backend cannot move strided blocks; pack them and "
      "use AllToAllV");
}

Status Communicator::Broadcast(void* buffer, int64_t count, DType dtype, int32_t root) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "Broadcast";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckRank(kMethod, "root", root, size_));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "count", count, max_count()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "buffer", buffer, count));
  return DoBroadcast(buffer, count, dtype, root);
}

Status Communicator::Send(const void* buffer, int64_t count, DType dtype, int32_t peer,
                          int32_t tag) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "Send";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckRank(kMethod, "peer", peer, size_));
  if (peer == rank_) {
    return InvalidArgument("Send: peer " + Str(peer) +
                           " is this rank; a blocking send to itself can deadlock");
  }
  TESS_RETURN_IF_ERROR(CheckTag(kMethod, tag));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "count", count, max_count()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "buffer", buffer, count));
  return DoSend(buffer, count, dtype, peer, tag);
}

Status Communicator::Recv(void* buffer, int64_t count, DType dtype, int32_t peer, int32_t tag) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  constexpr const char* kMethod = "Recv";
  if (poisoned()) return PoisonedError(kMethod);
  TESS_RETURN_IF_ERROR(CheckCommDType(kMethod, dtype));
  TESS_RETURN_IF_ERROR(CheckRank(kMethod, "peer", peer, size_));
  if (peer == rank_) {
    return InvalidArgument("Recv: peer " + Str(peer) +
                           " is this rank; a blocking receive from itself can deadlock");
  }
  TESS_RETURN_IF_ERROR(CheckTag(kMethod, tag));
  TESS_RETURN_IF_ERROR(CheckCount(kMethod, "count", count, max_count()));
  TESS_RETURN_IF_ERROR(CheckBuffer(kMethod, "buffer", buffer, count));
  return DoRecv(buffer, count, dtype, peer, tag);
}

Status Communicator::Barrier() {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  if (poisoned()) return PoisonedError("Barrier");
  return DoBarrier();
}

Result<double> DefaultCollectiveTimeout() {
  const double set = DefaultTimeoutOverride().load(std::memory_order_relaxed);
  if (set >= 0) return set;
  TESS_ASSIGN_OR_RETURN(std::optional<double> seconds, EnvSeconds(kCollectiveTimeoutEnv));
  return seconds.value_or(0.0);
}

Status SetDefaultCollectiveTimeout(double seconds) {
  TESS_RETURN_IF_ERROR(CheckTimeout("SetDefaultCollectiveTimeout", seconds));
  DefaultTimeoutOverride().store(seconds, std::memory_order_relaxed);
  return Status::Ok();
}

Status Communicator::SetTimeout(double seconds) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  TESS_RETURN_IF_ERROR(CheckTimeout("SetTimeout", seconds));
  TESS_RETURN_IF_ERROR(DoSetTimeout(seconds));
  timeout_s_.store(seconds, std::memory_order_relaxed);
  return Status::Ok();
}

Status Communicator::DoSetTimeout(double /*seconds*/) {
  return Unimplemented("SetTimeout: this communicator's backend cannot bound its calls");
}

void Communicator::Poison(Status why) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  if (poisoned()) return;
  poison_ = std::move(why);
  poisoned_.store(true, std::memory_order_release);
}

Status Communicator::PoisonedError(const char* method) const {
  return FailedPrecondition(std::string(method) +
                            ": this communicator is unusable after an earlier call timed out (" +
                            poison_.message() + ")");
}

}  // namespace tessera::comm
