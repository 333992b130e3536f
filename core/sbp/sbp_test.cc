#include "core/sbp/sbp.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

std::string NdError(const char* text) {
  Result<NdSbp> r = NdSbp::Parse(text);
  EXPECT_FALSE(r.ok()) << text << " parsed as " << (r.ok() ? r->ToString() : "");
  return r.ok() ? "" : r.status().message();
}

TEST(SbpTest, ParsesAndPrintsEveryKind) {
  struct Case {
    const char* text;
    Sbp sbp;
    const char* printed;
  } cases[] = {
      {"S(0)", Sbp::Split(0), "S(0)"},
      {" S( 3 ) ", Sbp::Split(3), "S(3)"},
      {"B", Sbp::Broadcast(), "B"},
      {"P", Sbp::PartialSum(), "P"},
      {"P(sum)", Sbp::PartialSum(), "P"},
      {"P(max)", Sbp::PartialMax(), "P(max)"},
      {"P(min)", Sbp::PartialMin(), "P(min)"},
  };
  for (const Case& c : cases) {
    Result<Sbp> r = Sbp::Parse(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.status().ToString();
    EXPECT_EQ(*r, c.sbp) << c.text;
    EXPECT_EQ(r->ToString(), c.printed);
  }
}

TEST(SbpTest, Predicates) {
  EXPECT_TRUE(Sbp::Split(1).is_split());
  EXPECT_TRUE(Sbp::Broadcast().is_broadcast());
  EXPECT_TRUE(Sbp::PartialMax().is_partial());
  EXPECT_FALSE(Sbp::Split(0).is_partial());
}

TEST(SbpTest, BadSbp) {
  EXPECT_NE(Sbp::Parse("S(-9)").status().message().find("split axis in [-8, 7] (got S(-9))"),
            std::string::npos);
  EXPECT_NE(Sbp::Parse("S(8)").status().message().find("got S(8)"), std::string::npos);
  EXPECT_NE(Sbp::Parse("P(avg)").status().message().find("\"sum\", \"max\" or \"min\""),
            std::string::npos);
  EXPECT_NE(Sbp::Parse("S").status().message().find("expected '('"), std::string::npos);
  EXPECT_NE(Sbp::Parse("S(1").status().message().find("expected ')'"), std::string::npos);
  EXPECT_NE(Sbp::Parse("X").status().message().find("S(i), B, P, P(max) or P(min)"),
            std::string::npos);
  EXPECT_NE(Sbp::Parse("B B").status().message().find("end of text"), std::string::npos);
  EXPECT_EQ(Sbp::Make(9, 0).status().message(),
            "sbp kind 9 is not split (0), broadcast (1), partial_sum (2), partial_max (3) or "
            "partial_min (4)");
  EXPECT_EQ(Sbp::Make(0, 8).status().message(), "split axis 8 is outside [0, 7]");
  EXPECT_EQ(Sbp::Make(0, -1).status().message(), "split axis -1 is outside [0, 7]");
  EXPECT_EQ(*Sbp::Make(4, 0), Sbp::PartialMin());
}

TEST(NdSbpTest, ParsesTuplesAndBareValues) {
  NdSbp nd = *NdSbp::Parse("(S(0), B)");
  ASSERT_EQ(nd.num_axes(), 2);
  EXPECT_EQ(nd[0], Sbp::Split(0));
  EXPECT_EQ(nd[1], Sbp::Broadcast());
  EXPECT_EQ(nd.ToString(), "(S(0), B)");
  EXPECT_EQ(NdSbp::Parse("S(1)")->ToString(), "S(1)");
  EXPECT_EQ(*NdSbp::Parse("(S(1))"), *NdSbp::Parse("S(1)"));
  EXPECT_EQ(NdSbp::Parse("(P(max),P(min),P)")->ToString(), "(P(max), P(min), P)");
  EXPECT_TRUE(NdSbp::Parse("(B, B)")->all_broadcast());
  EXPECT_FALSE(NdSbp::Parse("(B, P)")->all_broadcast());
}

TEST(NdSbpTest, LongTextIsRefusedBeforeItIsRead) {
  // Spaces between tokens are legal, so without the bound a parse reads any length.
  const std::string text = "(B" + std::string(100000, ' ') + ")";
  Result<NdSbp> r = NdSbp::Parse(text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "nd-sbp text is 100003 characters long; at most 65536 are accepted");
  EXPECT_TRUE(NdSbp::Parse("(B" + std::string(60000, ' ') + ")").ok());
}

TEST(NdSbpTest, EqualityAndHash) {
  EXPECT_EQ(*NdSbp::Parse("(S(0), B)"), *NdSbp::Parse("(S(0),B)"));
  EXPECT_NE(*NdSbp::Parse("(S(0), B)"), *NdSbp::Parse("(B, S(0))"));
  EXPECT_NE(*NdSbp::Parse("S(0)"), *NdSbp::Parse("(S(0), S(0))"));
  EXPECT_EQ(NdSbp::Parse("(S(0), B)")->Hash(), NdSbp::Parse("(S(0),B)")->Hash());
  EXPECT_NE(NdSbp::Parse("(S(0), B)")->Hash(), NdSbp::Parse("(B, S(0))")->Hash());
}

TEST(NdSbpTest, BadNdSbp) {
  EXPECT_NE(NdError("()").find("empty nd-sbp"), std::string::npos);
  EXPECT_NE(NdError("(S(0), B").find("expected ')'"), std::string::npos);
  EXPECT_NE(NdError("(S(0),)").find("expected an SBP"), std::string::npos);
  EXPECT_NE(NdError("(S(0), P(avg))").find("\"sum\", \"max\" or \"min\""), std::string::npos);
  EXPECT_NE(NdError("(B,B,B,B,B,B,B,B,B)").find("at most 8 axes"), std::string::npos);
  EXPECT_NE(NdError("S(0), B").find("end of text"), std::string::npos);
  EXPECT_NE(NdError("").find("expected an SBP"), std::string::npos);
  Sbp none[1];
  EXPECT_FALSE(NdSbp::Make(none, 0).ok());
  Sbp bad[] = {{static_cast<SbpKind>(11), 0}};
  EXPECT_FALSE(NdSbp::Make(bad, 1).ok());
}

TEST(NdSbpTest, ValidateAgainstPlacementAndShape) {
  Placement p2 = *Placement::Parse("cpu:[[0,1],[2,3]]");
  EXPECT_TRUE(ValidateNdSbp(*NdSbp::Parse("(S(0), S(1))"), p2, Shape{6, 5}).ok());
  Status s = ValidateNdSbp(*NdSbp::Parse("S(0)"), p2, Shape{6, 5});
  EXPECT_EQ(s.message(),
            "nd-sbp S(0) has 1 axes but placement cpu:[[0,1],[2,3]] has a 2-axis hierarchy");
  s = ValidateNdSbp(*NdSbp::Parse("(S(7), B)"), p2, Shape{6, 5});
  EXPECT_EQ(s.message(),
            "nd-sbp (S(7), B) splits tensor axis 7 but the tensor of shape [6,5] has 2 axes");
  s = ValidateNdSbp(*NdSbp::Parse("S(0)"), *Placement::Parse("cpu:[0]"), Shape{});
  EXPECT_FALSE(s.ok());
}

TEST(NdSbpTest, NegativeSplitAxesCountFromTheEnd) {
  Result<NdSbp> parsed = NdSbp::Parse("(S(-1), B, S(-8))");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->ToString(), "(S(-1), B, S(-8))");
  const Shape shape{2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(ResolveNdSbp(*parsed, shape)->ToString(), "(S(7), B, S(0))");
  EXPECT_EQ(ResolveNdSbp(*NdSbp::Parse("(S(1), P)"), Shape{2, 3})->ToString(), "(S(1), P)");
  Result<NdSbp> bad = ResolveNdSbp(*NdSbp::Parse("(B, S(-3))"), Shape{2, 3});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "nd-sbp (B, S(-3)) splits axis -3 but the tensor of shape [2,3] has 2 axes (split "
            "axes -2..1)");
}

}  // namespace
}  // namespace tessera
