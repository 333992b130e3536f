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
 * tess_runtime_init_with_options(NULL). Collective over the world the first time:
 * every rank calls it (it duplicates MPI_COMM_WORLD and finds the hosts,
 * tess_runtime_topology).
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
 * checks the options and applies the timeout (TESS_OK). It also reads TESSERA_COPY_THREADS (1 to
 * 64; unset: this process's share of its machine's hardware threads, at most 8), the threads
 * that copy pageable host memory through the pinned staging of cuda tensors (docs/gpu.md);
 * another value is INVALID_ARGUMENT naming it. Thread safety: as tess_runtime_init. */
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
/* Where the ranks sit: the hosts tess_runtime_init found (ranks that share memory,
 * MPI_COMM_TYPE_SHARED: on a cluster, the processes of one machine; or the pretend hosts
 * of TESSERA_RANKS_PER_HOST=k, world ranks [0,k), [k,2k), ...). Hosts are numbered by
 * their lowest world rank; local ranks follow world-rank order (docs/multihost.md,
 * "Topology"). The caller sets struct_size (TESS_TOPOLOGY_INIT); the library fills the
 * fields that fit in it. Append only. Added in 0.3. */
typedef struct tess_topology {
  size_t struct_size;             /* sizeof(tess_topology) */
  int32_t world_size;             /* ranks in the world */
  int32_t world_rank;             /* this rank */
  int32_t host_count;             /* hosts the world spans */
  int32_t host_index;             /* this rank's host, 0 <= host_index < host_count */
  int32_t local_rank;             /* this rank's index among its host's ranks */
  int32_t local_size;             /* ranks on this rank's host */
  int32_t min_ranks_per_host;     /* ranks on the host with the fewest */
  int32_t max_ranks_per_host;     /* ranks on the host with the most */
  int32_t pretend_ranks_per_host; /* TESSERA_RANKS_PER_HOST when it made the hosts, else 0 */
  int32_t cuda_device; /* the CUDA device this rank drives for cuda placements, -1 for none
                          (a library built without CUDA, or no GPU visible) */
} tess_topology;

#define TESS_TOPOLOGY_INIT \
  { sizeof(tess_topology), 0, 0, 0, 0, 0, 0, 0, 0, 0, -1 }

/* Fills *out with this rank's view of the topology (see tess_topology). Local: the
 * topology was found once, by tess_runtime_init. INVALID_ARGUMENT for a NULL `out` or a
 * struct_size below the first version's; FAILED_PRECONDITION before tess_runtime_init.
 * Thread safety: any thread. */
TESS_API tess_status tess_runtime_topology(tess_topology* out);
/* The host of world rank `world_rank` and its index on that host. INVALID_ARGUMENT for
 * a NULL out-param, OUT_OF_RANGE (naming the rank and the world size) for a rank outside
 * the world, FAILED_PRECONDITION before tess_runtime_init. Local; any thread. */
TESS_API tess_status tess_runtime_rank_host(int32_t* out_host, int32_t* out_local_rank,
                                            int32_t world_rank);
/* The topology as text, the same on every rank: a line for the world, then one per host
 * with its name (MPI_Get_processor_name) and ranks, and, when a rank drives a GPU, a line
 * per rank with its device, PCI bus and peer-reachable devices:
 *   4 ranks on 2 hosts (found with MPI_COMM_TYPE_SHARED)
 *   host 0 "node1": ranks 0-1
 *   host 1 "node2": ranks 2-3
 *   host links: 10 Gbit/s (default)
 * the last line, with several hosts, the host link speed the boxing planner prices
 * collectives across hosts by (TESSERA_HOST_LINK_GBITS: a number of Gbit/s, or
 * "measure"; docs/multihost.md). "" before tess_runtime_init. Valid until the process ends. Any
 * thread. */
TESS_API const char* tess_runtime_topology_string(void);
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
