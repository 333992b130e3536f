// Collective timeouts on the MPI backend, under mpirun with 1..4 ranks: the last
// rank is late (never calls, or calls after the timeout); the others must get
// DEADLINE_EXCEEDED naming the call, the communicator size and the timeout, the
// communicator must refuse every later call at once, and the program must still
// finalize cleanly (no MPI_Abort).
//
// What happens to the abandoned operation. MPI cannot cancel a collective, so the
// timed-out MPI_Iallreduce stays pending on the ranks that gave up. Open MPI 4.1
// finalizes fine with such a request pending as long as its communicator is not
// freed under it, which is what ~MpiCommunicator does (it keeps the communicator).
// LateRankNeverJoins leaves it pending to the end; LateRankJoinsAfterTheTimeout has
// the late rank join, and the others drive MPI's progress (WaitAbandoned) until the
// abandoned all-reduce completes with everyone's data.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "core/comm/mpi_world.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

constexpr double kTimeout = 0.5;

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A communicator of its own (a duplicate of the world), so a poisoned one does not
// disturb the other tests.
std::unique_ptr<MpiCommunicator> FreshWorld() {
  MPI_Comm dup = MPI_COMM_NULL;
  EXPECT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
  auto wrapped = MpiCommunicator::Wrap(dup, /*owned=*/true);
  EXPECT_TRUE(wrapped.ok()) << wrapped.status().ToString();
  return std::move(wrapped).value();
}

void SyncWorld() { ASSERT_TRUE(MpiCommRegistry::Global().World().value()->Barrier().ok()); }

std::string TimeoutMessage(const char* method, int32_t size, int32_t rank) {
  return std::string(method) + ": not complete after the timeout of 0.5 s on a communicator of " +
         std::to_string(size) + " ranks (this is rank " + std::to_string(rank) +
         "); another member is late, hung or dead, and this communicator is now unusable";
}

