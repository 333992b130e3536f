// The inference part of the C API: op calls, tess_op_call_infer and its result getters,
// tess_op_call_explain, the per-thread cache; every bad input with its code and message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "tessera/tessera.h"

namespace {

std::string LastError() { return tess_last_error_message(); }

// Owns the handles a test creates.
struct Handles {
  std::vector<tess_placement*> placements;
  std::vector<tess_nd_sbp*> nd_sbps;
  ~Handles() {
    for (tess_placement* p : placements) tess_placement_destroy(p);
    for (tess_nd_sbp* s : nd_sbps) tess_nd_sbp_destroy(s);
  }
  tess_placement* P(const char* text) {
    tess_placement* p = nullptr;
    EXPECT_EQ(tess_placement_parse(&p, text), TESS_OK) << LastError();
    placements.push_back(p);
    return p;
  }
  tess_nd_sbp* S(const char* text) {
    tess_nd_sbp* s = nullptr;
    EXPECT_EQ(tess_nd_sbp_parse(&s, text), TESS_OK) << LastError();
    nd_sbps.push_back(s);
    return s;
  }
};

std::string OutputNdSbp(const tess_infer_result* r, size_t output) {
  tess_nd_sbp* s = nullptr;
  EXPECT_EQ(tess_infer_result_output_nd_sbp(&s, r, output), TESS_OK) << LastError();
  std::string text = tess_nd_sbp_string(s);
  tess_nd_sbp_destroy(s);
  return text;
}

std::string InputNdSbp(const tess_infer_result* r, size_t input) {
  tess_nd_sbp* s = nullptr;
  EXPECT_EQ(tess_infer_result_input_nd_sbp(&s, r, input), TESS_OK) << LastError();
  std::string text = tess_nd_sbp_string(s);
  tess_nd_sbp_destroy(s);
  return text;
}

int32_t NeedsBoxing(const tess_infer_result* r, size_t input) {
  int32_t v = -1;
  EXPECT_EQ(tess_infer_result_needs_boxing(&v, r, input), TESS_OK) << LastError();
  return v;
}

class InferCapiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_EQ(tess_runtime_init(), TESS_OK) << LastError(); }
  void SetUp() override { tess_infer_cache_clear(); }
};

TEST_F(InferCapiTest, DTypes) {
  EXPECT_EQ(TESS_DTYPE_F32, 0);
  EXPECT_EQ(TESS_DTYPE_BF16, 5);
  tess_dtype d = -1;
  ASSERT_EQ(tess_dtype_parse(&d, "i64"), TESS_OK);
  EXPECT_EQ(d, TESS_DTYPE_I64);
  EXPECT_STREQ(tess_dtype_name(TESS_DTYPE_BF16), "bf16");
  EXPECT_STREQ(tess_dtype_name(17), "");
  d = -1;
  EXPECT_EQ(tess_dtype_parse(&d, "float"), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "unknown dtype \"float\"; expected one of f32, f64, i32, i64, f16, bf16, bool");
  EXPECT_EQ(d, -1);
  EXPECT_EQ(tess_dtype_parse(nullptr, "f32"), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_dtype_parse: argument \"out\" is NULL");
}

TEST_F(InferCapiTest, OpNames) {
  const size_t n = tess_op_count();
  ASSERT_GT(n, 10u);
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) names.push_back(tess_op_name(i));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "matmul"), names.end());
  EXPECT_STREQ(tess_op_name(n), "");
}

