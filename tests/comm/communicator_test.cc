// Multi-rank tests of the Communicator interface and its MPI backend, run under
// mpirun with 1..4 ranks. Every expected value is computed on each rank from the
// same closed-form inputs (Input(rank, k)), independently of the communicator.
// The *_timeout_np* targets run this same program with TESSERA_COLLECTIVE_TIMEOUT_S
// set, so every call goes through the nonblocking-and-poll path.
#include "core/comm/communicator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_world.h"
#include "core/placement/placement.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

Communicator& World() { return *MpiCommRegistry::Global().World().value(); }

template <typename T>
class TypedCommTest : public testing::Test {};
using CommTypes = testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(TypedCommTest, CommTypes);

TYPED_TEST(TypedCommTest, AllReduceEveryOpAndInPlace) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  for (int64_t count : {0, 1, 7, 1000}) {
    for (ReduceOp op : kOps) {
      std::vector<T> send(count), recv(count, T(99));
      for (int64_t k = 0; k < count; ++k) send[k] = T(Input(c.rank(), k));
      ASSERT_TRUE(c.AllReduce(send.data(), recv.data(), count, dtype, op).ok());
      std::vector<T> in_place = send;
      ASSERT_TRUE(c.AllReduce(in_place.data(), in_place.data(), count, dtype, op).ok());
      for (int64_t k = 0; k < count; ++k) {
        EXPECT_EQ(recv[k], T(Reduced(op, c.size(), k))) << ReduceOpName(op) << " k=" << k;
        EXPECT_EQ(in_place[k], T(Reduced(op, c.size(), k))) << "in place " << ReduceOpName(op);
      }
    }
  }
}

TYPED_TEST(TypedCommTest, ReduceToEveryRoot) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const int64_t count = 11;
  for (int32_t root = 0; root < c.size(); ++root) {
    for (ReduceOp op : kOps) {
      std::vector<T> send(count), recv(count, T(99));
      for (int64_t k = 0; k < count; ++k) send[k] = T(Input(c.rank(), k));
      ASSERT_TRUE(c.Reduce(send.data(), recv.data(), count, dtype, op, root).ok());
      for (int64_t k = 0; k < count; ++k) {
        EXPECT_EQ(recv[k], c.rank() == root ? T(Reduced(op, c.size(), k)) : T(99))
            << "root " << root << " " << ReduceOpName(op);
      }
    }
  }
}

TYPED_TEST(TypedCommTest, ReduceScatterVUneven) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const std::vector<int64_t> counts = UnevenCounts(c.size());
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  int64_t begin = 0;
  for (int32_t r = 0; r < c.rank(); ++r) begin += counts[r];
  for (ReduceOp op : kOps) {
    std::vector<T> send(total), recv(counts[c.rank()] + 1, T(99));
    for (int64_t k = 0; k < total; ++k) send[k] = T(Input(c.rank(), k));
    ASSERT_TRUE(c.ReduceScatterV(send.data(), recv.data(), counts, dtype, op).ok());
    for (int64_t k = 0; k < counts[c.rank()]; ++k) {
      EXPECT_EQ(recv[k], T(Reduced(op, c.size(), begin + k))) << ReduceOpName(op);
    }
    EXPECT_EQ(recv[counts[c.rank()]], T(99)) << "wrote past its block";
  }
}

