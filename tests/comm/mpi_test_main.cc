// main() for GoogleTest programs run under mpirun: initialises the MPI world, runs
// the tests on every rank (same order everywhere, so collectives match), and exits
// non-zero on every rank when any rank failed. Rank 0 prints gtest's usual report;
// the other ranks print only their failures, prefixed with their rank, so a
// 4-rank log stays readable.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "core/comm/mpi_world.h"

namespace {

class RankFailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}

  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.message());
  }
  void OnTestEnd(const testing::TestInfo& info) override {
    if (info.result()->Failed()) {
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(), info.name());
    }
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  tessera::Status status = tessera::comm::InitWorld();
  if (!status.ok()) {
    std::fprintf(stderr, "InitWorld: %s\n", status.ToString().c_str());
    return 2;
  }
  const int rank = tessera::comm::WorldRank().value();
  if (rank != 0) {
    testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = failed;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any_failed && !failed) {
    std::fprintf(stderr, "rank 0 passed, but another rank failed (see [rank N] lines)\n");
  }
  // Bounded (a test that timed out on purpose noted a fault, which bounds it by that
  // test's short timeout otherwise): generous, so a loaded machine cannot fail it.
  status = tessera::comm::FinalizeWorld(/*timeout_seconds=*/30);
  if (!status.ok()) {
    std::fprintf(stderr, "FinalizeWorld: %s\n", status.ToString().c_str());
    return 2;
  }
  return any_failed;
}
