/*
 * Tessera C API. Runtime: init, finalize, the world (rank, size), CUDA availability.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_RUNTIME_H_
#define TESSERA_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the runtime. Initialises MPI (with MPI_THREAD_MULTIPLE) unless the host
 * program already did; without mpirun the process is a world of one rank.
 * Calling it again while initialised is a no-op returning TESS_OK. The same as
 * tess_runtime_init_with_options(NULL).
 * Thread safety: call once, before other threads use Tessera. */
TESS_API tess_status tess_runtime_init(void);

/* MPI thread levels, with MPI's values and order. Append only. */
#define TESS_MPI_THREAD_SINGLE 0
#define TESS_MPI_THREAD_FUNNELED 1
#define TESS_MPI_THREAD_SERIALIZED 2
#define TESS_MPI_THREAD_MULTIPLE 3

/* Options of tess_runtime_init_with_options. Start from TESS_RUNTIME_INIT_OPTIONS_INIT and change
 * the fields wanted: struct_size tells the library which fields the caller knows
 * (docs/c-api.md, "ABI"). Append only. */
typedef struct tess_runtime_init_options {
  size_t struct_size; /* sizeof(tess_runtime_init_options) */
  /* Bound of every collective, as tess_comm_set_collective_timeout(seconds) sets it, applied
   * before MPI starts: >= 0 (0: wait forever). Negative (the default, -1): keep the
   * process default (the last tess_comm_set_collective_timeout, else
   * TESSERA_COLLECTIVE_TIMEOUT_S, else 0). NaN, infinite or above 1e6 (docs/c-api.md,
   * "Limits"): INVALID_ARGUMENT. */
  double collective_timeout_seconds;
  /* The MPI thread level requested from MPI_Init_thread. Only
   * TESS_MPI_THREAD_MULTIPLE (the default) is accepted today: Tessera's pipelined
   * plans and callers' threads enter MPI at once (each communicator serialises only
   * its own calls), so a lower level is refused with INVALID_ARGUMENT (naming the level)
   * rather than granted and broken. Ignored when the host program initialised MPI
   * itself (Tessera then uses the level the host chose). */
  int32_t mpi_thread_level;
  /* The CUDA device this process drives for cuda placements (each rank passes its
   * own). -1 (the default): local rank % visible devices. >= 0: that device, checked
   * against the visible ones (OUT_OF_RANGE naming it and the count; UNAVAILABLE
   * without a GPU; UNIMPLEMENTED in a library built without CUDA). Chosen once per
   * process: a later init asking for another device is FAILED_PRECONDITION, since
   * streams, communicators and memory made for one device cannot move. Added in 0.3. */
  int32_t cuda_device;
  /* Check mode (docs/reliability.md, "Divergence detection (check mode)"): before every
   * op, boxing, collective and plan run, the ranks involved agree a fingerprint of the
   * call (op, attributes, shapes, dtypes, placements, nd-SBPs, call number) with one
   * small all-reduce, and ranks that issued different calls all get FAILED_PRECONDITION
   * naming the ranks and what differed, instead of garbage or a hang; from_local and
   * from_dlpack check that the ranks of a B axis hold equal data. 1: on, 0: off, -1 (the
   * default): TESSERA_CHECK (1 on, 0 or unset off; another value is INVALID_ARGUMENT
   * naming it). Any other value: INVALID_ARGUMENT. Every rank must choose alike. Applies
   * from this call on, also when already initialised. Added in 0.3. */
  int32_t check_mode;
  /* Must be 0 (INVALID_ARGUMENT otherwise). Holds the place of what would be tail
   * padding, so a member added later is never read from a caller's padding bytes. */
  int32_t reserved;
} tess_runtime_init_options;

#define TESS_RUNTIME_INIT_OPTIONS_INIT \
  { sizeof(tess_runtime_init_options), -1.0, TESS_MPI_THREAD_MULTIPLE, -1, -1, 0 }

/* tess_runtime_init with options; `options` NULL means the defaults
 * (TESS_RUNTIME_INIT_OPTIONS_INIT). INVALID_ARGUMENT, naming the field and value, for a bad
 * struct_size (below the first version's size, or larger than this library's with nonzero bytes
 * past it), a NaN, infinite or above-1e6 timeout, a thread level other than
 * TESS_MPI_THREAD_MULTIPLE, a check_mode other than -1, 0 or 1 (or -1 with a bad
 * TESSERA_CHECK) or a nonzero reserved; nothing is started then. When already initialised it still
 * checks the options and applies the timeout (TESS_OK). Thread safety: as tess_runtime_init. */
TESS_API tess_status tess_runtime_init_with_options(const tess_runtime_init_options* options);
/* Stops the runtime; finalises MPI only if tess_runtime_init initialised it. A no-op
 * when not initialised. After it, tess_runtime_init fails (MPI cannot restart).
 * Bounded when a collective timeout is set (or one has expired): it returns within that
 * many seconds; DEADLINE_EXCEEDED when MPI_Finalize could not complete in time (a peer
 * is stopped or unreachable): MPI stays initialised and the process should exit, which
 * mpirun reports as an exit without finalize (docs/reliability.md, "Timeouts and
 * faults"). */
TESS_API tess_status tess_runtime_finalize(void);
/* This process's rank in the world. FAILED_PRECONDITION before tess_runtime_init. */
TESS_API tess_status tess_runtime_world_rank(int32_t* out_rank);
/* Number of ranks in the world. FAILED_PRECONDITION before tess_runtime_init. */
TESS_API tess_status tess_runtime_world_size(int32_t* out_size);
/* Whether cuda placements can hold eager tensors in this process: *out_built_with_cuda
 * = 1 when the library was built with CUDA (--config=cuda), else 0; *out_device_count
 * = the CUDA devices visible to this process (0 without a CUDA build, a GPU or a
 * driver). Without a CUDA build tensors on cuda placements fail with UNIMPLEMENTED,
 * with one but no device with UNAVAILABLE. INVALID_ARGUMENT, naming it, for a NULL
 * out-param; FAILED_PRECONDITION when the driver is older than the CUDA runtime.
 * Works before tess_runtime_init. Local. Thread safety: any thread. */
TESS_API tess_status tess_runtime_cuda_info(int32_t* out_built_with_cuda,
                                            int32_t* out_device_count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RUNTIME_H_ */
