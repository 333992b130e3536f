// Data-dependent errors on CUDA (data_errors.h): out-of-range indices and labels and
// integer zero divisors are reported by SynchronizeStream with the CPU kernel's
// message, or at once with synchronous checks, and never read out of bounds. On a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/device/stream_sync.h"
#include "kernels/cuda/cuda_test_util.h"
#include "kernels/cuda/data_errors.h"
#include "kernels/cuda/stream_state.h"

namespace tessera {
namespace kernels {
namespace cuda {
namespace {

std::vector<OpCall> BadDataCalls() {
  const HostTensor params =
      FromValues(Shape{4, 3}, DType::kF32, {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32});
  const HostTensor x = FromValues(Shape{2, 3}, DType::kF64, {1, 2, 3, 4, 5, 6});
  return {
      {"gather",
       {params, FromValues(Shape{2, 2}, DType::kI32, {0, 1, 4, 2})},
       {},
       {HostTensor(Shape{2, 2, 3}, DType::kF32)}},
      {"gather",
       {params, FromValues(Shape{2, 2}, DType::kI64, {0, -1, 1, 2})},
       {},
       {HostTensor(Shape{2, 2, 3}, DType::kF32)}},
      {"gather",
       {params, FromValues(Shape{2}, DType::kI64, {0, 3})},
       {{"axis", AttrValue::Int(1)}},
       {HostTensor(Shape{4, 2}, DType::kF32)}},
      {"embedding",
       {params, FromValues(Shape{3}, DType::kI32, {3, 10, 0})},
       {},
       {HostTensor(Shape{3, 3}, DType::kF32)}},
      {"embedding",  // a [V, 0] column shard still checks its indices
       {HostTensor(Shape{10, 0}, DType::kF32), FromValues(Shape{2}, DType::kI32, {3, 10})},
       {},
       {HostTensor(Shape{2, 0}, DType::kF32)}},
      {"sparse_softmax_cross_entropy",
       {x, FromValues(Shape{2}, DType::kI32, {1, 3})},
       {},
       {HostTensor(Shape{2, 3}, DType::kF64), HostTensor(Shape{2}, DType::kF64)}},
      {"sparse_softmax_cross_entropy",
       {x, FromValues(Shape{2}, DType::kI64, {-1, 0})},
       {},
       {HostTensor(Shape{2, 3}, DType::kF64), HostTensor(Shape{2}, DType::kF64)}},
      {"nll_loss",
       {x, FromValues(Shape{2}, DType::kI64, {0, 3})},
       {},
       {HostTensor(Shape{}, DType::kF64)}},
      {"cross_entropy",
       {x, FromValues(Shape{2}, DType::kI32, {-2, 0})},
       {{"reduction", AttrValue::Int(0)}},
       {HostTensor(Shape{2}, DType::kF64)}},
      {"div",
       {FromValues(Shape{2, 3}, DType::kI32, {1, 2, 3, 4, 5, 6}),
        FromValues(Shape{2, 3}, DType::kI32, {1, 2, 3, 4, 0, 6})},
       {},
       {HostTensor(Shape{2, 3}, DType::kI32)}},
      {"div",
       {FromValues(Shape{2, 3}, DType::kI64, {1, 2, 3, 4, 5, 6}),
        FromValues(Shape{3}, DType::kI64, {7, 0, 1})},
       {},
       {HostTensor(Shape{2, 3}, DType::kI64)}},
      {"adam_update_at_step",
       {x, x, x, x, FromValues(Shape{}, DType::kI64, {0})},
       {},
       {HostTensor(Shape{2, 3}, DType::kF64), HostTensor(Shape{2, 3}, DType::kF64),
        HostTensor(Shape{2, 3}, DType::kF64)}},
  };
}

class DataErrorTest : public GpuTest {
 protected:
  void TearDown() override {
    SetSynchronousDataChecks(false);
    GpuTest::TearDown();
  }
};

TEST_F(DataErrorTest, ReportedAtSynchronizeStreamWithTheCpuMessage) {
  ASSERT_FALSE(SynchronousDataChecks());
  for (const OpCall& c : BadDataCalls()) {
    const std::string cpu_message = cpu::ErrorOf(c.op, c.inputs, c.attrs, c.outputs);
    SCOPED_TRACE(cpu_message);
    ASSERT_FALSE(cpu_message.empty());
    std::vector<HostTensor> outputs = c.outputs;
    // RunCudaInto returns the kernel's status if it fails, else SynchronizeStream's.
    const Status s = RunCudaInto(c.op, c.inputs, c.attrs, &outputs, stream_);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    EXPECT_EQ(s.message(), cpu_message);
    // Reported once: the record is clear again.
    const Status again = device::SynchronizeStream(stream_);
    EXPECT_TRUE(again.ok()) << again.ToString();
  }
}

// The call itself succeeds (it cannot know yet) and its outputs are defined: no read
// outside the inputs.
TEST_F(DataErrorTest, TheCallSucceedsAndOutputsAreDefined) {
  const std::vector<OpCall> calls = BadDataCalls();
  // The n-th call of `op` in BadDataCalls (found by name: the list grows).
  const auto nth = [&](const std::string& op, int n) -> const OpCall& {
    for (const OpCall& c : calls) {
      if (c.op == op && n-- == 0) return c;
    }
    ADD_FAILURE() << "BadDataCalls has no such " << op << " call";
    return calls.front();
  };
  const auto run = [&](const OpCall& c) {
    CudaCall call(c.op, c.inputs, c.attrs, c.outputs, stream_);
    const Status launched = call.Launch();
    EXPECT_TRUE(launched.ok()) << launched.ToString();
    EXPECT_EQ(device::SynchronizeStream(stream_).code(), StatusCode::kInvalidArgument);
    return call.Outputs();
  };
  // gather [[0, 1], [4, 2]] of a [4,3] table: row 4 does not exist and reads as zeros.
  cpu::ExpectValues(run(nth("gather", 0))[0], {0, 1, 2, 10, 11, 12, 0, 0, 0, 20, 21, 22});
  // div's zero divisor gives 0; the others divide.
  cpu::ExpectValues(run(nth("div", 0))[0], {1, 1, 1, 1, 0, 1});
  // A bad label's loss is NaN; prob and the other row's loss are the CPU's.
  const OpCall& xent_call = nth("sparse_softmax_cross_entropy", 0);
  const std::vector<HostTensor> xent = run(xent_call);
  Result<std::vector<HostTensor>> expected =
      cpu::RunOp(xent_call.op, {xent_call.inputs[0], FromValues(Shape{2}, DType::kI32, {1, 0})});
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  cpu::ExpectValues(xent[0], (*expected)[0].Values(), 1e-12);
  EXPECT_NEAR(xent[1].Get(0), (*expected)[1].Get(0), 1e-12);
  EXPECT_TRUE(std::isnan(xent[1].Get(1)));
}

TEST_F(DataErrorTest, SynchronousChecksFailTheCallAndLeaveOutputsUntouched) {
  SetSynchronousDataChecks(true);
  ASSERT_TRUE(SynchronousDataChecks());
  for (const OpCall& c : BadDataCalls()) {
    const std::string cpu_message = cpu::ErrorOf(c.op, c.inputs, c.attrs, c.outputs);
    SCOPED_TRACE(cpu_message);
    std::vector<HostTensor> outputs = c.outputs;  // garbage: NaN or 0x5a5a5a5a
    const std::vector<HostTensor> before = outputs;
    const Status s = RunCudaInto(c.op, c.inputs, c.attrs, &outputs, stream_);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    EXPECT_EQ(s.message(), cpu_message);
    for (size_t i = 0; i < outputs.size(); ++i) cpu::ExpectValues(outputs[i], before[i].Values());
  }
  // Good data passes in this mode too.
  ExpectCudaMatchesCpu("gather",
                       {BadDataCalls()[0].inputs[0], FromValues(Shape{2}, DType::kI32, {3, 0})}, {},
                       stream_);
}

// Records belong to a stream: an error on one is not reported on another.
TEST_F(DataErrorTest, ErrorsStayOnTheirStream) {
  const OpCall c = BadDataCalls()[0];
  ExpectCudaMatchesCpu("gather", {c.inputs[0], FromValues(Shape{1}, DType::kI32, {2})}, {},
                       stream_);  // stream_ has a record too now
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  {
    CudaCall call(c.op, c.inputs, c.attrs, c.outputs, other);
    ASSERT_TRUE(call.Launch().ok());
    ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
    EXPECT_TRUE(device::SynchronizeStream(stream_).ok());
    EXPECT_EQ(device::SynchronizeStream(other).code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(device::SynchronizeStream(other).ok());
  }
  cudaStreamDestroy(other);
}

// A synchronisation reads the record (into the state's pinned mirror) only when a check
// kernel or a graph replay was queued since the last read: the mirror is written by the
// first sync after a checked op and after a replay note, and left alone after ops without
// checks. A sentinel in the mirror shows whether a copy landed.
TEST_F(DataErrorTest, TheRecordIsReadOnlyAfterChecksOrReplays) {
  const OpCall c = BadDataCalls()[0];
  const HostTensor good_indices = FromValues(Shape{1}, DType::kI32, {2});
  ExpectCudaMatchesCpu("gather", {c.inputs[0], good_indices}, {}, stream_);
  Result<StreamState*> state = FindStreamState(stream_);
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  ASSERT_NE(*state, nullptr);
  constexpr unsigned int kSentinel = 0xdeadbeefu;
  const auto mirror_was_written = [&](const std::function<void()>& queue) {
    (*state)->host_mirror()->claimed = kSentinel;
    queue();
    const Status s = device::SynchronizeStream(stream_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return (*state)->host_mirror()->claimed != kSentinel;
  };
  const HostTensor x = FromValues(Shape{3}, DType::kF32, {1, 2, 3});
  // Nothing queued, then an op without checks: no copy of the record.
  EXPECT_FALSE(mirror_was_written([] {}));
  EXPECT_FALSE(mirror_was_written([&] { ExpectCudaMatchesCpu("add", {x, x}, {}, stream_); }));
  // A checked op: its sync reads the record (empty), the next sync does not again.
  EXPECT_TRUE(mirror_was_written([&] {
    ExpectCudaMatchesCpu("gather", {c.inputs[0], good_indices}, {}, stream_);
  }));
  EXPECT_FALSE(mirror_was_written([] {}));
  // A replayed graph may hold checks: the launcher's note makes the next sync read.
  EXPECT_TRUE(mirror_was_written([&] { device::NoteReplayedWork(stream_); }));
  EXPECT_FALSE(mirror_was_written([] {}));
  // And a bad index after all this is still reported, once.
  CudaCall call(c.op, c.inputs, c.attrs, c.outputs, stream_);
  ASSERT_TRUE(call.Launch().ok());
  EXPECT_EQ(device::SynchronizeStream(stream_).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(device::SynchronizeStream(stream_).ok());
}

}  // namespace
}  // namespace cuda
}  // namespace kernels
}  // namespace tessera
