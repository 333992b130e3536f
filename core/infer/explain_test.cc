#include "core/infer/explain.h"

#include <gtest/gtest.h>

#include "core/infer/infer_test_util.h"

namespace tessera {
namespace infer {
namespace {

TEST(ExplainTest, RecordsEveryCandidate) {
  Result<Explanation> e =
      Explain(Op("add"), {Meta({4, 6}, "cpu:[0,1]", "S(0)"), Meta({4, 6}, "cpu:[0,1]", "B")}, {});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->op, "add");
  EXPECT_EQ(e->input_names, (std::vector<std::string>{"x", "y"}));
  ASSERT_EQ(e->candidates.size(), 8u);
  EXPECT_EQ(e->candidates[0].text, "x:S(0), y:S(0) -> out:S(0)");
  EXPECT_EQ(e->candidates[0].input_costs, (std::vector<double>{0, 0}));
  EXPECT_EQ(e->candidates[0].rank, 0);
  // #1 (S1,S1): x S0->S1 = 96 * 1/2 = 48, y B->S1 = 0.
  EXPECT_EQ(e->candidates[1].input_costs, (std::vector<double>{48, 0}));
  EXPECT_EQ(e->candidates[1].rank, 1);
  EXPECT_EQ(e->chosen, 0);
  ASSERT_EQ(e->boxing.size(), 1u);
  EXPECT_EQ(e->boxing[0].name, "y");
  EXPECT_EQ(e->boxing[0].from, Nd("B"));
  EXPECT_EQ(e->boxing[0].to, Nd("S(0)"));
  EXPECT_EQ(e->boxing[0].cost, 0);
  EXPECT_EQ(e->outputs[0].nd_sbp, Nd("S(0)"));
}

TEST(ExplainTest, RendersText) {
  Result<Explanation> e =
      Explain(Op("add"), {Meta({4, 6}, "cpu:[0,1]", "S(0)"), Meta({4, 6}, "cpu:[0,1]", "B")}, {});
  ASSERT_TRUE(e.ok());
  const std::string text = e->ToString();
  for (const char* line : {
           "add {} on cpu:[0,1]\n",
           "    x: S(0) [4,6] f32 (96 bytes)\n",
           "    #0   x:S(0), y:S(0) -> out:S(0)   cost 0          match 1  order -10   rank 0  "
           "<- chosen\n",
           "    #7   x:B, y:B -> out:B            cost 96         match 1  order -10   rank 2  "
           "<- OneFlow's pick\n",
           "  chosen: #0 x:S(0), y:S(0) -> out:S(0)\n",
           "  OneFlow's 1-d rule: #7 x:B, y:B -> out:B\n",
           "  boxing:\n    y: B -> S(0) (cost 0)\n",
           "  outputs:\n    out: S(0) [4,6] f32\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing:\n" << line << "in:\n" << text;
  }
}

TEST(ExplainTest, TrivialAndFilteredRendering) {
  Result<Explanation> one = Explain(Op("relu"), {Meta({4}, "cpu:[0]", "S(0)")}, {});
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->trivial);
  EXPECT_NE(one->ToString().find("one rank: SBP is symbolic, nothing is boxed"), std::string::npos);
  Result<Explanation> f = Explain(Op("relu"), {Meta({1, 6}, "cpu:[0,1]", "B")}, {});
  ASSERT_TRUE(f.ok());
  EXPECT_NE(f->ToString().find("filtered: input \"x\": S(0) splits axis 0 of shape [1,6] (1 "
                               "element) over 2 ranks on placement axis 0"),
            std::string::npos)
      << f->ToString();
}

TEST(ExplainTest, FailsLikeInferenceOnBadInput) {
  Result<Explanation> e =
      Explain(Op("relu"), {Meta({4}, "cpu:[0,1]", "B"), Meta({4}, "cpu:[0,1]", "B")}, {});
  EXPECT_EQ(e.status().message(), "relu: takes 1 input but got 2");
}

}  // namespace
}  // namespace infer
}  // namespace tessera
