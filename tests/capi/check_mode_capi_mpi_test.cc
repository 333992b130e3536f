// Check mode (docs/reliability.md, "Divergence detection (check mode)") under mpirun with
// 1..3 ranks: the last rank issues another op, another shape, another nd-SBP, another
// collective count, skips a call, or passes other data for a B tensor; every rank must
// get FAILED_PRECONDITION naming that rank and the field that differs, and afterwards a
// call all ranks make alike must work. Also, in every mode, a from_local whose local
// piece is wrong on one rank only: every rank returns the same error and stays in step.
//
// The program starts the runtime itself (tess_runtime_init), so TESSERA_CHECK=1 in the
// environment turns check mode on (the _env targets); without it, each test turns it on
// through tess_runtime_init_options.check_mode. Collectives are bounded (30 s), so a
// regression that hangs fails with DEADLINE_EXCEEDED rather than a silent wait.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "core/memory/heap_counter.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"
#include "tests/capi/world_test_util.h"

namespace tessera::capi_test {
namespace {

bool EnvTurnsCheckModeOn() {
  const char* v = std::getenv("TESSERA_CHECK");
  return v != nullptr && std::string(v) == "1";
}

tess_status InitWithCheckMode(int32_t check_mode) {
  tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.check_mode = check_mode;
  return tess_runtime_init_with_options(&o);
}

// Check mode on: by the environment in the _env runs, else by the init option.
void CheckModeOn() {
  if (!EnvTurnsCheckModeOn()) {
    ASSERT_EQ(InitWithCheckMode(1), TESS_OK) << LastError();
  }
}

std::string WorldText() { return CpuOf(WorldRanks()); }
bool IsLast() { return WorldRank() == WorldSize() - 1; }
std::string Last() { return std::to_string(WorldSize() - 1); }

// "ranks 0, 1" for the ranks below the last.
std::string Others() {
  const int n = WorldSize() - 1;
  std::string s = n == 1 ? "rank " : "ranks ";
  for (int r = 0; r < n; ++r) s += (r ? ", " : "") + std::to_string(r);
  return s;
}

std::vector<float> Iota(int64_t n, float start) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// The failure every rank must see: FAILED_PRECONDITION whose message names the last
// rank as the one that differs in `field`.
void ExpectDivergence(tess_status st, const std::string& field) {
  if (WorldRank() == 0) std::printf("rank 0's error: %s\n", LastError().c_str());
  EXPECT_EQ(st, TESS_FAILED_PRECONDITION) << LastError();
  EXPECT_TRUE(ErrorHas("check mode: the " + std::to_string(WorldSize()) +
                       " ranks taking part in this call"));
  EXPECT_TRUE(ErrorHas(field + ": rank " + Last() + " differs from " + Others()));
}

// A call every rank makes alike works after a divergence: x + x on the world.
void ExpectInStep() {
  TensorPtr x = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  tess_tensor* y = nullptr;
  ASSERT_EQ(tess_add(&y, x.get(), x.get()), TESS_OK) << LastError();
  TensorPtr owned(y);
  std::vector<float> want = Iota(6, 1);
  for (float& v : want) v *= 2;
  EXPECT_EQ(ToHost<float>(y), want);
}

class CheckModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CheckModeOn();
    if (WorldSize() < 2 && !allow_one_rank_) GTEST_SKIP() << "divergence needs two ranks";
  }
  void TearDown() override {
    if (!EnvTurnsCheckModeOn()) {
      EXPECT_EQ(InitWithCheckMode(0), TESS_OK) << LastError();
    }
  }
  bool allow_one_rank_ = false;
};

class CheckModeOneRankTest : public CheckModeTest {
 protected:
  CheckModeOneRankTest() { allow_one_rank_ = true; }
};