// The checks every rank that gave up makes: the error, then instant refusals.
void ExpectTimedOutAndPoisoned(MpiCommunicator& c, const Status& status, double elapsed) {
  EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << status.ToString();
  EXPECT_EQ(status.message(), TimeoutMessage("AllReduce", c.size(), c.rank()));
  EXPECT_GE(elapsed, kTimeout);
  EXPECT_LT(elapsed, kTimeout + 5.0) << "the wait overran its deadline by far";
  EXPECT_TRUE(c.poisoned());
  EXPECT_EQ(c.poison().message(), status.message());
  EXPECT_TRUE(FaultNoted()) << "a timeout bounds FinalizeWorld from then on";

  const Clock::time_point start = Clock::now();
  int64_t x = 1;
  Status barrier = c.Barrier();
  EXPECT_EQ(barrier.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(barrier.message(),
            "Barrier: this communicator is unusable after an earlier call timed out (" +
                status.message() + ")");
  // Refused before the arguments are even looked at.
  Status bad = c.AllReduce(nullptr, &x, 5, DType::kI64, ReduceOp::kSum);
  EXPECT_EQ(bad.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(bad.message().rfind("AllReduce: this communicator is unusable", 0), 0u)
      << bad.message();
  EXPECT_EQ(c.Broadcast(&x, 1, DType::kI64, 0).code(), StatusCode::kFailedPrecondition);
  EXPECT_LT(SecondsSince(start), 0.1) << "refusals must not wait";
  // Changing the timeout is allowed and changes nothing.
  EXPECT_TRUE(c.SetTimeout(10).ok());
  EXPECT_TRUE(c.poisoned());
}

TEST(TimeoutTest, CollectivesWithinTheTimeoutSucceed) {
  std::unique_ptr<MpiCommunicator> c = FreshWorld();
  // Generous: this is about the nonblocking path giving right results, and a loaded
  // 2-core machine running 4 ranks can stall a rank for a good fraction of a second.
  ASSERT_TRUE(c->SetTimeout(20).ok());
  EXPECT_EQ(c->timeout_seconds(), 20);
  for (ReduceOp op : kOps) {
    std::vector<double> send(9), recv(9, -99);
    for (int k = 0; k < 9; ++k) send[k] = Input(c->rank(), k);
    ASSERT_TRUE(c->AllReduce(send.data(), recv.data(), 9, DType::kF64, op).ok());
    for (int k = 0; k < 9; ++k) EXPECT_EQ(recv[k], Reduced(op, c->size(), k));
  }
  EXPECT_TRUE(c->Barrier().ok());
  EXPECT_FALSE(c->poisoned());
  EXPECT_FALSE(c->has_abandoned());
  EXPECT_TRUE(c->WaitAbandoned(0).ok()) << "nothing abandoned";
}

TEST(TimeoutTest, LateRankNeverJoins) {
  std::unique_ptr<MpiCommunicator> c = FreshWorld();
  if (c->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  ASSERT_TRUE(c->SetTimeout(kTimeout).ok());
  const int32_t late = c->size() - 1;
  if (c->rank() != late) {
    // Static: the abandoned all-reduce never completes, and MPI may still write into
    // recv whenever it makes progress, until the process ends.
    static int64_t send[4] = {1, 1, 1, 1}, recv[4] = {};
    const Clock::time_point start = Clock::now();
    Status status = c->AllReduce(send, recv, 4, DType::kI64, ReduceOp::kSum);
    ExpectTimedOutAndPoisoned(*c, status, SecondsSince(start));
    EXPECT_TRUE(c->has_abandoned());
    Status wait = c->WaitAbandoned(0.05);
    EXPECT_EQ(wait.code(), StatusCode::kDeadlineExceeded);
    EXPECT_EQ(wait.message(),
              "WaitAbandoned: the operation abandoned by a timeout is still incomplete after "
              "0.05 s on a communicator of " +
                  std::to_string(c->size()) + " ranks");
    c.reset();  // keeps the MPI communicator: the all-reduce still uses it
  }
  SyncWorld();
}

TEST(TimeoutTest, LateRankJoinsAfterTheTimeout) {
  std::unique_ptr<MpiCommunicator> c = FreshWorld();
  if (c->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  ASSERT_TRUE(c->SetTimeout(kTimeout).ok());
  const int32_t late = c->size() - 1;
  std::vector<int32_t> send(6), recv(6, -99);
  for (int k = 0; k < 6; ++k) send[k] = static_cast<int32_t>(Input(c->rank(), k));
  if (c->rank() != late) {
    const Clock::time_point start = Clock::now();
    Status status = c->AllReduce(send.data(), recv.data(), 6, DType::kI32, ReduceOp::kMax);
    ExpectTimedOutAndPoisoned(*c, status, SecondsSince(start));
    // The late rank joins at about 3 x kTimeout; driving progress until then lets
    // the abandoned all-reduce finish, with the late rank's data in it.
    ASSERT_TRUE(c->WaitAbandoned(30).ok());
    EXPECT_FALSE(c->has_abandoned());
    for (int k = 0; k < 6; ++k) EXPECT_EQ(recv[k], Reduced(ReduceOp::kMax, c->size(), k)) << k;
    EXPECT_TRUE(c->poisoned()) << "completing late does not make it usable again";
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(3 * kTimeout));
    ASSERT_TRUE(c->SetTimeout(30).ok());  // the others are waiting for it by now
    ASSERT_TRUE(c->AllReduce(send.data(), recv.data(), 6, DType::kI32, ReduceOp::kMax).ok());
    for (int k = 0; k < 6; ++k) EXPECT_EQ(recv[k], Reduced(ReduceOp::kMax, c->size(), k)) << k;
    EXPECT_FALSE(c->poisoned());
  }
  SyncWorld();
}

// The non-blocking all-reduce: Wait bounds it like a blocking call (DEADLINE_EXCEEDED
// naming Wait, poisoned, the operation abandoned), and the abandoned one completes once
// the late rank joins.
TEST(TimeoutTest, IAllReduceWaitTimesOutAndCompletesLate) {
  std::unique_ptr<MpiCommunicator> c = FreshWorld();
  if (c->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  ASSERT_TRUE(c->SetTimeout(kTimeout).ok());
  const int32_t late = c->size() - 1;
  std::vector<double> buffer(5);
  for (int k = 0; k < 5; ++k) buffer[k] = Input(c->rank(), k);
  MPI_Request request = MPI_REQUEST_NULL;
  if (c->rank() != late) {
    ASSERT_TRUE(c->IAllReduce(buffer.data(), 5, DType::kF64, ReduceOp::kSum, &request).ok());
    const Clock::time_point start = Clock::now();
    Status status = c->Wait(&request);
    EXPECT_GE(SecondsSince(start), kTimeout);
    EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded) << status.ToString();
    EXPECT_EQ(status.message(), TimeoutMessage("Wait", c->size(), c->rank()));
    EXPECT_EQ(request, MPI_REQUEST_NULL) << "handed to the communicator as abandoned";
    EXPECT_TRUE(c->poisoned());
    EXPECT_TRUE(c->has_abandoned());
    MPI_Request again;
    EXPECT_EQ(c->IAllReduce(buffer.data(), 5, DType::kF64, ReduceOp::kSum, &again).code(),
              StatusCode::kFailedPrecondition);
    ASSERT_TRUE(c->WaitAbandoned(30).ok());
    for (int k = 0; k < 5; ++k) EXPECT_EQ(buffer[k], Reduced(ReduceOp::kSum, c->size(), k)) << k;
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(3 * kTimeout));
    ASSERT_TRUE(c->SetTimeout(30).ok());
    ASSERT_TRUE(c->IAllReduce(buffer.data(), 5, DType::kF64, ReduceOp::kSum, &request).ok());
    ASSERT_TRUE(c->Wait(&request).ok());
    for (int k = 0; k < 5; ++k) EXPECT_EQ(buffer[k], Reduced(ReduceOp::kSum, c->size(), k)) << k;
  }
  SyncWorld();
}

TEST(TimeoutTest, UnmatchedRecvIsCancelled) {
  std::unique_ptr<MpiCommunicator> c = FreshWorld();
  if (c->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  ASSERT_TRUE(c->SetTimeout(kTimeout).ok());
  if (c->rank() == 0) {
    float buffer[3] = {};
    Status status = c->Recv(buffer, 3, DType::kF32, 1, 5);  // rank 1 never sends
    EXPECT_EQ(status.code(), StatusCode::kDeadlineExceeded);
    EXPECT_EQ(status.message(), TimeoutMessage("Recv", c->size(), 0));
    EXPECT_TRUE(c->poisoned());
    EXPECT_FALSE(c->has_abandoned()) << "a receive is cancelled, not abandoned";
  }
  SyncWorld();
}

TEST(TimeoutTest, BadArguments) {
  std::unique_ptr<MpiCommunicator> c = FreshWorld();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {-1.0, nan, inf}) {
    Status status = c->SetTimeout(bad);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), "SetTimeout: seconds is " +
                                    std::string(bad < 0           ? "-1"
                                                : std::isnan(bad) ? "nan"
                                                                  : "inf") +
                                    "; it must be a finite number >= 0 (0 = no limit)");
    Status wait = c->WaitAbandoned(bad);
    EXPECT_EQ(wait.code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(c->WaitAbandoned(-2).message(),
            "WaitAbandoned: seconds is -2; it must be a finite number >= 0");
  EXPECT_EQ(c->timeout_seconds(), 0) << "a refused value must not be stored";
  EXPECT_TRUE(c->SetTimeout(0).ok());
}

TEST(TimeoutTest, ProcessDefaultFromTheEnvironment) {
  {
    ScopedEnv env(kCollectiveTimeoutEnv, "2.5");
    EXPECT_EQ(DefaultCollectiveTimeout().value(), 2.5);
    MPI_Comm self = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Comm_dup(MPI_COMM_SELF, &self), MPI_SUCCESS);
    auto c = MpiCommunicator::Wrap(self, /*owned=*/true);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ((*c)->timeout_seconds(), 2.5);
  }
  for (const char* bad : {"abc", "-1", "1s", "inf", "nan"}) {
    ScopedEnv env(kCollectiveTimeoutEnv, bad);
    const std::string message = "environment variable TESSERA_COLLECTIVE_TIMEOUT_S is \"" +
                                std::string(bad) + "\"; it must be a finite number of seconds >= 0";
    EXPECT_EQ(DefaultCollectiveTimeout().status().message(), message);
    MPI_Comm self = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Comm_dup(MPI_COMM_SELF, &self), MPI_SUCCESS);
    auto c = MpiCommunicator::Wrap(self, /*owned=*/true);
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(c.status().message(), message);
    MPI_Comm_free(&self);  // Wrap failed, so it is still ours
  }
  {
    ScopedEnv env(kCollectiveTimeoutEnv, "");
    EXPECT_EQ(DefaultCollectiveTimeout().value(), 0.0) << "empty means unset";
  }
}

