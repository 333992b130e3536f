// The C API from 8 threads at once on shared placements (docs/c-api.md, "Threads"):
// to_global, tess_boxing_run, plan runs and op calls, at 1 and 3 ranks under mpirun
// with MPI_THREAD_MULTIPLE. Run in every build, and under ThreadSanitizer by
// tools/test_all.sh (bazel test --config=tsan --test_tag_filters=tsan), where a data
// race in Tessera fails the test (TSAN_OPTIONS halt_on_error=1).
//
// Expected values come from the data itself (x[i] = i + 1 on the logical tensor), not
// from Tessera: a broadcast copy is x, the add of x and x is 2 x element by element.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::capi_test {
namespace {

constexpr int kThreads = 8;
// Uneven at 3 ranks (4, 3, 3): the all-gather takes MPI's v-form, which converts the
// counts into the communicator's shared int arrays (the state that raced before).
constexpr int64_t kLength = 10;

std::vector<float> Data() {
  std::vector<float> x(kLength);
  for (int64_t i = 0; i < kLength; ++i) x[i] = static_cast<float>(i + 1);
  return x;
}

// This rank's piece of `t`, copied out (local).
std::vector<float> Local(const tess_tensor* t) {
  int64_t n = 0;
  EXPECT_EQ(tess_tensor_local_num_elements(&n, t), TESS_OK) << LastError();
  std::vector<float> out(static_cast<size_t>(n));
  EXPECT_EQ(tess_tensor_copy_local(out.data(), out.size() * sizeof(float), t), TESS_OK)
      << LastError();
  return out;
}

// The slice [begin, end) of the logical data that this rank holds as S(0) (computed
// from the balanced split's rule, not from Tessera: the first kLength % n ranks hold
// one extra element).
std::vector<float> Slice(int rank, int n) {
  const int64_t base = kLength / n, extra = kLength % n;
  const int64_t begin = rank * base + std::min<int64_t>(rank, extra);
  const int64_t size = base + (rank < extra ? 1 : 0);
  const std::vector<float> x = Data();
  return std::vector<float>(x.begin() + begin, x.begin() + begin + size);
}

// Local work that needs no communication, on handles shared by every thread: parsing,
// layouts, inference, metadata and local reads of a shared tensor.
void LocalWork(const tess_placement* placement, const tess_nd_sbp* split,
               const tess_tensor* shared) {
  tess_layout* layout = nullptr;
  const int64_t shape[1] = {kLength};
  ASSERT_EQ(tess_layout_create(&layout, placement, split, shape, 1, WorldRank()), TESS_OK)
      << LastError();
  int64_t n = -1;
  EXPECT_EQ(tess_layout_num_elements(&n, layout), TESS_OK) << LastError();
  EXPECT_EQ(n, static_cast<int64_t>(Slice(WorldRank(), WorldSize()).size()));
  tess_layout_destroy(layout);

  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "add"), TESS_OK) << LastError();
  tess_dtype f32 = TESS_DTYPE_F32;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(tess_op_call_add_input(call, shape, 1, f32, placement, split), TESS_OK)
        << LastError();
  }
  tess_infer_result* result = nullptr;
  EXPECT_EQ(tess_op_call_infer(&result, call), TESS_OK) << LastError();
  tess_infer_result_destroy(result);
  tess_op_call_destroy(call);

  PlacementPtr parsed = Placement(CpuOf(WorldRanks()));
  NdSbpPtr sbp = NdSbp("S(0)");
  EXPECT_EQ(Local(shared), Slice(WorldRank(), WorldSize()));
}

class ThreadsCapiTest : public testing::Test {
 protected:
  void SetUp() override {
    placement_ = Placement(CpuOf(WorldRanks()));
    split_ = NdSbp("S(0)");
    broadcast_ = NdSbp("B");
    shared_ = FromHost(Data(), {kLength}, CpuOf(WorldRanks()), "S(0)");
    // Creates the placement's communicator here, on one thread: creation is collective
    // and must come in the same order on every rank.
    tess_tensor* warm = nullptr;
    ASSERT_EQ(tess_tensor_to_global(&warm, shared_.get(), placement_.get(), broadcast_.get()),
              TESS_OK)
        << LastError();
    tess_tensor_destroy(warm);
  }

  PlacementPtr placement_;
  NdSbpPtr split_;
  NdSbpPtr broadcast_;
  TensorPtr shared_;
};

// Every thread races to box the shared tensor S(0) -> B, through tess_tensor_to_global
// and tess_boxing_run in turn, with no ordering between threads. Each of these is the
// same single all-gather (same counts, same data on every thread), so whichever order
// a rank's communicator admits them in, they pair up across ranks into identical
// collectives: the threads really contend for one communicator, and the answer does
// not depend on the order (which Tessera leaves to the program; see ProgramOrdered).
TEST_F(ThreadsCapiTest, UnorderedIdenticalCollectives) {
  constexpr int kIterations = 12;
  const std::vector<float> x = Data();
  const std::vector<float> mine = Slice(WorldRank(), WorldSize());
  const int64_t shape[1] = {kLength};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        if ((i + t) % 2 == 0) {
          tess_tensor* out = nullptr;
          ASSERT_EQ(tess_tensor_to_global(&out, shared_.get(), placement_.get(), broadcast_.get()),
                    TESS_OK)
              << LastError();
          TensorPtr owned(out);
          EXPECT_EQ(Local(out), x) << "thread " << t << " iteration " << i;
        } else {
          std::vector<float> out(kLength, -1.0f);
          ASSERT_EQ(
              tess_boxing_run(out.data(), out.size() * sizeof(float), mine.data(),
                              mine.size() * sizeof(float), shape, 1, TESS_DTYPE_F32,
                              placement_.get(), split_.get(), placement_.get(), broadcast_.get()),
              TESS_OK)
              << LastError();
          EXPECT_EQ(out, x) << "thread " << t << " iteration " << i;
        }
        LocalWork(placement_.get(), split_.get(), shared_.get());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
}