// With every rank alike, check mode changes no result (any rank count, 1 included).
TEST_F(CheckModeOneRankTest, AgreeingCallsWork) {
  ExpectInStep();
  TensorPtr x = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  PlacementPtr p = Placement(WorldText());
  NdSbpPtr b = NdSbp("B");
  tess_tensor* y = nullptr;
  ASSERT_EQ(tess_tensor_to_global(&y, x.get(), p.get(), b.get()), TESS_OK) << LastError();
  TensorPtr owned(y);
  EXPECT_EQ(NdSbpText(y), "B");
  EXPECT_EQ(ToHost<float>(y), Iota(6, 1));
  std::vector<double> buffer = {1.0, 2.0};
  ASSERT_EQ(tess_comm_allreduce(buffer.data(), 2, TESS_DTYPE_F64, TESS_REDUCE_SUM, nullptr,
                                TESS_ALLREDUCE_FLAT),
            TESS_OK)
      << LastError();
  EXPECT_EQ(buffer, (std::vector<double>{1.0 * WorldSize(), 2.0 * WorldSize()}));
  // A B tensor from equal local data passes the data check.
  const std::vector<float> local = Iota(4, 3);
  const int64_t shape[] = {4};
  tess_tensor* t = nullptr;
  ASSERT_EQ(
      tess_tensor_from_local(&t, local.data(), shape, 1, TESS_DTYPE_F32, p.get(), b.get(), nullptr),
      TESS_OK)
      << LastError();
  TensorPtr owned_t(t);
  EXPECT_EQ(ToHost<float>(t), local);
}

// Heap allocations of `call` run 20 times after three warm-up runs (this binary links the
// per-thread counter).
template <typename Call>
long WarmAllocations(Call call) {
  for (int i = 0; i < 3; ++i) call();
  const long before = memory::ThreadHeapAllocations();
  for (int i = 0; i < 20; ++i) call();
  return memory::ThreadHeapAllocations() - before;
}

// Once warm, check mode adds no heap allocation: an op (which allocates only its output),
// a boxing and an all-reduce allocate exactly as many times with it as without.
TEST_F(CheckModeOneRankTest, AddsNoHeapAllocation) {
  TensorPtr x = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  PlacementPtr p = Placement(WorldText());
  NdSbpPtr s0 = NdSbp("S(0)"), b = NdSbp("B");
  const int64_t n = 3 * WorldSize();
  std::vector<float> in = Iota(3, 0), out(static_cast<size_t>(n));
  std::vector<double> buffer(4, 1.0);
  auto op = [&] {
    tess_tensor* y = nullptr;
    ASSERT_EQ(tess_add(&y, x.get(), x.get()), TESS_OK) << LastError();
    tess_tensor_destroy(y);
  };
  auto box = [&] {
    ASSERT_EQ(tess_boxing_run(out.data(), out.size() * sizeof(float), in.data(),
                              in.size() * sizeof(float), &n, 1, TESS_DTYPE_F32, p.get(), s0.get(),
                              p.get(), b.get()),
              TESS_OK)
        << LastError();
  };
  auto allreduce = [&] {
    ASSERT_EQ(tess_comm_allreduce(buffer.data(), 4, TESS_DTYPE_F64, TESS_REDUCE_SUM, nullptr,
                                  TESS_ALLREDUCE_FLAT),
              TESS_OK)
        << LastError();
  };
  const long on[] = {WarmAllocations(op), WarmAllocations(box), WarmAllocations(allreduce)};
  ASSERT_EQ(InitWithCheckMode(0), TESS_OK) << LastError();
  const long off[] = {WarmAllocations(op), WarmAllocations(box), WarmAllocations(allreduce)};
  EXPECT_EQ(on[0], off[0]) << "op";
  EXPECT_EQ(on[1], 0) << "boxing";
  EXPECT_EQ(off[1], 0) << "boxing";
  EXPECT_EQ(on[2], 0) << "all-reduce";
  EXPECT_EQ(off[2], 0) << "all-reduce";
  if (EnvTurnsCheckModeOn()) {
    ASSERT_EQ(InitWithCheckMode(1), TESS_OK) << LastError();
  }
}

TEST_F(CheckModeTest, DifferentOp) {
  TensorPtr x = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  tess_tensor* y = nullptr;
  const tess_status st = IsLast() ? tess_mul(&y, x.get(), x.get()) : tess_add(&y, x.get(), x.get());
  EXPECT_EQ(y, nullptr);
  ExpectDivergence(st, "op");
  EXPECT_TRUE(ErrorHas("rank 0 call #"));
  EXPECT_TRUE(ErrorHas(": op add([6] f32 " + WorldText() + " S(0), [6] f32"));
  EXPECT_TRUE(ErrorHas("rank " + Last() + " call #"));
  EXPECT_TRUE(ErrorHas(": op mul([6] f32 " + WorldText() + " S(0), [6] f32"));
  ExpectInStep();
}

