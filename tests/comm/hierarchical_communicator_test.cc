// HierarchicalCommunicator under mpirun with 1..4 ranks, hosts pretended with
// ranks_per_host / TESSERA_RANKS_PER_HOST: k = 2 gives 2 hosts x 2 on 4 ranks and
// hosts of 2 and 1 on 3 ranks. Every form of the all-reduce must equal both the
// flat all-reduce and the plain-loop oracle (Reduced), for every op and dtype,
// even and uneven counts, 0 and 1, in place or not.
#include "core/comm/hierarchical_communicator.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_world.h"
#include "tests/comm/comm_test_util.h"
#include "tests/comm/real_hosts.h"

namespace tessera::comm {
namespace {

MpiCommunicator& World() { return *MpiCommRegistry::Global().World().value(); }

// tune 0 by default: the tests of kAuto's fixed rule; AutoMeasuresEveryFormAndAgrees
// tests the measured choice.
std::unique_ptr<HierarchicalCommunicator> Make(int32_t ranks_per_host,
                                               HierarchicalAlgorithm algorithm,
                                               int64_t threshold_bytes = -1, int32_t tune = 0) {
  HierarchicalOptions options;
  options.ranks_per_host = ranks_per_host;
  options.algorithm = algorithm;
  options.threshold_bytes = threshold_bytes;
  options.tune = tune;
  auto made = HierarchicalCommunicator::Create(World(), options);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::move(made).value() : nullptr;
}

// The layout pretend hosts of k world ranks must give, from plain arithmetic.
void ExpectPretendLayout(const HostLayout& layout, int32_t n, int32_t k) {
  ASSERT_EQ(static_cast<int32_t>(layout.host_of.size()), n);
  const int32_t hosts = (n + k - 1) / k;
  ASSERT_EQ(static_cast<int32_t>(layout.host_sizes.size()), hosts);
  for (int32_t r = 0; r < n; ++r) {
    EXPECT_EQ(layout.host_of[r], r / k) << "rank " << r;
    EXPECT_EQ(layout.local_rank_of[r], r % k) << "rank " << r;
  }
  for (int32_t h = 0; h < hosts; ++h) {
    EXPECT_EQ(layout.host_sizes[h], h < hosts - 1 ? k : n - (hosts - 1) * k) << "host " << h;
  }
}

TEST(HierarchicalTest, PretendHostsFromTheOption) {
  const int32_t n = World().size();
  for (int32_t k : {1, 2, 3}) {
    auto h = Make(k, HierarchicalAlgorithm::kAuto);
    ASSERT_NE(h, nullptr);
    ExpectPretendLayout(h->layout(), n, k);
    EXPECT_EQ(h->size(), n);
    EXPECT_EQ(h->rank(), World().rank());
  }
}

TEST(HierarchicalTest, PretendHostsFromTheEnvironment) {
  ScopedEnv env(kRanksPerHostEnv, "2");
  auto h = Make(0, HierarchicalAlgorithm::kAuto);
  ASSERT_NE(h, nullptr);
  ExpectPretendLayout(h->layout(), World().size(), 2);
}

TEST(HierarchicalTest, RealHostsShareMemory) {
  // The hosts the launcher made (one under a plain mpirun; tools/multihost.sh says).
  ScopedEnv env(kRanksPerHostEnv, "");
  const RealHosts real = RealHostsOfTest(World().size());
  auto h = Make(0, HierarchicalAlgorithm::kAuto);
  ASSERT_NE(h, nullptr);
  ExpectPretendLayout(h->layout(), World().size(), real.ranks_per_host);
  ASSERT_EQ(static_cast<int32_t>(h->layout().host_sizes.size()), real.hosts);
}

// kAuto over real hosts with threshold 0, every count, against the forced form: on one
// host (or one rank per host) it stays flat; across hosts of several ranks it goes by
// host, the leader form when the payload has fewer elements than a host has ranks.
TEST(HierarchicalTest, AutoFollowsTheRealHosts) {
  ScopedEnv env(kRanksPerHostEnv, "");
  const int32_t n = World().size(), me = World().rank();
  const RealHosts real = RealHostsOfTest(n);
  auto automatic = Make(0, HierarchicalAlgorithm::kAuto, /*threshold_bytes=*/0);
  auto forced = Make(0, HierarchicalAlgorithm::kShardedHosts, /*threshold_bytes=*/0);
  ASSERT_NE(automatic, nullptr);
  ASSERT_NE(forced, nullptr);
  for (int64_t count : {1, 5, 4096, 300001}) {
    const HierarchicalAlgorithm expected =
        real.hosts == 1 || real.ranks_per_host == 1 ? HierarchicalAlgorithm::kFlat
        : count < real.ranks_per_host               ? HierarchicalAlgorithm::kHostLeaders
                                                    : HierarchicalAlgorithm::kShardedHosts;
    std::vector<int64_t> send(count), recv(count, -1), forced_recv(count, -1);
    for (int64_t i = 0; i < count; ++i) send[i] = Input(me, i);
    ASSERT_TRUE(
        automatic->AllReduce(send.data(), recv.data(), count, DType::kI64, ReduceOp::kSum).ok());
    EXPECT_EQ(automatic->last_algorithm(), expected)
        << "count " << count << ": " << HierarchicalAlgorithmName(automatic->last_algorithm());
    ASSERT_TRUE(
        forced->AllReduce(send.data(), forced_recv.data(), count, DType::kI64, ReduceOp::kSum)
            .ok());
    EXPECT_EQ(forced->last_algorithm(), HierarchicalAlgorithm::kShardedHosts);
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(recv[i], Reduced(ReduceOp::kSum, n, i)) << "count " << count << " i " << i;
      ASSERT_EQ(forced_recv[i], recv[i]) << "count " << count << " i " << i;
    }
  }
  // Pretend hosts on the same machine do go hierarchical: AutoChoosesByThresholdAndLayout.
}

template <typename T>
class HierarchicalTypedTest : public testing::Test {};
using CommTypes = testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(HierarchicalTypedTest, CommTypes);

TYPED_TEST(HierarchicalTypedTest, EveryFormEqualsFlatAndOracle) {
  using T = TypeParam;
  const DType dtype = DTypeOf<T>::value;
  const int32_t n = World().size(), me = World().rank();
  for (int32_t k : {2, 1, 3}) {
    for (HierarchicalAlgorithm algorithm :
         {HierarchicalAlgorithm::kShardedHosts, HierarchicalAlgorithm::kHostLeaders,
          HierarchicalAlgorithm::kFlat, HierarchicalAlgorithm::kAuto}) {
      // kAuto with threshold 0 takes a hierarchical form whenever the layout has one.
      auto h = Make(k, algorithm, /*threshold_bytes=*/0);
      ASSERT_NE(h, nullptr);
      for (int64_t count : {0, 1, 2, 3, 7, 64, 1001}) {
        for (ReduceOp op : kOps) {
          std::vector<T> send(count), recv(count, T(99)), flat(count, T(98));
          for (int64_t i = 0; i < count; ++i) send[i] = T(Input(me, i));
          ASSERT_TRUE(h->AllReduce(send.data(), recv.data(), count, dtype, op).ok());
          ASSERT_TRUE(World().AllReduce(send.data(), flat.data(), count, dtype, op).ok());
          std::vector<T> in_place = send;
          ASSERT_TRUE(h->AllReduce(in_place.data(), in_place.data(), count, dtype, op).ok());
          for (int64_t i = 0; i < count; ++i) {
            const T expected = T(Reduced(op, n, i));
            ASSERT_EQ(recv[i], expected)
                << "k=" << k << " " << HierarchicalAlgorithmName(algorithm) << " count=" << count
                << " " << ReduceOpName(op) << " i=" << i;
            ASSERT_EQ(recv[i], flat[i]);
            ASSERT_EQ(in_place[i], expected) << "in place";
          }
        }
      }
    }
  }
}

TEST(HierarchicalTest, AutoChoosesByThresholdAndLayout) {
  const int32_t n = World().size();
  int32_t value = 1, sum = 0;
  // Under the default 1 MiB threshold a 4-byte all-reduce stays flat.
  auto small = Make(2, HierarchicalAlgorithm::kAuto);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->threshold_bytes(), kDefaultHierarchicalThresholdBytes);
  EXPECT_EQ(small->last_algorithm(), HierarchicalAlgorithm::kAuto);
  ASSERT_TRUE(small->AllReduce(&value, &sum, 1, DType::kI32, ReduceOp::kSum).ok());
  EXPECT_EQ(small->last_algorithm(), HierarchicalAlgorithm::kFlat);
  EXPECT_EQ(sum, n);

