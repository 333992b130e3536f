// Agreement on the outcome of a local step before a collective one. NCCL
// communicator creation is collective, so a rank that fails locally (no device, a bad
// device number) and returns early would leave the others blocked inside NCCL forever;
// every member instead reports its local outcome here and all stop together.
#ifndef TESSERA_CORE_COMM_NCCL_GROUP_AGREEMENT_H_
#define TESSERA_CORE_COMM_NCCL_GROUP_AGREEMENT_H_

#include "core/comm/communicator.h"
#include "core/common/status.h"

namespace tessera::comm {

// Collective over `group` (one small allreduce). OK on every member when every member's
// `local` is OK. Otherwise a member that failed returns its own `local`, and the others
// return the status code of the lowest failed rank with "<what>: rank R of this N-rank
// group failed (CODE), so no rank goes on; see rank R's error". An error of the allreduce
// itself is returned as is.
Status AgreeAcrossGroup(Communicator& group, const Status& local, const char* what);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_GROUP_AGREEMENT_H_
