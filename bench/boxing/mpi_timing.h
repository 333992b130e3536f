// What the MPI boxing benchmarks share: aborting on an error, timing one call across
// the ranks, and (bench/common/timing.h) the median of the samples.
#ifndef TESSERA_BENCH_BOXING_MPI_TIMING_H_
#define TESSERA_BENCH_BOXING_MPI_TIMING_H_

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "bench/common/timing.h"
#include "core/comm/mpi_world.h"
#include "core/common/status.h"

namespace tessera::bench {

// Prints `what` and the status and aborts every rank unless `s` is OK.
inline void Check(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

inline void CheckMpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  Check(comm::MpiError(what, rc), what);
}

// The slowest rank's time for `fn`, in seconds, between two barriers.
inline double TimeOnce(const std::function<void()>& fn) {
  CheckMpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  double start = MPI_Wtime();
  fn();
  double local = MPI_Wtime() - start, slowest = 0;
  CheckMpi(MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
           "MPI_Allreduce");
  return slowest;
}

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_BOXING_MPI_TIMING_H_
