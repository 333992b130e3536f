#include "tests/eager/op_cases.h"

#include <algorithm>

namespace tessera {
namespace eager_test {
namespace {

using op::AttrMap;
using op::AttrValue;

InputSpec F32(Shape shape, Fill fill = Fill::kSigned) { return {shape, DType::kF32, fill, 0}; }
InputSpec F64(Shape shape, Fill fill = Fill::kSigned) { return {shape, DType::kF64, fill, 0}; }
InputSpec I64(Shape shape) { return {shape, DType::kI64, Fill::kSigned, 0}; }
InputSpec Index(Shape shape, int64_t range, DType dtype = DType::kI64) {
  return {shape, dtype, Fill::kIndex, range};
}

AttrValue Ints(std::vector<int64_t> v) { return AttrValue::Ints(std::move(v)); }

void AddUnary(std::vector<OpCase>* t) {
  // exp, tanh, sigmoid and gelu round differently from one libm path to another only
  // in the last bit, but their results are not multiples of 1/4: compare with a
  // tolerance. Splits over [2,7,5] cover a dim (2) smaller than 3 and 4 ranks.
  for (const char* op : {"relu", "neg", "identity"}) {
    t->push_back({op, "[2,7,5] f32", {F32({2, 7, 5})}, {}, true});
    t->push_back({op, "[7,5] i64", {I64({7, 5})}, {}, true});
  }
  t->push_back({"identity", "[5,3] f64", {F64({5, 3})}, {}, true});
  // abs of signed values (negatives included); splits only, so partial inputs are
  // boxed to B or a split first.
  t->push_back({"abs", "[2,7,5] f32", {F32({2, 7, 5})}, {}, true});
  t->push_back({"abs", "[7,5] i64", {I64({7, 5})}, {}, true});
  for (const char* op : {"gelu", "exp", "tanh", "sigmoid"}) {
    t->push_back({op, "[2,7,5] f32", {F32({2, 7, 5})}, {}, false});
  }
  t->push_back({"exp", "[7,3] f64", {F64({7, 3})}, {}, false});
  t->push_back({"sqrt", "[2,7,5] f32", {F32({2, 7, 5}, Fill::kPositive)}, {}, false});
  t->push_back({"sqrt", "[5,6] f64", {F64({5, 6}, Fill::kPositive)}, {}, false});
  t->push_back({"log", "[2,7,5] f32", {F32({2, 7, 5}, Fill::kPositive)}, {}, false});
  t->push_back({"log", "[5,6] f64", {F64({5, 6}, Fill::kPositive)}, {}, false});
  for (const char* op : {"sin", "cos"}) {
    t->push_back({op, "[2,7,5] f32", {F32({2, 7, 5})}, {}, false});
    t->push_back({op, "[7,3] f64", {F64({7, 3})}, {}, false});
  }

  t->push_back({"scalar_add", "[7,5] +1.5", {F32({7, 5})}, {{"value", AttrValue::Float(1.5)}}});
  t->push_back({"scalar_add", "[5,7] i64 -3", {I64({5, 7})}, {{"value", AttrValue::Float(-3)}}});
  t->push_back({"scalar_mul", "[7,5] *-2", {F32({7, 5})}, {{"value", AttrValue::Float(-2)}}});
  t->push_back(
      {"scalar_mul", "[2,7,5] *0.5", {F32({2, 7, 5})}, {{"value", AttrValue::Float(0.5)}}});
  t->push_back({"scalar_mul", "[7,5] *0", {F32({7, 5})}, {{"value", AttrValue::Float(0)}}});
  t->push_back({"scalar_mul", "[5,7] i64 *3", {I64({5, 7})}, {{"value", AttrValue::Float(3)}}});
  // A non-integral factor on integers truncates per rank: no P (sum) is declared.
  t->push_back({"scalar_mul", "[5,7] i64 *0.5", {I64({5, 7})}, {{"value", AttrValue::Float(0.5)}}});

  t->push_back(
      {"cast", "[7,5] f32->f64", {F32({7, 5})}, {{"dtype", AttrValue::OfDType(DType::kF64)}}});
  t->push_back(
      {"cast", "[7,5] f32->i32", {F32({7, 5})}, {{"dtype", AttrValue::OfDType(DType::kI32)}}});
  t->push_back(
      {"cast", "[5,7] i64->f32", {I64({5, 7})}, {{"dtype", AttrValue::OfDType(DType::kF32)}}});
  t->push_back(
      {"cast", "[2,7,5] f32->f32", {F32({2, 7, 5})}, {{"dtype", AttrValue::OfDType(DType::kF32)}}});
}

void AddBinary(std::vector<OpCase>* t) {
  t->push_back({"add_n", "3x[5,7]", {F32({5, 7}), F32({5, 7}), F32({5, 7})}, {}});
  t->push_back({"add_n", "2x[2,7] i64", {I64({2, 7}), I64({2, 7})}, {}});
  for (const char* op : {"add", "sub", "mul", "maximum", "minimum"}) {
    // Broadcasting: out [2,5,7]; y lacks axis 0 and has size 1 on axis 2.
    t->push_back({op, "[2,5,7]+[5,1]", {F32({2, 5, 7}), F32({5, 1})}, {}});
    t->push_back({op, "[7,5]+[7,5]", {F32({7, 5}), F32({7, 5})}, {}});
  }
  t->push_back({"add", "[7]+[5,7] i64", {I64({7}), I64({5, 7})}, {}});
  t->push_back({"mul", "[5,7]*[7] i64", {I64({5, 7}), I64({7})}, {}});
  t->push_back({"sub", "[5,1]-[1,7] f64", {F64({5, 1}), F64({1, 7})}, {}});
  t->push_back({"div", "[2,5,7]/[5,1]", {F32({2, 5, 7}), F32({5, 1}, Fill::kNonZero)}, {}, false});
  t->push_back({"div", "[7,5]/[7,5]", {F32({7, 5}), F32({7, 5}, Fill::kNonZero)}, {}, false});
  // pow: negative bases with integral exponents 0..3 (exact: multiples of 1/4 cubed
  // are multiples of 1/64), broadcast; then positive bases with signed fractional
  // exponents (libm rounding: a tolerance).
  t->push_back({"pow",
                "[2,5,7]^[5,1] int exps",
                {F32({2, 5, 7}), {Shape{5, 1}, DType::kF32, Fill::kIndex, 4}},
                {},
                true});
  t->push_back({"pow", "[7,5]^[7,5] f64", {F64({7, 5}, Fill::kPositive), F64({7, 5})}, {}, false});
  // Integer division truncates per rank: only splits are declared.
  t->push_back(
      {"div", "[5,7]/[7] i64", {I64({5, 7}), {Shape{7}, DType::kI64, Fill::kNonZero, 0}}, {}});
}

void AddMatmul(std::vector<OpCase>* t) {
  const AttrValue yes = AttrValue::Bool(true);
  t->push_back({"matmul", "[7,5]x[5,6]", {F32({7, 5}), F32({5, 6})}, {}});
  t->push_back({"matmul", "[5,7]^T x[5,6]", {F32({5, 7}), F32({5, 6})}, {{"transpose_a", yes}}});
  t->push_back({"matmul", "[7,5]x[6,5]^T", {F32({7, 5}), F32({6, 5})}, {{"transpose_b", yes}}});
  t->push_back({"matmul",
                "[5,2]^T x[3,5]^T",
                {F32({5, 2}), F32({3, 5})},
                {{"transpose_a", yes}, {"transpose_b", yes}}});
  t->push_back({"matmul", "[2,7]x[7,3] f64", {F64({2, 7}), F64({7, 3})}, {}});
  // A 3-d a broadcasts the 2-d b over its leading (batch) axis.
  t->push_back({"matmul", "[5,3,4]x[4,7]", {F32({5, 3, 4}), F32({4, 7})}, {}});
  t->push_back({"matmul",
                "[2,4,7]^T x[4,3] i64",
                {I64({2, 4, 7}), I64({4, 3})},
                {{"transpose_a", AttrValue::Bool(true)}}});
  t->push_back({"batch_matmul", "[2,5,3]x[2,3,7]", {F32({2, 5, 3}), F32({2, 3, 7})}, {}});
  t->push_back({"batch_matmul",
                "[3,7,5]x[3,6,5]^T",
                {F32({3, 7, 5}), F32({3, 6, 5})},
                {{"transpose_b", yes}}});
  t->push_back({"batch_matmul",
                "[5,2,3,1]^T x[5,2,3,7]",
                {F32({5, 2, 3, 1}), F32({5, 2, 3, 7})},
                {{"transpose_a", yes}}});
}

void AddReduce(std::vector<OpCase>* t) {
  const AttrValue keep = AttrValue::Bool(true);
  for (const char* op : {"reduce_sum", "reduce_max", "reduce_min"}) {
    t->push_back({op, "[5,7,3] axes [1]", {F32({5, 7, 3})}, {{"axes", Ints({1})}}});
    t->push_back({op,
                  "[5,7,3] axes [0,-1] keepdims",
                  {F32({5, 7, 3})},
                  {{"axes", Ints({0, -1})}, {"keepdims", keep}}});
    t->push_back({op, "[7,5] axes []", {F32({7, 5})}, {}});
    t->push_back({op, "[2,7] i64 axes [-1]", {I64({2, 7})}, {{"axes", Ints({-1})}}});
  }
  t->push_back({"reduce_mean", "[5,7,3] axes [1]", {F32({5, 7, 3})}, {{"axes", Ints({1})}}, false});
  t->push_back({"reduce_mean",
                "[7,5] axes [-1] keepdims",
                {F32({7, 5})},
                {{"axes", Ints({-1})}, {"keepdims", keep}},
                false});
  t->push_back({"reduce_mean", "[2,7] f64 axes []", {F64({2, 7})}, {}, false});
  for (const char* op : {"softmax", "log_softmax"}) {
    t->push_back({op, "[7,5] axis -1", {F32({7, 5})}, {}, false});
    t->push_back({op, "[3,5,7] axis 1", {F32({3, 5, 7})}, {{"axis", AttrValue::Int(1)}}, false});
    t->push_back({op, "[2,7] f64 axis 0", {F64({2, 7})}, {{"axis", AttrValue::Int(0)}}, false});
  }
}

void AddNn(std::vector<OpCase>* t) {
  t->push_back({"gather", "[7,5] by [6] axis 0", {F32({7, 5}), Index({6}, 7, DType::kI32)}, {}});
  t->push_back({"gather",
                "[5,7,3] by [2,5] axis 1",
                {F32({5, 7, 3}), Index({2, 5}, 7)},
                {{"axis", AttrValue::Int(1)}}});
  t->push_back({"gather",
                "[5,7] i64 by [3] axis -1",
                {I64({5, 7}), Index({3}, 7)},
                {{"axis", AttrValue::Int(-1)}}});
  t->push_back({"embedding", "[9,5] by [7]", {F32({9, 5}), Index({7}, 9)}, {}});
  t->push_back(
      {"embedding", "[6,7] by [3,5] i32", {F32({6, 7}), Index({3, 5}, 6, DType::kI32)}, {}});
  t->push_back(
      {"layer_norm", "[5,7,6] norm -1 params -1", {F32({5, 7, 6}), F32({6}), F32({6})}, {}, false});
  t->push_back({"layer_norm",
                "[5,7,6] norm 1 params 1",
                {F32({5, 7, 6}), F32({7, 6}), F32({7, 6})},
                {{"begin_norm_axis", AttrValue::Int(1)}, {"begin_params_axis", AttrValue::Int(1)}},
                false});
  // gamma spans an axis before begin_norm_axis: splits there cut gamma too.
  t->push_back({"layer_norm",
                "[5,7,6] norm 2 params 1",
                {F32({5, 7, 6}), F32({7, 6}), F32({7, 6})},
                {{"begin_norm_axis", AttrValue::Int(2)}, {"begin_params_axis", AttrValue::Int(1)}},
                false});
  t->push_back({"layer_norm", "[7,3] f64", {F64({7, 3}), F64({3}), F64({3})}, {}, false});
  t->push_back({"bias_add", "[5,7]+[7] axis 1", {F32({5, 7}), F32({7})}, {}});
  t->push_back({"bias_add",
                "[2,7,5]+[5] axis -1",
                {F32({2, 7, 5}), F32({5})},
                {{"axis", AttrValue::Int(-1)}}});
  t->push_back({"bias_add",
                "[7,2] i64 +[7] axis 0",
                {I64({7, 2}), I64({7})},
                {{"axis", AttrValue::Int(0)}}});
  t->push_back({"sparse_softmax_cross_entropy",
                "[7,5] by [7] i32",
                {F32({7, 5}), Index({7}, 5, DType::kI32)},
                {},
                false});
  t->push_back({"sparse_softmax_cross_entropy",
                "[2,5,7] by [2,5]",
                {F32({2, 5, 7}), Index({2, 5}, 7)},
                {},
                false});
}

void AddShapeOps(std::vector<OpCase>* t) {
  t->push_back(
      {"transpose", "[2,5,7] perm [2,0,1]", {F32({2, 5, 7})}, {{"perm", Ints({2, 0, 1})}}});
  t->push_back({"transpose", "[7,5] i64 perm [1,0]", {I64({7, 5})}, {{"perm", Ints({1, 0})}}});
  // Leading dims 12 and 3 of one run: the S(0) pair is declared only where both divide
  // by the placement's rank count (3 ranks).
  t->push_back({"reshape", "[12,5]->[3,4,5]", {F32({12, 5})}, {{"shape", Ints({3, 4, 5})}}});
  t->push_back({"reshape", "[4,6]->[-1]", {F32({4, 6})}, {{"shape", Ints({-1})}}});
  t->push_back({"reshape", "[7,6]->[7,2,3]", {F32({7, 6})}, {{"shape", Ints({7, 2, 3})}}});
  t->push_back({"reshape", "[8,12]->[8,4,3]", {F32({8, 12})}, {{"shape", Ints({8, 4, 3})}}});
  t->push_back({"reshape", "[2,1,6]->[3,4] i64", {I64({2, 1, 6})}, {{"shape", Ints({3, 4})}}});
  t->push_back({"concat",
                "[5,2]+[5,3]+[5,7] axis -1",
                {F32({5, 2}), F32({5, 3}), F32({5, 7})},
                {{"axis", AttrValue::Int(-1)}}});
  t->push_back({"concat", "[2,7]+[5,7]+[1,7] axis 0", {F32({2, 7}), F32({5, 7}), F32({1, 7})}, {}});
  t->push_back({"concat", "[7,3] i64 alone", {I64({7, 3})}, {{"axis", AttrValue::Int(1)}}});
  t->push_back({"slice",
                "[7,5] [1:7:2, :]",
                {F32({7, 5})},
                {{"start", Ints({1, 0})}, {"stop", Ints({7, 5})}, {"step", Ints({2, 1})}}});
  t->push_back(
      {"slice",
       "[5,7,3] [:, -5::2, :]",
       {F32({5, 7, 3})},
       {{"start", Ints({0, -5, 0})}, {"stop", Ints({5, 7, 3})}, {"step", Ints({1, 2, 1})}}});
  t->push_back({"slice",
                "[7,5] i64 [:, :]",
                {I64({7, 5})},
                {{"start", Ints({0, 0})}, {"stop", Ints({7, 5})}, {"step", Ints({1, 1})}}});
}

// The backward-only ops (core/op/ops/grad_ops.cc, scatter_grad_ops.cc).
void AddGradOps(std::vector<OpCase>* t) {
  t->push_back({"relu_grad", "[5,7]", {F32({5, 7}), F32({5, 7})}, {}});
  t->push_back({"gelu_grad", "[5,7]", {F32({5, 7}), F32({5, 7})}, {}, false});
  t->push_back({"gelu_grad", "[7,3] f64", {F64({7, 3}), F64({7, 3})}, {}, false});
  t->push_back({"equal_mask", "[5,7]", {F32({5, 7}), F32({5, 7})}, {}});
  t->push_back({"xlogy", "[5,7]", {F32({5, 7}), F32({5, 7}, Fill::kPositive)}, {}, false});
  t->push_back({"sparse_softmax_cross_entropy_grad",
                "[5,7] by [5] i32",
                {F32({5, 7}, Fill::kPositive), Index({5}, 7, DType::kI32), F32({5})},
                {},
                false});
  t->push_back({"gather_grad",
                "[5,3,7] by [3] axis 1 size 4",
                {F32({5, 3, 7}), Index({3}, 4)},
                {{"axis", AttrValue::Int(1)}, {"size", AttrValue::Int(4)}}});
  t->push_back({"gather_grad",
                "[2,3,5] by [2,3] i32 axis 0 size 5",
                {F32({2, 3, 5}), Index({2, 3}, 5, DType::kI32)},
                {{"axis", AttrValue::Int(0)}, {"size", AttrValue::Int(5)}}});
  t->push_back({"slice_grad",
                "[2,7] into [5,whole] start [1,0] step [2,1]",
                {F32({2, 7})},
                {{"shape", Ints({5, -1})}, {"start", Ints({1, 0})}, {"step", Ints({2, 1})}}});
  t->push_back({"slice_grad",
                "[5,3] into [whole,7] start [0,2] step [1,2]",
                {F32({5, 3})},
                {{"shape", Ints({-1, 7})}, {"start", Ints({0, 2})}, {"step", Ints({1, 2})}}});
}

void AddViewOps(std::vector<OpCase>* t) {
  // expand: a kept axis of 7 (S carries over), a new leading axis of 5 and a size-1
  // axis expanded to 3 (B -> S on both).
  t->push_back({"expand", "[7,1]->[5,7,3]", {F32({7, 1})}, {{"shape", Ints({5, 7, 3})}}});
  t->push_back({"expand", "[1,5] i64->[7,-1]", {I64({1, 5})}, {{"shape", Ints({7, -1})}}});
  t->push_back({"squeeze", "[7,1,5] axes []", {F32({7, 1, 5})}, {}});
  t->push_back({"squeeze", "[1,7,1] i64 axes [0]", {I64({1, 7, 1})}, {{"axes", Ints({0})}}});
  t->push_back({"unsqueeze", "[7,5] axis 1", {F32({7, 5})}, {{"axis", AttrValue::Int(1)}}});
  t->push_back({"unsqueeze", "[5,7] i64 axis -1", {I64({5, 7})}, {{"axis", AttrValue::Int(-1)}}});
  // flatten [2,6,5] 1..2: the run (6,5) <-> (30) splits where 6 and 30 divide by the
  // rank count (1, 2 and 3 ranks), not on 4.
  t->push_back({"flatten",
                "[2,6,5] axes 1..2",
                {F32({2, 6, 5})},
                {{"start_axis", AttrValue::Int(1)}, {"end_axis", AttrValue::Int(2)}}});
  t->push_back({"flatten", "[7,5] i64 all", {I64({7, 5})}, {}});
}

void AddCompare(std::vector<OpCase>* t) {
  const InputSpec mask34 = {Shape{3, 1, 7}, DType::kBool, Fill::kIndex, 2};
  for (const char* op : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    // Values in [-2.5, 2.5] in steps of 1/4 against a differently patterned y: equal
    // pairs occur. y lacks axis 0 and has size 1 on axis 2.
    t->push_back({op, "[2,5,7] vs [5,1]", {F32({2, 5, 7}), F32({5, 1})}, {}});
    t->push_back({op, "[7,5] i64 vs [5]", {I64({7, 5}), I64({5})}, {}});
  }
  t->push_back(
      {"equal",
       "[7,3] bool vs [7,3] bool",
       {{Shape{7, 3}, DType::kBool, Fill::kIndex, 2}, {Shape{7, 3}, DType::kBool, Fill::kIndex, 2}},
       {}});
  t->push_back({"where", "[3,1,7] ? [3,5,7] : [5,1]", {mask34, F32({3, 5, 7}), F32({5, 1})}, {}});
  t->push_back({"where",
                "[7,5] ? [7,5] i64 : [7,5] i64",
                {{Shape{7, 5}, DType::kBool, Fill::kIndex, 2}, I64({7, 5}), I64({7, 5})},
                {}});
}

void AddAxisOps(std::vector<OpCase>* t) {
  // Values repeat within rows, so ties (first index wins) occur.
  t->push_back({"argmax", "[5,7,3] axis 1", {F32({5, 7, 3})}, {{"axis", AttrValue::Int(1)}}});
  t->push_back({"argmax",
                "[7,5] i64 axis 0 keepdims",
                {I64({7, 5})},
                {{"axis", AttrValue::Int(0)}, {"keepdims", AttrValue::Bool(true)}}});
  t->push_back({"cumsum", "[5,7] axis -1", {F32({5, 7})}, {}});
  t->push_back({"cumsum", "[7,2,5] i64 axis 1", {I64({7, 2, 5})}, {{"axis", AttrValue::Int(1)}}});
  for (const char* op : {"var", "std"}) {
    t->push_back({op, "[5,7,3] axes [1]", {F32({5, 7, 3})}, {{"axes", Ints({1})}}, false});
    t->push_back({op,
                  "[7,5] f64 axes [0] correction 0 keepdims",
                  {F64({7, 5})},
                  {{"axes", Ints({0})},
                   {"correction", AttrValue::Int(0)},
                   {"keepdims", AttrValue::Bool(true)}},
                  false});
  }
}

void AddLosses(std::vector<OpCase>* t) {
  // 7 rows split 4,3 / 3,2,2 / 2,2,2,1: a mean's parts divide by the global 7.
  for (const char* op : {"nll_loss", "cross_entropy"}) {
    for (int64_t r : {0, 1, 2}) {
      t->push_back({op,
                    "[7,5] by [7] reduction " + std::to_string(r),
                    {F32({7, 5}), Index({7}, 5)},
                    {{"reduction", AttrValue::Int(r)}},
                    false});
    }
    t->push_back(
        {op, "[2,7] f64 by [2] i32 mean", {F64({2, 7}), Index({2}, 7, DType::kI32)}, {}, false});
  }
}

// The optimizer updates (core/op/ops/optim_ops.cc).
void AddOptimOps(std::vector<OpCase>* t) {
  t->push_back({"sgd_update",
                "[7,5] momentum 0.9 dampening 0.1 wd 0.01",
                {F32({7, 5}), F32({7, 5}), F32({7, 5})},
                {{"lr", AttrValue::Float(0.1)},
                 {"momentum", AttrValue::Float(0.9)},
                 {"dampening", AttrValue::Float(0.1)},
                 {"weight_decay", AttrValue::Float(0.01)}}});
  t->push_back({"sgd_update",
                "[2,7,5] f64 nesterov first step",
                {F64({2, 7, 5}), F64({2, 7, 5}), F64({2, 7, 5})},
                {{"momentum", AttrValue::Float(0.8)},
                 {"nesterov", AttrValue::Bool(true)},
                 {"first_step", AttrValue::Bool(true)}}});
  t->push_back({"adam_update",
                "[7,5] step 3 wd 0.1",
                {F32({7, 5}), F32({7, 5}), F32({7, 5}), F32({7, 5}, Fill::kPositive)},
                {{"step", AttrValue::Int(3)}, {"weight_decay", AttrValue::Float(0.1)}}});
  t->push_back({"adam_update",
                "[5,7] f64 adamw step 1",
                {F64({5, 7}), F64({5, 7}), F64({5, 7}), F64({5, 7}, Fill::kPositive)},
                {{"decoupled", AttrValue::Bool(true)}, {"weight_decay", AttrValue::Float(0.1)}}});
  t->push_back({"adam_update_at_step",
                "[7,5] adamw, the step from a tensor",
                {F32({7, 5}),
                 F32({7, 5}),
                 F32({7, 5}),
                 F32({7, 5}, Fill::kPositive),
                 {Shape{}, DType::kI64, Fill::kStep, 0}},
                {{"decoupled", AttrValue::Bool(true)}, {"weight_decay", AttrValue::Float(0.1)}}});
}

}  // namespace

const std::vector<OpCase>& OpCases() {
  static const std::vector<OpCase>* table = [] {
    auto* t = new std::vector<OpCase>();
    AddUnary(t);
    AddBinary(t);
    AddMatmul(t);
    AddReduce(t);
    AddNn(t);
    AddShapeOps(t);
    AddGradOps(t);
    AddViewOps(t);
    AddCompare(t);
    AddAxisOps(t);
    AddLosses(t);
    AddOptimOps(t);
    std::stable_sort(t->begin(), t->end(),
                     [](const OpCase& a, const OpCase& b) { return a.op < b.op; });
    return t;
  }();
  return *table;
}

kernels::cpu::HostTensor MakeInput(const InputSpec& spec, int index) {
  kernels::cpu::HostTensor t(spec.shape, spec.dtype);
  const bool integer = spec.dtype == DType::kI32 || spec.dtype == DType::kI64;
  const int64_t s = 3 * index + 1;  // another pattern per input
  for (int64_t i = 0; i < t.size(); ++i) {
    const int64_t h = i * 7 + s * 5;
    double v = 0;
    switch (spec.fill) {
      case Fill::kSigned:
        v = integer ? static_cast<double>(h % 11 - 5) : static_cast<double>(h % 21 - 10) * 0.25;
        break;
      case Fill::kPositive: v = static_cast<double>(h % 16 + 1) * 0.25; break;
      case Fill::kNonZero: {
        const double mag = integer ? static_cast<double>(h % 4 + 1) : (h % 8 + 1) * 0.25;
        v = (h / 8) % 2 == 0 ? mag : -mag;
        break;
      }
      case Fill::kIndex: v = static_cast<double>((i * 5 + s) % spec.range); break;
      case Fill::kStep: v = static_cast<double>(h % 4 + 1); break;
    }
    t.Set(i, v);
  }
  return t;
}

}  // namespace eager_test
}  // namespace tessera