  // From the threshold on: flat with one host (n <= 2), leaders when a host has a
  // single rank (n = 3: hosts of 2 and 1), sharded otherwise (n = 4: 2 x 2).
  auto big = Make(2, HierarchicalAlgorithm::kAuto, /*threshold_bytes=*/8);
  ASSERT_NE(big, nullptr);
  std::vector<int32_t> send(2, 1), recv(2, 0);
  ASSERT_TRUE(big->AllReduce(send.data(), recv.data(), 2, DType::kI32, ReduceOp::kSum).ok());
  const HierarchicalAlgorithm expected = n <= 2   ? HierarchicalAlgorithm::kFlat
                                         : n == 3 ? HierarchicalAlgorithm::kHostLeaders
                                                  : HierarchicalAlgorithm::kShardedHosts;
  EXPECT_EQ(big->last_algorithm(), expected) << HierarchicalAlgorithmName(big->last_algorithm());
  EXPECT_EQ(recv[1], n);
  // One element, below the threshold: flat again.
  ASSERT_TRUE(big->AllReduce(send.data(), recv.data(), 1, DType::kI32, ReduceOp::kSum).ok());
  EXPECT_EQ(big->last_algorithm(), HierarchicalAlgorithm::kFlat);

  ScopedEnv env(kHierarchicalThresholdEnv, "4096");
  EXPECT_EQ(Make(2, HierarchicalAlgorithm::kAuto)->threshold_bytes(), 4096);
}

