#include "core/infer/explain_json.h"

#include <gtest/gtest.h>

#include "core/infer/infer_test_util.h"

namespace tessera {
namespace infer {
namespace {

TEST(JsonQuoteTest, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("input \"x\""), "\"input \\\"x\\\"\"");
  EXPECT_EQ(JsonQuote("a\\b"), "\"a\\\\b\"");
  EXPECT_EQ(JsonQuote("l1\nl2\tx\r"), "\"l1\\nl2\\tx\\r\"");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(JsonQuote(""), "\"\"");
}

TEST(ExplainJsonTest, RecordsTheChoiceAndBoxing) {
  Result<Explanation> e = Explain(
      Op("add"), {Meta({4, 6}, "cpu:[0,1]", "S(0)"), Meta({4, 6}, "cpu:[0,1]", "S(1)")}, {});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const std::string json = ExplanationToJson(*e);
  for (const char* part : {
           "{\n  \"op\": \"add\",\n  \"attrs\": \"{}\",\n  \"placement\": \"cpu:[0,1]\",\n"
           "  \"trivial\": false,\n",
           "    {\n      \"name\": \"x\",\n      \"shape\": [4, 6],\n      \"dtype\": \"f32\",\n"
           "      \"nd_sbp\": \"S(0)\",\n      \"bytes\": 96\n    },\n",
           "  \"constraints\": [],\n",
           "      \"index\": 0,\n      \"text\": \"x:S(0), y:S(0) -> out:S(0)\",\n"
           "      \"inputs\": [\n        \"S(0)\",\n        \"S(0)\"\n      ],\n",
           "      \"filtered\": false,\n      \"filter_reason\": null,\n",
           "  \"chosen\": 0,\n",
           "\"boxing\": [\n    {\n      \"input\": 1,\n      \"name\": \"y\",\n"
           "      \"from\": \"S(1)\",\n      \"to\": \"S(0)\",\n      \"cost\": 48\n    }\n  ],\n",
           "  \"failure\": null\n}\n",
       }) {
    EXPECT_NE(json.find(part), std::string::npos) << "missing:\n" << part << "\nin:\n" << json;
  }
}

TEST(ExplainJsonTest, FilteredCandidatesFailureAndConstraints) {
  // relu on a [1] tensor over 2 ranks with the output constrained to S(0): the only
  // S(0) candidate is filtered (1 element over 2 ranks), so nothing fits.
  SbpConstraint c{true, 0, Nd("S(0)")};
  Result<Explanation> e = Explain(Op("relu"), {Meta({1}, "cpu:[0,1]", "B")}, {}, {c});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_FALSE(e->failure.empty());
  const std::string json = ExplanationToJson(*e);
  EXPECT_NE(json.find("\"side\": \"output\",\n      \"slot\": 0,\n      \"name\": \"out\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"filter_reason\": \"input \\\"x\\\": S(0) splits axis 0"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"chosen\": -1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"failure\": \"relu: no SBP signature fits"), std::string::npos) << json;
  EXPECT_NE(json.find("\\n  #0 "), std::string::npos) << "newlines in failure escaped:\n" << json;
}

TEST(ExplainJsonTest, TrivialPlacement) {
  Result<Explanation> e = Explain(Op("relu"), {Meta({4}, "cpu:[0]", "S(0)")}, {});
  ASSERT_TRUE(e.ok());
  const std::string json = ExplanationToJson(*e);
  EXPECT_NE(json.find("\"trivial\": true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"candidates\": []"), std::string::npos) << json;
  EXPECT_NE(json.find("\"boxing\": []"), std::string::npos) << json;
}

}  // namespace
}  // namespace infer
}  // namespace tessera
