// Bad inputs: dtypes, placements, nd-sbps and layouts (catalogue.h).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {

std::vector<Case> ValueCases() {
  return {
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
        CASE("tess_placement_parse", "empty text", kInvalid, "placement",
             tess_placement* o = nullptr;
             return tess_placement_parse(&o, "");),
        CASE("tess_placement_parse", "no ranks \"cpu:\"", kInvalid,
             "cpu:", tess_placement* o = nullptr;
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
             "cpu:[[[[",
             std::string text = "cpu:" + std::string(20, '[') + "0" + std::string(20, ']');
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
        CASE("tess_nd_sbp_parse", "split axis \"S(-9)\" below -8", kInvalid, "S(-9)",
             tess_nd_sbp* o = nullptr;
             return tess_nd_sbp_parse(&o, "S(-9)");),
        CASE("tess_nd_sbp_parse", "split axis past int32 \"S(99999999999)\"", kInvalid,
             "99999999999", tess_nd_sbp* o = nullptr;
             return tess_nd_sbp_parse(&o, "S(99999999999)");),
        CASE("tess_nd_sbp_parse", "unknown reduction \"P(avg)\"", kInvalid, "avg",
             tess_nd_sbp* o = nullptr;
             return tess_nd_sbp_parse(&o, "P(avg)");),
        CASE("tess_nd_sbp_parse", "unclosed list \"(B,\"", kInvalid, "(B,",
             tess_nd_sbp* o = nullptr;
             return tess_nd_sbp_parse(&o, "(B,");),
        CASE("tess_nd_sbp_parse", "trailing text \"S(0)x\"", kInvalid, "S(0)x",
             tess_nd_sbp* o = nullptr;
             return tess_nd_sbp_parse(&o, "S(0)x");),
        CASE("tess_nd_sbp_parse", "nested list \"((B))\"", kInvalid, "((B))",
             tess_nd_sbp* o = nullptr;
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
        CASE("tess_layout_create", "placement is NULL", kInvalid, "placement",
             tess_layout* o = nullptr;
             return tess_layout_create(&o, nullptr, f.s0, kShape23, 2, 0);),
        CASE("tess_layout_create", "nd_sbp is NULL", kInvalid, "nd_sbp", tess_layout* o = nullptr;
             return tess_layout_create(&o, f.p, nullptr, kShape23, 2, 0);),
        CASE("tess_layout_create", "S(2) of a 2-d shape", kInvalid, "S(2)",
             tess_layout* o = nullptr;
             return tess_layout_create(&o, f.p, f.s2, kShape23, 2, 0);),
        CASE("tess_layout_create", "2-axis nd-sbp on a 1-axis placement", kInvalid, "(B, B)",
             tess_layout* o = nullptr;
             return tess_layout_create(&o, f.p, f.bb, kShape23, 2, 0);),
        CASE("tess_layout_create", "negative dim -3", kInvalid, "-3", tess_layout* o = nullptr;
             return tess_layout_create(&o, f.p, f.s0, kNegative, 2, 0);),
        CASE("tess_layout_create", "shape [2^62+1,4] (element count overflows)", kInvalid,
             "overflows", tess_layout* o = nullptr;
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
             if (st != TESS_OK) return st; st = tess_layout_range(&b, &e, l, 7);
             tess_layout_destroy(l); return st;),
        CASE("tess_layout_num_elements", "layout is NULL", kInvalid, "layout", int64_t n;
             return tess_layout_num_elements(&n, nullptr);),
  };
}

}  // namespace tessera::bad_inputs