// Tuning: the first calls of a size class run flat, sharded and leaders in turn (twice
// each), then every rank settles on the same form, which serves the class from then on;
// every result is right throughout. A class under the threshold, or a trivial layout,
// is never measured.
TEST(HierarchicalTest, AutoMeasuresEveryFormAndAgrees) {
  const int32_t n = World().size(), me = World().rank();
  auto h = Make(2, HierarchicalAlgorithm::kAuto, /*threshold_bytes=*/64, /*tune=*/1);
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE(h->tuning());
  const bool trivial = n <= 2;  // one pretend host of 2 ranks, or one rank
  // Hosts of 2 and 1 (n = 3) have no sharded form.
  std::vector<HierarchicalAlgorithm> forms = {HierarchicalAlgorithm::kFlat};
  if (n % 2 == 0) forms.push_back(HierarchicalAlgorithm::kShardedHosts);
  forms.push_back(HierarchicalAlgorithm::kHostLeaders);
  const int64_t count = 3000;  // 24000 bytes of i64: one size class
  const int trials = static_cast<int>(forms.size()) * kTuningTrials;
  for (int call = 0; call < trials + 3; ++call) {
    std::vector<int64_t> send(count), recv(count, -1);
    for (int64_t i = 0; i < count; ++i) send[i] = Input(me, i) + call;
    ASSERT_TRUE(h->AllReduce(send.data(), recv.data(), count, DType::kI64, ReduceOp::kSum).ok());
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(recv[i], Reduced(ReduceOp::kSum, n, i) + int64_t{n} * call) << "call " << call;
    }
    if (trivial) {
      EXPECT_EQ(h->last_algorithm(), HierarchicalAlgorithm::kFlat);
      EXPECT_EQ(h->TunedAlgorithm(count, DType::kI64), HierarchicalAlgorithm::kAuto);
    } else if (call < trials) {
      EXPECT_EQ(h->last_algorithm(), forms[call % forms.size()]) << "trial " << call;
      EXPECT_EQ(h->TunedAlgorithm(count, DType::kI64) == HierarchicalAlgorithm::kAuto,
                call < trials - 1)
          << "call " << call;
    } else {
      EXPECT_EQ(h->last_algorithm(), h->TunedAlgorithm(count, DType::kI64)) << "call " << call;
    }
  }
  if (!trivial) {
    // Every rank chose the same form, one of the candidates.
    const int chosen = static_cast<int>(h->TunedAlgorithm(count, DType::kI64));
    std::vector<int> all(n, -1);
    ASSERT_EQ(MPI_Allgather(&chosen, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD),
              MPI_SUCCESS);
    for (int r = 0; r < n; ++r) EXPECT_EQ(all[r], chosen) << "rank " << r;
    EXPECT_NE(std::find(forms.begin(), forms.end(), static_cast<HierarchicalAlgorithm>(chosen)),
              forms.end());
    // Another size class starts its own trials with the flat form.
    std::vector<int64_t> big(4 * count, 1);
    ASSERT_TRUE(h->AllReduce(big.data(), big.data(), 4 * count, DType::kI64, ReduceOp::kSum).ok());
    EXPECT_EQ(h->last_algorithm(), HierarchicalAlgorithm::kFlat);
    EXPECT_EQ(big[0], n);
  }
  // Under the threshold: flat, never measured.
  int64_t one = 1, sum = 0;
  ASSERT_TRUE(h->AllReduce(&one, &sum, 1, DType::kI64, ReduceOp::kSum).ok());
  EXPECT_EQ(h->last_algorithm(), HierarchicalAlgorithm::kFlat);
  EXPECT_EQ(h->TunedAlgorithm(1, DType::kI64), HierarchicalAlgorithm::kAuto);
  EXPECT_EQ(sum, n);

  // Tuning is on unless asked off; TESSERA_HIERARCHICAL_TUNE=0 keeps the fixed rule.
  EXPECT_TRUE(Make(2, HierarchicalAlgorithm::kAuto, -1, /*tune=*/-1)->tuning());
  ScopedEnv env(kHierarchicalTuneEnv, "0");
  EXPECT_FALSE(Make(2, HierarchicalAlgorithm::kAuto, -1, /*tune=*/-1)->tuning());
  EXPECT_TRUE(Make(2, HierarchicalAlgorithm::kAuto, -1, /*tune=*/1)->tuning());
}

