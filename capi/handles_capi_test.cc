// Handles (issue 16, item 7): creating and destroying many handles of each kind keeps
// the process's memory bounded, and every *_destroy accepts NULL. Under --config=asan
// LeakSanitizer checks at exit that nothing is left behind (one leaked handle fails
// the run); in the plain build the resident set size (VmRSS) after the loop must stay
// within kRssSlack of what it was after the first tenth, which a leak of 8 bytes per
// handle breaks over kCount handles (1.8 MB). ASan's quarantine holds freed memory
// back on purpose (256 MiB by default), so there RSS says nothing and LSan is the
// check, over a 25th of the count (the loop is 5-10x slower there; one leaked handle
// is enough for LSan).
//
// Counts. Measured in the fastbuild on the 2-core machine under other builds' load, a
// placement or nd-sbp costs about 3 us to parse and free, a layout or a 4-element
// tensor 5 us, an op call with its inference 10 us, and a program compiled and
// instantiated 290 us. A million of each would take a minute; a million placements and
// nd-sbps, kCount = 250000 of the other cheap kinds and kPlans = 5000 plans keep the
// test to about 10 s.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include "capi/tensor_test_util.h"
#include "tessera/tessera.h"

namespace tessera::capi_test {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

constexpr int64_t kCount = 250 * 1000;
// Placements and nd-sbps, the cheapest kinds, go to a million.
constexpr int64_t kMillion = 1000 * 1000;
constexpr int64_t kPlans = 5000;
constexpr int64_t kRssSlack = 1 << 20;

// VmRSS of this process in bytes, from /proc/self/status.
int64_t RssBytes() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  int64_t kib = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::strtoll(line + 6, nullptr, 10);
  }
  std::fclose(f);
  return kib * 1024;
}

// Runs `make_and_destroy` `count` times (a tenth of it under ASan) and checks RSS.
void Churn(const char* kind, int64_t count, const std::function<void()>& make_and_destroy) {
  if (kAsan) count /= 25;
  const int64_t warm = count / 10;
  for (int64_t i = 0; i < warm; ++i) make_and_destroy();
  const int64_t before = RssBytes();
  for (int64_t i = warm; i < count; ++i) make_and_destroy();
  const int64_t after = RssBytes();
  ASSERT_GT(before, 0) << "no VmRSS in /proc/self/status";
  if (!kAsan) {
    EXPECT_LE(after - before, kRssSlack)
        << kind << ": RSS grew from " << before << " to " << after << " bytes over " << count - warm
        << " create/destroy pairs";
  }
}

class HandlesTest : public testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }
};

TEST_F(HandlesTest, DestroyNullIsHarmless) {
  tess_placement_destroy(nullptr);
  tess_nd_sbp_destroy(nullptr);
  tess_layout_destroy(nullptr);
  tess_tensor_destroy(nullptr);
  tess_op_call_destroy(nullptr);
  tess_infer_result_destroy(nullptr);
  tess_explanation_destroy(nullptr);
  tess_boxing_plan_destroy(nullptr);
  tess_bucketed_allreducer_destroy(nullptr);
  tess_program_destroy(nullptr);
  tess_plan_destroy(nullptr);
  tess_plan_instance_destroy(nullptr);
}

TEST_F(HandlesTest, PlacementsAndNdSbps) {
  Churn("placement", kMillion, [] {
    tess_placement* p = nullptr;
    ASSERT_EQ(tess_placement_parse(&p, "cpu:0"), TESS_OK) << LastError();
    tess_placement_destroy(p);
  });
  Churn("nd_sbp", kMillion, [] {
    tess_nd_sbp* s = nullptr;
    ASSERT_EQ(tess_nd_sbp_parse(&s, "S(0)"), TESS_OK) << LastError();
    tess_nd_sbp_destroy(s);
  });
}

TEST_F(HandlesTest, LayoutsAndTensors) {
  PlacementPtr placement = Placement("cpu:0");
  NdSbpPtr split = NdSbp("S(0)");
  const int64_t shape[1] = {4};
  Churn("layout", kCount, [&] {
    tess_layout* l = nullptr;
    ASSERT_EQ(tess_layout_create(&l, placement.get(), split.get(), shape, 1, 0), TESS_OK)
        << LastError();
    tess_layout_destroy(l);
  });
  const float data[4] = {1, 2, 3, 4};
  Churn("tensor", kCount, [&] {
    tess_tensor* t = nullptr;
    ASSERT_EQ(
        tess_tensor_from_host(&t, data, shape, 1, TESS_DTYPE_F32, placement.get(), split.get()),
        TESS_OK)
        << LastError();
    tess_tensor_destroy(t);
  });
}

TEST_F(HandlesTest, OpCallsAndInferResults) {
  PlacementPtr placement = Placement("cpu:0");
  NdSbpPtr split = NdSbp("S(0)");
  const int64_t shape[1] = {4};
  Churn("op_call", kCount, [&] {
    tess_op_call* c = nullptr;
    ASSERT_EQ(tess_op_call_create(&c, "relu"), TESS_OK) << LastError();
    ASSERT_EQ(tess_op_call_add_input(c, shape, 1, TESS_DTYPE_F32, placement.get(), split.get()),
              TESS_OK)
        << LastError();
    tess_infer_result* r = nullptr;
    ASSERT_EQ(tess_op_call_infer(&r, c), TESS_OK) << LastError();
    tess_infer_result_destroy(r);
    tess_op_call_destroy(c);
  });
}

TEST_F(HandlesTest, ProgramsPlansAndInstances) {
  PlacementPtr placement = Placement("cpu:0");
  const int64_t shape[1] = {4};
  // Compiling runs inference, memory planning and kernel selection (see Counts). A
  // plan and its instance hold kilobytes (steps, register memory), so leaking them is
  // megabytes over kPlans; LSan (under ASan) needs only one.
  Churn("program/plan/instance", kPlans, [&] {
    tess_program* program = nullptr;
    ASSERT_EQ(tess_program_create(&program), TESS_OK) << LastError();
    int64_t in = -1;
    ASSERT_EQ(tess_program_add_input(&in, program, "x", shape, 1, TESS_DTYPE_F32, placement.get(),
                                     nullptr),
              TESS_OK)
        << LastError();
    ASSERT_EQ(tess_program_mark_output(program, in), TESS_OK) << LastError();
    tess_plan* plan = nullptr;
    ASSERT_EQ(tess_plan_compile(&plan, program, nullptr), TESS_OK) << LastError();
    tess_plan_instance* instance = nullptr;
    ASSERT_EQ(tess_plan_instantiate(&instance, plan), TESS_OK) << LastError();
    tess_plan_instance_destroy(instance);
    tess_plan_destroy(plan);
    tess_program_destroy(program);
  });
}

}  // namespace
}  // namespace tessera::capi_test
