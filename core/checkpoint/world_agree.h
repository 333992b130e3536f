// How Save and Load keep every rank in step: a directory path normalised the same way
// on every rank, and a local outcome agreed over the world so that an error on one rank
// (a full disk, a corrupt shard only it reads) is returned by all of them instead of
// leaving the others waiting in the next collective.
#ifndef TESSERA_CORE_CHECKPOINT_WORLD_AGREE_H_
#define TESSERA_CORE_CHECKPOINT_WORLD_AGREE_H_

#include <string>

#include "core/comm/call_check.h"
#include "core/common/status.h"

namespace tessera::checkpoint {

// comm::AgreeLocalStatus over the world: OK everywhere, or the lowest failing rank's
// error on every rank.
Status AgreeOnWorld(const Status& local);

// In check mode (comm/call_check.h; off: OK at once), agrees `fingerprint` over the
// world, so that ranks making different checkpoint calls (another directory, name or
// layout) all return FAILED_PRECONDITION instead of reading or writing different things.
Status AgreeCallInCheckMode(const comm::CallFingerprint& fingerprint);

// A string as a fingerprint field value.
uint64_t HashText(const std::string& text);

// `dir` without trailing slashes ("/" stays "/"); INVALID_ARGUMENT naming the argument
// for an empty path.
Result<std::string> CheckpointDir(const std::string& dir);

}  // namespace tessera::checkpoint

#endif  // TESSERA_CORE_CHECKPOINT_WORLD_AGREE_H_