TEST(HierarchicalTest, OtherCollectivesAreTheFlatOnes) {
  auto h = Make(2, HierarchicalAlgorithm::kShardedHosts, 0);
  ASSERT_NE(h, nullptr);
  const int32_t n = h->size(), me = h->rank();
  std::vector<int64_t> gathered(n, -1);
  int64_t mine = me * 10;
  ASSERT_TRUE(
      h->AllGatherV(&mine, 1, gathered.data(), std::vector<int64_t>(n, 1), {}, DType::kI64).ok());
  for (int32_t r = 0; r < n; ++r) EXPECT_EQ(gathered[r], r * 10);
  int64_t value = me == n - 1 ? 77 : 0;
  ASSERT_TRUE(h->Broadcast(&value, 1, DType::kI64, n - 1).ok());
  EXPECT_EQ(value, 77);
  EXPECT_TRUE(h->Barrier().ok());
  // Argument checks are the Communicator's.
  EXPECT_EQ(h->AllReduce(nullptr, &value, 2, DType::kI64, ReduceOp::kSum).message(),
            "AllReduce: send is NULL but holds 2 elements");
}

TEST(HierarchicalTest, BlockCollectivesAreNotOffered) {
  // The base class's default: a backend must opt in to strided blocks.
  auto h = Make(2, HierarchicalAlgorithm::kShardedHosts, 0);
  ASSERT_NE(h, nullptr);
  int64_t x = 0;
  const std::vector<BlockView> blocks(h->size(), BlockView::Run(0, 0));
  Status s = h->AllToAllBlocks(&x, blocks, &x, blocks, DType::kI64);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "AllToAllBlocks: this communicator's backend cannot move strided blocks; pack them "
            "and use AllToAllV");
}

void ExpectCreateError(const HierarchicalOptions& options, const std::string& message) {
  auto made = HierarchicalCommunicator::Create(World(), options);
  EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(made.status().message(), message);
}

