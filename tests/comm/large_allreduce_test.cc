// All-reduces large enough for MpiCommunicator's reduce-scatter + all-gather
// (MpiCommunicator::ReduceScatterAllGatherBytes), part of communicator_test: every op
// and dtype, in place and not, element counts the rank count divides and counts it
// does not. Expected values come from the closed-form inputs of comm_test_util.h by
// plain loops. The timeout variant of the program runs MPI's own all-reduce instead,
// against the same expectations.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "tests/comm/comm_test_util.h"
#include "tests/comm/real_hosts.h"

namespace tessera::comm {
namespace {

Communicator& World() { return *MpiCommRegistry::Global().World().value(); }

// Element counts from the threshold up: a multiple of 12 (every rank count 1-4
// divides it), and 1 and 7 more (none of 2, 3, 4 divides those).
template <typename T>
std::vector<int64_t> LargeCounts(int32_t size) {
  int64_t base = MpiCommunicator::ReduceScatterAllGatherBytes(size) / int64_t(sizeof(T));
  base = (base + 11) / 12 * 12;
  return {base, base + 1, base + 7};
}

template <typename T>
class LargeAllReduceTest : public testing::Test {};
using Types = testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(LargeAllReduceTest, Types);

TYPED_TEST(LargeAllReduceTest, EveryOpInPlaceAndNot) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  for (int64_t count : LargeCounts<T>(c.size())) {
    std::vector<T> send(count);
    for (int64_t k = 0; k < count; ++k) send[k] = T(Input(c.rank(), k));
    for (ReduceOp op : kOps) {
      std::vector<T> recv(count + 1, T(99));
      ASSERT_TRUE(c.AllReduce(send.data(), recv.data(), count, dtype, op).ok());
      std::vector<T> in_place = send;
      ASSERT_TRUE(c.AllReduce(in_place.data(), in_place.data(), count, dtype, op).ok());
      for (int64_t k = 0; k < count; ++k) {
        const T want = T(Reduced(op, c.size(), k));
        ASSERT_EQ(recv[k], want) << ReduceOpName(op) << " count " << count << " k=" << k;
        ASSERT_EQ(in_place[k], want) << "in place " << ReduceOpName(op) << " count " << count;
      }
      EXPECT_EQ(recv[count], T(99)) << "wrote past the buffer";
    }
  }
}

TEST(LargeAllReduceTest, EveryRankGetsTheSameBits) {
  // Values whose float sum depends on the order: whatever order the backend adds in,
  // every rank must hold rank 0's result bit for bit.
  Communicator& c = World();
  const int64_t count = LargeCounts<float>(c.size())[2];
  std::vector<float> send(count), recv(count), root(count);
  for (int64_t k = 0; k < count; ++k) {
    send[k] = 0.1f * float(c.rank() + 1) + 1e-3f * float(k % 97) + 1e4f * float(k % 3 == 0);
  }
  ASSERT_TRUE(c.AllReduce(send.data(), recv.data(), count, DType::kF32, ReduceOp::kSum).ok());
  root = recv;
  ASSERT_EQ(MPI_Bcast(root.data(), static_cast<int>(count), MPI_FLOAT, 0, MPI_COMM_WORLD),
            MPI_SUCCESS);
  for (int64_t k = 0; k < count; ++k) {
    ASSERT_EQ(recv[k], root[k]) << "k=" << k;
    // And it is the sum, to float rounding.
    double want = 0;
    for (int r = 0; r < c.size(); ++r) {
      want += double(0.1f * float(r + 1) + 1e-3f * float(k % 97) + 1e4f * float(k % 3 == 0));
    }
    ASSERT_NEAR(recv[k], want, 1e-6 * std::fabs(want) + 1e-6) << "k=" << k;
  }
}

// The pairwise forms depend on the hosts (mpi_communicator.h, "Hosts"):
// MostRanksOnAHost agrees with where the launcher put the ranks (tools/multihost.sh
// under tests/multihost, one host under a plain mpirun), asking again gives the same,
// and the pairwise forms suit one host or one rank per host only.
TEST(LargeAllReduceTest, MostRanksOnAHostMatchesWhereTheLauncherPutTheRanks) {
  Result<MpiCommunicator*> world = MpiCommRegistry::Global().World();
  ASSERT_TRUE(world.ok()) << world.status().ToString();
  const RealHosts hosts = RealHostsOfTest((*world)->size());
  for (int ask = 0; ask < 2; ++ask) {
    Result<int32_t> most = (*world)->MostRanksOnAHost();
    ASSERT_TRUE(most.ok()) << most.status().ToString();
    EXPECT_EQ(*most, hosts.ranks_per_host) << hosts.hosts << " hosts";
  }
  Result<bool> suits = (*world)->PairwiseSuitsHosts();
  ASSERT_TRUE(suits.ok()) << suits.status().ToString();
  EXPECT_EQ(*suits, hosts.hosts == 1 || hosts.ranks_per_host == 1);
}

TEST(LargeAllReduceTest, NaNSurvivesMaxAndMin) {
  // The NaN-exact max and min (mpi_exact_ops.h) on the large path: a NaN on one rank
  // wins over every number, wherever its block is reduced.
  Communicator& c = World();
  const int64_t count = LargeCounts<float>(c.size())[1];
  std::vector<float> send(count, float(c.rank())), recv(count);
  const int64_t nan_at = count - 1 - c.size();  // a different element per rank
  send[nan_at + c.rank()] = NAN;
  for (ReduceOp op : {ReduceOp::kMax, ReduceOp::kMin}) {
    ASSERT_TRUE(c.AllReduce(send.data(), recv.data(), count, DType::kF32, op).ok());
    for (int64_t k = 0; k < count; ++k) {
      if (k >= nan_at && k < nan_at + c.size()) {
        ASSERT_TRUE(std::isnan(recv[k])) << ReduceOpName(op) << " k=" << k;
      } else {
        ASSERT_EQ(recv[k], op == ReduceOp::kMax ? float(c.size() - 1) : 0.0f) << "k=" << k;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::comm