// The seed example: t1 S(0) + t2 S(1) on cpu:[0,1] -> S(0); t2 is boxed to S(0).
TEST_F(InferCapiTest, SeedExampleAdd) {
  Handles h;
  tess_placement* p = h.P("cpu:[0,1]");
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "add"), TESS_OK) << LastError();
  EXPECT_STREQ(tess_op_call_signature(call), "add(x, y) -> (out)");
  const int64_t shape[] = {4, 6};
  ASSERT_EQ(tess_op_call_add_input(call, shape, 2, TESS_DTYPE_F32, p, h.S("S(0)")), TESS_OK)
      << LastError();
  ASSERT_EQ(tess_op_call_add_input(call, shape, 2, TESS_DTYPE_F32, p, h.S("S(1)")), TESS_OK)
      << LastError();
  size_t n = 0;
  EXPECT_EQ(tess_op_call_num_inputs(&n, call), TESS_OK);
  EXPECT_EQ(n, 2u);

  tess_infer_result* r = nullptr;
  ASSERT_EQ(tess_op_call_infer(&r, call), TESS_OK) << LastError();
  EXPECT_EQ(tess_infer_result_num_outputs(&n, r), TESS_OK);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(OutputNdSbp(r, 0), "S(0)");
  const int64_t* dims = nullptr;
  ASSERT_EQ(tess_infer_result_output_shape(&dims, &n, r, 0), TESS_OK) << LastError();
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(dims[0], 4);
  EXPECT_EQ(dims[1], 6);
  tess_dtype dtype = -1;
  EXPECT_EQ(tess_infer_result_output_dtype(&dtype, r, 0), TESS_OK);
  EXPECT_EQ(dtype, TESS_DTYPE_F32);
  tess_placement* out_p = nullptr;
  ASSERT_EQ(tess_infer_result_output_placement(&out_p, r, 0), TESS_OK);
  EXPECT_STREQ(tess_placement_string(out_p), "cpu:[0,1]");
  tess_placement_destroy(out_p);
  EXPECT_EQ(tess_infer_result_num_inputs(&n, r), TESS_OK);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(InputNdSbp(r, 0), "S(0)");
  EXPECT_EQ(InputNdSbp(r, 1), "S(0)");
  EXPECT_EQ(NeedsBoxing(r, 0), 0);
  EXPECT_EQ(NeedsBoxing(r, 1), 1);
  // y: S(1) -> S(0) on 2 ranks is an all-to-all of T(n-1)/n = 96 * 1/2 bytes.
  double cost = -1;
  EXPECT_EQ(tess_infer_result_input_cost(&cost, r, 0), TESS_OK);
  EXPECT_EQ(cost, 0.0);
  EXPECT_EQ(tess_infer_result_input_cost(&cost, r, 1), TESS_OK);
  EXPECT_EQ(cost, 48.0);
  EXPECT_EQ(tess_infer_result_total_cost(&cost, r), TESS_OK);
  EXPECT_EQ(cost, 48.0);
  int32_t index = -2, count = -2;
  EXPECT_EQ(tess_infer_result_signature_index(&index, r), TESS_OK);
  EXPECT_EQ(tess_infer_result_num_candidates(&count, r), TESS_OK);
  EXPECT_EQ(index, 0);
  EXPECT_GT(count, 1);

  tess_explanation* e = nullptr;
  ASSERT_EQ(tess_op_call_explain(&e, call), TESS_OK) << LastError();
  const std::string text = tess_explanation_text(e);
  EXPECT_NE(text.find("add {} on cpu:[0,1]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  chosen: #0 x:S(0), y:S(0) -> out:S(0)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    y: S(1) -> S(0) (cost 48)\n"), std::string::npos) << text;
  const std::string json = tess_explanation_json(e);
  EXPECT_EQ(json.front(), '{');
  EXPECT_NE(json.find("\"chosen\": 0,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"from\": \"S(1)\""), std::string::npos) << json;
  EXPECT_STREQ(tess_explanation_failure(e), "");
  tess_explanation_destroy(e);
  tess_infer_result_destroy(r);
  tess_op_call_destroy(call);
}

