// MpiCommunicator's non-blocking all-reduce (IAllReduce, Test, Wait), linked into
// communicator_test_bin, so it also runs with a timeout set (the polling Wait).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/comm/mpi_comm_registry.h"
#include "core/comm/mpi_communicator.h"
#include "tests/comm/comm_test_util.h"

namespace tessera::comm {
namespace {

MpiCommunicator& World() { return *MpiCommRegistry::Global().World().value(); }

TEST(IAllReduceTest, SeveralInFlightCompleteWithTheSums) {
  MpiCommunicator& c = World();
  // Three requests outstanding at once, finished in reverse order, one by Test polling.
  std::vector<std::vector<double>> buffers(3, std::vector<double>(1000));
  std::vector<MPI_Request> requests(3);
  for (int b = 0; b < 3; ++b) {
    for (int64_t k = 0; k < 1000; ++k) buffers[b][k] = Input(c.rank(), k) + b;
    ASSERT_TRUE(
        c.IAllReduce(buffers[b].data(), 1000, DType::kF64, ReduceOp::kSum, &requests[b]).ok());
  }
  bool done = false;
  while (!done) ASSERT_TRUE(c.Test(&requests[2], &done).ok());
  EXPECT_EQ(requests[2], MPI_REQUEST_NULL);
  ASSERT_TRUE(c.Wait(&requests[1]).ok());
  ASSERT_TRUE(c.Wait(&requests[0]).ok());
  ASSERT_TRUE(c.Wait(&requests[0]).ok());  // a finished request waits for nothing
  for (int b = 0; b < 3; ++b) {
    for (int64_t k = 0; k < 1000; ++k) {
      ASSERT_EQ(buffers[b][k], Reduced(ReduceOp::kSum, c.size(), k) + b * c.size())
          << "buffer " << b << " k=" << k;
    }
  }
  // An empty all-reduce is legal and completes.
  MPI_Request empty;
  ASSERT_TRUE(c.IAllReduce(nullptr, 0, DType::kF32, ReduceOp::kMax, &empty).ok());
  EXPECT_TRUE(c.Wait(&empty).ok());
}

TEST(IAllReduceTest, ReduceScatterBlockGivesEachRankItsBlock) {
  MpiCommunicator& c = World();
  const int64_t block = 7;
  std::vector<float> send(block * c.size()), recv(block, -1);
  for (int64_t k = 0; k < block * c.size(); ++k) send[k] = static_cast<float>(Input(c.rank(), k));
  MPI_Request r;
  ASSERT_TRUE(
      c.IReduceScatterBlock(send.data(), recv.data(), block, DType::kF32, ReduceOp::kSum, &r).ok());
  ASSERT_TRUE(c.Wait(&r).ok());
  for (int64_t k = 0; k < block; ++k) {
    EXPECT_EQ(recv[k], static_cast<float>(Reduced(ReduceOp::kSum, c.size(), c.rank() * block + k)))
        << k;
  }
  float x = 0;
  Status s = c.IReduceScatterBlock(nullptr, &x, 1, DType::kF32, ReduceOp::kSum, &r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("IReduceScatterBlock"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("send"), std::string::npos) << s.message();
  EXPECT_EQ(c.IReduceScatterBlock(&x, &x, 1, DType::kF32, ReduceOp::kSum, nullptr).message(),
            "IReduceScatterBlock: request is null");
}

TEST(IAllReduceTest, BadArgumentsAreNamed) {
  MpiCommunicator& c = World();
  float x = 1;
  MPI_Request r;
  Status s = c.IAllReduce(&x, -1, DType::kF32, ReduceOp::kSum, &r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("IAllReduce"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("count"), std::string::npos) << s.message();
  s = c.IAllReduce(nullptr, 4, DType::kF32, ReduceOp::kSum, &r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("buffer"), std::string::npos) << s.message();
  s = c.IAllReduce(&x, 1, static_cast<DType>(42), ReduceOp::kSum, &r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.IAllReduce(&x, 1, DType::kF32, ReduceOp::kSum, nullptr).message(),
            "IAllReduce: request is null");
  bool done;
  EXPECT_EQ(c.Test(nullptr, &done).message(), "Test: request is null");
  EXPECT_EQ(c.Test(&r, nullptr).message(), "Test: done is null");
  EXPECT_EQ(c.Wait(nullptr).message(), "Wait: request is null");
}

}  // namespace
}  // namespace tessera::comm
