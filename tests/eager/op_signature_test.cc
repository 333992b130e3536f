// Every registered op x every declared SBP signature, proved numerically under mpirun
// with 1..4 ranks: for each case of op_cases.cc, on cpu:[0..n-1] and (with 4 ranks)
// cpu:[[0,1],[2,3]], every unfiltered candidate inference lists is pinned and run
// through the eager interpreter, and its gathered outputs are compared with the op's
// kernel on the whole tensors (signature_check.h). Rank 0 prints how many signatures
// each op had checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/eager/interpreter.h"
#include "core/op/op_context.h"
#include "core/op/op_registry.h"
#include "core/op/signature.h"
#include "core/placement/placement.h"
#include "core/tensor/creation.h"
#include "core/tensor/global_cast.h"
#include "tests/eager/op_cases.h"
#include "tests/eager/signature_check.h"
#include "tests/eager/world_util.h"

namespace tessera::eager_test {
namespace {

// The placements every op is checked on with this world.
std::vector<Placement> TestPlacements() {
  std::vector<Placement> out = {WorldPlacement()};
  if (WorldSize() == 4) out.push_back(Placement::Parse("cpu:[[0,1],[2,3]]").value());
  return out;
}

TEST(OpSignatureTest, CasesCoverEveryRegisteredOp) {
  std::set<std::string> covered;
  for (const OpCase& c : OpCases()) {
    covered.insert(c.op);
    EXPECT_TRUE(op::OpRegistry::Global().Find(c.op).ok()) << "case of unknown op " << c.op;
  }
  for (const std::string& name : op::OpRegistry::Global().Names()) {
    EXPECT_EQ(covered.count(name), 1u)
        << "op \"" << name << "\" has no case in tests/eager/op_cases.cc";
  }
}

struct Tally {
  int cases = 0;
  int checked[2] = {0, 0};  // per placement kind: 1-d, 2-d
  int listed[2] = {0, 0};
  int partial_runs[2] = {0, 0};
};

TEST(OpSignatureTest, EveryDeclaredSignatureMatchesTheKernelOnWholeTensors) {
  const std::vector<Placement> placements = TestPlacements();
  std::map<std::string, Tally> tally;
  for (const OpCase& c : OpCases()) {
    SCOPED_TRACE(c.op + " " + c.label);
    OpCall call;
    call.def = op::OpRegistry::Global().Find(c.op).value();
    call.label = c.label;
    call.attrs = c.attrs;
    call.exact = c.exact;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      call.inputs.push_back(MakeInput(c.inputs[i], static_cast<int>(i)));
    }
    // Every rank computes the same oracle, so an error here stops every rank alike.
    Result<std::vector<HostTensor>> want = kernels::cpu::RunOp(c.op, call.inputs, c.attrs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    call.want = *want;
    Tally& t = tally[c.op];
    ++t.cases;
    for (size_t p = 0; p < placements.size(); ++p) {
      SignatureReport report = CheckSignatures(call, placements[p]);
      t.checked[p] += report.checked;
      t.listed[p] += report.candidates;
      t.partial_runs[p] += report.partial_runs;
      for (const std::string& f : report.failures) ADD_FAILURE() << f;
    }
  }
  if (WorldRank() != 0) return;
  std::printf(
      "signatures checked with %d rank(s): op, cases, then per placement "
      "checked/listed (+ reruns with partial shares)\n",
      WorldSize());
  int total = 0;
  for (const auto& [op, t] : tally) {
    std::printf("  %-30s %2d cases", op.c_str(), t.cases);
    for (size_t p = 0; p < placements.size(); ++p) {
      std::printf("  %s %4d/%-4d (+%d)", placements[p].ToString().c_str(), t.checked[p],
                  t.listed[p], t.partial_runs[p]);
      total += t.checked[p];
    }
    std::printf("\n");
  }
  std::printf("  total signatures checked: %d\n", total);
}

// Partial tensors made from a value hold real values on every rank (copies on P(max) /
// P(min) axes, 0 off coordinate 0 of P axes), so the ops' algebra applies to them. With
// the reduction's identity instead (-inf, +inf, an integer type's lowest / max), these
// cases broke: neg of an i64 lowest wraps, 0 * -inf and -inf + inf are NaN, and two
// integer lowests summed over a P axis wrap to 0.
TEST(OpSignatureTest, PartialTensorsFromAValueHoldRealValues) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  const Placement world = WorldPlacement();
  const Shape shape{3};
  auto host = [](const tensor::Tensor& t) {
    HostTensor out(t->shape(), t->dtype());
    EXPECT_TRUE(tensor::ToHost(t, out.View().data).ok());
    return out.Values();
  };
  // neg on an i64 P(max): -lowest wraps to lowest, and P(min) keeps it.
  tensor::Tensor x =
      tensor::Full(shape, DType::kI64, 3, world, NdSbp::Parse("P(max)").value()).value();
  tensor::Tensor y = eager::Apply("neg", {x}).value()[0];
  EXPECT_EQ(y->nd_sbp(), NdSbp::Parse("P(min)").value());
  EXPECT_EQ(host(y), std::vector<double>(3, -3.0));
  // scalar_mul by 0 on an f32 P(max): 0 * -inf is NaN on the non-owning ranks. What
  // the gathered value then is depends on how MPI_MAX orders NaN operands, so the
  // check is on the local piece, which P(max) says is at most the logical 0.
  x = tensor::Full(shape, DType::kF32, 2.5, world, NdSbp::Parse("P(max)").value()).value();
  y = eager::Apply("scalar_mul", {x}, {{"value", op::AttrValue::Float(0)}}).value()[0];
  const float* local = static_cast<const float*>(y->local_data());
  for (int i = 0; i < 3; ++i) EXPECT_LE(local[i], 0.0f) << "rank " << WorldRank();
  if (WorldSize() != 4) return;
  const Placement grid = Placement::Parse("cpu:[[0,1],[2,3]]").value();
  // An i64 (P(max), P) made from a value does not even round-trip: the two lowests
  // of row 1 sum (wrapping) to 0, and max(-4, 0) is 0.
  x = tensor::Full(shape, DType::kI64, -4, grid, NdSbp::Parse("(P(max), P)").value()).value();
  EXPECT_EQ(host(x), std::vector<double>(3, -4.0));
  // f32 (P(max), B) + (B, P(min)): rank (1,1) adds -inf and +inf (NaN; again the
  // local piece is checked).
  x = tensor::Full(shape, DType::kF32, 1, grid, NdSbp::Parse("(P(max), B)").value()).value();
  tensor::Tensor z =
      tensor::Full(shape, DType::kF32, 2, grid, NdSbp::Parse("(B, P(min))").value()).value();
  y = eager::Apply("add", {x, z}).value()[0];
  EXPECT_EQ(y->nd_sbp(), NdSbp::Parse("(P(max), P(min))").value());
  local = static_cast<const float*>(y->local_data());
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(std::isnan(local[i])) << "rank " << WorldRank();
}

// The checker itself: a deliberately wrong signature list for the real `mul` kernel
// must be caught, and P * P -> P only with shares (FromLogical makes every rank but one
// hold 0, and 0 * 0 = 0 hides the error).
Status SameShapeAsX(op::OpContext* ctx) {
  *ctx->mutable_output("out") = ctx->input("x");
  return Status::Ok();
}

void WrongMulSignatures(const op::OpContext&, op::SignatureList* list) {
  // Wrong: (sum_r x_r)(sum_r y_r) is not sum_r x_r y_r.
  list->NewBuilder().PartialSum("x").PartialSum("y").PartialSum("out").Build();
  // Wrong: the max of products is not the product of maxima for negative values.
  list->NewBuilder().PartialMax("x").PartialMax("y").PartialMax("out").Build();
  // Right.
  list->NewBuilder().Split("x", 0).Split("y", 0).Split("out", 0).Build();
}

const op::OpDef& WrongMul() {
  static const op::OpDef* def = new op::OpDef(op::OpDef("mul")
                                                  .Input("x")
                                                  .Input("y")
                                                  .Output("out")
                                                  .SetShapeFn(SameShapeAsX)
                                                  .SetSignatureFn(WrongMulSignatures));
  return *def;
}

TEST(OpSignatureTest, CheckerCatchesWrongSignatures) {
  if (WorldSize() < 2) GTEST_SKIP() << "needs 2 ranks";
  OpCall call;
  call.def = &WrongMul();
  call.label = "[7,5]*[7,5] with a wrong signature list";
  call.inputs = {MakeInput({Shape{7, 5}, DType::kF32}, 0),
                 MakeInput({Shape{7, 5}, DType::kF32}, 1)};
  call.want = kernels::cpu::RunOp("mul", call.inputs).value();
  SignatureReport report = CheckSignatures(call, WorldPlacement());
  EXPECT_EQ(report.candidates, 4);  // three declared + all-B
  EXPECT_EQ(report.checked, 4);
  EXPECT_EQ(report.partial_runs, 2);
  auto failed = [&](const std::string& sig, const std::string& fill) {
    for (const std::string& f : report.failures) {
      if (f.find(": " + sig + " [" + fill + "]") != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(failed("x:P, y:P -> out:P", "shares"));
  EXPECT_FALSE(failed("x:P, y:P -> out:P", "from_logical"));
  EXPECT_TRUE(failed("x:P(max), y:P(max) -> out:P(max)", "shares"));
  EXPECT_FALSE(failed("x:S(0), y:S(0) -> out:S(0)", "from_logical"));
  EXPECT_FALSE(failed("x:B, y:B -> out:B", "from_logical"));
  EXPECT_EQ(report.failures.size(),
            2u + (failed("x:P(max), y:P(max) -> out:P(max)", "from_logical") ? 1u : 0u));
}

// PartialPiece is a pure function, so every rank can build every rank's piece and
// check that they reduce to the logical value and are not trivial.
TEST(OpSignatureTest, PartialPiecesReduceToTheLogicalValue) {
  const Placement grid = Placement::Parse("cpu:[[0,1],[2,3]]").value();
  const HostTensor logical = MakeInput({Shape{5, 3}, DType::kF32}, 0);
  const HostTensor logical_i = MakeInput({Shape{5, 3}, DType::kI64}, 0);
  for (const char* text :
       {"(P, P)", "(P(max), S(1))", "(S(0), P(min))", "(P(min), P(max))", "(P, P(max))"}) {
    SCOPED_TRACE(text);
    const NdSbp nd = NdSbp::Parse(text).value();
    for (const HostTensor* x : {&logical, &logical_i}) {
      std::vector<HostTensor> pieces;
      for (int32_t r = 0; r < 4; ++r) pieces.push_back(PartialPiece(*x, grid, nd, r).value());
      // Reduce axis 1 (inner) first, then axis 0, following the nested layout; a split
      // axis concatenates along its tensor axis.
      auto reduce = [](Sbp sbp, const HostTensor& a, const HostTensor& b) {
        if (sbp.is_split()) {
          // Concatenate along the split axis of the [5,3] tensor.
          const Shape& sa = a.shape();
          const Shape& sb = b.shape();
          Shape out = sa;
          out.set_dim(sbp.axis, sa.dim(sbp.axis) + sb.dim(sbp.axis));
          std::vector<double> v;
          if (sbp.axis == 0) {
            v = a.Values();
            for (double e : b.Values()) v.push_back(e);
          } else {
            for (int64_t i = 0; i < sa.dim(0); ++i) {
              for (int64_t j = 0; j < sa.dim(1); ++j) v.push_back(a.Get(i * sa.dim(1) + j));
              for (int64_t j = 0; j < sb.dim(1); ++j) v.push_back(b.Get(i * sb.dim(1) + j));
            }
          }
          return kernels::cpu::FromValues(out, a.dtype(), v);
        }
        HostTensor out(a.shape(), a.dtype());
        for (int64_t i = 0; i < a.size(); ++i) {
          const double p = a.Get(i), q = b.Get(i);
          out.Set(i, sbp.kind == SbpKind::kPartialSum   ? p + q
                     : sbp.kind == SbpKind::kPartialMax ? std::max(p, q)
                                                        : std::min(p, q));
        }
        return out;
      };
      HostTensor row0 = reduce(nd[1], pieces[0], pieces[1]);
      HostTensor row1 = reduce(nd[1], pieces[2], pieces[3]);
      EXPECT_EQ(Mismatch(reduce(nd[0], row0, row1), *x, /*exact=*/true), "");
      // Not the identity fill: on a partial axis both coordinates differ from the value
      // somewhere.
      if (nd[0].is_partial()) {
        EXPECT_NE(Mismatch(pieces[0], *x, true).size() * Mismatch(pieces[2], *x, true).size(), 0u);
      }
    }
  }
}

TEST(OpSignatureTest, HelpersRejectBadInputs) {
  const HostTensor x = MakeInput({Shape{4}, DType::kF32}, 0);
  Status s =
      PartialPiece(x, Placement::Parse("cpu:[1,2]").value(), NdSbp::Parse("P").value(), 0).status();
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  s = PartialPiece(x, Placement::Parse("cpu:[0,1]").value(), NdSbp::Parse("S(3)").value(), 0)
          .status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  const HostTensor y = MakeInput({Shape{2, 2}, DType::kF32}, 0);
  EXPECT_NE(Mismatch(x, y, true).find("[2,2]"), std::string::npos) << Mismatch(x, y, true);
  HostTensor z = MakeInput({Shape{4}, DType::kF32}, 0);
  z.Set(3, z.Get(3) + 1e-6);
  EXPECT_EQ(Mismatch(z, x, false), "");
  EXPECT_NE(Mismatch(z, x, true).find("element 3"), std::string::npos) << Mismatch(z, x, true);
}

}  // namespace
}  // namespace tessera::eager_test
