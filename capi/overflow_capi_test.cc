// Issue 16, item 1: each input whose size, count, offset, product or duration used to
// overflow (or to allocate in proportion to a number read) is refused at the C API
// with INVALID_ARGUMENT naming the value, in a world of one rank.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "capi/tensor_test_util.h"
#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

constexpr int64_t kBig = (int64_t{1} << 62) + 1;  // [kBig, 4] wraps to 4 elements
const int64_t kOverflowing[] = {kBig, 4};
const char kOverflowText[] =
    "shape [4611686018427387905,4]: the element count overflows int64 (the product of the "
    "nonzero dims must be at most 2^63-1)";

class OverflowCapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }

  // The last call failed with INVALID_ARGUMENT whose message holds `text`.
  static ::testing::AssertionResult Refused(tess_status st, const std::string& text) {
    if (st != TESS_INVALID_ARGUMENT) {
      return ::testing::AssertionFailure() << "status " << st << ": " << LastError();
    }
    return ErrorHas(text);
  }

  PlacementPtr p_ = Placement("cpu:[0]");
  NdSbpPtr s0_ = NdSbp("S(0)");
  NdSbpPtr b_ = NdSbp("B");
};

TEST_F(OverflowCapiTest, PlacementHierarchyProduct) {
  const int32_t ranks[] = {0, 1, 2, 3};
  const int64_t hierarchy[] = {4, kBig};  // 4 * kBig wraps to 4 unchecked: a segfault later
  tess_placement* out = nullptr;
  EXPECT_TRUE(Refused(tess_placement_create(&out, TESS_DEVICE_CPU, ranks, 4, hierarchy, 2),
                      "placement hierarchy [4,4611686018427387905] does not hold 4 ranks"));
  EXPECT_EQ(out, nullptr);
}

TEST_F(OverflowCapiTest, PlacementRangeIsBoundedBeforeItIsExpanded) {
  tess_placement* out = nullptr;
  EXPECT_TRUE(Refused(tess_placement_parse(&out, "cpu:0-844674407"),
                      "expected at most 1048576 ranks in a placement (this range, 0-844674407, "
                      "brings the count to 844674408)"));
  EXPECT_EQ(out, nullptr);
  const std::string long_text = "cpu:[0" + std::string(100000, ' ') + "]";
  EXPECT_TRUE(Refused(tess_placement_parse(&out, long_text.c_str()),
                      "placement text is 100007 characters long; at most 65536 are accepted"));
}

TEST_F(OverflowCapiTest, FullOfAHugeShape) {
  tess_tensor* out = nullptr;
  const int64_t huge[] = {int64_t{1} << 62};  // elements fit; bytes (x4) do not
  EXPECT_TRUE(Refused(tess_tensor_full(&out, huge, 1, TESS_DTYPE_F32, 1.0, p_.get(), s0_.get()),
                      "shape [4611686018427387904] of f32 has 4611686018427387904 elements of 4 "
                      "bytes: the byte size overflows int64"));
  EXPECT_TRUE(
      Refused(tess_tensor_full(&out, kOverflowing, 2, TESS_DTYPE_F32, 1.0, p_.get(), s0_.get()),
              kOverflowText));
  // Bytes that fit int64 but no machine: an error from the allocator, not a crash.
  const int64_t vast[] = {int64_t{1} << 60};
  EXPECT_NE(tess_tensor_full(&out, vast, 1, TESS_DTYPE_F32, 1.0, p_.get(), s0_.get()), TESS_OK);
  EXPECT_EQ(out, nullptr);
}

TEST_F(OverflowCapiTest, ArangeWhoseCountOverflows) {
  tess_tensor* out = nullptr;
  // (stop - start) overflows double to inf; a count past 2^63 is undefined as int64.
  EXPECT_TRUE(
      Refused(tess_tensor_arange(&out, -1e308, 1e308, 1.0, TESS_DTYPE_F64, p_.get(), s0_.get()),
              "arange: (stop - start) / step is inf elements"));
  EXPECT_TRUE(Refused(tess_tensor_arange(&out, 0, 1e19, 1.0, TESS_DTYPE_F64, p_.get(), s0_.get()),
                      "the element count overflows int64"));
  EXPECT_EQ(out, nullptr);
}

TEST_F(OverflowCapiTest, TensorEntryPointsRefuseOverflowingShapes) {
  tess_tensor* out = nullptr;
  const float data[4] = {1, 2, 3, 4};
  EXPECT_TRUE(Refused(
      tess_tensor_from_host(&out, data, kOverflowing, 2, TESS_DTYPE_F32, p_.get(), s0_.get()),
      kOverflowText));
  EXPECT_TRUE(Refused(tess_tensor_from_local(&out, data, kOverflowing, 2, TESS_DTYPE_F32, p_.get(),
                                             s0_.get(), nullptr),
                      kOverflowText));
  const int64_t local[] = {1, 4};
  EXPECT_TRUE(Refused(tess_tensor_from_local(&out, data, local, 2, TESS_DTYPE_F32, p_.get(),
                                             s0_.get(), kOverflowing),
                      kOverflowText));
  EXPECT_EQ(out, nullptr);
}

