// The process world: MPI ranks and size. Tessera initialises MPI itself unless the
// host program already did, and then also finalises it. A process started without
// mpirun is a world of one rank (Open MPI's singleton mode).
#ifndef TESSERA_CORE_COMM_MPI_WORLD_H_
#define TESSERA_CORE_COMM_MPI_WORLD_H_

#include <mpi.h>

#include <cstdint>

#include "core/common/status.h"

namespace tessera::comm {

// Idempotent while initialised. Requests MPI_THREAD_MULTIPLE and sets
// MPI_ERRORS_RETURN on MPI_COMM_WORLD so MPI failures become Status values. Also
// duplicates the world once (AgreementComm). Not thread-safe against other calls:
// call before other threads use Tessera. FAILED_PRECONDITION after a FinalizeWorld
// whose MPI_Finalize did not complete.
Status InitWorld();
// Frees Tessera's communicators (pre-finalize hooks) and finalises MPI if InitWorld
// initialised it. A no-op if not initialised.
//
// Bounded when `timeout_seconds` > 0 or a fault was noted (NoteFault; the bound is
// then the larger of the two), and MPI granted MPI_THREAD_MULTIPLE (always, when
// InitWorld initialised it): the hooks and MPI_Finalize run on a helper thread and
// this call waits at most that long. Why: freeing a communicator's shared-memory
// window is collective (a gone peer never joins it; a poisoned communicator skips it,
// a healthy one cannot know), and Open MPI 4.1's MPI_Finalize ends in a fence over
// every process of the job, so it waits for as long as a peer is stopped (SIGSTOP, a
// debugger, a swapped-out node); a killed peer usually does not hold it up (the fence
// completes within about 50 ms under mpirun --enable-recovery). When the bound
// passes: DEADLINE_EXCEEDED, MPI stays initialised (the thread keeps waiting in the
// background, and completes if the peer comes back), InitWorld refuses from then on,
// and the process should exit: mpirun then reports that the rank "exited without
// calling finalize", and its exit status is non-zero unless the job was started with
// --enable-recovery (docs/reliability.md, "Timeouts and faults"). Without a bound and
// without a fault, everything runs on the calling thread, as before.
Status FinalizeWorld(double timeout_seconds = 0);
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

// A private duplicate of MPI_COMM_WORLD made by InitWorld (MPI_COMM_NULL before), for
// Tessera's own point-to-point agreements (bounded communicator creation,
// mpi_comm_registry.h): user traffic on MPI_COMM_WORLD can never match it.
MPI_Comm AgreementComm();

// Records that a call or a communicator creation gave up after `timeout_seconds`
// (a member is late, stopped or dead). From then on FaultNoted() is true and
// FinalizeWorld is bounded by at least that long. Thread-safe.
void NoteFault(double timeout_seconds);
bool FaultNoted();

// "MPI_Xxx failed: <MPI's error string>".
Status MpiError(const char* call, int code);

}  // namespace tessera::comm

#endif  // TESSERA_CORE_COMM_MPI_WORLD_H_