// Hands out turns 0, 1, 2, ... in order: Run(ticket, f) waits for its ticket, runs f
// and passes the turn on. Every rank gives the same tickets to the same calls, so the
// collectives reach each communicator in the same order everywhere — what the
// contract asks of a program that communicates from several threads.
class Turns {
 public:
  template <typename F>
  void Run(int ticket, F f) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return turn_ == ticket; });
    lock.unlock();
    f();
    lock.lock();
    ++turn_;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int turn_ = 0;
};

// Mixed calls from 8 threads on the shared placement: each thread creates tensors,
// calls an op, boxes with to_global, runs its own instance of one shared plan (whose
// B input is boxed in from S(0), a collective), and between its turns does local work
// concurrently with the other threads' collectives. The collective calls take turns
// in one order on every rank.
TEST_F(ThreadsCapiTest, ProgramOrderedMixedCalls) {
  constexpr int kSteps = 3;
  constexpr int kCallsPerStep = 4;
  const std::vector<float> x = Data();
  std::vector<float> twice(x.size());
  for (size_t i = 0; i < x.size(); ++i) twice[i] = 2 * x[i];
  const std::vector<float> mine = Slice(WorldRank(), WorldSize());
  std::vector<float> mine_twice(mine.size());
  for (size_t i = 0; i < mine.size(); ++i) mine_twice[i] = 2 * mine[i];

  // One plan, shared by every thread: out = add(x, x) with x held as B.
  tess_program* program = nullptr;
  ASSERT_EQ(tess_program_create(&program), TESS_OK) << LastError();
  const int64_t shape[1] = {kLength};
  int64_t in = -1;
  ASSERT_EQ(tess_program_add_input(&in, program, "x", shape, 1, TESS_DTYPE_F32, placement_.get(),
                                   broadcast_.get()),
            TESS_OK)
      << LastError();
  tess_op_call* add = nullptr;
  ASSERT_EQ(tess_op_call_create(&add, "add"), TESS_OK) << LastError();
  const int64_t ins[2] = {in, in};
  int64_t sum = -1;
  size_t outs = 0;
  ASSERT_EQ(tess_program_add_op(&sum, &outs, program, add, ins, 2), TESS_OK) << LastError();
  tess_op_call_destroy(add);
  ASSERT_EQ(tess_program_mark_output(program, sum), TESS_OK) << LastError();
  tess_plan* plan = nullptr;
  ASSERT_EQ(tess_plan_compile(&plan, program, nullptr), TESS_OK) << LastError();
  tess_program_destroy(program);

  Turns turns;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      tess_plan_instance* instance = nullptr;
      ASSERT_EQ(tess_plan_instantiate(&instance, plan), TESS_OK) << LastError();
      for (int s = 0; s < kSteps; ++s) {
        const int first = (s * kThreads + t) * kCallsPerStep;
        TensorPtr own, doubled, global;
        turns.Run(first, [&] { own = FromHost(x, {kLength}, CpuOf(WorldRanks()), "S(0)"); });
        LocalWork(placement_.get(), split_.get(), shared_.get());
        turns.Run(first + 1, [&] {
          tess_tensor* out = nullptr;
          ASSERT_EQ(tess_add(&out, own.get(), shared_.get()), TESS_OK) << LastError();
          doubled.reset(out);
        });
        EXPECT_EQ(Local(doubled.get()), mine_twice) << "thread " << t << " step " << s;
        turns.Run(first + 2, [&] {
          tess_tensor* out = nullptr;
          ASSERT_EQ(tess_tensor_to_global(&out, doubled.get(), placement_.get(), broadcast_.get()),
                    TESS_OK)
              << LastError();
          global.reset(out);
        });
        EXPECT_EQ(Local(global.get()), twice) << "thread " << t << " step " << s;
        turns.Run(first + 3, [&] {
          const tess_tensor* inputs[1] = {shared_.get()};
          ASSERT_EQ(tess_plan_instance_run(instance, inputs, 1), TESS_OK) << LastError();
        });
        std::vector<float> out(kLength, -1.0f);
        EXPECT_EQ(
            tess_plan_instance_output_local(out.data(), out.size() * sizeof(float), instance, 0),
            TESS_OK)
            << LastError();
        EXPECT_EQ(out, twice) << "thread " << t << " step " << s;
        LocalWork(placement_.get(), split_.get(), shared_.get());
      }
      tess_plan_instance_destroy(instance);
    });
  }
  for (std::thread& thread : threads) thread.join();
  tess_plan_destroy(plan);
}

}  // namespace
}  // namespace tessera::capi_test