TEST_F(CheckModeTest, DifferentShape) {
  TensorPtr x6 = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  TensorPtr x7 = FromHost(Iota(7, 1), {7}, WorldText(), "S(0)");
  tess_tensor* y = nullptr;
  const tess_tensor* x = IsLast() ? x7.get() : x6.get();
  ExpectDivergence(tess_add(&y, x, x), "shapes");
  EXPECT_FALSE(ErrorHas("op: ")) << "only the shapes differ";
  ExpectInStep();
}

TEST_F(CheckModeTest, DifferentNdSbp) {
  TensorPtr x = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  PlacementPtr p = Placement(WorldText());
  NdSbpPtr to = NdSbp(IsLast() ? "P" : "B");
  tess_tensor* y = nullptr;
  ExpectDivergence(tess_tensor_to_global(&y, x.get(), p.get(), to.get()), "nd-sbps");
  EXPECT_TRUE(ErrorHas("-> B on " + WorldText()));
  EXPECT_TRUE(ErrorHas("-> P on " + WorldText()));
  ExpectInStep();
}

// to_host gathers the value on every rank (a boxing to B on the world).
TEST_F(CheckModeTest, DifferentToHost) {
  TensorPtr s0 = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  TensorPtr b = FromHost(Iota(6, 1), {6}, WorldText(), "B");
  std::vector<float> out(6);
  ExpectDivergence(
      tess_tensor_to_host(out.data(), out.size() * sizeof(float), IsLast() ? b.get() : s0.get()),
      "nd-sbps");
  EXPECT_TRUE(ErrorHas("boxing to_host"));
  ExpectInStep();
}

TEST_F(CheckModeTest, DifferentBoxingRun) {
  PlacementPtr p = Placement(WorldText());
  NdSbpPtr s0 = NdSbp("S(0)");
  NdSbpPtr dst = NdSbp(IsLast() ? "S(0)" : "B");
  // A piece of [3 * size] under S(0) has 3 elements; under B, all of them.
  const int64_t n = 3 * WorldSize();
  std::vector<float> in = Iota(3, 0), out(static_cast<size_t>(IsLast() ? 3 : n));
  const int64_t shape[] = {n};
  ExpectDivergence(
      tess_boxing_run(out.data(), out.size() * sizeof(float), in.data(), in.size() * sizeof(float),
                      shape, 1, TESS_DTYPE_F32, p.get(), s0.get(), p.get(), dst.get()),
      "nd-sbps");
  ExpectInStep();
}

// Without check mode, counts that differ are MPI_ERR_TRUNCATE or garbage; with it, every
// rank refuses before the all-reduce.
TEST_F(CheckModeTest, DifferentCollectiveCount) {
  std::vector<double> buffer(4, 1.0);
  const int64_t count = IsLast() ? 3 : 4;
  ExpectDivergence(tess_comm_allreduce(buffer.data(), count, TESS_DTYPE_F64, TESS_REDUCE_SUM,
                                       nullptr, TESS_ALLREDUCE_FLAT),
                   "shapes");
  EXPECT_TRUE(ErrorHas("allreduce sum of f64 counts [4]"));
  EXPECT_TRUE(ErrorHas("allreduce sum of f64 counts [3]"));
  EXPECT_EQ(buffer, std::vector<double>(4, 1.0)) << "the failed call must not touch the buffer";
  ExpectInStep();
}

// The last rank skips an all-reduce: the others' all-reduce meets its next call (an
// add) and every rank refuses; the last rank then retries its add, which the others'
// next call (the same add) matches.
TEST_F(CheckModeTest, SkippedCall) {
  TensorPtr x = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  tess_tensor* y = nullptr;
  if (!IsLast()) {
    std::vector<double> buffer(4, 1.0);
    ExpectDivergence(tess_comm_allreduce(buffer.data(), 4, TESS_DTYPE_F64, TESS_REDUCE_SUM, nullptr,
                                         TESS_ALLREDUCE_FLAT),
                     "op");
  } else {
    ExpectDivergence(tess_add(&y, x.get(), x.get()), "op");
  }
  ASSERT_EQ(tess_add(&y, x.get(), x.get()), TESS_OK) << LastError();
  TensorPtr owned(y);
  std::vector<float> want = Iota(6, 1);
  for (float& v : want) v *= 2;
  EXPECT_EQ(ToHost<float>(y), want);
}