// SetDefaultCollectiveTimeout and MpiCommRegistry::SetTimeout (what the C API's
// tess_comm_set_collective_timeout calls): new communicators start at the default, cached
// ones take the registry's value, bad values change nothing. Last: the default cannot
// be unset, and it hides TESSERA_COLLECTIVE_TIMEOUT_S from then on.
TEST(TimeoutTest, ProcessDefaultAndRegistryWideTimeouts) {
  Status bad = SetDefaultCollectiveTimeout(-1);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(),
            "SetDefaultCollectiveTimeout: seconds is -1; it must be a finite number >= 0 (0 = "
            "no limit)");
  {
    ScopedEnv env(kCollectiveTimeoutEnv, "2.5");
    EXPECT_EQ(DefaultCollectiveTimeout().value(), 2.5) << "a rejected value sets nothing";
    ASSERT_TRUE(SetDefaultCollectiveTimeout(7).ok());
    EXPECT_EQ(DefaultCollectiveTimeout().value(), 7) << "the set value wins over the variable";
    EXPECT_EQ(FreshWorld()->timeout_seconds(), 7);
  }
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  MpiCommunicator* world = registry.World().value();
  ASSERT_TRUE(registry.SetTimeout(3).ok());
  EXPECT_EQ(world->timeout_seconds(), 3);
  bad = registry.SetTimeout(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(),
            "MpiCommRegistry::SetTimeout: seconds is nan; it must be a finite number >= 0 (0 = "
            "no limit)");
  EXPECT_EQ(world->timeout_seconds(), 3);
  ASSERT_TRUE(registry.SetTimeout(0).ok());
  ASSERT_TRUE(SetDefaultCollectiveTimeout(0).ok());
  EXPECT_EQ(world->timeout_seconds(), 0);
  SyncWorld();
}