TEST(HierarchicalTest, BadOptionsAndEnvironment) {
  HierarchicalOptions options;
  options.algorithm = static_cast<HierarchicalAlgorithm>(7);
  ExpectCreateError(options,
                    "HierarchicalCommunicator::Create: algorithm value 7 is not auto, flat, "
                    "sharded_hosts or host_leaders");
  options = {};
  options.threshold_bytes = -2;
  ExpectCreateError(options,
                    "HierarchicalCommunicator::Create: threshold_bytes is -2; it must be >= 0, or "
                    "-1 for TESSERA_HIERARCHICAL_ALLREDUCE_BYTES or the default");
  options = {};
  options.tune = 2;
  ExpectCreateError(options,
                    "HierarchicalCommunicator::Create: tune is 2; it must be 1 (measure), 0 (the "
                    "fixed rule) or -1 (TESSERA_HIERARCHICAL_TUNE)");
  {
    ScopedEnv env(kHierarchicalTuneEnv, "sometimes");
    ExpectCreateError({},
                      "environment variable TESSERA_HIERARCHICAL_TUNE is \"sometimes\"; it "
                      "must be 0 (off) or 1 (on)");
  }
  options = {};
  options.ranks_per_host = -1;
  ExpectCreateError(options,
                    "HierarchicalCommunicator::Create: ranks_per_host is -1; it must be >= 1, or "
                    "0 for TESSERA_RANKS_PER_HOST or the real hosts");
  for (const char* bad : {"abc", "0", "-3", "2x", "99999999999999999999"}) {
    ScopedEnv env(kRanksPerHostEnv, bad);
    ExpectCreateError({}, "environment variable TESSERA_RANKS_PER_HOST is \"" + std::string(bad) +
                              "\"; it must be an integer >= 1");
  }
  {
    ScopedEnv env(kHierarchicalThresholdEnv, "-5");
    ExpectCreateError({},
                      "environment variable TESSERA_HIERARCHICAL_ALLREDUCE_BYTES is \"-5\"; "
                      "it must be an integer >= 0");
  }
  EXPECT_STREQ(HierarchicalAlgorithmName(static_cast<HierarchicalAlgorithm>(9)), "invalid");
  EXPECT_EQ(HostLayoutFromKeys({}).status().message(), "HostLayoutFromKeys: host_keys is empty");
}

TEST(HierarchicalTest, HostLayoutFromKeys) {
  // Hosts numbered by first appearance; local ranks in group order.
  HostLayout layout = HostLayoutFromKeys({7, 3, 7, 7, 3, 9}).value();
  EXPECT_EQ(layout.host_of, (std::vector<int32_t>{0, 1, 0, 0, 1, 2}));
  EXPECT_EQ(layout.local_rank_of, (std::vector<int32_t>{0, 0, 1, 2, 1, 0}));
  EXPECT_EQ(layout.host_sizes, (std::vector<int32_t>{3, 2, 1}));
  EXPECT_EQ(layout.min_host_size, 1);
  EXPECT_EQ(layout.max_host_size, 3);
}

TEST(HierarchicalTest, TimeoutPoisonsTheWholeHierarchy) {
  auto h = Make(2, HierarchicalAlgorithm::kShardedHosts, 0);
  ASSERT_NE(h, nullptr);
  ASSERT_TRUE(h->SetTimeout(0.5).ok());
  EXPECT_EQ(h->timeout_seconds(), 0.5);
  if (h->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  // Every rank's result depends on the last rank's data, so with the last rank
  // absent every other rank times out in some step.
  if (h->rank() != h->size() - 1) {
    static float send[5] = {1, 2, 3, 4, 5}, recv[5];  // MPI may write into recv later
    Status status = h->AllReduce(send, recv, 5, DType::kF32, ReduceOp::kSum);
    EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << status.ToString();
    EXPECT_EQ(status.message().rfind("AllReduce, hierarchical ", 0), 0u) << status.message();
    EXPECT_NE(status.message().find("not complete after the timeout of 0.5 s on a communicator of"),
              std::string::npos)
        << status.message();
    EXPECT_TRUE(h->poisoned());
    EXPECT_EQ(h->Barrier().code(), StatusCode::kFailedPrecondition);
  }
  ASSERT_TRUE(World().Barrier().ok());
}

}  // namespace
}  // namespace tessera::comm