// A compiled and instantiated one-op plan: out = op(x, x) for x a [6] f32 S(0) input.
struct OneOpPlan {
  tess_program* program = nullptr;
  tess_plan* plan = nullptr;
  tess_plan_instance* instance = nullptr;
  explicit OneOpPlan(const char* op) {
    PlacementPtr p = Placement(WorldText());
    NdSbpPtr s0 = NdSbp("S(0)");
    const int64_t shape[] = {6};
    EXPECT_EQ(tess_program_create(&program), TESS_OK) << LastError();
    int64_t x = -1, out = -1;
    size_t n = 0;
    EXPECT_EQ(tess_program_add_input(&x, program, "x", shape, 1, TESS_DTYPE_F32, p.get(), s0.get()),
              TESS_OK)
        << LastError();
    tess_op_call* call = nullptr;
    EXPECT_EQ(tess_op_call_create(&call, op), TESS_OK) << LastError();
    OpCallPtr owned(call);
    const int64_t inputs[] = {x, x};
    EXPECT_EQ(tess_program_add_op(&out, &n, program, call, inputs, 2), TESS_OK) << LastError();
    EXPECT_EQ(tess_program_mark_output(program, out), TESS_OK) << LastError();
    EXPECT_EQ(tess_plan_compile(&plan, program, nullptr), TESS_OK) << LastError();
    EXPECT_EQ(tess_plan_instantiate(&instance, plan), TESS_OK) << LastError();
  }
  ~OneOpPlan() {
    tess_plan_instance_destroy(instance);
    tess_plan_destroy(plan);
    tess_program_destroy(program);
  }
};

// The last rank runs another plan than the others (mul, not add): every rank refuses
// before the run; then all run the same plan and get x + x.
TEST_F(CheckModeTest, DifferentPlanRun) {
  OneOpPlan add("add");
  OneOpPlan mul("mul");
  TensorPtr x = FromHost(Iota(6, 1), {6}, WorldText(), "S(0)");
  const tess_tensor* inputs[] = {x.get()};
  tess_plan_instance* mine = IsLast() ? mul.instance : add.instance;
  ExpectDivergence(tess_plan_instance_run(mine, inputs, 1), "op");
  EXPECT_TRUE(ErrorHas("tess_plan_instance_run of plan "));
  ASSERT_EQ(tess_plan_instance_run(add.instance, inputs, 1), TESS_OK) << LastError();
  tess_tensor* out = nullptr;
  ASSERT_EQ(tess_plan_instance_output(&out, add.instance, 0), TESS_OK) << LastError();
  TensorPtr owned(out);
  std::vector<float> want = Iota(6, 1);
  for (float& v : want) v *= 2;
  EXPECT_EQ(ToHost<float>(out), want);
  ExpectInStep();
}

// A B tensor from other data on one rank: only the copy at coordinate 0 would be kept
// without check mode; with it, every rank refuses.
TEST_F(CheckModeTest, BroadcastFromDifferentData) {
  PlacementPtr p = Placement(WorldText());
  NdSbpPtr b = NdSbp("B");
  std::vector<float> local = Iota(4, 3);
  if (IsLast()) local[2] += 0.5f;
  const int64_t shape[] = {4};
  tess_tensor* t = nullptr;
  ExpectDivergence(
      tess_tensor_from_local(&t, local.data(), shape, 1, TESS_DTYPE_F32, p.get(), b.get(), nullptr),
      "data");
  EXPECT_TRUE(ErrorHas("from_local: the ranks of hierarchy axis 0 (B) must pass equal local data"));
  EXPECT_EQ(t, nullptr);
  ExpectInStep();
}

