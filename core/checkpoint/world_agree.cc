#include "core/checkpoint/world_agree.h"

#include "core/comm/call_check.h"

namespace tessera::checkpoint {

Status AgreeOnWorld(const Status& local) {
  TESS_ASSIGN_OR_RETURN(comm::Communicator * world, comm::WorldGroup());
  return comm::AgreeLocalStatus(*world, local);
}

Status AgreeCallInCheckMode(const comm::CallFingerprint& fingerprint) {
  if (!comm::CheckModeEnabled()) return Status::Ok();
  return comm::AgreeCallOnWorld(fingerprint);
}

uint64_t HashText(const std::string& text) { return comm::HashBytes(text.data(), text.size()); }

Result<std::string> CheckpointDir(const std::string& dir) {
  if (dir.empty()) return InvalidArgument("checkpoint dir is empty");
  if (dir.find('\0') != std::string::npos) {
    return InvalidArgument("checkpoint dir contains a NUL byte");
  }
  std::string out = dir;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace tessera::checkpoint
