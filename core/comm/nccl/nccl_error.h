// ncclResult_t -> Status, naming the call, NCCL's text for the code and, when a
// communicator is at hand, NCCL's last detailed message for it.
#ifndef TESSERA_CORE_COMM_NCCL_NCCL_ERROR_H_
#define TESSERA_CORE_COMM_NCCL_NCCL_ERROR_H_

#include <nccl.h>

#include "core/common/status.h"

namespace tessera::comm {

// "ncclAllReduce failed: invalid argument (run with NCCL_DEBUG=WARN for details): <last
// error>". INVALID_ARGUMENT for ncclInvalidArgument and ncclInvalidUsage (the caller broke
// a rule NCCL checks, e.g. two ranks on one device), INTERNAL otherwise. `comm` may be
// NULL (creation); then NCCL's last error of the calling thread is used.
Status NcclError(const char* call, ncclResult_t result, ncclComm_t comm);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_NCCL_NCCL_ERROR_H_