// Every mode: one rank's piece disagrees with the balanced split of the given logical
// shape. Every rank returns the same INVALID_ARGUMENT (the last rank's error) instead of
// the others going on into the next collective, and the ranks stay in step.
TEST(EveryModeTest, FromLocalPieceWrongOnOneRank) {
  if (!EnvTurnsCheckModeOn()) {
    ASSERT_EQ(InitWithCheckMode(0), TESS_OK) << LastError();
  }
  const int n = WorldSize();
  PlacementPtr p = Placement(WorldText());
  NdSbpPtr s0 = NdSbp("S(0)");
  // Logical [2n]: every rank's part is 2 rows; the last rank passes 3.
  const int64_t logical[] = {2 * n};
  const int64_t rows = IsLast() ? 3 : 2;
  std::vector<float> local = Iota(rows, 0);
  tess_tensor* t = nullptr;
  EXPECT_EQ(tess_tensor_from_local(&t, local.data(), &rows, 1, TESS_DTYPE_F32, p.get(), s0.get(),
                                   logical),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(t, nullptr);
  if (WorldRank() == 0) std::printf("rank 0's error: %s\n", LastError().c_str());
  const std::string want = "from_local: rank " + Last() + "'s local shape [3] is not its part [2]";
  EXPECT_TRUE(ErrorHas(want));
  if (n > 1) {
    EXPECT_TRUE(ErrorHas("(the error of world rank " + Last() + "; all " + std::to_string(n) +
                         " ranks of this call return it)"));
  }
  ExpectInStep();
}

// Every mode: one rank's DLPack tensor cannot be imported (2 lanes). The ranks that
// exchange local shapes next (the world, for a NULL logical shape) agree on it first:
// every rank returns that rank's INVALID_ARGUMENT, and they stay in step.
TEST(EveryModeTest, FromDlpackBadOnOneRank) {
  if (!EnvTurnsCheckModeOn()) {
    ASSERT_EQ(InitWithCheckMode(0), TESS_OK) << LastError();
  }
  TensorPtr x = FromHost(Iota(3 * WorldSize(), 1), {3 * WorldSize()}, WorldText(), "S(0)");
  DLManagedTensorVersioned* m = nullptr;
  ASSERT_EQ(tess_tensor_to_dlpack(&m, x.get()), TESS_OK) << LastError();
  if (IsLast()) m->dl_tensor.dtype.lanes = 2;
  PlacementPtr p = Placement(WorldText());
  NdSbpPtr s0 = NdSbp("S(0)");
  tess_tensor* t = nullptr;
  EXPECT_EQ(tess_tensor_from_dlpack(&t, m, p.get(), s0.get(), nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(t, nullptr);
  if (WorldRank() == 0) std::printf("rank 0's error: %s\n", LastError().c_str());
  EXPECT_TRUE(ErrorHas("DLPack dtype (code 2, bits 32, lanes 2) has no Tessera dtype"));
  if (WorldSize() > 1) {
    EXPECT_TRUE(ErrorHas("(the error of world rank " + Last() + "; all " +
                         std::to_string(WorldSize()) + " ranks of this call return it)"));
  }
  ExpectInStep();
}

// Bad option values: refused with the value named, on any rank count.
TEST(CheckModeOptionTest, BadValues) {
  tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  EXPECT_EQ(o.check_mode, -1);
  EXPECT_EQ(o.reserved, 0);
  o.check_mode = 2;
  EXPECT_EQ(tess_runtime_init_with_options(&o), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(
      ErrorHas("tess_runtime_init_with_options: options->check_mode is 2; expected 1 "
               "(on), 0 (off) or -1 (TESSERA_CHECK decides)"));
  o.check_mode = -2;
  EXPECT_EQ(tess_runtime_init_with_options(&o), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("options->check_mode is -2"));
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.reserved = 7;
  EXPECT_EQ(tess_runtime_init_with_options(&o), TESS_INVALID_ARGUMENT);
  EXPECT_TRUE(ErrorHas("options->reserved is 7; it must be 0"));
  // An older caller's struct, ending after cuda_device, keeps the defaults.
  o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.struct_size = offsetof(tess_runtime_init_options, check_mode);
  o.check_mode = 5;  // past the caller's struct_size: not read
  EXPECT_EQ(tess_runtime_init_with_options(&o), TESS_OK) << LastError();
}

}  // namespace
}  // namespace tessera::capi_test

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.collective_timeout_seconds = 30;
  if (tess_runtime_init_with_options(&o) != TESS_OK) {
    std::fprintf(stderr, "tess_runtime_init_with_options: %s\n", tess_last_error_message());
    return 1;
  }
  const int result = RUN_ALL_TESTS();
  tess_runtime_finalize();
  return result;
}
