// BoxingLayouts: what Make refuses (in the caller's name, naming side and values), what
// a held value still needs for boxing (RequireBoxable), the host-twin derivation and
// piece sizes. No MPI.
#include "core/boxing/boxing_layouts.h"

#include <gtest/gtest.h>

#include <string>

namespace tessera::boxing {
namespace {

Placement P(const std::string& text) { return Placement::Parse(text).value(); }
NdSbp Nd(const std::string& text) { return NdSbp::Parse(text).value(); }

// Layouts of a [5,3] tensor.
Result<BoxingLayouts> Layouts(const char* caller, DType dtype, const std::string& sp,
                              const NdSbp& s, const std::string& dp, const NdSbp& d) {
  return BoxingLayouts::Make(caller, Shape{5, 3}, dtype, P(sp), s, P(dp), d);
}

Status MakeStatus(DType dtype, const std::string& sp, const NdSbp& s, const std::string& dp,
                  const NdSbp& d) {
  return Layouts("Caller", dtype, sp, s, dp, d).status();
}

TEST(BoxingLayoutsTest, MakeNamesCallerSideAndValues) {
  EXPECT_TRUE(MakeStatus(DType::kF32, "cpu:[0,1]", Nd("S(0)"), "cpu:[0,1]", Nd("B")).ok());
  Status s = MakeStatus(DType::kF32, "cpu:[0,1]", Nd("S(2)"), "cpu:[0,1]", Nd("B"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Caller: src nd-sbp S(2) splits tensor axis 2 but the tensor of shape [5,3] has 2 "
            "axes");
  s = MakeStatus(DType::kF32, "cpu:[0,1]", Nd("B"), "cpu:[[0,1]]", Nd("B"));
  EXPECT_EQ(s.message(),
            "Caller: dst nd-sbp B has 1 axes but placement cpu:[[0,1]] has a 2-axis hierarchy");
  NdSbp bad_kind;
  bad_kind.Append(Sbp{static_cast<SbpKind>(9), 0});
  s = MakeStatus(DType::kF32, "cpu:[0]", Nd("B"), "cpu:[0]", bad_kind);
  EXPECT_EQ(s.message(),
            "Caller: dst nd-sbp axis 0 has sbp kind value 9, which is not an SBP kind");
  s = MakeStatus(static_cast<DType>(42), "cpu:[0]", Nd("B"), "cpu:[0]", Nd("B"));
  EXPECT_EQ(s.message(),
            "Caller: dtype value 42 is not supported (supported: f32, f64, f16, bf16, i32, i64, "
            "bool)");
  // Two device types are valid layouts (RequireBoxable refuses the move).
  EXPECT_TRUE(MakeStatus(DType::kF16, "cpu:[0]", Nd("B"), "cuda:[0]", Nd("B")).ok());
}

TEST(BoxingLayoutsTest, BoolIsNeverPartial) {
  EXPECT_TRUE(MakeStatus(DType::kBool, "cpu:[0,1]", Nd("S(0)"), "cpu:[0,1]", Nd("B")).ok());
  Status s = MakeStatus(DType::kBool, "cpu:[0,1]", Nd("B"), "cpu:[0,1]", Nd("P(max)"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "Caller: dst of dtype bool cannot be partial (nd-sbp P(max)): bool has no sum, max "
            "or min");
}

TEST(BoxingLayoutsTest, RequireBoxableChecksDTypeAndDeviceTypes) {
  auto layouts = [](DType dtype, const char* dst_p) {
    return Layouts("Make", dtype, "cpu:[0,1]", Nd("S(0)"), dst_p, Nd("B")).value();
  };
  EXPECT_TRUE(layouts(DType::kI64, "cpu:[0,1]").RequireBoxable("Box").ok());
  EXPECT_TRUE(layouts(DType::kBF16, "cpu:[0,1]").RequireBoxable("Box").ok());
  Status s = layouts(DType::kF32, "cuda:[0,1]").RequireBoxable("PlanBoxing");
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "PlanBoxing: boxing between device types cpu and cuda (src cpu:[0,1], dst "
            "cuda:[0,1]) is not implemented; to_global stages such moves through host memory");
}

TEST(BoxingLayoutsTest, OnPlacementsKeepsTheNdSbpsOnTheSameHierarchies) {
  const BoxingLayouts device = Layouts("to_global", DType::kF32, "cuda:[[0,1],[2,3]]",
                                       Nd("(S(0), B)"), "cpu:[0,1,2]", Nd("S(1)"))
                                   .value();
  Result<BoxingLayouts> host =
      device.OnPlacements("to_global", P("cpu:[[0,1],[2,3]]"), P("cpu:[0,1,2]"));
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  EXPECT_EQ(host->src(), device.src());
  EXPECT_EQ(host->dst_placement(), P("cpu:[0,1,2]"));
  EXPECT_FALSE(host->unchanged());
  Status s = device.OnPlacements("to_global", P("cpu:[0,1,2,3]"), P("cpu:[0,1,2]")).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "to_global: the layouts (src cuda:[[0,1],[2,3]], dst cpu:[0,1,2]) cannot move to "
            "placements of other hierarchies (src cpu:[0,1,2,3], dst cpu:[0,1,2])");
}

TEST(BoxingLayoutsTest, PieceElementsFollowTheBalancedSplit) {
  // 5 rows over 3 ranks: 2, 2, 1; B holds all 15 elements; rank 7 holds nothing.
  const BoxingLayouts layouts =
      Layouts("Make", DType::kF32, "cpu:[4,5,6]", Nd("S(0)"), "cpu:[6]", Nd("B")).value();
  EXPECT_EQ(layouts.PieceElements(Side::kSrc, 4), 6);
  EXPECT_EQ(layouts.PieceElements(Side::kSrc, 6), 3);
  EXPECT_EQ(layouts.PieceElements(Side::kDst, 6), 15);
  EXPECT_EQ(layouts.PieceElements(Side::kDst, 4), 0);
  EXPECT_EQ(layouts.PieceElements(Side::kSrc, 7), 0);
}

}  // namespace
}  // namespace tessera::boxing
