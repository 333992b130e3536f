// The C API's contract: results, error codes, thread-local messages, untouched
// out-params on failure, NULL-safe destroys.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "tessera/tessera.h"

namespace {

std::string LastError() { return tess_last_error_message(); }

class CapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }
};

TEST_F(CapiTest, Version) {
  EXPECT_EQ(tess_version_number(), TESS_VERSION_NUMBER);
  EXPECT_EQ(std::string(tess_version()), std::to_string(TESS_VERSION_MAJOR) + "." +
                                             std::to_string(TESS_VERSION_MINOR) + "." +
                                             std::to_string(TESS_VERSION_PATCH));
}

TEST_F(CapiTest, StatusStrings) {
  EXPECT_STREQ(tess_status_string(TESS_OK), "OK");
  EXPECT_STREQ(tess_status_string(TESS_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_STREQ(tess_status_string(TESS_DATA_LOSS), "DATA_LOSS");
  EXPECT_STREQ(tess_status_string(-1), "UNKNOWN_CODE");
  EXPECT_STREQ(tess_status_string(99), "UNKNOWN_CODE");
}

TEST_F(CapiTest, SingletonWorld) {
  int32_t rank = -1, size = -1;
  ASSERT_EQ(tess_runtime_world_rank(&rank), TESS_OK);
  ASSERT_EQ(tess_runtime_world_size(&size), TESS_OK);
  EXPECT_EQ(rank, 0);
  EXPECT_EQ(size, 1);
  EXPECT_EQ(tess_runtime_init(), TESS_OK);  // idempotent
  EXPECT_EQ(tess_runtime_world_rank(nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_runtime_world_rank: argument \"out_rank\" is NULL");
}

TEST_F(CapiTest, AllocatorStats) {
  // A tensor made on this thread comes from its own host caching allocator.
  tess_allocator_stats before = TESS_ALLOCATOR_STATS_INIT;
  ASSERT_EQ(tess_allocator_get_stats(&before, TESS_ALLOCATOR_HOST_THREAD), TESS_OK) << LastError();
  tess_placement* p = nullptr;
  tess_nd_sbp* b = nullptr;
  ASSERT_EQ(tess_placement_parse(&p, "cpu:[0]"), TESS_OK);
  ASSERT_EQ(tess_nd_sbp_parse(&b, "B"), TESS_OK);
  const int64_t shape[] = {64};
  tess_tensor* t = nullptr;
  ASSERT_EQ(tess_tensor_full(&t, shape, 1, TESS_DTYPE_F32, 1.0, p, b), TESS_OK) << LastError();
  tess_allocator_stats after = TESS_ALLOCATOR_STATS_INIT;
  ASSERT_EQ(tess_allocator_get_stats(&after, TESS_ALLOCATOR_HOST_THREAD), TESS_OK) << LastError();
  EXPECT_GT(after.num_allocs, before.num_allocs);
  EXPECT_GE(after.bytes_in_use, before.bytes_in_use + 64 * sizeof(float));
  EXPECT_GE(after.peak_bytes_in_use, after.bytes_in_use);
  EXPECT_GE(after.bytes_reserved, after.bytes_in_use);
  tess_tensor_destroy(t);
  tess_nd_sbp_destroy(b);
  tess_placement_destroy(p);
  tess_allocator_stats host = TESS_ALLOCATOR_STATS_INIT;
  ASSERT_EQ(tess_allocator_get_stats(&host, TESS_ALLOCATOR_HOST), TESS_OK) << LastError();
  EXPECT_GE(host.bytes_reserved, host.bytes_in_use);

  EXPECT_EQ(tess_allocator_get_stats(nullptr, TESS_ALLOCATOR_HOST), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_allocator_get_stats: argument \"out\" is NULL");
  EXPECT_EQ(tess_allocator_get_stats(&host, 7), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_allocator_get_stats: allocator 7 is not a known allocator (TESS_ALLOCATOR_HOST "
            "0, TESS_ALLOCATOR_HOST_THREAD 1)");
  tess_allocator_stats small = TESS_ALLOCATOR_STATS_INIT;
  small.struct_size = 16;
  small.num_allocs = 5;
  EXPECT_EQ(tess_allocator_get_stats(&small, TESS_ALLOCATOR_HOST), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_allocator_get_stats: out->struct_size is 16 but tess_allocator_stats needs at "
            "least 80 (its first version; this library's is 80): set it to "
            "sizeof(tess_allocator_stats) or start from its _INIT macro");
  EXPECT_EQ(small.num_allocs, 5u) << "nothing is written on failure";
}

TEST_F(CapiTest, PlacementQueries) {
  tess_placement* p = nullptr;
  ASSERT_EQ(tess_placement_parse(&p, "cpu:[[0,1,2],[3,4,5]]"), TESS_OK) << LastError();
  EXPECT_STREQ(tess_placement_string(p), "cpu:[[0,1,2],[3,4,5]]");
  tess_device_type type = -1;
  EXPECT_EQ(tess_placement_device_type(&type, p), TESS_OK);
  EXPECT_EQ(type, TESS_DEVICE_CPU);
  size_t axes = 0;
  EXPECT_EQ(tess_placement_num_axes(&axes, p), TESS_OK);
  EXPECT_EQ(axes, 2u);
  int64_t dim = 0;
  EXPECT_EQ(tess_placement_hierarchy_dim(&dim, p, 1), TESS_OK);
  EXPECT_EQ(dim, 3);
  int64_t n = 0;
  EXPECT_EQ(tess_placement_parallel_num(&n, p), TESS_OK);
  EXPECT_EQ(n, 6);
  int32_t rank = -1;
  EXPECT_EQ(tess_placement_rank_at(&rank, p, 4), TESS_OK);
  EXPECT_EQ(rank, 4);
  int64_t index = -1;
  EXPECT_EQ(tess_placement_index_of(&index, p, 5), TESS_OK);
  EXPECT_EQ(index, 5);
  int32_t yes = -1;
  EXPECT_EQ(tess_placement_contains(&yes, p, 3), TESS_OK);
  EXPECT_EQ(yes, 1);
  EXPECT_EQ(tess_placement_contains(&yes, p, 9), TESS_OK);
  EXPECT_EQ(yes, 0);
  tess_placement* group = nullptr;
  ASSERT_EQ(tess_placement_axis_group(&group, p, 0, 4), TESS_OK);
  EXPECT_STREQ(tess_placement_string(group), "cpu:[1,4]");

  tess_placement* same = nullptr;
  const int32_t ranks[] = {0, 1, 2, 3, 4, 5};
  const int64_t hierarchy[] = {2, 3};
  ASSERT_EQ(tess_placement_create(&same, TESS_DEVICE_CPU, ranks, 6, hierarchy, 2), TESS_OK);
  int32_t eq = -1;
  EXPECT_EQ(tess_placement_equal(&eq, p, same), TESS_OK);
  EXPECT_EQ(eq, 1);
  EXPECT_EQ(tess_placement_equal(&eq, p, group), TESS_OK);
  EXPECT_EQ(eq, 0);
  uint64_t h1 = 0, h2 = 1;
  EXPECT_EQ(tess_placement_hash(&h1, p), TESS_OK);
  EXPECT_EQ(tess_placement_hash(&h2, same), TESS_OK);
  EXPECT_EQ(h1, h2);
  tess_placement_destroy(same);
  tess_placement_destroy(group);
  tess_placement_destroy(p);
}

TEST_F(CapiTest, PlacementBadInputLeavesOutUntouched) {
  tess_placement* sentinel = reinterpret_cast<tess_placement*>(0x1);
  tess_placement* out = sentinel;
  EXPECT_EQ(tess_placement_parse(&out, "cpu:[0,0]"), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(out, sentinel);
  EXPECT_NE(LastError().find("lists rank 0 twice"), std::string::npos) << LastError();
  EXPECT_EQ(tess_last_error_code(), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(tess_placement_parse(&out, "cpu:[[0,1],[2,3]"), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("expected ']'"), std::string::npos) << LastError();
  EXPECT_EQ(tess_placement_parse(&out, "cpu:[]"), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("empty rank list"), std::string::npos);
  EXPECT_EQ(tess_placement_parse(&out, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_placement_parse: argument \"text\" is NULL");
  EXPECT_EQ(tess_placement_parse(nullptr, "cpu:[0]"), TESS_INVALID_ARGUMENT);
  const int32_t ranks[] = {0, 1, 2};
  const int64_t hierarchy[] = {2, 2};
  EXPECT_EQ(tess_placement_create(&out, TESS_DEVICE_CPU, ranks, 3, hierarchy, 2),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "placement hierarchy [2,2] does not hold 3 ranks");
  EXPECT_EQ(tess_placement_create(&out, 5, ranks, 3, hierarchy, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "placement device type 5 is not cpu (0) or cuda (1)");
  EXPECT_EQ(tess_placement_create(&out, TESS_DEVICE_CPU, nullptr, 3, hierarchy, 1),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(out, sentinel);

  tess_placement* p = nullptr;
  ASSERT_EQ(tess_placement_parse(&p, "cpu:[0,1]"), TESS_OK);
  int64_t dim = 77;
  EXPECT_EQ(tess_placement_hierarchy_dim(&dim, p, 1), TESS_OUT_OF_RANGE);
  EXPECT_EQ(dim, 77);
  EXPECT_EQ(LastError(),
            "tess_placement_hierarchy_dim: axis 1 is outside cpu:[0,1], which has 1 axes");
  int32_t rank = 77;
  EXPECT_EQ(tess_placement_rank_at(&rank, p, 2), TESS_OUT_OF_RANGE);
  EXPECT_EQ(rank, 77);
  int64_t index = 77;
  EXPECT_EQ(tess_placement_index_of(&index, p, 5), TESS_NOT_FOUND);
  EXPECT_EQ(LastError(), "rank 5 is not in placement cpu:[0,1]");
  EXPECT_EQ(index, 77);
  EXPECT_EQ(tess_placement_axis_group(&out, p, 3, 0), TESS_OUT_OF_RANGE);
  EXPECT_EQ(tess_placement_axis_group(&out, p, 0, 7), TESS_NOT_FOUND);
  EXPECT_EQ(out, sentinel);
  tess_placement_destroy(p);
  tess_placement_destroy(nullptr);
  EXPECT_STREQ(tess_placement_string(nullptr), "");
}

TEST_F(CapiTest, NdSbp) {
  tess_nd_sbp* s = nullptr;
  ASSERT_EQ(tess_nd_sbp_parse(&s, "(S(1), P(max))"), TESS_OK) << LastError();
  EXPECT_STREQ(tess_nd_sbp_string(s), "(S(1), P(max))");
  size_t axes = 0;
  EXPECT_EQ(tess_nd_sbp_num_axes(&axes, s), TESS_OK);
  EXPECT_EQ(axes, 2u);
  tess_sbp_kind kind = -1;
  int32_t split = -5;
  EXPECT_EQ(tess_nd_sbp_get(&kind, &split, s, 0), TESS_OK);
  EXPECT_EQ(kind, TESS_SBP_SPLIT);
  EXPECT_EQ(split, 1);
  EXPECT_EQ(tess_nd_sbp_get(&kind, &split, s, 1), TESS_OK);
  EXPECT_EQ(kind, TESS_SBP_PARTIAL_MAX);
  EXPECT_EQ(split, -1);
  EXPECT_EQ(tess_nd_sbp_get(&kind, &split, s, 2), TESS_OUT_OF_RANGE);
  EXPECT_EQ(LastError(), "tess_nd_sbp_get: axis 2 is outside (S(1), P(max)), which has 2 axes");

  tess_nd_sbp* made = nullptr;
  const tess_sbp_kind kinds[] = {TESS_SBP_SPLIT, TESS_SBP_PARTIAL_MAX};
  const int32_t split_axes[] = {1, 99};  // 99 ignored: not a split
  ASSERT_EQ(tess_nd_sbp_create(&made, kinds, split_axes, 2), TESS_OK) << LastError();
  int32_t eq = 0;
  EXPECT_EQ(tess_nd_sbp_equal(&eq, s, made), TESS_OK);
  EXPECT_EQ(eq, 1);
  tess_nd_sbp_destroy(made);
  tess_nd_sbp_destroy(s);
  tess_nd_sbp_destroy(nullptr);
}

TEST_F(CapiTest, NdSbpBadInput) {
  tess_nd_sbp* sentinel = reinterpret_cast<tess_nd_sbp*>(0x1);
  tess_nd_sbp* out = sentinel;
  EXPECT_EQ(tess_nd_sbp_parse(&out, "S(-9)"), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("got S(-9)"), std::string::npos) << LastError();
  EXPECT_EQ(tess_nd_sbp_parse(&out, "P(avg)"), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("\"sum\", \"max\" or \"min\""), std::string::npos);
  EXPECT_EQ(tess_nd_sbp_parse(&out, "(S(0), B"), TESS_INVALID_ARGUMENT);
  const tess_sbp_kind kinds[] = {TESS_SBP_SPLIT, 17};
  const int32_t split_axes[] = {-2, 0};
  EXPECT_EQ(tess_nd_sbp_create(&out, kinds, split_axes, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_nd_sbp_create: axis 0: split axis -2 is outside [0, 7]");
  const int32_t ok_axes[] = {0, 0};
  EXPECT_EQ(tess_nd_sbp_create(&out, kinds, ok_axes, 2), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("axis 1: sbp kind 17"), std::string::npos) << LastError();
  EXPECT_EQ(tess_nd_sbp_create(&out, kinds, ok_axes, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_nd_sbp_create: num_axes is 0; expected 1 to 8");
  EXPECT_EQ(out, sentinel);
}

TEST_F(CapiTest, LayoutOfIssueExample) {
  tess_placement* p = nullptr;
  tess_nd_sbp* s = nullptr;
  ASSERT_EQ(tess_placement_parse(&p, "cpu:[[0,1],[2,3]]"), TESS_OK);
  ASSERT_EQ(tess_nd_sbp_parse(&s, "(S(0), S(1))"), TESS_OK);
  const int64_t shape[] = {6, 5};
  tess_layout* l = nullptr;
  ASSERT_EQ(tess_layout_create(&l, p, s, shape, 2, 3), TESS_OK) << LastError();
  EXPECT_STREQ(tess_layout_string(l), "[3,6)x[3,5)");
  int64_t begin = -1, end = -1, count = 0;
  EXPECT_EQ(tess_layout_range(&begin, &end, l, 0), TESS_OK);
  EXPECT_EQ(begin, 3);
  EXPECT_EQ(end, 6);
  EXPECT_EQ(tess_layout_num_elements(&count, l), TESS_OK);
  EXPECT_EQ(count, 6);
  EXPECT_EQ(tess_layout_range(&begin, &end, l, 5), TESS_OUT_OF_RANGE);
  EXPECT_EQ(LastError(), "tess_layout_range: dim 5 is outside a layout of 2 dims");
  // The borrowed shape: one call, valid while the layout lives.
  const int64_t* dims = nullptr;
  size_t shape_ndim = 0;
  ASSERT_EQ(tess_layout_local_shape(&dims, &shape_ndim, l), TESS_OK) << LastError();
  ASSERT_EQ(shape_ndim, 2u);
  EXPECT_EQ(dims[0], 3);
  EXPECT_EQ(dims[1], 2);
  EXPECT_EQ(tess_layout_local_shape(nullptr, &shape_ndim, l), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_layout_local_shape: argument \"out_dims\" is NULL");
  EXPECT_EQ(tess_layout_local_shape(&dims, nullptr, l), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_layout_local_shape: argument \"out_ndim\" is NULL");
  EXPECT_EQ(tess_layout_local_shape(&dims, &shape_ndim, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_layout_local_shape: argument \"layout\" is NULL");
  tess_layout_destroy(l);
  tess_layout_destroy(nullptr);

  tess_layout* sentinel = reinterpret_cast<tess_layout*>(0x1);
  tess_layout* out = sentinel;
  EXPECT_EQ(tess_layout_create(&out, p, s, shape, 2, 9), TESS_NOT_FOUND);
  EXPECT_EQ(LastError(), "rank 9 is not in placement cpu:[[0,1],[2,3]]");
  const int64_t bad_shape[] = {6, -5};
  EXPECT_EQ(tess_layout_create(&out, p, s, bad_shape, 2, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "shape dim 1 is -5; dims must be >= 0");
  const int64_t one_d[] = {6};
  EXPECT_EQ(tess_layout_create(&out, p, s, one_d, 1, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "nd-sbp (S(0), S(1)) splits tensor axis 1 but the tensor of shape [6] has 1 axes");
  tess_nd_sbp* one_axis = nullptr;
  ASSERT_EQ(tess_nd_sbp_parse(&one_axis, "S(0)"), TESS_OK);
  EXPECT_EQ(tess_layout_create(&out, p, one_axis, shape, 2, 0), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("has 1 axes but placement"), std::string::npos);
  EXPECT_EQ(tess_layout_create(&out, p, s, nullptr, 2, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(out, sentinel);
  tess_nd_sbp_destroy(one_axis);
  tess_nd_sbp_destroy(s);
  tess_placement_destroy(p);
}

TEST_F(CapiTest, ErrorMessagesAreThreadLocal) {
  tess_placement* out = nullptr;
  EXPECT_EQ(tess_placement_parse(&out, "cpu:[0,0]"), TESS_INVALID_ARGUMENT);
  std::string other;
  std::thread t([&other] {
    tess_nd_sbp* s = nullptr;
    EXPECT_EQ(tess_nd_sbp_parse(&s, "Q"), TESS_INVALID_ARGUMENT);
    other = tess_last_error_message();
  });
  t.join();
  EXPECT_NE(LastError().find("twice"), std::string::npos);
  EXPECT_NE(other.find("bad nd-sbp \"Q\""), std::string::npos) << other;
}

}  // namespace