TEST_F(OverflowCapiTest, LayoutAndBoxingPlan) {
  tess_layout* layout = nullptr;
  EXPECT_TRUE(
      Refused(tess_layout_create(&layout, p_.get(), s0_.get(), kOverflowing, 2, 0), kOverflowText));
  EXPECT_EQ(layout, nullptr);
  tess_boxing_plan* plan = nullptr;
  EXPECT_TRUE(Refused(tess_boxing_plan_create(&plan, kOverflowing, 2, TESS_DTYPE_F32, p_.get(),
                                              s0_.get(), p_.get(), b_.get()),
                      kOverflowText));
  const int64_t huge[] = {int64_t{1} << 61};  // 2^61 f64 = 2^64 bytes
  EXPECT_TRUE(Refused(tess_boxing_plan_create(&plan, huge, 1, TESS_DTYPE_F64, p_.get(), s0_.get(),
                                              p_.get(), b_.get()),
                      "the byte size overflows int64"));
  EXPECT_EQ(plan, nullptr);
}

TEST_F(OverflowCapiTest, OpCallInputsAndOutputs) {
  tess_op_call* raw = nullptr;
  ASSERT_EQ(tess_op_call_create(&raw, "add"), TESS_OK) << LastError();
  OpCallPtr call(raw);
  EXPECT_TRUE(Refused(
      tess_op_call_add_input(call.get(), kOverflowing, 2, TESS_DTYPE_F32, p_.get(), b_.get()),
      kOverflowText));
  // Inputs that fit whose broadcast output does not: [2^40,1] + [1,2^40].
  const int64_t col[] = {int64_t{1} << 40, 1}, row[] = {1, int64_t{1} << 40};
  ASSERT_EQ(tess_op_call_add_input(call.get(), col, 2, TESS_DTYPE_F32, p_.get(), b_.get()), TESS_OK)
      << LastError();
  ASSERT_EQ(tess_op_call_add_input(call.get(), row, 2, TESS_DTYPE_F32, p_.get(), b_.get()), TESS_OK)
      << LastError();
  tess_infer_result* result = nullptr;
  EXPECT_TRUE(Refused(tess_op_call_infer(&result, call.get()),
                      "add: output \"out\": shape [1099511627776,1099511627776]: the element "
                      "count overflows int64"));
  EXPECT_EQ(result, nullptr);
}

TEST_F(OverflowCapiTest, ProgramsAndCapturePlaceholders) {
  tess_program* program = nullptr;
  ASSERT_EQ(tess_program_create(&program), TESS_OK) << LastError();
  int64_t id = -1;
  EXPECT_TRUE(Refused(tess_program_add_input(&id, program, "x", kOverflowing, 2, TESS_DTYPE_F32,
                                             p_.get(), s0_.get()),
                      kOverflowText));
  EXPECT_EQ(id, -1);
  tess_program_destroy(program);
  ASSERT_EQ(tess_capture_begin(), TESS_OK) << LastError();
  tess_tensor* x = nullptr;
  EXPECT_TRUE(Refused(
      tess_capture_placeholder(&x, "x", kOverflowing, 2, TESS_DTYPE_F32, p_.get(), s0_.get()),
      kOverflowText));
  EXPECT_EQ(x, nullptr);
  tess_capture_abort();
}

TEST_F(OverflowCapiTest, DlpackStridesWhoseOffsetsOverflow) {
  std::vector<float> storage(4, 1.0f);
  std::vector<int64_t> shape = {2, 2};
  std::vector<int64_t> strides = {int64_t{1} << 62, 1};  // (2-1) * 2^62 elements * 4 bytes
  DLManagedTensorVersioned m{};
  m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  static int deletes = 0;
  deletes = 0;
  m.deleter = [](DLManagedTensorVersioned*) { ++deletes; };
  m.dl_tensor.data = storage.data();
  m.dl_tensor.device = DLDevice{kDLCPU, 0};
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
  m.dl_tensor.shape = shape.data();
  m.dl_tensor.strides = strides.data();
  tess_tensor* out = nullptr;
  EXPECT_TRUE(Refused(tess_tensor_from_dlpack(&out, &m, p_.get(), b_.get(), nullptr),
                      "tess_tensor_from_dlpack: DLPack strides [4611686018427387904,1] over shape "
                      "[2,2] of 4-byte elements: an element's byte offset overflows int64"));
  EXPECT_EQ(deletes, 1);
  // Element offsets that overflow on their own, negative ones included.
  strides = {std::numeric_limits<int64_t>::min() / 2, -4};
  shape = {3, 2};
  EXPECT_TRUE(Refused(tess_tensor_from_dlpack(&out, &m, p_.get(), b_.get(), nullptr),
                      "an element's byte offset overflows int64"));
  EXPECT_EQ(deletes, 2);
  // A shape whose element count overflows never reaches the strides.
  shape = {kBig, 4};
  EXPECT_TRUE(Refused(tess_tensor_from_dlpack(&out, &m, p_.get(), b_.get(), nullptr),
                      "DLPack shape: " + std::string(kOverflowText)));
  EXPECT_EQ(out, nullptr);
}