// matmul S(0) x B on 4 ranks: row-split output, nothing moves.
TEST_F(InferCapiTest, MatmulRowSplitNeedsNoBoxing) {
  Handles h;
  tess_placement* p = h.P("cpu:[0,1,2,3]");
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "matmul"), TESS_OK);
  const int64_t a[] = {64, 32}, b[] = {32, 16};
  ASSERT_EQ(tess_op_call_add_input(call, a, 2, TESS_DTYPE_F32, p, h.S("S(0)")), TESS_OK);
  ASSERT_EQ(tess_op_call_add_input(call, b, 2, TESS_DTYPE_F32, p, h.S("B")), TESS_OK);
  tess_infer_result* r = nullptr;
  ASSERT_EQ(tess_op_call_infer(&r, call), TESS_OK) << LastError();
  EXPECT_EQ(OutputNdSbp(r, 0), "S(0)");
  EXPECT_EQ(NeedsBoxing(r, 0), 0);
  EXPECT_EQ(NeedsBoxing(r, 1), 0);
  double cost = -1;
  EXPECT_EQ(tess_infer_result_total_cost(&cost, r), TESS_OK);
  EXPECT_EQ(cost, 0.0);
  const int64_t* dims = nullptr;
  size_t ndim = 0;
  ASSERT_EQ(tess_infer_result_output_shape(&dims, &ndim, r, 0), TESS_OK) << LastError();
  ASSERT_EQ(ndim, 2u);
  EXPECT_EQ(dims[0], 64);
  EXPECT_EQ(dims[1], 16);
  tess_infer_result_destroy(r);

  // transpose_b reads b as [n, k].
  ASSERT_EQ(tess_op_call_set_attr_bool(call, "transpose_b", 1), TESS_OK) << LastError();
  tess_infer_result* r2 = nullptr;
  EXPECT_EQ(tess_op_call_infer(&r2, call), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(r2, nullptr);
  EXPECT_NE(LastError().find("matmul"), std::string::npos) << LastError();
  tess_op_call_destroy(call);
}

// 2-d placement: a (S(0), B) and b (B, S(1)) on [[0,1],[2,3]] give (S(0), S(1)).
TEST_F(InferCapiTest, TwoDimensionalPlacement) {
  Handles h;
  tess_placement* p = h.P("cpu:[[0,1],[2,3]]");
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "matmul"), TESS_OK);
  const int64_t a[] = {8, 6}, b[] = {6, 4};
  ASSERT_EQ(tess_op_call_add_input(call, a, 2, TESS_DTYPE_F64, p, h.S("(S(0), B)")), TESS_OK);
  ASSERT_EQ(tess_op_call_add_input(call, b, 2, TESS_DTYPE_F64, p, h.S("(B, S(1))")), TESS_OK);
  tess_infer_result* r = nullptr;
  ASSERT_EQ(tess_op_call_infer(&r, call), TESS_OK) << LastError();
  EXPECT_EQ(OutputNdSbp(r, 0), "(S(0), S(1))");
  EXPECT_EQ(NeedsBoxing(r, 0), 0);
  EXPECT_EQ(NeedsBoxing(r, 1), 0);
  tess_dtype dtype = -1;
  EXPECT_EQ(tess_infer_result_output_dtype(&dtype, r, 0), TESS_OK);
  EXPECT_EQ(dtype, TESS_DTYPE_F64);
  tess_infer_result_destroy(r);

  // Constraining the output to (S(0), B) makes b gather its columns on axis 1.
  ASSERT_EQ(tess_op_call_constrain_output(call, 0, h.S("(S(0), B)")), TESS_OK) << LastError();
  ASSERT_EQ(tess_op_call_infer(&r, call), TESS_OK) << LastError();
  EXPECT_EQ(OutputNdSbp(r, 0), "(S(0), B)");
  EXPECT_EQ(InputNdSbp(r, 1), "(B, B)");
  EXPECT_EQ(NeedsBoxing(r, 1), 1);
  tess_infer_result_destroy(r);
  tess_op_call_destroy(call);
}

