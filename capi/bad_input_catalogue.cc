// The catalogue of bad inputs (issue 16, item 8): every public C function handed
// what a careless or hostile caller would hand it, in a world of one rank. Each case
// states the status the C API promises and a fragment its message must hold (the
// argument or value it names), both written from the headers' contracts, not read
// off the library. The program runs every case and exits 1 if any gets another
// status, a message without the fragment, or an empty message.
//
// `bad_input_catalogue --markdown` prints the table that docs/reliability.md holds
// between its "catalogue" markers, with the message each case actually got;
// //capi:bad_input_catalogue_doc_test fails when the two differ, so the document
// cannot drift from what the library says. tools/update_reliability_catalogue.sh
// rewrites the table.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace {

constexpr int64_t kBig = (int64_t{1} << 62) + 1;  // [kBig, 4] wraps to 4 elements unchecked
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Valid objects the cases misuse one argument of. Made once, before the cases run.
struct Fixture {
  tess_placement* p = nullptr;            // cpu:[0]
  tess_placement* p2d = nullptr;          // cpu:[[0]] (two axes)
  tess_placement* cuda = nullptr;         // cuda:[0]
  tess_nd_sbp* b = nullptr;               // B
  tess_nd_sbp* s0 = nullptr;              // S(0)
  tess_nd_sbp* s1 = nullptr;              // S(1)
  tess_nd_sbp* s2 = nullptr;              // S(2)
  tess_nd_sbp* bb = nullptr;              // (B, B)
  tess_nd_sbp* psum = nullptr;            // P
  tess_tensor* x = nullptr;               // f32 [2,3] B
  tess_tensor* y = nullptr;               // f32 [3,2] B
  tess_tensor* v = nullptr;               // f32 [4] B
  tess_tensor* xi = nullptr;              // i32 [2,3] B
  tess_tensor* xd = nullptr;              // f64 [2,3] B
  tess_op_call* add = nullptr;            // "add" with no inputs yet
  tess_op_call* relu = nullptr;           // "relu" with one f32 [2,3] input
  tess_op_call* bare_relu = nullptr;      // "relu" without input metas (for apply)
  tess_infer_result* inferred = nullptr;  // relu's
  tess_program* program = nullptr;        // input "a" f32 [2,3] B -> relu -> output
  int64_t program_input = -1;
  tess_plan* plan = nullptr;
  tess_plan_instance* instance = nullptr;
  tess_boxing_plan* boxing = nullptr;  // [2,3] f32 B -> S(0) on cpu:[0]
  tess_bucketed_allreducer* reducer = nullptr;
  float data[64] = {};
};
Fixture f;

// A DLPack tensor over `f.data` (f32 [2,3] compact) whose deleter counts its calls.
int dlpack_deletions = 0;
int64_t dl_shape[8] = {2, 3};
int64_t dl_strides[8] = {3, 1};
DLManagedTensorVersioned dl_versioned;
DLManagedTensor dl_legacy;

DLManagedTensorVersioned* Versioned() {
  std::memset(&dl_versioned, 0, sizeof(dl_versioned));
  dl_shape[0] = 2;
  dl_shape[1] = 3;
  dl_strides[0] = 3;
  dl_strides[1] = 1;
  dl_versioned.version = {1, 1};
  dl_versioned.deleter = [](DLManagedTensorVersioned*) { ++dlpack_deletions; };
  DLTensor& t = dl_versioned.dl_tensor;
  t.data = f.data;
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = dl_shape;
  t.strides = nullptr;
  return &dl_versioned;
}

DLManagedTensor* Legacy() {
  std::memset(&dl_legacy, 0, sizeof(dl_legacy));
  dl_shape[0] = 2;
  dl_shape[1] = 3;
  dl_legacy.deleter = [](DLManagedTensor*) { ++dlpack_deletions; };
  DLTensor& t = dl_legacy.dl_tensor;
  t.data = f.data;
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = dl_shape;
  return &dl_legacy;
}

struct Case {
  const char* function;  // the C function called
  const char* input;     // what is wrong with the call, in words
  tess_status expected;
  const char* fragment;  // the message must contain this
  tess_status (*call)();
};

#define CASE(fn, input, code, fragment, ...)                       \
  Case {                                                           \
    fn, input, code, fragment, []() -> tess_status { __VA_ARGS__ } \
  }

constexpr tess_status kInvalid = TESS_INVALID_ARGUMENT;
constexpr tess_status kOutOfRange = TESS_OUT_OF_RANGE;
constexpr tess_status kPrecondition = TESS_FAILED_PRECONDITION;
constexpr tess_status kNotFound = TESS_NOT_FOUND;
constexpr tess_status kUnimplemented = TESS_UNIMPLEMENTED;