TYPED_TEST(TypedCommTest, AllGatherVPackedStridedAndInPlace) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const std::vector<int64_t> counts = UnevenCounts(c.size());
  const int64_t mine = counts[c.rank()];
  std::vector<T> send(mine);
  for (int64_t k = 0; k < mine; ++k) send[k] = T(Input(c.rank(), k));

  // Packed (empty displs).
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  std::vector<T> packed(total, T(99));
  ASSERT_TRUE(c.AllGatherV(send.data(), mine, packed.data(), counts, {}, dtype).ok());
  int64_t at = 0;
  for (int32_t r = 0; r < c.size(); ++r) {
    for (int64_t k = 0; k < counts[r]; ++k) EXPECT_EQ(packed[at++], T(Input(r, k))) << r;
  }

  // Explicit displacements: blocks in reverse rank order with a 2-element gap each.
  std::vector<int64_t> displs(c.size());
  int64_t offset = 0;
  for (int32_t r = c.size() - 1; r >= 0; --r) {
    displs[r] = offset;
    offset += counts[r] + 2;
  }
  std::vector<T> strided(offset, T(99));
  ASSERT_TRUE(c.AllGatherV(send.data(), mine, strided.data(), counts, displs, dtype).ok());
  for (int32_t r = 0; r < c.size(); ++r) {
    for (int64_t k = 0; k < counts[r]; ++k) EXPECT_EQ(strided[displs[r] + k], T(Input(r, k)));
    EXPECT_EQ(strided[displs[r] + counts[r]], T(99)) << "gap after rank " << r << " overwritten";
  }

  // In place: this rank's block already sits at its displacement.
  std::vector<T> in_place(offset, T(99));
  std::copy(send.begin(), send.end(), in_place.begin() + displs[c.rank()]);
  ASSERT_TRUE(
      c.AllGatherV(in_place.data() + displs[c.rank()], mine, in_place.data(), counts, displs, dtype)
          .ok());
  EXPECT_EQ(in_place, strided);
}

TYPED_TEST(TypedCommTest, AllToAllVUnevenWithDisplacements) {
  using T = TypeParam;
  Communicator& c = World();
  const DType dtype = DTypeOf<T>::value;
  const int32_t n = c.size(), me = c.rank();
  auto count = [](int64_t p, int64_t q) { return (p + 2 * q) % 3; };  // 0, 1 or 2
  std::vector<int64_t> send_counts(n), recv_counts(n), send_displs(n), recv_displs(n);
  int64_t send_total = 0, recv_total = 0;
  for (int32_t q = 0; q < n; ++q) {
    send_counts[q] = count(me, q);
    send_displs[q] = send_total;
    send_total += send_counts[q];
    recv_counts[q] = count(q, me);
    recv_displs[q] = recv_total + 1;  // a one-element gap before each block
    recv_total += recv_counts[q] + 1;
  }
  std::vector<T> send(send_total);
  for (int32_t q = 0; q < n; ++q) {
    for (int64_t k = 0; k < send_counts[q]; ++k) send[send_displs[q] + k] = T(Exchanged(me, q, k));
  }
  std::vector<T> recv(recv_total, T(-1));
  ASSERT_TRUE(c.AllToAllV(send.data(), send_counts, send_displs, recv.data(), recv_counts,
                          recv_displs, dtype)
                  .ok());
  for (int32_t p = 0; p < n; ++p) {
    EXPECT_EQ(recv[recv_displs[p] - 1], T(-1)) << "gap before the block from " << p;
    for (int64_t k = 0; k < recv_counts[p]; ++k) {
      EXPECT_EQ(recv[recv_displs[p] + k], T(Exchanged(p, me, k))) << "from " << p;
    }
  }

  // Packed form (empty displacement vectors).
  std::vector<T> packed(recv_total - n, T(-1));
  ASSERT_TRUE(
      c.AllToAllV(send.data(), send_counts, {}, packed.data(), recv_counts, {}, dtype).ok());
  int64_t at = 0;
  for (int32_t p = 0; p < n; ++p) {
    for (int64_t k = 0; k < recv_counts[p]; ++k) EXPECT_EQ(packed[at++], T(Exchanged(p, me, k)));
  }
}

TYPED_TEST(TypedCommTest, BroadcastFromEveryRoot) {
  using T = TypeParam;
  Communicator& c = World();
  for (int32_t root = 0; root < c.size(); ++root) {
    std::vector<T> buffer(9);
    for (int64_t k = 0; k < 9; ++k) buffer[k] = T(Input(c.rank(), k));
    ASSERT_TRUE(c.Broadcast(buffer.data(), 9, DTypeOf<T>::value, root).ok());
    for (int64_t k = 0; k < 9; ++k) EXPECT_EQ(buffer[k], T(Input(root, k))) << "root " << root;
  }
}

