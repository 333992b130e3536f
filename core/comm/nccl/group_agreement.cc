#include "core/comm/nccl/group_agreement.h"

#include <cstdint>
#include <string>

namespace tessera::comm {
namespace {

// A vote is rank * kCodes + code: the minimum over the group names the lowest failed rank
// together with its code; a rank that succeeded votes above every possible failure.
constexpr int64_t kCodes = 64;

}  // namespace

Status AgreeAcrossGroup(Communicator& group, const Status& local, const char* what) {
  const int64_t ok_vote = int64_t{group.size()} * kCodes;
  int64_t vote = local.ok() ? ok_vote : group.rank() * kCodes + static_cast<int64_t>(local.code());
  int64_t lowest = 0;
  TESS_RETURN_IF_ERROR(group.AllReduce(&vote, &lowest, 1, DType::kI64, ReduceOp::kMin));
  if (lowest == ok_vote) return Status::Ok();
  if (!local.ok()) return local;
  const int64_t rank = lowest / kCodes;
  const StatusCode code = static_cast<StatusCode>(lowest % kCodes);
  return Status(code, std::string(what) + ": rank " + std::to_string(rank) + " of this " +
                          std::to_string(group.size()) + "-rank group failed (" +
                          StatusCodeName(code) + "), so no rank goes on; see rank " +
                          std::to_string(rank) + "'s error");
}

}  // namespace tessera::comm