const int64_t kShape23[] = {2, 3};
const int64_t kOverflowing[] = {kBig, 4};
const int64_t kNegative[] = {2, -3};
const int64_t kNineDims[] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
    // ---- dtype
    CASE("tess_dtype_parse", "out is NULL", kInvalid, "out",
         return tess_dtype_parse(nullptr, "f32");),
    CASE("tess_dtype_parse", "text is NULL", kInvalid, "text", tess_dtype d;
         return tess_dtype_parse(&d, nullptr);),
    CASE("tess_dtype_parse", "unknown name \"float128\"", kInvalid, "float128", tess_dtype d;
         return tess_dtype_parse(&d, "float128");),
    CASE("tess_dtype_parse", "empty text", kInvalid, "dtype", tess_dtype d;
         return tess_dtype_parse(&d, "");),
    CASE("tess_dtype_parse", "trailing text \"f32x\"", kInvalid, "f32x", tess_dtype d;
         return tess_dtype_parse(&d, "f32x");),

    // ---- placement parsing
    CASE("tess_placement_parse", "out is NULL", kInvalid, "out",
         return tess_placement_parse(nullptr, "cpu:0");),
    CASE("tess_placement_parse", "text is NULL", kInvalid, "text", tess_placement* o = nullptr;
         return tess_placement_parse(&o, nullptr);),
    CASE("tess_placement_parse", "empty text", kInvalid, "placement", tess_placement* o = nullptr;
         return tess_placement_parse(&o, "");),
    CASE("tess_placement_parse", "no ranks \"cpu:\"", kInvalid, "cpu:", tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:");),
    CASE("tess_placement_parse", "unknown device \"tpu:0\"", kInvalid, "tpu",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "tpu:0");),
    CASE("tess_placement_parse", "unclosed bracket \"cpu:[0,1\"", kInvalid, "cpu:[0,1",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:[0,1");),
    CASE("tess_placement_parse", "trailing comma \"cpu:[0,]\"", kInvalid, "cpu:[0,]",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:[0,]");),
    CASE("tess_placement_parse", "negative rank \"cpu:-1\"", kInvalid, "cpu:-1",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:-1");),
    CASE("tess_placement_parse", "rank past int32 \"cpu:99999999999\"", kInvalid, "99999999999",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:99999999999");),
    CASE("tess_placement_parse", "range of 844674408 ranks \"cpu:0-844674407\"", kInvalid,
         "844674408", tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:0-844674407");),
    CASE("tess_placement_parse", "reversed range \"cpu:5-2\"", kInvalid, "5-2",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:5-2");),
    CASE("tess_placement_parse", "duplicate rank \"cpu:[0,0]\"", kInvalid, "0",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:[0,0]");),
    CASE("tess_placement_parse", "ragged rows \"cpu:[[0,1],[2]]\"", kInvalid, "[[0,1],[2]]",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:[[0,1],[2]]");),
    CASE("tess_placement_parse", "trailing text \"cpu:[0]x\"", kInvalid, "cpu:[0]x",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:[0]x");),
    CASE("tess_placement_parse", "100000 nested brackets", kInvalid, "placement",
         std::string text = "cpu:" + std::string(100000, '[');
         tess_placement* o = nullptr; return tess_placement_parse(&o, text.c_str());),
    CASE("tess_placement_parse", "20 nested brackets (deeper than the axis limit)", kInvalid,
         "cpu:[[[[", std::string text = "cpu:" + std::string(20, '[') + "0" + std::string(20, ']');
         tess_placement* o = nullptr; return tess_placement_parse(&o, text.c_str());),
    CASE("tess_placement_parse", "100007 characters of text", kInvalid, "100007",
         std::string text = "cpu:[0" + std::string(100000, ' ') + "]";
         tess_placement* o = nullptr; return tess_placement_parse(&o, text.c_str());),
    CASE("tess_placement_parse", "non-digit rank \"cpu:abc\"", kInvalid, "cpu:abc",
         tess_placement* o = nullptr;
         return tess_placement_parse(&o, "cpu:abc");),

    // ---- placement creation
    CASE("tess_placement_create", "out is NULL", kInvalid, "out", const int32_t r[] = {0};
         const int64_t h[] = {1};
         return tess_placement_create(nullptr, TESS_DEVICE_CPU, r, 1, h, 1);),
    CASE("tess_placement_create", "ranks is NULL with num_ranks 1", kInvalid, "ranks",
         const int64_t h[] = {1};
         tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, nullptr, 1, h, 1);),
    CASE("tess_placement_create", "num_ranks 0", kInvalid, "rank", const int32_t r[] = {0};
         const int64_t h[] = {1}; tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r, 0, h, 1);),
    CASE("tess_placement_create", "negative rank -3", kInvalid, "-3", const int32_t r[] = {-3};
         const int64_t h[] = {1}; tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r, 1, h, 1);),
    CASE("tess_placement_create", "duplicate ranks [1,1]", kInvalid, "1",
         const int32_t r[] = {1, 1};
         const int64_t h[] = {2}; tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r, 2, h, 1);),
    CASE("tess_placement_create", "hierarchy [3] for 2 ranks", kInvalid, "[3]",
         const int32_t r[] = {0, 1};
         const int64_t h[] = {3}; tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r, 2, h, 1);),
    CASE("tess_placement_create", "hierarchy [4, 2^62+1] (product wraps to 4)", kInvalid,
         "4611686018427387905", const int32_t r[] = {0, 1, 2, 3};
         const int64_t h[] = {4, kBig}; tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r, 4, h, 2);),
    CASE("tess_placement_create", "hierarchy dim 0", kInvalid, "0", const int32_t r[] = {0};
         const int64_t h[] = {0}; tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r, 1, h, 1);),
    CASE("tess_placement_create", "negative hierarchy dim -1", kInvalid, "-1",
         const int32_t r[] = {0};
         const int64_t h[] = {-1}; tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r, 1, h, 1);),
    CASE("tess_placement_create", "device type 7", kInvalid, "7", const int32_t r[] = {0};
         const int64_t h[] = {1}; tess_placement* o = nullptr;
         return tess_placement_create(&o, 7, r, 1, h, 1);),
    CASE("tess_placement_create", "hierarchy NULL with num_axes 1", kInvalid, "hierarchy",
         const int32_t r[] = {0};
         tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r, 1, nullptr, 1);),
    CASE("tess_placement_create", "num_ranks 2^21 (past the rank limit)", kInvalid, "2097152",
         std::vector<int32_t> r(size_t{1} << 21);
         for (size_t i = 0; i < r.size(); ++i) r[i] = static_cast<int32_t>(i);
         const int64_t h[] = {int64_t{1} << 21}; tess_placement* o = nullptr;
         return tess_placement_create(&o, TESS_DEVICE_CPU, r.data(), r.size(), h, 1);),

    // ---- placement queries
    CASE("tess_placement_num_axes", "out is NULL", kInvalid, "out",
         return tess_placement_num_axes(nullptr, f.p);),
    CASE("tess_placement_num_axes", "placement is NULL", kInvalid, "placement", size_t n;
         return tess_placement_num_axes(&n, nullptr);),
    CASE("tess_placement_device_type", "placement is NULL", kInvalid, "placement",
         tess_device_type d;
         return tess_placement_device_type(&d, nullptr);),
    CASE("tess_placement_hierarchy_dim", "axis 5 of a 1-axis placement", kOutOfRange, "5",
         int64_t d;
         return tess_placement_hierarchy_dim(&d, f.p, 5);),
    CASE("tess_placement_parallel_num", "out is NULL", kInvalid, "out",
         return tess_placement_parallel_num(nullptr, f.p);),
    CASE("tess_placement_rank_at", "index -1", kOutOfRange, "-1", int32_t r;
         return tess_placement_rank_at(&r, f.p, -1);),
    CASE("tess_placement_rank_at", "index 1 of a 1-rank placement", kOutOfRange, "1", int32_t r;
         return tess_placement_rank_at(&r, f.p, 1);),
    CASE("tess_placement_index_of", "rank 7 not in the placement", kNotFound, "7", int64_t i;
         return tess_placement_index_of(&i, f.p, 7);),
    CASE("tess_placement_contains", "out is NULL", kInvalid, "out",
         return tess_placement_contains(nullptr, f.p, 0);),
    CASE("tess_placement_axis_group", "axis 3 of a 1-axis placement", kOutOfRange, "3",
         tess_placement* o = nullptr;
         return tess_placement_axis_group(&o, f.p, 3, 0);),
    CASE("tess_placement_axis_group", "rank 9 not in the placement", kNotFound, "9",
         tess_placement* o = nullptr;
         return tess_placement_axis_group(&o, f.p, 0, 9);),
    CASE("tess_placement_equal", "b is NULL", kInvalid, "b", int32_t e;
         return tess_placement_equal(&e, f.p, nullptr);),
    CASE("tess_placement_hash", "placement is NULL", kInvalid, "placement", uint64_t h;
         return tess_placement_hash(&h, nullptr);),

    // ---- nd-sbp parsing and creation
    CASE("tess_nd_sbp_parse", "out is NULL", kInvalid, "out",
         return tess_nd_sbp_parse(nullptr, "B");),
    CASE("tess_nd_sbp_parse", "text is NULL", kInvalid, "text", tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, nullptr);),
    CASE("tess_nd_sbp_parse", "empty text", kInvalid, "sbp", tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "");),
    CASE("tess_nd_sbp_parse", "unknown kind \"X\"", kInvalid, "X", tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "X");),
    CASE("tess_nd_sbp_parse", "unclosed \"S(\"", kInvalid, "S(", tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "S(");),
    CASE("tess_nd_sbp_parse", "negative split axis \"S(-1)\"", kInvalid, "S(-1)",
         tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "S(-1)");),
    CASE("tess_nd_sbp_parse", "split axis past int32 \"S(99999999999)\"", kInvalid, "99999999999",
         tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "S(99999999999)");),
    CASE("tess_nd_sbp_parse", "unknown reduction \"P(avg)\"", kInvalid, "avg",
         tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "P(avg)");),
    CASE("tess_nd_sbp_parse", "unclosed list \"(B,\"", kInvalid, "(B,", tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "(B,");),
    CASE("tess_nd_sbp_parse", "trailing text \"S(0)x\"", kInvalid, "S(0)x",
         tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "S(0)x");),
    CASE("tess_nd_sbp_parse", "nested list \"((B))\"", kInvalid, "((B))", tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, "((B))");),
    CASE("tess_nd_sbp_parse", "100 axes (past the axis limit)", kInvalid, "axes",
         std::string text = "(B";
         for (int i = 1; i < 100; ++i) text += ",B"; text += ")"; tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_parse(&o, text.c_str());),
    CASE("tess_nd_sbp_parse", "100007 characters of text", kInvalid, "100007",
         std::string text = "(B" + std::string(100004, ' ') + ")";
         tess_nd_sbp* o = nullptr; return tess_nd_sbp_parse(&o, text.c_str());),
    CASE("tess_nd_sbp_create", "out is NULL", kInvalid, "out",
         const tess_sbp_kind k[] = {TESS_SBP_BROADCAST};
         const int32_t a[] = {0}; return tess_nd_sbp_create(nullptr, k, a, 1);),
    CASE("tess_nd_sbp_create", "kinds is NULL with num_axes 1", kInvalid, "kinds",
         const int32_t a[] = {0};
         tess_nd_sbp* o = nullptr; return tess_nd_sbp_create(&o, nullptr, a, 1);),
    CASE("tess_nd_sbp_create", "kind 9", kInvalid, "9", const tess_sbp_kind k[] = {9};
         const int32_t a[] = {0}; tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_create(&o, k, a, 1);),
    CASE("tess_nd_sbp_create", "split axis -2", kInvalid, "-2",
         const tess_sbp_kind k[] = {TESS_SBP_SPLIT};
         const int32_t a[] = {-2}; tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_create(&o, k, a, 1);),
    CASE("tess_nd_sbp_create", "num_axes 0", kInvalid, "num_axes",
         const tess_sbp_kind k[] = {TESS_SBP_BROADCAST};
         const int32_t a[] = {0}; tess_nd_sbp* o = nullptr;
         return tess_nd_sbp_create(&o, k, a, 0);),
    CASE("tess_nd_sbp_create", "split_axes NULL with a split", kInvalid, "split_axes",
         const tess_sbp_kind k[] = {TESS_SBP_SPLIT};
         tess_nd_sbp* o = nullptr; return tess_nd_sbp_create(&o, k, nullptr, 1);),
    CASE("tess_nd_sbp_num_axes", "nd_sbp is NULL", kInvalid, "nd_sbp", size_t n;
         return tess_nd_sbp_num_axes(&n, nullptr);),
    CASE("tess_nd_sbp_get", "axis 4 of a 1-axis nd-sbp", kOutOfRange, "4", tess_sbp_kind k;
         int32_t a; return tess_nd_sbp_get(&k, &a, f.b, 4);),
    CASE("tess_nd_sbp_get", "out_kind is NULL", kInvalid, "out_kind", int32_t a;
         return tess_nd_sbp_get(nullptr, &a, f.b, 0);),
    CASE("tess_nd_sbp_equal", "a is NULL", kInvalid, "a", int32_t e;
         return tess_nd_sbp_equal(&e, nullptr, f.b);),

    // ---- layouts
    CASE("tess_layout_create", "out is NULL", kInvalid, "out",
         return tess_layout_create(nullptr, f.p, f.s0, kShape23, 2, 0);),
    CASE("tess_layout_create", "placement is NULL", kInvalid, "placement", tess_layout* o = nullptr;
         return tess_layout_create(&o, nullptr, f.s0, kShape23, 2, 0);),
    CASE("tess_layout_create", "nd_sbp is NULL", kInvalid, "nd_sbp", tess_layout* o = nullptr;
         return tess_layout_create(&o, f.p, nullptr, kShape23, 2, 0);),
    CASE("tess_layout_create", "S(2) of a 2-d shape", kInvalid, "S(2)", tess_layout* o = nullptr;
         return tess_layout_create(&o, f.p, f.s2, kShape23, 2, 0);),
    CASE("tess_layout_create", "2-axis nd-sbp on a 1-axis placement", kInvalid, "(B, B)",
         tess_layout* o = nullptr;
         return tess_layout_create(&o, f.p, f.bb, kShape23, 2, 0);),
    CASE("tess_layout_create", "negative dim -3", kInvalid, "-3", tess_layout* o = nullptr;
         return tess_layout_create(&o, f.p, f.s0, kNegative, 2, 0);),
    CASE("tess_layout_create", "shape [2^62+1,4] (element count overflows)", kInvalid, "overflows",
         tess_layout* o = nullptr;
         return tess_layout_create(&o, f.p, f.s0, kOverflowing, 2, 0);),
    CASE("tess_layout_create", "9 dims (past the limit of 8)", kInvalid, "9",
         tess_layout* o = nullptr;
         return tess_layout_create(&o, f.p, f.b, kNineDims, 9, 0);),
    CASE("tess_layout_create", "shape NULL with ndim 2", kInvalid, "shape",
         tess_layout* o = nullptr;
         return tess_layout_create(&o, f.p, f.b, nullptr, 2, 0);),
    CASE("tess_layout_create", "rank 5 outside the placement", kNotFound, "rank 5",
         tess_layout* o = nullptr;
         return tess_layout_create(&o, f.p, f.b, kShape23, 2, 5);),
    CASE("tess_layout_range", "layout is NULL", kInvalid, "layout", int64_t b, e;
         return tess_layout_range(&b, &e, nullptr, 0);),
    CASE("tess_layout_local_shape", "out_dims is NULL", kInvalid, "out_dims", size_t n;
         tess_layout* l = nullptr;
         tess_status st = tess_layout_create(&l, f.p, f.b, kShape23, 2, 0);
         if (st != TESS_OK) return st; st = tess_layout_local_shape(nullptr, &n, l);
         tess_layout_destroy(l); return st;),
    CASE("tess_layout_range", "dim 7 of a 2-d layout", kOutOfRange, "7", int64_t b, e;
         tess_layout* l = nullptr;
         tess_status st = tess_layout_create(&l, f.p, f.b, kShape23, 2, 0);
         if (st != TESS_OK) return st; st = tess_layout_range(&b, &e, l, 7); tess_layout_destroy(l);
         return st;),
    CASE("tess_layout_num_elements", "layout is NULL", kInvalid, "layout", int64_t n;
         return tess_layout_num_elements(&n, nullptr);),

    // ---- tensor creation
    CASE("tess_tensor_from_host", "out is NULL", kInvalid, "out",
         return tess_tensor_from_host(nullptr, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_from_host", "data is NULL for 6 elements", kInvalid, "buffer is NULL",
         tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, nullptr, kShape23, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_from_host", "shape is NULL with ndim 2", kInvalid, "shape",
         tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, nullptr, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_from_host", "negative dim -3", kInvalid, "-3", tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, kNegative, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_from_host", "shape [2^62+1,4] (element count overflows)", kInvalid,
         "overflows", tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_from_host", "dtype 42", kInvalid, "42", tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, kShape23, 2, 42, f.p, f.b);),
    CASE("tess_tensor_from_host", "placement is NULL", kInvalid, "placement",
         tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, kShape23, 2, TESS_DTYPE_F32, nullptr, f.b);),
    CASE("tess_tensor_from_host", "nd_sbp is NULL", kInvalid, "nd_sbp", tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, nullptr);),
    CASE("tess_tensor_from_host", "S(2) of a 2-d shape", kInvalid, "S(2)", tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.s2);),
    CASE("tess_tensor_from_host", "2-axis nd-sbp on a 1-axis placement", kInvalid, "(B, B)",
         tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.bb);),
    CASE("tess_tensor_from_host", "9 dims", kInvalid, "9", tess_tensor* o = nullptr;
         return tess_tensor_from_host(&o, f.data, kNineDims, 9, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_from_local", "local is NULL for 6 elements", kInvalid, "local",
         tess_tensor* o = nullptr;
         return tess_tensor_from_local(&o, nullptr, kShape23, 2, TESS_DTYPE_F32, f.p, f.b,
                                       nullptr);),
    CASE("tess_tensor_from_local", "local shape [2,3] but logical [5,3] split on 1 rank", kInvalid,
         "[5,3]", const int64_t logical[] = {5, 3};
         tess_tensor* o = nullptr; return tess_tensor_from_local(
             &o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.s0, logical);),
    CASE("tess_tensor_from_local", "logical shape [2^62+1,4]", kInvalid, "overflows",
         const int64_t local[] = {1, 4};
         tess_tensor* o = nullptr; return tess_tensor_from_local(
             &o, f.data, local, 2, TESS_DTYPE_F32, f.p, f.s0, kOverflowing);),
    CASE("tess_tensor_from_local", "local shape [2^62+1,4]", kInvalid, "overflows",
         tess_tensor* o = nullptr;
         return tess_tensor_from_local(&o, f.data, kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b,
                                       nullptr);),
    CASE("tess_tensor_from_local", "B with logical shape unlike the local one", kInvalid, "[3,2]",
         const int64_t logical[] = {3, 2};
         tess_tensor* o = nullptr; return tess_tensor_from_local(
             &o, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, logical);),
    CASE("tess_tensor_full", "shape [2^62] of f32 (byte size overflows)", kInvalid,
         "4611686018427387904", const int64_t s[] = {int64_t{1} << 62};
         tess_tensor* o = nullptr;
         return tess_tensor_full(&o, s, 1, TESS_DTYPE_F32, 1.0, f.p, f.s0);),
    CASE("tess_tensor_full", "shape [2^62+1,4] (element count overflows)", kInvalid, "overflows",
         tess_tensor* o = nullptr;
         return tess_tensor_full(&o, kOverflowing, 2, TESS_DTYPE_F32, 1.0, f.p, f.s0);),
    CASE("tess_tensor_full", "dtype -1", kInvalid, "-1", tess_tensor* o = nullptr;
         return tess_tensor_full(&o, kShape23, 2, -1, 1.0, f.p, f.b);),
    CASE("tess_tensor_full", "out is NULL", kInvalid, "out",
         return tess_tensor_full(nullptr, kShape23, 2, TESS_DTYPE_F32, 1.0, f.p, f.b);),
    CASE("tess_tensor_arange", "step 0", kInvalid, "step", tess_tensor* o = nullptr;
         return tess_tensor_arange(&o, 0, 10, 0, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_arange", "start NaN", kInvalid, "nan", tess_tensor* o = nullptr;
         return tess_tensor_arange(&o, kNaN, 10, 1, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_arange", "stop +inf", kInvalid, "inf", tess_tensor* o = nullptr;
         return tess_tensor_arange(&o, 0, kInf, 1, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_tensor_arange", "count past int64 (-1e308 to 1e308 by 1)", kInvalid, "arange",
         tess_tensor* o = nullptr;
         return tess_tensor_arange(&o, -1e308, 1e308, 1, TESS_DTYPE_F64, f.p, f.b);),
    CASE("tess_tensor_rand", "shape [2^62+1,4]", kInvalid, "overflows", tess_tensor* o = nullptr;
         return tess_tensor_rand(&o, kOverflowing, 2, TESS_DTYPE_F32, 1, f.p, f.b);),
    CASE("tess_tensor_rand", "placement is NULL", kInvalid, "placement", tess_tensor* o = nullptr;
         return tess_tensor_rand(&o, kShape23, 2, TESS_DTYPE_F32, 1, nullptr, f.b);),
    CASE("tess_tensor_randn", "negative dim -3", kInvalid, "-3", tess_tensor* o = nullptr;
         return tess_tensor_randn(&o, kNegative, 2, TESS_DTYPE_F32, 1, f.p, f.b);),
    CASE("tess_tensor_randn", "dtype 42", kInvalid, "42", tess_tensor* o = nullptr;
         return tess_tensor_randn(&o, kShape23, 2, 42, 1, f.p, f.b);),

    // ---- tensor queries and data
    CASE("tess_tensor_shape", "out_dims is NULL", kInvalid, "out_dims", size_t n;
         return tess_tensor_shape(nullptr, &n, f.x);),
    CASE("tess_tensor_shape", "tensor is NULL", kInvalid, "tensor", const int64_t* d; size_t n;
         return tess_tensor_shape(&d, &n, nullptr);),
    CASE("tess_tensor_num_elements", "tensor is NULL", kInvalid, "tensor", int64_t n;
         return tess_tensor_num_elements(&n, nullptr);),
    CASE("tess_tensor_dtype", "out is NULL", kInvalid, "out",
         return tess_tensor_dtype(nullptr, f.x);),
    CASE("tess_tensor_placement", "tensor is NULL", kInvalid, "tensor", tess_placement* o = nullptr;
         return tess_tensor_placement(&o, nullptr);),
    CASE("tess_tensor_nd_sbp", "out is NULL", kInvalid, "out",
         return tess_tensor_nd_sbp(nullptr, f.x);),
    CASE("tess_tensor_has_local", "tensor is NULL", kInvalid, "tensor", int32_t h;
         return tess_tensor_has_local(&h, nullptr);),
    CASE("tess_tensor_local_shape", "out_ndim is NULL", kInvalid, "out_ndim", const int64_t* d;
         return tess_tensor_local_shape(&d, nullptr, f.x);),
    CASE("tess_tensor_local_num_elements", "tensor is NULL", kInvalid, "tensor", int64_t n;
         return tess_tensor_local_num_elements(&n, nullptr);),
    CASE("tess_tensor_to_host", "out_bytes 23 for 24 bytes", kInvalid, "23", float out[6];
         return tess_tensor_to_host(out, 23, f.x);),
    CASE("tess_tensor_to_host", "out is NULL", kInvalid, "out",
         return tess_tensor_to_host(nullptr, 24, f.x);),
    CASE("tess_tensor_to_host", "tensor is NULL", kInvalid, "tensor", float out[6];
         return tess_tensor_to_host(out, sizeof(out), nullptr);),
    CASE("tess_tensor_copy_local", "out_bytes 4 for 24 bytes", kInvalid, "4", float out[6];
         return tess_tensor_copy_local(out, 4, f.x);),
    CASE("tess_tensor_to_global", "placement is NULL", kInvalid, "placement",
         tess_tensor* o = nullptr;
         return tess_tensor_to_global(&o, f.x, nullptr, f.b);),
    CASE("tess_tensor_to_global", "2-axis nd-sbp on a 1-axis placement", kInvalid, "(B, B)",
         tess_tensor* o = nullptr;
         return tess_tensor_to_global(&o, f.x, f.p, f.bb);),
    CASE("tess_tensor_to_global", "S(2) of a 2-d tensor", kInvalid, "S(2)",
         tess_tensor* o = nullptr;
         return tess_tensor_to_global(&o, f.x, f.p, f.s2);),
    CASE("tess_tensor_to_global", "tensor is NULL", kInvalid, "tensor", tess_tensor* o = nullptr;
         return tess_tensor_to_global(&o, nullptr, f.p, f.b);),

    // ---- DLPack
    CASE("tess_tensor_to_dlpack", "out is NULL", kInvalid, "out",
         return tess_tensor_to_dlpack(nullptr, f.x);),
    CASE("tess_tensor_to_dlpack_legacy", "tensor is NULL", kInvalid, "tensor",
         DLManagedTensor* o = nullptr;
         return tess_tensor_to_dlpack_legacy(&o, nullptr);),
    CASE("tess_tensor_from_dlpack", "local is NULL", kInvalid, "local", tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, nullptr, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "major version 2", kInvalid, "2",
         DLManagedTensorVersioned* m = Versioned();
         m->version.major = 2; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "ndim -1", kInvalid, "-1",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.ndim = -1; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "ndim 9", kInvalid, "9",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.ndim = 9; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "shape NULL", kInvalid, "shape",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.shape = nullptr; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "negative dim -3", kInvalid, "-3",
         DLManagedTensorVersioned* m = Versioned();
         dl_shape[1] = -3; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "data NULL for 6 elements", kInvalid, "buffer is NULL",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.data = nullptr; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "complex64 elements", kInvalid, "code 5, bits 64",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.dtype = {kDLComplex, 64, 1}; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "uint8 elements", kInvalid, "code 1, bits 8",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.dtype = {kDLUInt, 8, 1}; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "4 lanes", kInvalid, "lanes",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.dtype.lanes = 4; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "Vulkan device", kInvalid, "7",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.device = {kDLVulkan, 0}; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "stride 2^62 (offset overflows)", kInvalid, "stride",
         DLManagedTensorVersioned* m = Versioned();
         dl_strides[0] = int64_t{1} << 62; m->dl_tensor.strides = dl_strides;
         tess_tensor* o = nullptr; return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "negative stride -2^62", kInvalid, "stride",
         DLManagedTensorVersioned* m = Versioned();
         dl_strides[1] = -(int64_t{1} << 62); m->dl_tensor.strides = dl_strides;
         tess_tensor* o = nullptr; return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "byte_offset 2^63", kInvalid, "byte_offset",
         DLManagedTensorVersioned* m = Versioned();
         m->dl_tensor.byte_offset = uint64_t{1} << 63; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "shape [2^62+1,4]", kInvalid, "overflows",
         DLManagedTensorVersioned* m = Versioned();
         dl_shape[0] = kBig; dl_shape[1] = 4; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "placement is NULL", kInvalid, "placement",
         tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, Versioned(), nullptr, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack", "S(2) of a 2-d piece", kInvalid, "S(2)",
         tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack(&o, Versioned(), f.p, f.s2, nullptr);),
    CASE("tess_tensor_from_dlpack_legacy", "bool elements", kInvalid, "code 6, bits 8",
         DLManagedTensor* m = Legacy();
         m->dl_tensor.dtype = {kDLBool, 8, 1}; tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack_legacy(&o, m, f.p, f.b, nullptr);),
    CASE("tess_tensor_from_dlpack_legacy", "local is NULL", kInvalid, "local",
         tess_tensor* o = nullptr;
         return tess_tensor_from_dlpack_legacy(&o, nullptr, f.p, f.b, nullptr);),

    // ---- typed ops
    CASE("tess_add", "x is NULL", kInvalid, "x", tess_tensor* o = nullptr;
         return tess_add(&o, nullptr, f.x);),
    CASE("tess_add", "out is NULL", kInvalid, "out", return tess_add(nullptr, f.x, f.x);),
    CASE("tess_add", "shapes [2,3] and [3,2]", kInvalid, "[3,2]", tess_tensor* o = nullptr;
         return tess_add(&o, f.x, f.y);),
    CASE("tess_add", "dtypes f32 and i32", kInvalid, "i32", tess_tensor* o = nullptr;
         return tess_add(&o, f.x, f.xi);),
    CASE("tess_mul", "dtypes f32 and f64", kInvalid, "f64", tess_tensor* o = nullptr;
         return tess_mul(&o, f.x, f.xd);),
    CASE("tess_sub", "y is NULL", kInvalid, "y", tess_tensor* o = nullptr;
         return tess_sub(&o, f.x, nullptr);),
    CASE("tess_div", "shapes [2,3] and [4]", kInvalid, "[4]", tess_tensor* o = nullptr;
         return tess_div(&o, f.x, f.v);),
    CASE("tess_maximum", "shapes [2,3] and [3,2]", kInvalid, "[3,2]", tess_tensor* o = nullptr;
         return tess_maximum(&o, f.x, f.y);),
    CASE("tess_pow", "dtypes f32 and i32", kInvalid, "i32", tess_tensor* o = nullptr;
         return tess_pow(&o, f.x, f.xi);),
    CASE("tess_matmul", "inner dims 3 and 2 ([2,3] x [2,3])", kInvalid, "3",
         tess_tensor* o = nullptr;
         return tess_matmul(&o, f.x, f.x, 0, 0);),
    CASE("tess_matmul", "a is 1-d", kInvalid, "[4]", tess_tensor* o = nullptr;
         return tess_matmul(&o, f.v, f.x, 0, 0);),
    CASE("tess_matmul", "transpose_b makes inner dims 3 and 2", kInvalid, "3",
         tess_tensor* o = nullptr;
         return tess_matmul(&o, f.x, f.y, 0, 1);),
    CASE("tess_batch_matmul", "2-d operands", kInvalid, "batch_matmul", tess_tensor* o = nullptr;
         return tess_batch_matmul(&o, f.x, f.y, 0, 0);),
    CASE("tess_bias_add", "bias [4] on axis 1 of [2,3]", kInvalid, "[4]", tess_tensor* o = nullptr;
         return tess_bias_add(&o, f.x, f.v, 1);),
    CASE("tess_bias_add", "axis 5", kInvalid, "5", tess_tensor* o = nullptr;
         return tess_bias_add(&o, f.x, f.v, 5);),
    CASE("tess_reduce_sum", "axis 2 of a 2-d tensor", kInvalid, "2", const int64_t axes[] = {2};
         tess_tensor* o = nullptr; return tess_reduce_sum(&o, f.x, axes, 1, 0);),
    CASE("tess_reduce_sum", "axis -3 of a 2-d tensor", kInvalid, "-3", const int64_t axes[] = {-3};
         tess_tensor* o = nullptr; return tess_reduce_sum(&o, f.x, axes, 1, 0);),
    CASE("tess_reduce_max", "axis 1 twice", kInvalid, "1", const int64_t axes[] = {1, 1};
         tess_tensor* o = nullptr; return tess_reduce_max(&o, f.x, axes, 2, 0);),
    CASE("tess_reduce_mean", "axes NULL with num_axes 1", kInvalid, "axes",
         tess_tensor* o = nullptr;
         return tess_reduce_mean(&o, f.x, nullptr, 1, 0);),
    CASE("tess_reduce_min", "x is NULL", kInvalid, "x", const int64_t axes[] = {0};
         tess_tensor* o = nullptr; return tess_reduce_min(&o, nullptr, axes, 1, 0);),
    CASE("tess_reshape", "[2,3] to [4,2] (6 vs 8 elements)", kInvalid, "[4,2]",
         const int64_t s[] = {4, 2};
         tess_tensor* o = nullptr; return tess_reshape(&o, f.x, s, 2);),
    CASE("tess_reshape", "two -1 dims", kInvalid, "-1", const int64_t s[] = {-1, -1};
         tess_tensor* o = nullptr; return tess_reshape(&o, f.x, s, 2);),
    CASE("tess_reshape", "dim -5", kInvalid, "-5", const int64_t s[] = {-5, 6};
         tess_tensor* o = nullptr; return tess_reshape(&o, f.x, s, 2);),
    CASE("tess_reshape", "[2^62+1,4] (overflows)", kInvalid, "4611686018427387905",
         tess_tensor* o = nullptr;
         return tess_reshape(&o, f.x, kOverflowing, 2);),
    CASE("tess_slice", "step 0", kInvalid, "step", const int64_t a[] = {0, 0};
         const int64_t b[] = {2, 3}; const int64_t s[] = {1, 0}; tess_tensor* o = nullptr;
         return tess_slice(&o, f.x, a, 2, b, 2, s, 2);),
    CASE("tess_slice", "1 start for a 2-d tensor", kInvalid, "start", const int64_t a[] = {0};
         const int64_t b[] = {2, 3}; const int64_t s[] = {1, 1}; tess_tensor* o = nullptr;
         return tess_slice(&o, f.x, a, 1, b, 2, s, 2);),
    CASE("tess_transpose", "perm [0,0]", kInvalid, "[0,0]", const int64_t p[] = {0, 0};
         tess_tensor* o = nullptr; return tess_transpose(&o, f.x, p, 2);),
    CASE("tess_transpose", "perm [0,2]", kInvalid, "2", const int64_t p[] = {0, 2};
         tess_tensor* o = nullptr; return tess_transpose(&o, f.x, p, 2);),
    CASE("tess_transpose", "3 perm entries for a 2-d tensor", kInvalid, "perm",
         const int64_t p[] = {0, 1, 2};
         tess_tensor* o = nullptr; return tess_transpose(&o, f.x, p, 3);),
    CASE("tess_cast", "dtype 42", kInvalid, "42", tess_tensor* o = nullptr;
         return tess_cast(&o, f.x, 42);),
    CASE("tess_concat", "no inputs", kInvalid, "concat", tess_tensor* o = nullptr;
         return tess_concat(&o, nullptr, 0, 0);),
    CASE("tess_concat", "axis 2 of 2-d inputs", kInvalid, "2", const tess_tensor* in[] = {f.x, f.x};
         tess_tensor* o = nullptr; return tess_concat(&o, in, 2, 2);),
    CASE("tess_concat", "[2,3] and [3,2] on axis 0", kInvalid, "[3,2]",
         const tess_tensor* in[] = {f.x, f.y};
         tess_tensor* o = nullptr; return tess_concat(&o, in, 2, 0);),
    CASE("tess_concat", "a NULL input", kInvalid, "in", const tess_tensor* in[] = {f.x, nullptr};
         tess_tensor* o = nullptr; return tess_concat(&o, in, 2, 0);),
    CASE("tess_add_n", "no inputs", kInvalid, "add_n", tess_tensor* o = nullptr;
         return tess_add_n(&o, nullptr, 0);),
    CASE("tess_add_n", "shapes [2,3] and [3,2]", kInvalid, "[3,2]",
         const tess_tensor* in[] = {f.x, f.y};
         tess_tensor* o = nullptr; return tess_add_n(&o, in, 2);),
    CASE("tess_softmax", "axis 2 of a 2-d tensor", kInvalid, "2", tess_tensor* o = nullptr;
         return tess_softmax(&o, f.x, 2);),
    CASE("tess_log_softmax", "axis -3 of a 2-d tensor", kInvalid, "-3", tess_tensor* o = nullptr;
         return tess_log_softmax(&o, f.x, -3);),
    CASE("tess_gather", "float indices", kInvalid, "f32", tess_tensor* o = nullptr;
         return tess_gather(&o, f.x, f.x, 0);),
    CASE("tess_gather", "axis 4", kInvalid, "4", tess_tensor* o = nullptr;
         return tess_gather(&o, f.x, f.xi, 4);),
    CASE("tess_embedding", "float indices", kInvalid, "f32", tess_tensor* o = nullptr;
         return tess_embedding(&o, f.x, f.x);),
    CASE("tess_sparse_softmax_cross_entropy", "float labels", kInvalid, "f32",
         tess_tensor* p = nullptr;
         tess_tensor* o = nullptr; return tess_sparse_softmax_cross_entropy(&p, &o, f.x, f.x);),
    CASE("tess_layer_norm", "begin_norm_axis 5", kInvalid, "5", tess_tensor* y = nullptr,
         *m = nullptr, *iv = nullptr;
         return tess_layer_norm(&y, &m, &iv, f.x, f.v, f.v, 5, 5, 1e-5);),
    CASE("tess_sqrt", "x is NULL", kInvalid, "x", tess_tensor* o = nullptr;
         return tess_sqrt(&o, nullptr);),
    CASE("tess_relu", "out is NULL", kInvalid, "out", return tess_relu(nullptr, f.x);),
    CASE("tess_scalar_add", "x is NULL", kInvalid, "x", tess_tensor* o = nullptr;
         return tess_scalar_add(&o, nullptr, 1.0);),
    CASE("tess_add", "inputs on cpu:[0] and cpu:[[0]] (different placements)", kInvalid,
         "placement", tess_tensor* t = nullptr;
         tess_tensor* o = nullptr; tess_status st = tess_tensor_to_global(&t, f.x, f.p2d, f.bb);
         if (st != TESS_OK) return st; st = tess_add(&o, f.x, t); tess_tensor_destroy(t);
         tess_tensor_destroy(o); return st;),

    // ---- op calls and inference
    CASE("tess_op_call_create", "out is NULL", kInvalid, "out",
         return tess_op_call_create(nullptr, "add");),
    CASE("tess_op_call_create", "op_name is NULL", kInvalid, "op_name", tess_op_call* o = nullptr;
         return tess_op_call_create(&o, nullptr);),
    CASE("tess_op_call_create", "unknown op \"nope\"", kNotFound, "nope", tess_op_call* o = nullptr;
         return tess_op_call_create(&o, "nope");),
    CASE("tess_op_call_create", "empty op name", kNotFound, "op", tess_op_call* o = nullptr;
         return tess_op_call_create(&o, "");),
    CASE("tess_op_call_set_attr_int", "call is NULL", kInvalid, "call",
         return tess_op_call_set_attr_int(nullptr, "axis", 1);),
    CASE("tess_op_call_set_attr_int", "unknown attribute \"bogus\"", kInvalid, "bogus",
         return tess_op_call_set_attr_int(f.add, "bogus", 1);),
    CASE("tess_op_call_set_attr_int", "name is NULL", kInvalid, "name",
         return tess_op_call_set_attr_int(f.add, nullptr, 1);),
    CASE("tess_op_call_set_attr_float", "NaN attribute on an op without it", kInvalid, "alpha",
         return tess_op_call_set_attr_float(f.add, "alpha", kNaN);),
    CASE("tess_op_call_set_attr_ints", "values NULL with 2 values", kInvalid, "values",
         return tess_op_call_set_attr_ints(f.add, "axes", nullptr, 2);),
    CASE("tess_op_call_set_attr_bool", "call is NULL", kInvalid, "call",
         return tess_op_call_set_attr_bool(nullptr, "keepdims", 1);),
    CASE("tess_op_call_set_attr_dtype", "dtype 42", kInvalid, "42", tess_op_call* c = nullptr;
         tess_status st = tess_op_call_create(&c, "cast"); if (st != TESS_OK) return st;
         st = tess_op_call_set_attr_dtype(c, "dtype", 42); tess_op_call_destroy(c); return st;),
    CASE("tess_op_call_set_attr_int", "int value for the dtype attribute of cast", kInvalid,
         "dtype", tess_op_call* c = nullptr;
         tess_status st = tess_op_call_create(&c, "cast"); if (st != TESS_OK) return st;
         st = tess_op_call_set_attr_int(c, "dtype", 1); tess_op_call_destroy(c); return st;),
    CASE("tess_op_call_add_input", "placement is NULL", kInvalid, "placement",
         return tess_op_call_add_input(f.add, kShape23, 2, TESS_DTYPE_F32, nullptr, f.b);),
    CASE("tess_op_call_add_input", "shape [2^62+1,4]", kInvalid, "overflows",
         return tess_op_call_add_input(f.add, kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_op_call_add_input", "dtype 42", kInvalid, "42",
         return tess_op_call_add_input(f.add, kShape23, 2, 42, f.p, f.b);),
    CASE("tess_op_call_add_input", "S(2) of a 2-d input", kInvalid, "S(2)",
         return tess_op_call_add_input(f.add, kShape23, 2, TESS_DTYPE_F32, f.p, f.s2);),
    CASE("tess_op_call_add_input", "a third input to add", kInvalid, "3", tess_op_call* c = nullptr;
         tess_status st = tess_op_call_create(&c, "add");
         for (int i = 0; st == TESS_OK && i < 3; ++i) st =
             tess_op_call_add_input(c, kShape23, 2, TESS_DTYPE_F32, f.p, f.b);
         tess_op_call_destroy(c); return st;),
    CASE("tess_op_call_num_inputs", "out is NULL", kInvalid, "out",
         return tess_op_call_num_inputs(nullptr, f.add);),
    CASE("tess_op_call_constrain_input", "slot 5 of relu", kInvalid, "slot 5",
         return tess_op_call_constrain_input(f.relu, 5, f.b);),
    CASE("tess_op_call_constrain_output", "slot 5 of relu", kInvalid, "slot 5",
         return tess_op_call_constrain_output(f.relu, 5, f.b);),
    CASE("tess_op_call_constrain_input", "nd_sbp is NULL", kInvalid, "nd_sbp",
         return tess_op_call_constrain_input(f.relu, 0, nullptr);),
    CASE("tess_op_call_infer", "add with no inputs", kInvalid, "add",
         tess_infer_result* r = nullptr;
         return tess_op_call_infer(&r, f.add);),
    CASE("tess_op_call_infer", "out is NULL", kInvalid, "out",
         return tess_op_call_infer(nullptr, f.relu);),
    CASE("tess_op_call_infer", "call is NULL", kInvalid, "call", tess_infer_result* r = nullptr;
         return tess_op_call_infer(&r, nullptr);),
    CASE("tess_op_call_explain", "call is NULL", kInvalid, "call", tess_explanation* e = nullptr;
         return tess_op_call_explain(&e, nullptr);),
    CASE("tess_op_call_apply", "inputs NULL for relu's one input", kInvalid, "inputs",
         tess_tensor * o[1] = {};
         size_t n = 0; return tess_op_call_apply(o, 1, &n, f.bare_relu, nullptr, 1);),
    CASE("tess_op_call_apply", "2 inputs for relu's 1", kInvalid, "2",
         const tess_tensor* in[] = {f.x, f.x};
         tess_tensor * o[1] = {}; size_t n = 0;
         return tess_op_call_apply(o, 1, &n, f.bare_relu, in, 2);),
    CASE("tess_op_call_apply", "a call that holds input metas", kInvalid, "relu",
         const tess_tensor* in[] = {f.x};
         tess_tensor * o[1] = {}; size_t n = 0;
         return tess_op_call_apply(o, 1, &n, f.relu, in, 1);),
    CASE("tess_op_call_apply", "outputs_capacity 0", kInvalid, "outputs_capacity",
         const tess_tensor* in[] = {f.x};
         tess_tensor * o[1] = {}; size_t n = 0;
         return tess_op_call_apply(o, 0, &n, f.bare_relu, in, 1);),
    CASE("tess_op_call_apply", "a NULL input", kInvalid, "input",
         const tess_tensor* in[] = {nullptr};
         tess_tensor * o[1] = {}; size_t n = 0;
         return tess_op_call_apply(o, 1, &n, f.bare_relu, in, 1);),
    CASE("tess_infer_result_output_shape", "output 5 of 1", kOutOfRange, "5", const int64_t* d;
         size_t n; return tess_infer_result_output_shape(&d, &n, f.inferred, 5);),
    CASE("tess_infer_result_input_nd_sbp", "input 3 of 1", kOutOfRange, "3",
         tess_nd_sbp* s = nullptr;
         return tess_infer_result_input_nd_sbp(&s, f.inferred, 3);),
    CASE("tess_infer_result_needs_boxing", "input 3 of 1", kOutOfRange, "3", int32_t b;
         return tess_infer_result_needs_boxing(&b, f.inferred, 3);),
    CASE("tess_infer_result_input_cost", "result is NULL", kInvalid, "result", double c;
         return tess_infer_result_input_cost(&c, nullptr, 0);),
    CASE("tess_infer_result_output_dtype", "out is NULL", kInvalid, "out",
         return tess_infer_result_output_dtype(nullptr, f.inferred, 0);),
    CASE("tess_infer_result_total_cost", "result is NULL", kInvalid, "result", double c;
         return tess_infer_result_total_cost(&c, nullptr);),
    CASE("tess_infer_cache_set_capacity", "SIZE_MAX entries", kInvalid, "capacity",
         return tess_infer_cache_set_capacity(SIZE_MAX);),
    CASE("tess_infer_cache_set_capacity", "2^31 entries", kInvalid, "capacity",
         return tess_infer_cache_set_capacity(size_t{1} << 31);),
    CASE("tess_infer_cache_get_stats", "out is NULL", kInvalid, "out",
         return tess_infer_cache_get_stats(nullptr);),
    CASE("tess_infer_cache_get_stats", "struct_size 4 (smaller than the first version)", kInvalid,
         "struct_size", tess_infer_cache_stats s = TESS_INFER_CACHE_STATS_INIT;
         s.struct_size = 4; return tess_infer_cache_get_stats(&s);),
    CASE("tess_explanation_last", "out is NULL", kInvalid, "out",
         return tess_explanation_last(nullptr);),

    // ---- collectives
    CASE("tess_comm_allreduce", "buffer NULL with count 4", kInvalid, "buffer",
         return tess_comm_allreduce(nullptr, 4, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p,
                                    TESS_ALLREDUCE_AUTO);),
    CASE("tess_comm_allreduce", "count -1", kInvalid, "-1",
         return tess_comm_allreduce(f.data, -1, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p,
                                    TESS_ALLREDUCE_AUTO);),
    CASE("tess_comm_allreduce", "dtype 42", kInvalid, "42",
         return tess_comm_allreduce(f.data, 4, 42, TESS_REDUCE_SUM, f.p, TESS_ALLREDUCE_AUTO);),
    CASE("tess_comm_allreduce", "reduce op 99", kInvalid, "99",
         return tess_comm_allreduce(f.data, 4, TESS_DTYPE_F32, 99, f.p, TESS_ALLREDUCE_AUTO);),
    CASE("tess_comm_allreduce", "algorithm 77", kInvalid, "77",
         return tess_comm_allreduce(f.data, 4, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p, 77);),
    CASE("tess_comm_allreduce", "placement cpu:[3] (rank 3 of a 1-rank world)", kOutOfRange,
         "rank 3", tess_placement* q = nullptr;
         tess_status st = tess_placement_parse(&q, "cpu:[3]"); if (st != TESS_OK) return st;
         st = tess_comm_allreduce(f.data, 4, TESS_DTYPE_F32, TESS_REDUCE_SUM, q,
                                  TESS_ALLREDUCE_AUTO);
         tess_placement_destroy(q); return st;),
    CASE("tess_comm_set_collective_timeout", "NaN seconds", kInvalid, "nan",
         return tess_comm_set_collective_timeout(kNaN);),
    CASE("tess_comm_set_collective_timeout", "-1 seconds", kInvalid, "-1",
         return tess_comm_set_collective_timeout(-1.0);),
    CASE("tess_comm_set_collective_timeout", "1e10 seconds (above the 1e6 limit)", kInvalid,
         "1e+10", return tess_comm_set_collective_timeout(1e10);),
    CASE("tess_comm_set_collective_timeout", "+inf seconds", kInvalid, "inf",
         return tess_comm_set_collective_timeout(kInf);),
    CASE("tess_comm_collective_timeout", "out is NULL", kInvalid, "out",
         return tess_comm_collective_timeout(nullptr);),
    CASE("tess_bucketed_allreducer_create", "out is NULL", kInvalid, "out",
         return tess_bucketed_allreducer_create(nullptr, nullptr);),
    CASE("tess_bucketed_allreducer_create", "options.struct_size 0", kInvalid, "struct_size",
         tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
         o.struct_size = 0; tess_bucketed_allreducer* r = nullptr;
         return tess_bucketed_allreducer_create(&r, &o);),
    CASE("tess_bucketed_allreducer_create", "bucket_bytes -5", kInvalid, "-5",
         tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
         o.bucket_bytes = -5; tess_bucketed_allreducer* r = nullptr;
         return tess_bucketed_allreducer_create(&r, &o);),
    CASE("tess_bucketed_allreducer_run", "reducer is NULL", kInvalid, "reducer",
         void* bufs[] = {f.data};
         const int64_t counts[] = {4}; return tess_bucketed_allreducer_run(
             nullptr, bufs, counts, 1, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p);),
    CASE("tess_bucketed_allreducer_run", "counts NULL with 1 tensor", kInvalid, "counts",
         void* bufs[] = {f.data};
         return tess_bucketed_allreducer_run(f.reducer, bufs, nullptr, 1, TESS_DTYPE_F32,
                                             TESS_REDUCE_SUM, f.p);),
    CASE("tess_bucketed_allreducer_run", "count -4", kInvalid, "-4", void* bufs[] = {f.data};
         const int64_t counts[] = {-4}; return tess_bucketed_allreducer_run(
             f.reducer, bufs, counts, 1, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p);),
    CASE("tess_bucketed_allreducer_run", "counts 2^63-1 and 2 (past MPI's int counts)", kOutOfRange,
         "9223372036854775807", void* bufs[] = {f.data, f.data};
         const int64_t counts[] = {std::numeric_limits<int64_t>::max(), 2};
         return tess_bucketed_allreducer_run(f.reducer, bufs, counts, 2, TESS_DTYPE_F32,
                                             TESS_REDUCE_SUM, f.p);),
    CASE("tess_bucketed_allreducer_get_stats", "struct_size 0", kInvalid, "struct_size",
         tess_bucketed_allreducer_stats s = TESS_BUCKETED_ALLREDUCER_STATS_INIT;
         s.struct_size = 0; return tess_bucketed_allreducer_get_stats(&s, f.reducer);),

    // ---- boxing
    CASE("tess_boxing_run", "in_local NULL with 24 bytes", kInvalid, "in_local", float out[6];
         return tess_boxing_run(out, sizeof(out), nullptr, 24, kShape23, 2, TESS_DTYPE_F32, f.p,
                                f.b, f.p, f.s0);),
    CASE("tess_boxing_run", "out_bytes 8 for 24", kInvalid, "8", float out[6];
         return tess_boxing_run(out, 8, f.data, 24, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, f.p,
                                f.s0);),
    CASE("tess_boxing_run", "in_bytes 20 for 24", kInvalid, "20", float out[6];
         return tess_boxing_run(out, sizeof(out), f.data, 20, kShape23, 2, TESS_DTYPE_F32, f.p, f.b,
                                f.p, f.s0);),
    CASE("tess_boxing_run", "shape [2^62+1,4]", kInvalid, "overflows", float out[6];
         return tess_boxing_run(out, sizeof(out), f.data, 24, kOverflowing, 2, TESS_DTYPE_F32, f.p,
                                f.b, f.p, f.s0);),
    CASE("tess_boxing_run", "dst nd_sbp NULL", kInvalid, "dst", float out[6];
         return tess_boxing_run(out, sizeof(out), f.data, 24, kShape23, 2, TESS_DTYPE_F32, f.p, f.b,
                                f.p, nullptr);),
    CASE("tess_boxing_run", "src 2-axis nd-sbp on a 1-axis placement", kInvalid, "(B, B)",
         float out[6];
         return tess_boxing_run(out, sizeof(out), f.data, 24, kShape23, 2, TESS_DTYPE_F32, f.p,
                                f.bb, f.p, f.s0);),
    CASE(
        "tess_boxing_plan_create", "out is NULL", kInvalid, "out",
        return tess_boxing_plan_create(nullptr, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, f.p, f.s0);),
    CASE("tess_boxing_plan_create", "shape [2^62+1,4]", kInvalid, "overflows",
         tess_boxing_plan* o = nullptr;
         return tess_boxing_plan_create(&o, kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b, f.p, f.s0);),
    CASE("tess_boxing_plan_create", "dst S(2) of a 2-d shape", kInvalid, "S(2)",
         tess_boxing_plan* o = nullptr;
         return tess_boxing_plan_create(&o, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, f.p, f.s2);),
    CASE("tess_boxing_plan_num_steps", "plan is NULL", kInvalid, "plan", size_t n;
         return tess_boxing_plan_num_steps(&n, nullptr);),
    CASE("tess_boxing_plan_cost", "out is NULL", kInvalid, "out",
         return tess_boxing_plan_cost(nullptr, f.boxing);),

    // ---- programs and capture
    CASE("tess_program_create", "out is NULL", kInvalid, "out",
         return tess_program_create(nullptr);),
    CASE("tess_program_add_input", "program is NULL", kInvalid, "program", int64_t id;
         return tess_program_add_input(&id, nullptr, "a", kShape23, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_program_add_input", "name is NULL", kInvalid, "name", int64_t id;
         return tess_program_add_input(&id, f.program, nullptr, kShape23, 2, TESS_DTYPE_F32, f.p,
                                       f.b);),
    CASE(
        "tess_program_add_input", "name \"a\" already taken", kInvalid, "a", int64_t id;
        return tess_program_add_input(&id, f.program, "a", kShape23, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_program_add_input", "shape [2^62+1,4]", kInvalid, "overflows", int64_t id;
         return tess_program_add_input(&id, f.program, "huge", kOverflowing, 2, TESS_DTYPE_F32, f.p,
                                       f.b);),
    CASE("tess_program_add_variable", "value is NULL", kInvalid, "value", int64_t id;
         return tess_program_add_variable(&id, f.program, "w", nullptr);),
    CASE("tess_program_add_op", "value id 99 not in the program", kInvalid, "99", int64_t first;
         size_t n; const int64_t ids[] = {99};
         return tess_program_add_op(&first, &n, f.program, f.bare_relu, ids, 1);),
    CASE("tess_program_add_op", "2 values for relu's 1 input", kInvalid, "2", int64_t first;
         size_t n; const int64_t ids[] = {f.program_input, f.program_input};
         return tess_program_add_op(&first, &n, f.program, f.bare_relu, ids, 2);),
    CASE("tess_program_add_op", "value ids NULL with 1 value", kInvalid, "value_ids", int64_t first;
         size_t n; return tess_program_add_op(&first, &n, f.program, f.bare_relu, nullptr, 1);),
    CASE("tess_program_add_op", "a call holding input metas", kInvalid, "input metas",
         int64_t first;
         size_t n; const int64_t ids[] = {f.program_input};
         return tess_program_add_op(&first, &n, f.program, f.relu, ids, 1);),
    CASE("tess_program_mark_output", "value id -4", kInvalid, "-4",
         return tess_program_mark_output(f.program, -4);),
    CASE("tess_program_sizes", "program is NULL", kInvalid, "program", int64_t a, b, c, d;
         return tess_program_sizes(&a, &b, &c, &d, nullptr);),
    CASE("tess_capture_end", "no capture active", kPrecondition, "capture",
         tess_program* o = nullptr;
         return tess_capture_end(&o, nullptr, 0);),
    CASE("tess_capture_placeholder", "no capture active", kPrecondition, "capture",
         tess_tensor* o = nullptr;
         return tess_capture_placeholder(&o, "a", kShape23, 2, TESS_DTYPE_F32, f.p, f.b);),
    CASE("tess_capture_begin", "a capture already active", kPrecondition, "capture",
         tess_status st = tess_capture_begin();
         if (st != TESS_OK) return st; st = tess_capture_begin(); tess_capture_abort(); return st;),
    CASE("tess_capture_placeholder", "shape [2^62+1,4]", kInvalid, "overflows",
         tess_status st = tess_capture_begin();
         if (st != TESS_OK) return st; tess_tensor* o = nullptr;
         st = tess_capture_placeholder(&o, "a", kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b);
         tess_capture_abort(); return st;),
    CASE("tess_capture_active", "out is NULL", kInvalid, "out",
         return tess_capture_active(nullptr);),

    // ---- plans
    CASE("tess_plan_compile", "program is NULL", kInvalid, "program", tess_plan* o = nullptr;
         return tess_plan_compile(&o, nullptr, nullptr);),
    CASE("tess_plan_compile", "a program without outputs", kInvalid, "output",
         tess_program* prog = nullptr;
         tess_status st = tess_program_create(&prog); if (st != TESS_OK) return st;
         tess_plan* o = nullptr; st = tess_plan_compile(&o, prog, nullptr);
         tess_program_destroy(prog); tess_plan_destroy(o); return st;),
    CASE("tess_plan_compile", "options.struct_size 3", kInvalid, "struct_size",
         tess_plan_compile_options o = TESS_PLAN_COMPILE_OPTIONS_INIT;
         o.struct_size = 3; tess_plan* p = nullptr; return tess_plan_compile(&p, f.program, &o);),
    CASE("tess_plan_compile", "input_register_num 9", kInvalid, "9",
         tess_plan_compile_options o = TESS_PLAN_COMPILE_OPTIONS_INIT;
         o.input_register_num = 9; tess_plan* p = nullptr;
         return tess_plan_compile(&p, f.program, &o);),
    CASE("tess_plan_compile", "input_register_num -1", kInvalid, "-1",
         tess_plan_compile_options o = TESS_PLAN_COMPILE_OPTIONS_INIT;
         o.input_register_num = -1; tess_plan* p = nullptr;
         return tess_plan_compile(&p, f.program, &o);),
    CASE("tess_plan_instantiate", "plan is NULL", kInvalid, "plan", tess_plan_instance* o = nullptr;
         return tess_plan_instantiate(&o, nullptr);),
    CASE("tess_plan_instance_run", "0 inputs for 1", kInvalid, "0",
         return tess_plan_instance_run(f.instance, nullptr, 0);),
    CASE("tess_plan_instance_run", "input of shape [3,2] for [2,3]", kInvalid, "[3,2]",
         const tess_tensor* in[] = {f.y};
         return tess_plan_instance_run(f.instance, in, 1);),
    CASE("tess_plan_instance_run", "input of dtype i32 for f32", kInvalid, "i32",
         const tess_tensor* in[] = {f.xi};
         return tess_plan_instance_run(f.instance, in, 1);),
    CASE("tess_plan_instance_run", "a NULL input", kInvalid, "input",
         const tess_tensor* in[] = {nullptr};
         return tess_plan_instance_run(f.instance, in, 1);),
    CASE("tess_plan_instance_run", "instance is NULL", kInvalid, "instance",
         const tess_tensor* in[] = {f.x};
         return tess_plan_instance_run(nullptr, in, 1);),
    CASE("tess_plan_instance_push", "timeout NaN", kInvalid, "NaN", const tess_tensor* in[] = {f.x};
         return tess_plan_instance_push(f.instance, in, 1, kNaN);),
    CASE("tess_plan_instance_push", "timeout 1e10 s", kInvalid, "1e+10",
         const tess_tensor* in[] = {f.x};
         return tess_plan_instance_push(f.instance, in, 1, 1e10);),
    CASE("tess_plan_instance_run_pushed", "timeout NaN", kInvalid, "NaN",
         return tess_plan_instance_run_pushed(f.instance, kNaN);),
    CASE("tess_plan_instance_run_pushed", "nothing pushed, timeout 0.01 s", TESS_DEADLINE_EXCEEDED,
         "0.01", return tess_plan_instance_run_pushed(f.instance, 0.01);),
    CASE("tess_plan_instance_run_local", "local_bytes 4 for 24", kInvalid, "4",
         const void* locals[] = {f.data};
         const size_t bytes[] = {4};
         return tess_plan_instance_run_local(f.instance, locals, bytes, 1);),
    CASE("tess_plan_instance_run_local", "a NULL local", kInvalid, "local",
         const void* locals[] = {nullptr};
         const size_t bytes[] = {24};
         return tess_plan_instance_run_local(f.instance, locals, bytes, 1);),
    CASE("tess_plan_instance_output", "index 3 of 1", kOutOfRange, "3", tess_tensor* o = nullptr;
         return tess_plan_instance_output(&o, f.instance, 3);),
    CASE("tess_plan_instance_output_local", "an instance that has not run", kPrecondition,
         "not run yet", float out[6];
         return tess_plan_instance_output_local(out, 2, f.instance, 0);),
    CASE("tess_plan_instance_output_local_shape", "index 8 of 1", kOutOfRange, "8",
         const int64_t* d;
         size_t n; return tess_plan_instance_output_local_shape(&d, &n, f.instance, 8);),
    CASE("tess_plan_instance_output_dtype", "out is NULL", kInvalid, "out",
         return tess_plan_instance_output_dtype(nullptr, f.instance, 0);),
    CASE("tess_plan_instance_get_stats", "struct_size 1", kInvalid, "struct_size",
         tess_plan_stats s = TESS_PLAN_STATS_INIT;
         s.struct_size = 1; return tess_plan_instance_get_stats(&s, f.instance);),
    CASE("tess_plan_instance_mem_case_bytes", "index 99", kOutOfRange, "99", int64_t a, b, c;
         return tess_plan_instance_mem_case_bytes(&a, &b, &c, f.instance, 99);),
    CASE("tess_plan_instance_num_mem_cases", "instance is NULL", kInvalid, "instance", size_t n;
         return tess_plan_instance_num_mem_cases(&n, nullptr);),

    // ---- runtime and memory
    CASE("tess_runtime_init_with_options", "struct_size 3", kInvalid, "struct_size",
         tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
         o.struct_size = 3; return tess_runtime_init_with_options(&o);),
    CASE("tess_runtime_init_with_options", "collective timeout NaN", kInvalid, "nan",
         tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
         o.collective_timeout_seconds = kNaN; return tess_runtime_init_with_options(&o);),
    CASE("tess_runtime_init_with_options", "collective timeout 1e10", kInvalid, "1e+10",
         tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
         o.collective_timeout_seconds = 1e10; return tess_runtime_init_with_options(&o);),
    CASE("tess_runtime_init_with_options", "MPI thread level 7", kInvalid, "7",
         tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
         o.mpi_thread_level = 7; return tess_runtime_init_with_options(&o);),
    CASE("tess_runtime_init_with_options", "MPI thread level SINGLE", kInvalid, "0",
         tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
         o.mpi_thread_level = TESS_MPI_THREAD_SINGLE; return tess_runtime_init_with_options(&o);),
    CASE("tess_runtime_init_with_options", "cuda_device -7", kInvalid, "-7",
         tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
         o.cuda_device = -7; return tess_runtime_init_with_options(&o);),
    CASE("tess_runtime_init_with_options", "check_mode 5", kInvalid, "5",
         tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
         o.check_mode = 5; return tess_runtime_init_with_options(&o);),
    CASE("tess_runtime_init_with_options", "reserved 1", kInvalid, "reserved",
         tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
         o.reserved = 1; return tess_runtime_init_with_options(&o);),
    CASE("tess_runtime_world_rank", "out_rank is NULL", kInvalid, "out_rank",
         return tess_runtime_world_rank(nullptr);),
    CASE("tess_runtime_world_size", "out_size is NULL", kInvalid, "out_size",
         return tess_runtime_world_size(nullptr);),
    CASE("tess_runtime_cuda_info", "out_device_count is NULL", kInvalid, "out_device_count",
         int32_t b;
         return tess_runtime_cuda_info(&b, nullptr);),
    CASE("tess_allocator_get_stats", "allocator 99", kInvalid, "99",
         tess_allocator_stats s = TESS_ALLOCATOR_STATS_INIT;
         return tess_allocator_get_stats(&s, 99);),
    CASE("tess_allocator_get_stats", "out is NULL", kInvalid, "out",
         return tess_allocator_get_stats(nullptr, TESS_ALLOCATOR_HOST);),
    CASE("tess_allocator_get_stats", "struct_size 2", kInvalid, "struct_size",
         tess_allocator_stats s = TESS_ALLOCATOR_STATS_INIT;
         s.struct_size = 2; return tess_allocator_get_stats(&s, TESS_ALLOCATOR_HOST);),
  };
  return cases;
}

// Builds the fixture; false (with a message) when a valid call fails.
bool MakeFixture() {
  auto ok = [](tess_status st, const char* what) {
    if (st == TESS_OK) return true;
    std::fprintf(stderr, "fixture: %s failed: %s\n", what, tess_last_error_message());
    return false;
  };
  for (int i = 0; i < 64; ++i) f.data[i] = static_cast<float>(i);
  const int64_t shape32[] = {3, 2};
  const int64_t shape4[] = {4};
  const int32_t ints[6] = {0, 1, 0, 1, 0, 1};
  const double doubles[6] = {0, 1, 2, 3, 4, 5};
  return ok(tess_placement_parse(&f.p, "cpu:[0]"), "placement cpu:[0]") &&
         ok(tess_placement_parse(&f.p2d, "cpu:[[0]]"), "placement cpu:[[0]]") &&
         ok(tess_nd_sbp_parse(&f.b, "B"), "B") && ok(tess_nd_sbp_parse(&f.s0, "S(0)"), "S(0)") &&
         ok(tess_nd_sbp_parse(&f.s1, "S(1)"), "S(1)") &&
         ok(tess_nd_sbp_parse(&f.s2, "S(2)"), "S(2)") &&
         ok(tess_nd_sbp_parse(&f.bb, "(B, B)"), "(B, B)") &&
         ok(tess_nd_sbp_parse(&f.psum, "P"), "P") &&
         ok(tess_tensor_from_host(&f.x, f.data, kShape23, 2, TESS_DTYPE_F32, f.p, f.b), "x") &&
         ok(tess_tensor_from_host(&f.y, f.data, shape32, 2, TESS_DTYPE_F32, f.p, f.b), "y") &&
         ok(tess_tensor_from_host(&f.v, f.data, shape4, 1, TESS_DTYPE_F32, f.p, f.b), "v") &&
         ok(tess_tensor_from_host(&f.xi, ints, kShape23, 2, TESS_DTYPE_I32, f.p, f.b), "xi") &&
         ok(tess_tensor_from_host(&f.xd, doubles, kShape23, 2, TESS_DTYPE_F64, f.p, f.b), "xd") &&
         ok(tess_op_call_create(&f.add, "add"), "op call add") &&
         ok(tess_op_call_create(&f.relu, "relu"), "op call relu") &&
         ok(tess_op_call_create(&f.bare_relu, "relu"), "op call relu (bare)") &&
         ok(tess_op_call_add_input(f.relu, kShape23, 2, TESS_DTYPE_F32, f.p, f.b), "relu input") &&
         ok(tess_op_call_infer(&f.inferred, f.relu), "infer relu") &&
         ok(tess_program_create(&f.program), "program") &&
         ok(tess_program_add_input(&f.program_input, f.program, "a", kShape23, 2, TESS_DTYPE_F32,
                                   f.p, f.b),
            "program input") &&
         [] {
           int64_t first = -1;
           size_t n = 0;
           const int64_t ids[] = {f.program_input};
           if (tess_program_add_op(&first, &n, f.program, f.bare_relu, ids, 1) == TESS_OK &&
               tess_program_mark_output(f.program, first) == TESS_OK) {
             return true;
           }
           std::fprintf(stderr, "fixture: program op failed: %s\n", tess_last_error_message());
           return false;
         }() &&
         ok(tess_plan_compile(&f.plan, f.program, nullptr), "plan") &&
         ok(tess_plan_instantiate(&f.instance, f.plan), "plan instance") &&
         ok(tess_boxing_plan_create(&f.boxing, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, f.p, f.s0),
            "boxing plan") &&
         ok(tess_bucketed_allreducer_create(&f.reducer, nullptr), "bucketed all-reducer");
}

void DestroyFixture() {
  tess_bucketed_allreducer_destroy(f.reducer);
  tess_boxing_plan_destroy(f.boxing);
  tess_plan_instance_destroy(f.instance);
  tess_plan_destroy(f.plan);
  tess_program_destroy(f.program);
  tess_infer_result_destroy(f.inferred);
  tess_op_call_destroy(f.relu);
  tess_op_call_destroy(f.bare_relu);
  tess_op_call_destroy(f.add);
  for (tess_tensor* t : {f.x, f.y, f.v, f.xi, f.xd}) tess_tensor_destroy(t);
  for (tess_nd_sbp* s : {f.b, f.s0, f.s1, f.s2, f.bb, f.psum}) tess_nd_sbp_destroy(s);
  tess_placement_destroy(f.p);
  tess_placement_destroy(f.p2d);
}

const char* CodeName(tess_status st) { return tess_status_string(st); }

// Markdown-safe: pipes escaped, newlines as spaces.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const bool markdown = argc > 1 && std::strcmp(argv[1], "--markdown") == 0;
  // TESS_CATALOGUE_TRACE=1 names each case before it runs (to find one that crashes).
  const bool trace = std::getenv("TESS_CATALOGUE_TRACE") != nullptr;
  if (tess_runtime_init() != TESS_OK) {
    std::fprintf(stderr, "tess_runtime_init: %s\n", tess_last_error_message());
    return 1;
  }
  if (!MakeFixture()) return 1;
  int failures = 0;
  int index = 0;
  if (markdown) {
    std::printf("| # | function | bad input | status | message |\n");
    std::printf("|---|---|---|---|---|\n");
  }
  for (const Case& c : Cases()) {
    ++index;
    const int deletions_before = dlpack_deletions;
    const bool dlpack = std::strstr(c.function, "from_dlpack") != nullptr;
    if (trace) std::fprintf(stderr, "case %d: %s (%s)\n", index, c.function, c.input);
    const tess_status st = c.call();
    const std::string message = st == TESS_OK ? "" : tess_last_error_message();
    std::string problem;
    if (st != c.expected) {
      problem = std::string("expected ") + CodeName(c.expected) + ", got " + CodeName(st);
    } else if (message.empty()) {
      problem = "empty message";
    } else if (message.find(c.fragment) == std::string::npos) {
      problem = std::string("message lacks \"") + c.fragment + "\"";
    } else if (dlpack && std::strstr(c.input, "is NULL") == nullptr &&
               dlpack_deletions != deletions_before + 1) {
      // from_dlpack owns `local` on failure too: its deleter runs exactly once.
      problem = "the DLPack deleter ran " + std::to_string(dlpack_deletions - deletions_before) +
                " times, not once";
    }
    if (!problem.empty()) {
      ++failures;
      std::fprintf(stderr, "case %d, %s (%s): %s; message: %s\n", index, c.function, c.input,
                   problem.c_str(), message.c_str());
    }
    if (markdown) {
      std::printf("| %d | `%s` | %s | %s | %s |\n", index, c.function, Cell(c.input).c_str(),
                  CodeName(st), Cell(message).c_str());
    }
  }
  DestroyFixture();
  const int cases = static_cast<int>(Cases().size());
  std::fprintf(stderr, "bad_input_catalogue: %d cases, %d as promised, %d not\n", cases,
               cases - failures, failures);
  if (cases < 150) {
    std::fprintf(stderr, "the catalogue must hold at least 150 cases (issue 16, item 8)\n");
    return 1;
  }
  tess_runtime_finalize();
  return failures == 0 ? 0 : 1;
}
