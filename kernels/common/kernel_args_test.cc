#include "kernels/common/kernel_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/op/op_registry.h"

namespace tessera {
namespace kernels {
namespace {

using op::AttrMap;
using op::AttrValue;

const op::OpDef* Def(const char* name) { return *op::OpRegistry::Global().Find(name); }

// A context over `ins` / `outs` (data pointing at a dummy buffer unless empty).
struct Call {
  std::vector<LocalTensor> ins, outs;
  AttrMap attrs;
  double buffer[64] = {};
  KernelContext ctx;
  Call(const char* op, std::vector<Shape> in_shapes, std::vector<Shape> out_shapes, AttrMap a = {},
       DType dtype = DType::kF32)
      : attrs(std::move(a)) {
    for (const Shape& s : in_shapes) ins.push_back({buffer, s, dtype});
    for (const Shape& s : out_shapes) outs.push_back({buffer, s, dtype});
    ctx.def = Def(op);
    ctx.attrs = &attrs;
    ctx.inputs = ins.data();
    ctx.num_inputs = static_cast<int>(ins.size());
    ctx.outputs = outs.data();
    ctx.num_outputs = static_cast<int>(outs.size());
  }
};

TEST(KernelArgsTest, AttributesFallBackToTheOpDefault) {
  Call call("softmax", {Shape{2}}, {Shape{2}});
  EXPECT_EQ(*IntAttr(call.ctx, "axis"), -1);
  call.attrs.Set("axis", AttrValue::Int(0));
  EXPECT_EQ(*IntAttr(call.ctx, "axis"), 0);
  call.ctx.attrs = nullptr;  // no map at all: defaults
  EXPECT_EQ(*IntAttr(call.ctx, "axis"), -1);

  Call mm("matmul", {Shape{2, 2}, Shape{2, 2}}, {Shape{2, 2}},
          {{"transpose_b", AttrValue::Bool(true)}});
  EXPECT_FALSE(*BoolAttr(mm.ctx, "transpose_a"));
  EXPECT_TRUE(*BoolAttr(mm.ctx, "transpose_b"));
  Call ln("layer_norm", {}, {});
  EXPECT_EQ(*FloatAttr(ln.ctx, "epsilon"), 1e-5);
  Call red("reduce_sum", {}, {}, {{"axes", AttrValue::Ints({0, 2})}});
  EXPECT_EQ(**IntsAttr(red.ctx, "axes"), (std::vector<int64_t>{0, 2}));
  Call cast("cast", {}, {}, {{"dtype", AttrValue::OfDType(DType::kI64)}});
  EXPECT_EQ(*DTypeAttr(cast.ctx, "dtype"), DType::kI64);
}

TEST(KernelArgsTest, AttributeErrorsAreNamed) {
  Call call("softmax", {Shape{2}}, {Shape{2}}, {{"axis", AttrValue::Float(1)}});
  EXPECT_EQ(IntAttr(call.ctx, "axis").status().message(),
            "softmax: attribute \"axis\" is float 1; expected int");
  EXPECT_EQ(FloatAttr(call.ctx, "axis").status().message(),
            "softmax: reads attribute \"axis\" as float but the op declares int");
  EXPECT_EQ(IntAttr(call.ctx, "axes").status().message(),
            "softmax: reads attribute \"axes\" as int but the op declares no such attribute");
  Call scalar("scalar_mul", {Shape{2}}, {Shape{2}});
  EXPECT_EQ(FloatAttr(scalar.ctx, "value").status().message(),
            "scalar_mul: required attribute \"value\" is missing");
  KernelContext none;
  EXPECT_EQ(IntAttr(none, "axis").status().message(),
            "kernel: reads attribute \"axis\" without an op def");
}

TEST(KernelArgsTest, CheckKernelCallAcceptsAValidCall) {
  Call call("add_n", {Shape{2}, Shape{2}, Shape{2}}, {Shape{2}});
  EXPECT_TRUE(CheckKernelCall(call.ctx).ok());
  Call empty("relu", {Shape{0, 3}}, {Shape{0, 3}});
  empty.ins[0].data = empty.outs[0].data = nullptr;  // empty tensors need no storage
  EXPECT_TRUE(CheckKernelCall(empty.ctx).ok());
}

TEST(KernelArgsTest, CheckKernelCallNamesWhatIsWrong) {
  KernelContext none;
  EXPECT_EQ(CheckKernelCall(none).message(), "kernel: KernelContext.def is null");
  Call add("add", {Shape{2}}, {Shape{2}});
  EXPECT_EQ(CheckKernelCall(add.ctx).message(), "add: takes 2 inputs but the call gives 1");
  Call add_n("add_n", {Shape{2}}, {Shape{2}});
  EXPECT_EQ(CheckKernelCall(add_n.ctx).message(),
            "add_n: takes at least 2 inputs but the call gives 1");
  Call ln("layer_norm", {Shape{2}, Shape{2}, Shape{2}}, {Shape{2}});
  EXPECT_EQ(CheckKernelCall(ln.ctx).message(), "layer_norm: has 3 outputs but the call gives 1");
  Call null_inputs("relu", {Shape{2}}, {Shape{2}});
  null_inputs.ctx.inputs = nullptr;
  EXPECT_EQ(CheckKernelCall(null_inputs.ctx).message(),
            "relu: KernelContext.inputs is null with num_inputs 1");
  Call null_data("add", {Shape{2}, Shape{2, 3}}, {Shape{2, 3}});
  null_data.ins[1].data = nullptr;
  EXPECT_EQ(CheckKernelCall(null_data.ctx).message(),
            "add: input \"y\" of shape [2,3] has no storage (data is null)");
  Call half("relu", {Shape{2}}, {Shape{2}}, {}, DType::kBF16);
  EXPECT_TRUE(CheckKernelCall(half.ctx).ok());  // f16 and bf16 are ordinary dtypes
  Call bogus("relu", {Shape{2}}, {Shape{2}});
  bogus.outs[0].dtype = static_cast<DType>(99);
  EXPECT_EQ(CheckKernelCall(bogus.ctx).message(),
            "relu: output \"out\" has dtype value 99, which is not a dtype");
}

TEST(KernelArgsTest, ArgumentNames) {
  Call add_n("add_n", {Shape{2}, Shape{2}, Shape{2}}, {Shape{2}});
  EXPECT_EQ(InputName(add_n.ctx, 0), "in[0]");
  EXPECT_EQ(InputName(add_n.ctx, 2), "in[2]");
  EXPECT_EQ(InputName(add_n.ctx, 3), "input#3");
  Call ln("layer_norm", {Shape{2}, Shape{2}, Shape{2}}, {Shape{2}, Shape{}, Shape{}});
  EXPECT_EQ(InputName(ln.ctx, 1), "gamma");
  EXPECT_EQ(OutputName(ln.ctx, 2), "inv_variance");
  EXPECT_EQ(OutputName(ln.ctx, 3), "output#3");
  Call concat("concat", {Shape{2}}, {Shape{2}});
  EXPECT_EQ(InputName(concat.ctx, 0), "in[0]");
}

TEST(KernelArgsTest, AxesIndicesAndChecks) {
  Call call("softmax", {Shape{2, 3, 4}}, {Shape{2, 3, 4}});
  EXPECT_EQ(*NormalizeAxis(call.ctx, "axis", -1, 0), 2);
  EXPECT_EQ(*NormalizeAxis(call.ctx, "axis", 1, 0), 1);
  EXPECT_EQ(NormalizeAxis(call.ctx, "axis", -4, 0).status().message(),
            "softmax: attribute \"axis\" is -4 but input \"x\" has shape [2,3,4] (3 axes; valid "
            "axes are -3..2)");
  EXPECT_EQ(IndexString(Shape{2, 3, 4}, 23), "[1,2,3]");
  EXPECT_EQ(IndexString(Shape{2, 3, 4}, 5), "[0,1,1]");
  EXPECT_EQ(IndexString(Shape{}, 0), "[]");
  EXPECT_TRUE(ExpectOutput(call.ctx, 0, Shape{2, 3, 4}, DType::kF32).ok());
  EXPECT_EQ(ExpectOutput(call.ctx, 0, Shape{2, 3}, DType::kF64).message(),
            "softmax: output \"out\" is [2,3,4] f32 but the inputs give [2,3] f64");
  EXPECT_TRUE(ExpectDType(call.ctx, 0, DType::kF32, "").ok());
  EXPECT_EQ(ExpectDType(call.ctx, 0, DType::kI32, "").message(),
            "softmax: input \"x\" has dtype f32 but the kernel needs i32");
  EXPECT_EQ(ExpectDType(call.ctx, 0, DType::kF64, "y").message(),
            "softmax: input \"x\" has dtype f32 but \"y\" has f64");
}

}  // namespace
}  // namespace kernels
}  // namespace tessera