TEST_F(InferCapiTest, CacheMissThenHit) {
  Handles h;
  tess_infer_cache_stats st = TESS_INFER_CACHE_STATS_INIT;
  st.hits = st.misses = st.evictions = st.size = 9;
  const uint64_t& hits = st.hits;
  const uint64_t& misses = st.misses;
  const uint64_t& size = st.size;
  const uint64_t& capacity = st.capacity;
  ASSERT_EQ(tess_infer_cache_get_stats(&st), TESS_OK);
  EXPECT_EQ(st.hits + st.misses + st.evictions + st.size, 0u);
  EXPECT_GT(st.capacity, 0u);

  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "relu"), TESS_OK);
  const int64_t shape[] = {8};
  ASSERT_EQ(tess_op_call_add_input(call, shape, 1, TESS_DTYPE_F32, h.P("cpu:[0,1]"), h.S("S(0)")),
            TESS_OK);
  for (int i = 0; i < 2; ++i) {
    tess_infer_result* r = nullptr;
    ASSERT_EQ(tess_op_call_infer(&r, call), TESS_OK) << LastError();
    tess_infer_result_destroy(r);
  }
  ASSERT_EQ(tess_infer_cache_get_stats(&st), TESS_OK);
  EXPECT_EQ(misses, 1u);
  EXPECT_EQ(hits, 1u);
  EXPECT_EQ(size, 1u);

  // Per thread: another thread starts with an empty cache.
  uint64_t other_misses = 9;
  std::thread([&] {
    tess_infer_cache_stats other = TESS_INFER_CACHE_STATS_INIT;
    other.misses = 9;
    tess_infer_cache_get_stats(&other);
    other_misses = other.misses;
  }).join();
  EXPECT_EQ(other_misses, 0u);

  // A change of attrs, inputs or constraints is a new key.
  ASSERT_EQ(tess_op_call_constrain_input(call, 0, h.S("B")), TESS_OK);
  tess_infer_result* r = nullptr;
  ASSERT_EQ(tess_op_call_infer(&r, call), TESS_OK);
  tess_infer_result_destroy(r);
  ASSERT_EQ(tess_infer_cache_get_stats(&st), TESS_OK);
  EXPECT_EQ(misses, 2u);

  ASSERT_EQ(tess_infer_cache_set_capacity(1), TESS_OK);
  ASSERT_EQ(tess_infer_cache_get_stats(&st), TESS_OK);
  EXPECT_EQ(capacity, 1u);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(misses, 2u);  // counters kept
  EXPECT_EQ(tess_infer_cache_set_capacity(0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_infer_cache_set_capacity: capacity is 0; expected >= 1");
  tess_infer_cache_clear();
  ASSERT_EQ(tess_infer_cache_get_stats(&st), TESS_OK);
  EXPECT_EQ(hits + misses, 0u);
  EXPECT_EQ(capacity, 1u);
  ASSERT_EQ(tess_infer_cache_set_capacity(4096), TESS_OK);
  EXPECT_EQ(tess_infer_cache_get_stats(nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_infer_cache_get_stats: argument \"out\" is NULL");
  // struct_size 0, and below the first version, are refused naming the sizes; nothing
  // is written.
  tess_infer_cache_stats bad = TESS_INFER_CACHE_STATS_INIT;
  bad.struct_size = 0;
  bad.hits = 42;
  EXPECT_EQ(tess_infer_cache_get_stats(&bad), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_infer_cache_get_stats: out->struct_size is 0 but tess_infer_cache_stats needs "
            "at least 48 (its first version; this library's is 48): set it to "
            "sizeof(tess_infer_cache_stats) or start from its _INIT macro");
  bad.struct_size = sizeof(tess_infer_cache_stats) - 8;
  EXPECT_EQ(tess_infer_cache_get_stats(&bad), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(bad.hits, 42u);
  // A newer caller's bigger struct is filled up to this library's size; its tail and
  // struct_size stay as set.
  struct Newer {
    tess_infer_cache_stats base;
    uint64_t future_field;
  } newer = {TESS_INFER_CACHE_STATS_INIT, 77};
  newer.base.struct_size = sizeof(Newer);
  ASSERT_EQ(tess_infer_cache_get_stats(&newer.base), TESS_OK) << LastError();
  EXPECT_EQ(newer.base.capacity, 4096u);
  EXPECT_EQ(newer.base.struct_size, sizeof(Newer));
  EXPECT_EQ(newer.future_field, 77u);
  tess_op_call_destroy(call);
}

TEST_F(InferCapiTest, NullArguments) {
  Handles h;
  tess_op_call* call = nullptr;
  EXPECT_EQ(tess_op_call_create(nullptr, "add"), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_create: argument \"out\" is NULL");
  EXPECT_EQ(tess_op_call_create(&call, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_create: argument \"op_name\" is NULL");
  EXPECT_EQ(call, nullptr);
  ASSERT_EQ(tess_op_call_create(&call, "add"), TESS_OK);
  const int64_t shape[] = {4};
  tess_placement* p = h.P("cpu:[0,1]");
  tess_nd_sbp* s = h.S("B");
  EXPECT_EQ(tess_op_call_set_attr_int(nullptr, "x", 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_set_attr_int: argument \"call\" is NULL");
  EXPECT_EQ(tess_op_call_set_attr_float(call, nullptr, 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_set_attr_float: argument \"name\" is NULL");
  EXPECT_EQ(tess_op_call_set_attr_ints(call, "axes", nullptr, 2), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_set_attr_ints: argument \"values\" is NULL");
  EXPECT_EQ(tess_op_call_add_input(call, nullptr, 1, TESS_DTYPE_F32, p, s), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_add_input: argument \"shape\" is NULL");
  EXPECT_EQ(tess_op_call_add_input(call, shape, 1, TESS_DTYPE_F32, nullptr, s),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_add_input: argument \"placement\" is NULL");
  EXPECT_EQ(tess_op_call_add_input(call, shape, 1, TESS_DTYPE_F32, p, nullptr),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_add_input: argument \"nd_sbp\" is NULL");
  EXPECT_EQ(tess_op_call_constrain_input(call, 0, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_constrain_input: argument \"nd_sbp\" is NULL");
  EXPECT_EQ(tess_op_call_constrain_output(nullptr, 0, s), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_constrain_output: argument \"call\" is NULL");
  EXPECT_EQ(tess_op_call_num_inputs(nullptr, call), TESS_INVALID_ARGUMENT);
  tess_infer_result* r = nullptr;
  EXPECT_EQ(tess_op_call_infer(&r, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_infer: argument \"call\" is NULL");
  EXPECT_EQ(tess_op_call_infer(nullptr, call), TESS_INVALID_ARGUMENT);
  tess_explanation* e = nullptr;
  EXPECT_EQ(tess_op_call_explain(&e, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_op_call_explain: argument \"call\" is NULL");
  size_t n = 0;
  EXPECT_EQ(tess_infer_result_num_outputs(&n, nullptr), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_infer_result_num_outputs: argument \"result\" is NULL");
  double cost = 0;
  EXPECT_EQ(tess_infer_result_total_cost(&cost, nullptr), TESS_INVALID_ARGUMENT);
  // NULL-safe destroys and borrowed getters.
  tess_op_call_destroy(nullptr);
  tess_infer_result_destroy(nullptr);
  tess_explanation_destroy(nullptr);
  EXPECT_STREQ(tess_explanation_text(nullptr), "");
  EXPECT_STREQ(tess_explanation_json(nullptr), "");
  EXPECT_STREQ(tess_explanation_failure(nullptr), "");
  EXPECT_STREQ(tess_op_call_signature(nullptr), "");
  tess_op_call_destroy(call);
}

TEST_F(InferCapiTest, UnknownOpSuggests) {
  tess_op_call* call = nullptr;
  EXPECT_EQ(tess_op_call_create(&call, "matmull"), TESS_NOT_FOUND);
  EXPECT_EQ(call, nullptr);
  EXPECT_NE(LastError().find("no op named \"matmull\"; did you mean: "), std::string::npos)
      << LastError();
  EXPECT_NE(LastError().find("matmul"), std::string::npos);
}

TEST_F(InferCapiTest, BadAttrs) {
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "matmul"), TESS_OK);
  EXPECT_EQ(tess_op_call_set_attr_int(call, "transpose_b", 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_op_call_set_attr_int: matmul: attribute \"transpose_b\" must be bool but got "
            "int 1");
  EXPECT_EQ(tess_op_call_set_attr_float(call, "alpha", 0.5), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_op_call_set_attr_float: matmul: unknown attribute \"alpha\"; known attributes: "
            "transpose_a, transpose_b");
  const int64_t axes[] = {0, 2};
  EXPECT_EQ(tess_op_call_set_attr_ints(call, "transpose_a", axes, 2), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_op_call_set_attr_ints: matmul: attribute \"transpose_a\" must be bool but got "
            "ints [0,2]");
  EXPECT_EQ(tess_op_call_set_attr_dtype(call, "transpose_a", 42), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("dtype value 42 is not a known dtype"), std::string::npos);
  tess_op_call_destroy(call);

  // The attribute kinds that do fit: dtype (cast), ints (transpose), float (scalar_mul).
  ASSERT_EQ(tess_op_call_create(&call, "cast"), TESS_OK);
  EXPECT_EQ(tess_op_call_set_attr_dtype(call, "dtype", TESS_DTYPE_I64), TESS_OK) << LastError();
  EXPECT_EQ(tess_op_call_set_attr_bool(call, "dtype", 1), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_op_call_set_attr_bool: cast: attribute \"dtype\" must be dtype but got bool "
            "true");
  tess_op_call_destroy(call);
  ASSERT_EQ(tess_op_call_create(&call, "transpose"), TESS_OK);
  EXPECT_EQ(tess_op_call_set_attr_ints(call, "perm", axes, 2), TESS_OK) << LastError();
  tess_op_call_destroy(call);
  ASSERT_EQ(tess_op_call_create(&call, "scalar_mul"), TESS_OK);
  EXPECT_EQ(tess_op_call_set_attr_float(call, "value", 2.5), TESS_OK) << LastError();
  tess_op_call_destroy(call);
}

TEST_F(InferCapiTest, BadInputs) {
  Handles h;
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "add"), TESS_OK);
  tess_placement* p2 = h.P("cpu:[0,1]");
  const int64_t bad[] = {4, -3}, ok[] = {4, 6};
  EXPECT_EQ(tess_op_call_add_input(call, bad, 2, TESS_DTYPE_F32, p2, h.S("B")),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_op_call_add_input: add: input \"x\": shape dim 1 is -3; dims must be >= 0");
  EXPECT_EQ(tess_op_call_add_input(call, ok, 2, 9, p2, h.S("B")), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("add: input \"x\": dtype value 9 is not a known dtype"),
            std::string::npos)
      << LastError();
  EXPECT_EQ(tess_op_call_add_input(call, ok, 2, TESS_DTYPE_F32, p2, h.S("S(2)")),
            TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("tess_op_call_add_input: add: input \"x\": "), std::string::npos)
      << LastError();
  EXPECT_NE(LastError().find("S(2)"), std::string::npos) << LastError();
  EXPECT_EQ(tess_op_call_add_input(call, ok, 2, TESS_DTYPE_F32, p2, h.S("(S(0), B)")),
            TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("add: input \"x\""), std::string::npos) << LastError();
  size_t n = 9;
  EXPECT_EQ(tess_op_call_num_inputs(&n, call), TESS_OK);
  EXPECT_EQ(n, 0u);  // nothing was added

  ASSERT_EQ(tess_op_call_add_input(call, ok, 2, TESS_DTYPE_F32, p2, h.S("S(0)")), TESS_OK);
  EXPECT_EQ(tess_op_call_add_input(call, ok, 2, TESS_DTYPE_F32, h.P("cpu:[0,1,2]"), h.S("B")),
            TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_op_call_add_input: add: input \"y\" is on placement cpu:[0,1,2] but input \"x\" "
            "is on cpu:[0,1]; inputs must share one placement (move one there with to_global)");

  // Missing input at infer time.
  tess_infer_result* r = nullptr;
  EXPECT_EQ(tess_op_call_infer(&r, call), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "add: takes 2 inputs but got 1");
  EXPECT_EQ(r, nullptr);
  tess_explanation* e = nullptr;
  EXPECT_EQ(tess_op_call_explain(&e, call), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "add: takes 2 inputs but got 1");
  EXPECT_EQ(e, nullptr);

  // Mismatched shapes are the shape function's to report.
  const int64_t other[] = {4, 5};
  ASSERT_EQ(tess_op_call_add_input(call, other, 2, TESS_DTYPE_F32, p2, h.S("B")), TESS_OK);
  EXPECT_EQ(tess_op_call_infer(&r, call), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("add"), std::string::npos) << LastError();
  EXPECT_NE(LastError().find("[4,5]"), std::string::npos) << LastError();

  EXPECT_EQ(tess_op_call_add_input(call, ok, 2, TESS_DTYPE_F32, p2, h.S("B")),
            TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("add: takes at most 2 inputs"), std::string::npos) << LastError();

  EXPECT_EQ(tess_op_call_constrain_output(call, 1, h.S("B")), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(),
            "tess_op_call_constrain_output: add: constraint names output slot 1 but the op has 1 "
            "output (add(x, y) -> (out))");
  EXPECT_EQ(tess_op_call_constrain_input(call, SIZE_MAX, h.S("B")), TESS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("input slot " + std::to_string(SIZE_MAX)), std::string::npos)
      << LastError();
  tess_op_call_destroy(call);
}

TEST_F(InferCapiTest, MissingRequiredAttr) {
  Handles h;
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "cast"), TESS_OK);
  const int64_t shape[] = {4};
  ASSERT_EQ(tess_op_call_add_input(call, shape, 1, TESS_DTYPE_F32, h.P("cpu:[0,1]"), h.S("B")),
            TESS_OK);
  tess_infer_result* r = nullptr;
  EXPECT_EQ(tess_op_call_infer(&r, call), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "cast: required attribute \"dtype\" (dtype) is missing");
  tess_op_call_destroy(call);
}

// relu of one element on 2 ranks, output constrained to S(0): the S(0) candidate
// cannot split 1 element over 2 ranks, and the rest contradict the constraint.
TEST_F(InferCapiTest, NoFittingSignatureListsCandidates) {
  Handles h;
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "relu"), TESS_OK);
  const int64_t shape[] = {1};
  ASSERT_EQ(tess_op_call_add_input(call, shape, 1, TESS_DTYPE_F32, h.P("cpu:[0,1]"), h.S("B")),
            TESS_OK);
  ASSERT_EQ(tess_op_call_constrain_output(call, 0, h.S("S(0)")), TESS_OK);
  tess_infer_result* r = nullptr;
  EXPECT_EQ(tess_op_call_infer(&r, call), TESS_INVALID_ARGUMENT);
  const std::string message = LastError();
  EXPECT_EQ(message.rfind("relu: no SBP signature fits the inputs x: B [1] on cpu:[0,1] with "
                          "constraints out = S(0); candidates:",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("\n  #0 x:S(0) -> out:S(0): input \"x\": S(0) splits axis 0"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("is constrained to S(0)"), std::string::npos) << message;

  tess_explanation* e = nullptr;
  ASSERT_EQ(tess_op_call_explain(&e, call), TESS_OK) << LastError();
  EXPECT_EQ(std::string(tess_explanation_failure(e)), message);
  EXPECT_NE(std::string(tess_explanation_text(e)).find("  failure: relu: no SBP signature fits"),
            std::string::npos);
  EXPECT_NE(std::string(tess_explanation_json(e)).find("\"failure\": \"relu: no SBP"),
            std::string::npos);
  tess_explanation_destroy(e);
  tess_op_call_destroy(call);
}

TEST_F(InferCapiTest, OutOfRangeGetters) {
  Handles h;
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "relu"), TESS_OK);
  const int64_t shape[] = {4, 2};
  ASSERT_EQ(tess_op_call_add_input(call, shape, 2, TESS_DTYPE_F32, h.P("cpu:[0,1]"), h.S("S(0)")),
            TESS_OK);
  tess_infer_result* r = nullptr;
  ASSERT_EQ(tess_op_call_infer(&r, call), TESS_OK);
  size_t n = 9;
  tess_nd_sbp* s = nullptr;
  tess_placement* p = nullptr;
  const int64_t* dims = nullptr;
  EXPECT_EQ(tess_infer_result_output_shape(&dims, &n, r, 1), TESS_OUT_OF_RANGE);
  EXPECT_EQ(LastError(),
            "tess_infer_result_output_shape: output 1 is outside a result with 1 output");
  EXPECT_EQ(dims, nullptr);
  EXPECT_EQ(n, 9u);
  EXPECT_EQ(tess_infer_result_output_shape(nullptr, &n, r, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_infer_result_output_shape: argument \"out_dims\" is NULL");
  EXPECT_EQ(tess_infer_result_output_shape(&dims, nullptr, r, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_infer_result_output_shape: argument \"out_ndim\" is NULL");
  EXPECT_EQ(tess_infer_result_output_shape(&dims, &n, nullptr, 0), TESS_INVALID_ARGUMENT);
  EXPECT_EQ(LastError(), "tess_infer_result_output_shape: argument \"result\" is NULL");
  EXPECT_EQ(tess_infer_result_output_nd_sbp(&s, r, 3), TESS_OUT_OF_RANGE);
  EXPECT_EQ(tess_infer_result_output_placement(&p, r, 3), TESS_OUT_OF_RANGE);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(p, nullptr);
  tess_dtype d = -1;
  EXPECT_EQ(tess_infer_result_output_dtype(&d, r, 1), TESS_OUT_OF_RANGE);
  EXPECT_EQ(tess_infer_result_input_nd_sbp(&s, r, 1), TESS_OUT_OF_RANGE);
  EXPECT_EQ(LastError(),
            "tess_infer_result_input_nd_sbp: input 1 is outside a result with 1 input");
  int32_t flag = -1;
  EXPECT_EQ(tess_infer_result_needs_boxing(&flag, r, 5), TESS_OUT_OF_RANGE);
  double cost = -1;
  EXPECT_EQ(tess_infer_result_input_cost(&cost, r, 5), TESS_OUT_OF_RANGE);
  EXPECT_EQ(flag, -1);
  EXPECT_EQ(cost, -1);
  tess_infer_result_destroy(r);
  tess_op_call_destroy(call);
}

TEST_F(InferCapiTest, OneRankPlacementIsTrivial) {
  Handles h;
  tess_op_call* call = nullptr;
  ASSERT_EQ(tess_op_call_create(&call, "relu"), TESS_OK);
  const int64_t shape[] = {4};
  ASSERT_EQ(tess_op_call_add_input(call, shape, 1, TESS_DTYPE_F32, h.P("cpu:[0]"), h.S("S(0)")),
            TESS_OK);
  tess_infer_result* r = nullptr;
  ASSERT_EQ(tess_op_call_infer(&r, call), TESS_OK);
  int32_t index = 0, count = -1;
  EXPECT_EQ(tess_infer_result_signature_index(&index, r), TESS_OK);
  EXPECT_EQ(tess_infer_result_num_candidates(&count, r), TESS_OK);
  EXPECT_EQ(index, -1);
  EXPECT_EQ(count, 0);
  EXPECT_EQ(OutputNdSbp(r, 0), "B");
  tess_infer_result_destroy(r);
  tess_op_call_destroy(call);
}

}  // namespace