// Communicator creation with a timeout (mpi_comm_registry.h): the last rank never
// asks for a communicator of every rank (in reverse order, so not the cached world);
// the others get DEADLINE_EXCEEDED naming it, then FAILED_PRECONDITION at once on the
// next request for the same ranks, while communicators already made keep working.
TEST(TimeoutTest, CreationTimesOutWhenAMemberNeverArrives) {
  MpiCommRegistry& registry = MpiCommRegistry::Global();
  const int32_t size = registry.World().value()->size(), me = registry.World().value()->rank();
  if (size < 2) GTEST_SKIP() << "needs 2 ranks";
  const int32_t late = size - 1;
  std::vector<int32_t> reversed;
  std::string list = "[";
  for (int32_t r = size - 1; r >= 0; --r) {
    reversed.push_back(r);
    list += std::to_string(r) + (r > 0 ? ", " : "]");
  }
  ASSERT_TRUE(SetDefaultCollectiveTimeout(kTimeout).ok());
  if (me != late) {
    const Clock::time_point start = Clock::now();
    Result<MpiCommunicator*> made = registry.ForRanks(reversed);
    const double elapsed = SecondsSince(start);
    const std::string first = "creating the communicator of ranks " + list + " (world ranks " +
                              list + "): rank(s) [" + std::to_string(late) +
                              "] did not arrive within the timeout of 0.5 s (this is rank " +
                              std::to_string(me) + "); they are late, stopped or dead";
    EXPECT_EQ(made.status().code(), StatusCode::kDeadlineExceeded);
    EXPECT_EQ(made.status().message(), first);
    EXPECT_GE(elapsed, kTimeout);
    EXPECT_LT(elapsed, kTimeout + 5.0) << "the creation overran its deadline by far";

    const Clock::time_point again_start = Clock::now();
    Result<MpiCommunicator*> again = registry.ForRanks(reversed);
    EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(again.status().message(),
              "creating the communicator of ranks " + list + " (world ranks " + list +
                  ") failed earlier, so every request for it fails: " + first);
    EXPECT_LT(SecondsSince(again_start), 0.1) << "a refusal must not wait";
  }
  ASSERT_TRUE(SetDefaultCollectiveTimeout(0).ok());
  // Everyone, the late rank included: the cached world was not touched.
  SyncWorld();
}

}  // namespace
}  // namespace tessera::comm
