/*
 * Tessera C API. Runtime: init, finalize, the world (rank, size), CUDA availability.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_RUNTIME_H_
#define TESSERA_RUNTIME_H_

#include <stdint.h>

#include "tessera/common.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the runtime. Initialises MPI (with MPI_THREAD_MULTIPLE) unless the host
 * program already did; without mpirun the process is a world of one rank.
 * Calling it again while initialised is a no-op returning TESS_OK.
 * Thread safety: call once, before other threads use Tessera. */
TESS_API tess_status tess_init(void);
/* Stops the runtime; finalises MPI only if tess_init initialised it. A no-op
 * when not initialised. After it, tess_init fails (MPI cannot restart). */
TESS_API tess_status tess_finalize(void);
/* This process's rank in the world. FAILED_PRECONDITION before tess_init. */
TESS_API tess_status tess_world_rank(int32_t* out_rank);
/* Number of ranks in the world. FAILED_PRECONDITION before tess_init. */
TESS_API tess_status tess_world_size(int32_t* out_size);
/* Whether cuda placements can hold eager tensors in this process: *out_built_with_cuda
 * = 1 when the library was built with CUDA (--config=cuda), else 0; *out_device_count
 * = the CUDA devices visible to this process (0 without a CUDA build, a GPU or a
 * driver). Without a CUDA build tensors on cuda placements fail with UNIMPLEMENTED,
 * with one but no device with UNAVAILABLE. INVALID_ARGUMENT, naming it, for a NULL
 * out-param; FAILED_PRECONDITION when the driver is older than the CUDA runtime.
 * Works before tess_init. Local. Thread safety: any thread. */
TESS_API tess_status tess_cuda_info(int32_t* out_built_with_cuda, int32_t* out_device_count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RUNTIME_H_ */
