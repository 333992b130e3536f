// expand against a naive broadcast (each output index mapped to x's, size-1 axes to 0),
// and squeeze / unsqueeze / flatten against row-major order.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/kernel_test_util.h"

namespace tessera {
namespace kernels {
namespace cpu {
namespace {

// out[o] = x[i] with i the last x.ndim() entries of o, 0 where x has size 1.
std::vector<double> NaiveExpand(const HostTensor& x, const Shape& out) {
  std::vector<double> ref;
  const int shift = out.ndim() - x.shape().ndim();
  for (int64_t e = 0; e < out.num_elements(); ++e) {
    std::vector<int64_t> o = Unravel(e, out);
    std::vector<int64_t> i(o.begin() + shift, o.end());
    for (size_t a = 0; a < i.size(); ++a) {
      if (x.shape().dim(static_cast<int>(a)) == 1) i[a] = 0;
    }
    ref.push_back(x.Get(Ravel(i, x.shape())));
  }
  return ref;
}

void CheckExpand(const Shape& xs, const std::vector<int64_t>& target, const Shape& want, DType dt,
                 std::mt19937* rng) {
  SCOPED_TRACE(std::string(DTypeName(dt)) + " " + xs.ToString() + " -> " + IntsString(target));
  HostTensor x = Random(xs, dt, rng, -50, 50);
  auto out = RunOp("expand", {x}, {{"shape", AttrValue::Ints(target)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].shape(), want);
  ExpectValues((*out)[0], NaiveExpand(x, want));
}

TEST(ExpandKernelTest, BroadcastsLikeNumpy) {
  std::mt19937 rng(71);
  for (DType dt : AllTypes()) {
    CheckExpand(Shape{3, 1}, {2, 3, 4}, Shape{2, 3, 4}, dt, &rng);
    CheckExpand(Shape{1, 4}, {3, -1}, Shape{3, 4}, dt, &rng);
    CheckExpand(Shape{}, {2, 3}, Shape{2, 3}, dt, &rng);
    CheckExpand(Shape{2, 3}, {2, 3}, Shape{2, 3}, dt, &rng);  // nothing to expand
    CheckExpand(Shape{2, 1, 3, 1}, {2, 4, 3, 5}, Shape{2, 4, 3, 5}, dt, &rng);
    CheckExpand(Shape{1}, {0}, Shape{0}, dt, &rng);
    CheckExpand(Shape{0, 1}, {0, 4}, Shape{0, 4}, dt, &rng);
  }
}

TEST(ExpandKernelTest, UsesTheCallersLocalOutputShape) {
  // Under x:B -> out:S(0) a rank's output is a piece [1,3] of the logical [2,3].
  HostTensor x = FromValues(Shape{3}, DType::kF32, {1, 2, 3});
  std::vector<HostTensor> out{HostTensor(Shape{1, 3}, DType::kF32)};
  ASSERT_TRUE(RunOpInto("expand", {x}, {{"shape", AttrValue::Ints({2, 3})}}, &out).ok());
  ExpectValues(out[0], {1, 2, 3});
}

TEST(ExpandKernelTest, OutputThatXDoesNotBroadcastToIsNamed) {
  HostTensor x(Shape{2, 3}, DType::kF32);
  AttrMap attrs{{"shape", AttrValue::Ints({2, 3})}};
  EXPECT_EQ(ErrorOf("expand", {x}, attrs, {HostTensor(Shape{2, 4}, DType::kF32)}),
            "expand: output \"out\" is [2,4] f32 but input \"x\" [2,3] f32 does not broadcast "
            "to it");
  EXPECT_EQ(ErrorOf("expand", {x}, attrs, {HostTensor(Shape{3}, DType::kF32)}),
            "expand: output \"out\" is [3] f32 but input \"x\" [2,3] f32 does not broadcast to "
            "it");
  EXPECT_EQ(ErrorOf("expand", {x}, attrs, {HostTensor(Shape{2, 3}, DType::kI64)}),
            "expand: output \"out\" is [2,3] i64 but input \"x\" [2,3] f32 does not broadcast "
            "to it");
}

// squeeze, unsqueeze and flatten keep the row-major order of x.
TEST(ReshapeViewKernelTest, KeepRowMajorOrder) {
  std::mt19937 rng(73);
  struct Case {
    const char* op;
    Shape x;
    AttrMap attrs;
    Shape out;
  };
  const std::vector<Case> cases = {
      {"squeeze", Shape{3, 1, 4, 1}, {}, Shape{3, 4}},
      {"squeeze", Shape{3, 1, 4, 1}, {{"axes", AttrValue::Ints({1})}}, Shape{3, 4, 1}},
      {"unsqueeze", Shape{3, 4}, {{"axis", AttrValue::Int(-1)}}, Shape{3, 4, 1}},
      {"unsqueeze", Shape{0, 4}, {{"axis", AttrValue::Int(0)}}, Shape{1, 0, 4}},
      {"flatten", Shape{2, 3, 4}, {}, Shape{24}},
      {"flatten",
       Shape{2, 3, 4, 5},
       {{"start_axis", AttrValue::Int(1)}, {"end_axis", AttrValue::Int(2)}},
       Shape{2, 12, 5}},
  };
  for (DType dt : AllTypes()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.op) + " " + DTypeName(dt) + " " + c.x.ToString());
      HostTensor x = Random(c.x, dt, &rng, -9, 9);
      auto out = RunOp(c.op, {x}, c.attrs);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ((*out)[0].shape(), c.out);
      ExpectValues((*out)[0], x.Values());
    }
  }
}

}  // namespace
}  // namespace cpu
}  // namespace kernels
}  // namespace tessera
