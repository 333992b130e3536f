#include "bench/plan/bench_world.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/comm/mpi_world.h"

namespace tessera::bench {
namespace {

const char* g_program = "bench";

}  // namespace

BenchWorld InitBenchWorld(const char* program) {
  g_program = program;
  Status s = comm::InitWorld();
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", program, s.ToString().c_str());
    std::exit(1);
  }
  const int size = comm::WorldSize().value();
  std::vector<int32_t> ranks;
  for (int r = 0; r < size; ++r) ranks.push_back(r);
  return BenchWorld{comm::WorldRank().value(), size,
                    Placement::Make(DeviceType::kCpu, ranks, {size}).value()};
}

void Fail(const Status& s, const char* what) {
  std::fprintf(stderr, "%s: %s: %s\n", g_program, what, s.ToString().c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return; this tells the compiler so
}

}  // namespace tessera::bench