TYPED_TEST(TypedCommTest, SendRecvRing) {
  using T = TypeParam;
  Communicator& c = World();
  if (c.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const DType dtype = DTypeOf<T>::value;
  const int32_t next = (c.rank() + 1) % c.size(), prev = (c.rank() + c.size() - 1) % c.size();
  std::vector<T> out(5), in(5, T(0));
  for (int64_t k = 0; k < 5; ++k) out[k] = T(Input(c.rank(), k));
  // Even ranks send first, odd ranks receive first, so no cycle of blocked sends.
  if (c.rank() % 2 == 0) {
    ASSERT_TRUE(c.Send(out.data(), 5, dtype, next, 3).ok());
    ASSERT_TRUE(c.Recv(in.data(), 5, dtype, prev, 3).ok());
  } else {
    ASSERT_TRUE(c.Recv(in.data(), 5, dtype, prev, 3).ok());
    ASSERT_TRUE(c.Send(out.data(), 5, dtype, next, 3).ok());
  }
  for (int64_t k = 0; k < 5; ++k) EXPECT_EQ(in[k], T(Input(prev, k)));
}

TEST(CommTest, RankAndSizeMatchTheWorld) {
  Communicator& c = World();
  EXPECT_EQ(c.rank(), WorldRank().value());
  EXPECT_EQ(c.size(), WorldSize().value());
  EXPECT_TRUE(c.Barrier().ok());
}

TEST(CommTest, TimeoutComesFromTheEnvironment) {
  const char* env = std::getenv(kCollectiveTimeoutEnv);
  const double expected = env == nullptr ? 0.0 : std::strtod(env, nullptr);
  EXPECT_EQ(World().timeout_seconds(), expected);
  EXPECT_FALSE(World().poisoned());
}

TEST(CommTest, RecvOfAWrongSizedMessageFails) {
  Communicator& c = World();
  if (c.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  std::vector<int32_t> buffer(8, 1);
  if (c.rank() == 0) {
    ASSERT_TRUE(c.Send(buffer.data(), 5, DType::kI32, 1, 7).ok());
    ASSERT_TRUE(c.Send(buffer.data(), 2, DType::kI32, 1, 8).ok());
  } else if (c.rank() == 1) {
    Status longer = c.Recv(buffer.data(), 3, DType::kI32, 0, 7);  // message too long
    EXPECT_FALSE(longer.ok());
    // A timeout makes the receive nonblocking, and MPI_Irecv's request reports it.
    const std::string call = c.timeout_seconds() > 0 ? "MPI_Irecv" : "MPI_Recv";
    EXPECT_EQ(longer.message().rfind(call + " failed: ", 0), 0u) << longer.message();
    Status shorter = c.Recv(buffer.data(), 4, DType::kI32, 0, 8);
    EXPECT_EQ(shorter.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(shorter.message(),
              "Recv: expected 4 elements from rank 0 (tag 8) but the message holds 2");
  }
  EXPECT_TRUE(c.Barrier().ok());
}

// Argument errors are found locally, before any rank enters a collective, so every
// rank sees the same error and nothing hangs.
void ExpectError(const Status& status, StatusCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_EQ(status.message(), message);
}

TEST(CommTest, ArgumentErrorsNameTheArgument) {
  Communicator& c = World();
  const int32_t n = c.size();
  const std::string ns = std::to_string(n);
  float x[4] = {};
  ExpectError(c.AllReduce(nullptr, x, 3, DType::kF32, ReduceOp::kSum), StatusCode::kInvalidArgument,
              "AllReduce: send is NULL but holds 3 elements");
  ExpectError(c.AllReduce(x, x, -2, DType::kF32, ReduceOp::kSum), StatusCode::kInvalidArgument,
              "AllReduce: count is -2; it must be >= 0");
  ExpectError(c.AllReduce(x, x, int64_t{INT_MAX} + 1, DType::kF32, ReduceOp::kSum),
              StatusCode::kOutOfRange,
              "AllReduce: count is 2147483648, more than this backend's limit of 2147483647 "
              "elements");
  ExpectError(c.AllReduce(x, x, 1, DType::kF16, ReduceOp::kMax), StatusCode::kInvalidArgument,
              "AllReduce: dtype f16 is not supported by communicators (supported: f32, f64, "
              "i32, i64)");
  ExpectError(c.Broadcast(x, 1, DType::kBF16, 0), StatusCode::kInvalidArgument,
              "Broadcast: dtype bf16 is not supported by communicators (supported: f32, f64, "
              "i32, i64)");
  ExpectError(c.AllReduce(x, x, 1, DType::kF32, static_cast<ReduceOp>(9)),
              StatusCode::kInvalidArgument, "AllReduce: reduce op value 9 is not sum, max or min");
  ExpectError(c.Broadcast(x, 1, DType::kF32, n), StatusCode::kOutOfRange,
              "Broadcast: root " + ns + " is outside the communicator of " + ns + " ranks");
  ExpectError(c.Reduce(x, x, 1, DType::kF32, ReduceOp::kSum, -1), StatusCode::kOutOfRange,
              "Reduce: root -1 is outside the communicator of " + ns + " ranks");
  ExpectError(c.ReduceScatterV(x, x, std::vector<int64_t>(n + 1, 0), DType::kF32, ReduceOp::kSum),
              StatusCode::kInvalidArgument,
              "ReduceScatterV: recv_counts has " + std::to_string(n + 1) +
                  " entries but the communicator has " + ns + " ranks");
  std::vector<int64_t> negative(n, 0);
  negative[n - 1] = -1;
  ExpectError(c.ReduceScatterV(x, x, negative, DType::kF32, ReduceOp::kSum),
              StatusCode::kInvalidArgument,
              "ReduceScatterV: recv_counts[" + std::to_string(n - 1) + "] is -1; it must be >= 0");
  std::vector<int64_t> ones(n, 1);
  ExpectError(c.AllGatherV(x, 2, x, ones, {}, DType::kF32), StatusCode::kInvalidArgument,
              "AllGatherV: send_count is 2 but recv_counts[" + std::to_string(c.rank()) +
                  "] (this rank) is 1");
  ExpectError(c.AllGatherV(x, 1, nullptr, ones, {}, DType::kF32), StatusCode::kInvalidArgument,
              "AllGatherV: recv is NULL but holds " + ns + " elements");
  ExpectError(c.AllGatherV(x, 1, x, ones, std::vector<int64_t>(n + 2, 0), DType::kF32),
              StatusCode::kInvalidArgument,
              "AllGatherV: recv_displs has " + std::to_string(n + 2) +
                  " entries but the communicator has " + ns + " ranks");
  std::vector<int64_t> recv_counts(n, 1);
  recv_counts[c.rank()] = 2;
  ExpectError(
      c.AllToAllV(x, ones, {}, x, recv_counts, {}, DType::kF32), StatusCode::kInvalidArgument,
      "AllToAllV: this rank (" + std::to_string(c.rank()) +
          ") sends 1 elements to itself but recv_counts[" + std::to_string(c.rank()) + "] is 2");
  ExpectError(c.Send(x, 1, DType::kF32, c.rank(), 0), StatusCode::kInvalidArgument,
              "Send: peer " + std::to_string(c.rank()) +
                  " is this rank; a blocking send to itself can deadlock");
  ExpectError(
      c.Recv(x, 1, DType::kF32, n + 3, 0), StatusCode::kOutOfRange,
      "Recv: peer " + std::to_string(n + 3) + " is outside the communicator of " + ns + " ranks");
  if (n > 1) {
    ExpectError(c.Send(x, 1, DType::kF32, (c.rank() + 1) % n, -4), StatusCode::kInvalidArgument,
                "Send: tag is -4; it must be >= 0");
  }
  // NULL is fine where the count is 0 (an empty slice of an uneven split).
  EXPECT_TRUE(c.AllReduce(nullptr, nullptr, 0, DType::kF32, ReduceOp::kSum).ok());
}

TEST(RegistryTest, WorldAndPlacementCommunicatorsAreCached) {
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  const int32_t n = WorldSize().value();
  MpiCommunicator* world = registry.World().value();
  EXPECT_EQ(registry.World().value(), world);
  // Same ranks in the same order: the same communicator, whatever the hierarchy.
  Placement all = Placement::Parse("cpu:0-" + std::to_string(n - 1)).value();
  EXPECT_EQ(registry.ForPlacement(all).value(), world);
  EXPECT_NE(world->comm(), MPI_COMM_WORLD) << "Tessera must not share MPI_COMM_WORLD";
}

TEST(RegistryTest, ReversedSubsetPlacement) {
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  const int32_t n = WorldSize().value(), me = WorldRank().value();
  if (n < 3) GTEST_SKIP() << "needs 3 ranks";
  // Ranks 2 and 0, in that order: communicator rank i must be parallel index i.
  Placement p = Placement::Parse("cpu:[2,0]").value();
  auto comm = registry.ForPlacement(p);
  if (!p.contains(me)) {
    EXPECT_EQ(comm.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(comm.status().message(), "rank " + std::to_string(me) +
                                           " is not in placement cpu:[2,0], so it has no "
                                           "communicator for it");
    return;
  }
  ASSERT_TRUE(comm.ok()) << comm.status().ToString();
  EXPECT_EQ((*comm)->size(), 2);
  EXPECT_EQ((*comm)->rank(), p.index_of(me));
  int32_t world_rank = me, gathered[2] = {-1, -1};
  ASSERT_TRUE((*comm)->AllGatherV(&world_rank, 1, gathered, {1, 1}, {}, DType::kI32).ok());
  EXPECT_EQ(gathered[0], 2);
  EXPECT_EQ(gathered[1], 0);
  EXPECT_EQ(registry.ForPlacement(p).value(), *comm);
}

TEST(RegistryTest, AxisGroupsOf2x2Hierarchy) {
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  const int32_t n = WorldSize().value(), me = WorldRank().value();
  if (n != 4) GTEST_SKIP() << "needs exactly 4 ranks";
  Placement p = Placement::Parse("cpu:[[0,1],[2,3]]").value();
  for (int axis = 0; axis < 2; ++axis) {
    MpiCommunicator* comm = registry.ForAxis(p, axis).value();
    EXPECT_EQ(registry.ForAxis(p, axis).value(), comm) << "not cached";
    Placement group = p.AxisGroup(axis, me).value();
    EXPECT_EQ(comm->size(), 2);
    EXPECT_EQ(comm->rank(), group.index_of(me));
    int64_t mine = me, sum = 0;
    ASSERT_TRUE(comm->AllReduce(&mine, &sum, 1, DType::kI64, ReduceOp::kSum).ok());
    EXPECT_EQ(sum, group.rank_at(0) + group.rank_at(1)) << "axis " << axis;
  }
  EXPECT_EQ(registry.ForAxis(p, 2).status().code(), StatusCode::kOutOfRange);
}

TEST(RegistryTest, PlacementBeyondTheWorldIsAnError) {
  const int32_t n = WorldSize().value();
  Placement p = Placement::Parse("cpu:[0," + std::to_string(n) + "]").value();
  auto comm = MpiCommRegistry::Global().ForPlacement(p);
  EXPECT_EQ(comm.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(comm.status().message(), "placement " + p.ToString() + " names rank " +
                                         std::to_string(n) + " but the world has " +
                                         std::to_string(n) + " ranks");
}

}  // namespace
}  // namespace tessera::comm
