// What every plan benchmark starts with: the MPI world as a 1-d cpu placement, and one way
// to give up on an error (every rank aborts, so no rank waits in a collective forever).
#ifndef TESSERA_BENCH_PLAN_BENCH_WORLD_H_
#define TESSERA_BENCH_PLAN_BENCH_WORLD_H_

#include <cstdint>

#include "core/common/status.h"
#include "core/placement/placement.h"

namespace tessera::bench {

struct BenchWorld {
  int rank;
  int size;
  Placement placement;  // cpu:[0, ..., size-1]
};

// Initialises the world (comm::InitWorld); `program` prefixes error messages. Exits the
// process when MPI cannot start.
BenchWorld InitBenchWorld(const char* program);

// Prints "<program>: <what>: <status>" and aborts every rank.
[[noreturn]] void Fail(const Status& s, const char* what);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_PLAN_BENCH_WORLD_H_