TEST_F(OverflowCapiTest, TimeoutsAboveTheMaximum) {
  EXPECT_TRUE(Refused(tess_comm_set_collective_timeout(1e10),
                      "tess_comm_set_collective_timeout: seconds is 1e+10; the longest timeout is "
                      "1e+06 s (~11.6 days)"));
  ASSERT_EQ(tess_comm_set_collective_timeout(1e6), TESS_OK) << LastError();
  ASSERT_EQ(tess_comm_set_collective_timeout(0), TESS_OK) << LastError();
  tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.collective_timeout_seconds = 1e10;
  EXPECT_TRUE(Refused(tess_runtime_init_with_options(&o),
                      "tess_runtime_init_with_options: options->collective_timeout_seconds is "
                      "1e+10; the longest timeout is 1e+06 s (~11.6 days)"));
  // TESSERA_COLLECTIVE_TIMEOUT_S: tests/comm/env_config_test.cc (read once per process).
}

TEST_F(OverflowCapiTest, PlanPushAndRunPushedTimeouts) {
  tess_program* raw_program = nullptr;
  ASSERT_EQ(tess_program_create(&raw_program), TESS_OK) << LastError();
  const int64_t shape[] = {4};
  int64_t x = -1, y = -1;
  size_t n = 0;
  ASSERT_EQ(
      tess_program_add_input(&x, raw_program, "x", shape, 1, TESS_DTYPE_F32, p_.get(), s0_.get()),
      TESS_OK)
      << LastError();
  tess_op_call* raw_call = nullptr;
  ASSERT_EQ(tess_op_call_create(&raw_call, "relu"), TESS_OK) << LastError();
  OpCallPtr call(raw_call);
  ASSERT_EQ(tess_program_add_op(&y, &n, raw_program, call.get(), &x, 1), TESS_OK) << LastError();
  ASSERT_EQ(tess_program_mark_output(raw_program, y), TESS_OK) << LastError();
  tess_plan_compile_options options = TESS_PLAN_COMPILE_OPTIONS_INIT;
  options.input_register_num = 2;
  tess_plan* plan = nullptr;
  ASSERT_EQ(tess_plan_compile(&plan, raw_program, &options), TESS_OK) << LastError();
  tess_program_destroy(raw_program);
  tess_plan_instance* instance = nullptr;
  ASSERT_EQ(tess_plan_instantiate(&instance, plan), TESS_OK) << LastError();
  TensorPtr in = FromHost<float>({1, -2, 3, -4}, {4}, "cpu:[0]", "S(0)");
  const tess_tensor* inputs[] = {in.get()};
  EXPECT_TRUE(Refused(tess_plan_instance_push(instance, inputs, 1, 1e10),
                      "timeout_seconds is 1e+10; the longest timeout is 1e+06 s (~11.6 days)"));
  EXPECT_TRUE(
      Refused(tess_plan_instance_push(instance, inputs, 1, std::numeric_limits<double>::infinity()),
              "timeout_seconds is inf; the longest timeout is 1e+06 s"));
  EXPECT_TRUE(Refused(tess_plan_instance_run_pushed(instance, 1e10),
                      "timeout_seconds is 1e+10; the longest timeout is 1e+06 s (~11.6 days)"));
  // Negative still waits forever; the maximum itself is accepted.
  ASSERT_EQ(tess_plan_instance_push(instance, inputs, 1, 1e6), TESS_OK) << LastError();
  ASSERT_EQ(tess_plan_instance_run_pushed(instance, -1), TESS_OK) << LastError();
  tess_plan_instance_destroy(instance);
  tess_plan_destroy(plan);
}

TEST_F(OverflowCapiTest, InferCacheCapacity) {
  EXPECT_TRUE(Refused(tess_infer_cache_set_capacity(SIZE_MAX),
                      "tess_infer_cache_set_capacity: capacity is " + std::to_string(SIZE_MAX) +
                          "; the largest is 1073741824 (2^30)"));
  EXPECT_TRUE(Refused(tess_infer_cache_set_capacity(size_t{1} << 31),
                      "capacity is 2147483648; the largest is 1073741824 (2^30)"));
  // The maximum is accepted, sizes nothing up front, and the next op runs.
  ASSERT_EQ(tess_infer_cache_set_capacity(size_t{1} << 30), TESS_OK) << LastError();
  tess_infer_cache_stats stats = TESS_INFER_CACHE_STATS_INIT;
  ASSERT_EQ(tess_infer_cache_get_stats(&stats), TESS_OK);
  EXPECT_EQ(stats.capacity, uint64_t{1} << 30);
  TensorPtr x = FromHost<float>({1, -2}, {2}, "cpu:[0]", "S(0)");
  tess_tensor* y = nullptr;
  ASSERT_EQ(tess_relu(&y, x.get()), TESS_OK) << LastError();
  TensorPtr owned(y);
  EXPECT_EQ(ToHost<float>(owned.get()), (std::vector<float>{1, 0}));
  ASSERT_EQ(tess_infer_cache_set_capacity(4096), TESS_OK);
}

}  // namespace
}  // namespace tessera::capi_test
