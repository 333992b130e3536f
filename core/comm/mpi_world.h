// The process world: MPI ranks and size. Tessera initialises MPI itself unless the
// host program already did, and then also finalises it. A process started without
// mpirun is a world of one rank (Open MPI's singleton mode).
#ifndef TESSERA_CORE_COMM_MPI_WORLD_H_
#define TESSERA_CORE_COMM_MPI_WORLD_H_

#include <cstdint>

#include "core/common/status.h"

namespace tessera::comm {

// Idempotent while initialised. Requests MPI_THREAD_MULTIPLE and sets
// MPI_ERRORS_RETURN on MPI_COMM_WORLD so MPI failures become Status values.
// Not thread-safe against other calls: call before other threads use Tessera.
Status InitWorld();
// Finalises MPI if InitWorld initialised it. A no-op if not initialised.
Status FinalizeWorld();
bool WorldInitialized();
// FAILED_PRECONDITION before InitWorld.
Result<int32_t> WorldRank();
Result<int32_t> WorldSize();
// The thread level MPI granted (MPI_THREAD_*), or -1 before InitWorld.
int ThreadLevel();

// Registers `hook` to run inside FinalizeWorld, before MPI_Finalize, so holders of
// MPI objects (communicator caches) can free them while that is still legal. Hooks
// run once each, newest first, and are then forgotten. Thread-safe.
void AddPreFinalizeHook(void (*hook)());

// "MPI_Xxx failed: <MPI's error string>".
Status MpiError(const char* call, int code);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_MPI_WORLD_H_
