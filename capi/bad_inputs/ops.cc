// Bad inputs: typed ops, op calls and inference (catalogue.h).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {

std::vector<Case> OpCases() {
  return {
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
        CASE("tess_batch_matmul", "2-d operands", kInvalid, "batch_matmul",
             tess_tensor* o = nullptr;
             return tess_batch_matmul(&o, f.x, f.y, 0, 0);),
        CASE("tess_bias_add", "bias [4] on axis 1 of [2,3]", kInvalid, "[4]",
             tess_tensor* o = nullptr;
             return tess_bias_add(&o, f.x, f.v, 1);),
        CASE("tess_bias_add", "axis 5", kInvalid, "5", tess_tensor* o = nullptr;
             return tess_bias_add(&o, f.x, f.v, 5);),
        CASE("tess_reduce_sum", "axis 2 of a 2-d tensor", kInvalid, "2", const int64_t axes[] = {2};
             tess_tensor* o = nullptr; return tess_reduce_sum(&o, f.x, axes, 1, 0);),
        CASE("tess_reduce_sum", "axis -3 of a 2-d tensor", kInvalid, "-3",
             const int64_t axes[] = {-3};
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
        CASE("tess_concat", "axis 2 of 2-d inputs", kInvalid, "2",
             const tess_tensor* in[] = {f.x, f.x};
             tess_tensor* o = nullptr; return tess_concat(&o, in, 2, 2);),
        CASE("tess_concat", "[2,3] and [3,2] on axis 0", kInvalid, "[3,2]",
             const tess_tensor* in[] = {f.x, f.y};
             tess_tensor* o = nullptr; return tess_concat(&o, in, 2, 0);),
        CASE("tess_concat", "a NULL input", kInvalid, "in",
             const tess_tensor* in[] = {f.x, nullptr};
             tess_tensor* o = nullptr; return tess_concat(&o, in, 2, 0);),
        CASE("tess_add_n", "no inputs", kInvalid, "add_n", tess_tensor* o = nullptr;
             return tess_add_n(&o, nullptr, 0);),
        CASE("tess_add_n", "shapes [2,3] and [3,2]", kInvalid, "[3,2]",
             const tess_tensor* in[] = {f.x, f.y};
             tess_tensor* o = nullptr; return tess_add_n(&o, in, 2);),
        CASE("tess_softmax", "axis 2 of a 2-d tensor", kInvalid, "2", tess_tensor* o = nullptr;
             return tess_softmax(&o, f.x, 2);),
        CASE("tess_log_softmax", "axis -3 of a 2-d tensor", kInvalid, "-3",
             tess_tensor* o = nullptr;
             return tess_log_softmax(&o, f.x, -3);),
        CASE("tess_gather", "float indices", kInvalid, "f32", tess_tensor* o = nullptr;
             return tess_gather(&o, f.x, f.x, 0);),
        CASE("tess_gather", "axis 4", kInvalid, "4", tess_tensor* o = nullptr;
             return tess_gather(&o, f.x, f.xi, 4);),
        CASE("tess_embedding", "float indices", kInvalid, "f32", tess_tensor* o = nullptr;
             return tess_embedding(&o, f.x, f.x);),
        // backward-only ops
        CASE("tess_equal_mask", "shapes [2,3] and [3,2]", kInvalid, "[3,2]",
             tess_tensor* o = nullptr;
             return tess_equal_mask(&o, f.x, f.y);),
        CASE("tess_gelu_grad", "dtypes f32 and i32", kInvalid, "i32", tess_tensor* o = nullptr;
             return tess_gelu_grad(&o, f.x, f.xi);),
        CASE("tess_xlogy", "integer x", kInvalid, "i32", tess_tensor* o = nullptr;
             return tess_xlogy(&o, f.xi, f.xi);),
        CASE("tess_gather_grad", "float indices", kInvalid, "f32", tess_tensor* o = nullptr;
             return tess_gather_grad(&o, f.x, f.x, 0, 4);),
        CASE("tess_gather_grad", "size -1", kInvalid, "-1", tess_tensor* o = nullptr;
             return tess_gather_grad(&o, f.x, f.xi, 0, -1);),
        CASE("tess_slice_grad", "dout [2,3] past shape [2,3] at start 1", kInvalid, "start 1",
             tess_tensor* o = nullptr;
             const int64_t shape[] = {2, 3}; const int64_t start[] = {1, 0};
             const int64_t step[] = {1, 1};
             return tess_slice_grad(&o, f.x, shape, 2, start, 2, step, 2);),
        CASE("tess_sparse_softmax_cross_entropy", "float labels", kInvalid, "f32",
             tess_tensor* p = nullptr;
             tess_tensor* o = nullptr; return tess_sparse_softmax_cross_entropy(&p, &o, f.x, f.x);),
        CASE("tess_layer_norm", "begin_norm_axis 5", kInvalid, "5", tess_tensor* y = nullptr,
             *m = nullptr, *iv = nullptr;
             return tess_layer_norm(&y, &m, &iv, f.x, f.v, f.v, 5, 5, 1e-5);),
        CASE("tess_sqrt", "x is NULL", kInvalid, "x", tess_tensor* o = nullptr;
             return tess_sqrt(&o, nullptr);),
        CASE("tess_less", "dtypes f32 and i32", kInvalid, "i32", tess_tensor* o = nullptr;
             return tess_less(&o, f.x, f.xi);),
        CASE("tess_equal", "shapes [2,3] and [3,2]", kInvalid, "[3,2]", tess_tensor* o = nullptr;
             return tess_equal(&o, f.x, f.y);),
        CASE("tess_greater_equal", "y is NULL", kInvalid, "y", tess_tensor* o = nullptr;
             return tess_greater_equal(&o, f.x, nullptr);),
        CASE("tess_where", "cond is f32, not bool", kInvalid, "cond", tess_tensor* o = nullptr;
             return tess_where(&o, f.x, f.x, f.x);),
        CASE("tess_where", "cond is NULL", kInvalid, "cond", tess_tensor* o = nullptr;
             return tess_where(&o, nullptr, f.x, f.x);),
        CASE("tess_argmax", "axis 5 of a 2-d tensor", kInvalid, "5", tess_tensor* o = nullptr;
             return tess_argmax(&o, f.x, 5, 0);),
        CASE("tess_cumsum", "axis -3 of a 2-d tensor", kInvalid, "-3", tess_tensor* o = nullptr;
             return tess_cumsum(&o, f.x, -3);),
        CASE("tess_var", "correction -1", kInvalid, "correction", tess_tensor* o = nullptr;
             return tess_var(&o, f.x, nullptr, 0, -1, 0);),
        CASE("tess_std", "i32 input", kInvalid, "i32", tess_tensor* o = nullptr;
             return tess_std(&o, f.xi, nullptr, 0, 1, 0);),
        CASE("tess_nll_loss", "f32 target", kInvalid, "target", tess_tensor* o = nullptr;
             return tess_nll_loss(&o, f.x, f.v, 1);),
        CASE("tess_cross_entropy", "i32 logits", kInvalid, "logits", tess_tensor* o = nullptr;
             return tess_cross_entropy(&o, f.xi, f.v, 1);),
        CASE("tess_nll_loss", "target is NULL", kInvalid, "target", tess_tensor* o = nullptr;
             return tess_nll_loss(&o, f.x, nullptr, 1);),
        CASE("tess_log", "i32 input", kInvalid, "i32", tess_tensor* o = nullptr;
             return tess_log(&o, f.xi);),
        CASE("tess_sin", "x is NULL", kInvalid, "x", tess_tensor* o = nullptr;
             return tess_sin(&o, nullptr);),
        CASE("tess_cos", "i32 input", kInvalid, "i32", tess_tensor* o = nullptr;
             return tess_cos(&o, f.xi);),
        CASE("tess_expand", "[2,3] to [2,4] (3 is not 1)", kInvalid, "[2,4]",
             const int64_t s[] = {2, 4};
             tess_tensor* o = nullptr; return tess_expand(&o, f.x, s, 2);),
        CASE("tess_expand", "[2,3] to [3] (drops an axis)", kInvalid, "[3]",
             const int64_t s[] = {3};
             tess_tensor* o = nullptr; return tess_expand(&o, f.x, s, 1);),
        CASE("tess_expand", "shape NULL with 2 dims", kInvalid, "shape", tess_tensor* o = nullptr;
             return tess_expand(&o, f.x, nullptr, 2);),
        CASE("tess_squeeze", "axis 0 of [2,3] (size 2)", kInvalid, "axis 0",
             const int64_t a[] = {0};
             tess_tensor* o = nullptr; return tess_squeeze(&o, f.x, a, 1);),
        CASE("tess_squeeze", "axis 7 of a 2-d tensor", kInvalid, "7", const int64_t a[] = {7};
             tess_tensor* o = nullptr; return tess_squeeze(&o, f.x, a, 1);),
        CASE("tess_unsqueeze", "axis 3 of a 2-d tensor (output has 3 axes)", kInvalid, "3",
             tess_tensor* o = nullptr;
             return tess_unsqueeze(&o, f.x, 3);),
        CASE("tess_flatten", "start_axis 1 after end_axis 0", kInvalid, "start_axis",
             tess_tensor* o = nullptr;
             return tess_flatten(&o, f.x, 1, 0);),
        CASE("tess_flatten", "end_axis -3 of a 2-d tensor", kInvalid, "-3",
             tess_tensor* o = nullptr;
             return tess_flatten(&o, f.x, 0, -3);),
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
        CASE("tess_op_call_create", "op_name is NULL", kInvalid, "op_name",
             tess_op_call* o = nullptr;
             return tess_op_call_create(&o, nullptr);),
        CASE("tess_op_call_create", "unknown op \"nope\"", kNotFound, "nope",
             tess_op_call* o = nullptr;
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
        CASE("tess_op_call_add_input", "a third input to add", kInvalid, "3",
             tess_op_call* c = nullptr;
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
        CASE("tess_op_call_explain", "call is NULL", kInvalid, "call",
             tess_explanation* e = nullptr;
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
        CASE("tess_infer_cache_get_stats", "struct_size 4 (smaller than the first version)",
             kInvalid, "struct_size", tess_infer_cache_stats s = TESS_INFER_CACHE_STATS_INIT;
             s.struct_size = 4; return tess_infer_cache_get_stats(&s);),
        CASE("tess_explanation_last", "out is NULL", kInvalid, "out",
             return tess_explanation_last(nullptr);),
  };
}

}  // namespace tessera::bad_inputs
