#include "tools/tessera_cli/explain_command.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tessera {
namespace cli {
namespace {

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

CliRun Explain(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunExplain(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(ParseInputSpecTest, NamedAndPositional) {
  Result<InputSpec> a = ParseInputSpec("a:f32[64,32]:S(0)");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->name, "a");
  EXPECT_EQ(a->dtype, DType::kF32);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(a->nd_sbp, "S(0)");
  Result<InputSpec> b = ParseInputSpec("f64[6, 5]:(S(0), B)");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->name, "");
  EXPECT_EQ(b->dtype, DType::kF64);
  EXPECT_EQ(b->shape, (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(b->nd_sbp, "(S(0), B)");
  Result<InputSpec> scalar = ParseInputSpec("i64[]:B");
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->shape.empty());
}

TEST(ParseInputSpecTest, Errors) {
  EXPECT_EQ(ParseInputSpec("a:f32:S(0)").status().message(),
            "no [SHAPE]; expected [NAME:]DTYPE[SHAPE]:NDSBP, e.g. a:f32[64,32]:S(0)");
  EXPECT_EQ(ParseInputSpec("a:f32[4]").status().message(),
            "no \":NDSBP\" after the shape; expected [NAME:]DTYPE[SHAPE]:NDSBP, e.g. "
            "a:f32[64,32]:S(0)");
  EXPECT_EQ(ParseInputSpec("a:float[4]:B").status().message(),
            "unknown dtype \"float\"; expected one of f32, f64, i32, i64, f16, bf16, bool");
  EXPECT_EQ(ParseInputSpec("a:f32[4,x]:B").status().message(), "shape dim \"x\" is not an integer");
  EXPECT_EQ(ParseInputSpec(":f32[4]:B").status().code(), StatusCode::kInvalidArgument);
}

TEST(ParseAttrValueTest, EveryType) {
  EXPECT_EQ(*ParseAttrValue(op::AttrType::kInt, "-3"), op::AttrValue::Int(-3));
  EXPECT_EQ(*ParseAttrValue(op::AttrType::kFloat, "1e-5"), op::AttrValue::Float(1e-5));
  EXPECT_EQ(*ParseAttrValue(op::AttrType::kBool, "true"), op::AttrValue::Bool(true));
  EXPECT_EQ(*ParseAttrValue(op::AttrType::kBool, "0"), op::AttrValue::Bool(false));
  EXPECT_EQ(*ParseAttrValue(op::AttrType::kInts, "[0,2]"), op::AttrValue::Ints({0, 2}));
  EXPECT_EQ(*ParseAttrValue(op::AttrType::kInts, "1"), op::AttrValue::Ints({1}));
  EXPECT_EQ(*ParseAttrValue(op::AttrType::kInts, "[]"), op::AttrValue::Ints({}));
  EXPECT_EQ(*ParseAttrValue(op::AttrType::kDType, "i32"), op::AttrValue::OfDType(DType::kI32));
  EXPECT_EQ(ParseAttrValue(op::AttrType::kBool, "yes").status().message(),
            "bool value \"yes\" is not true, false, 1 or 0");
  EXPECT_EQ(ParseAttrValue(op::AttrType::kInt, "1.5").status().message(),
            "int value \"1.5\" is not an integer");
  EXPECT_EQ(ParseAttrValue(op::AttrType::kFloat, "").status().message(),
            "float value \"\" is not a number");
  EXPECT_EQ(ParseAttrValue(op::AttrType::kInts, "[1,2").status().message(),
            "ints value \"[1,2\" lacks its ']'");
}

TEST(RunExplainTest, IssueExample) {
  CliRun r = Explain({"matmul", "--placement", "cpu:[0,1,2,3]", "--input", "a:f32[64,32]:S(0)",
                      "--input", "b:f32[32,16]:B"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("matmul {} on cpu:[0,1,2,3]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  chosen: #0 a:S(0), b:B -> out:S(0)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  boxing: none\n"), std::string::npos) << r.out;
}

TEST(RunExplainTest, AttrsConstraintsAndJson) {
  CliRun r = Explain({"matmul", "--placement=cpu:[0,1]", "--input", "f32[4,6]:S(0)", "--input",
                      "f32[8,6]:S(0)", "--attr", "transpose_b=true", "--constrain-output",
                      "out=S(1)", "--json"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("\"attrs\": \"{transpose_b=true}\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"side\": \"output\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"shape\": [4, 8]"), std::string::npos) << r.out;
}

TEST(RunExplainTest, NoSignatureFitsExitsOne) {
  CliRun r = Explain({"relu", "--placement", "cpu:[0,1]", "--input", "x:f32[1]:B",
                      "--constrain-output", "0=S(0)"});
  EXPECT_EQ(r.code, kExitNoSignature) << r.err;
  EXPECT_NE(r.out.find("  failure: relu: no SBP signature fits"), std::string::npos) << r.out;
}

TEST(RunExplainTest, UsageErrorsNameTheArgument) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--placement", "cpu:[0,1]", "--input", "f32[4]:B"}, "missing the op name"},
      {{"relu", "--input", "f32[4]:B"}, "missing --placement"},
      {{"relu", "--placement", "cpu:[0,1]"}, "missing --input"},
      {{"relu", "--placement"}, "option --placement needs a value"},
      {{"relu", "--bogus", "1"}, "unknown option \"--bogus\""},
      {{"relu", "extra", "--placement", "cpu:[0]", "--input", "f32[4]:B"},
       "unexpected argument \"extra\""},
      {{"relux", "--placement", "cpu:[0,1]", "--input", "f32[4]:B"},
       "no op named \"relux\"; did you mean: "},
      {{"relu", "--placement", "cpu:[0,0]", "--input", "f32[4]:B"}, "--placement \"cpu:[0,0]\": "},
      {{"relu", "--placement", "cpu:[0,1]", "--input", "f32[4]:S(3)"},
       "--input \"f32[4]:S(3)\": relu: input \"x\": "},
      {{"relu", "--placement", "cpu:[0,1]", "--input", "y:f32[4]:B"},
       "--input \"y:f32[4]:B\": input 0 of relu(x) -> (out) is \"x\", not \"y\""},
      {{"matmul", "--placement", "cpu:[0,1]", "--input", "f32[4,2]:B", "--input", "f32[2,2]:B",
        "--attr", "transpose_b=maybe"},
       "--attr \"transpose_b=maybe\": matmul: attribute \"transpose_b\": bool value \"maybe\""},
      {{"matmul", "--placement", "cpu:[0,1]", "--input", "f32[4,2]:B", "--attr", "alpha=1"},
       "--attr \"alpha=1\": matmul: unknown attribute \"alpha\"; known attributes: transpose_a, "
       "transpose_b"},
      {{"relu", "--placement", "cpu:[0,1]", "--input", "f32[4]:B", "--constrain-input", "z=B"},
       "--constrain-input \"z=B\": relu has no input named \"z\" (x)"},
      {{"relu", "--placement", "cpu:[0,1]", "--input", "f32[4]:B", "--constrain-output", "3=B"},
       "--constrain-output \"3=B\": relu: constraint names output slot 3"},
      {{"matmul", "--placement", "cpu:[0,1]", "--input", "f32[4,2]:B"},
       "matmul: takes 2 inputs but got 1"},
  };
  for (const auto& [args, text] : cases) {
    CliRun r = Explain(args);
    EXPECT_EQ(r.code, kExitUsage) << text;
    EXPECT_EQ(r.out, "") << text;
    EXPECT_NE(r.err.find("tessera explain: " + text), std::string::npos)
        << "want: " << text << "\ngot: " << r.err;
    EXPECT_NE(r.err.find("\nusage: tessera explain OP"), std::string::npos) << r.err;
  }
}

TEST(RunExplainTest, Help) {
  CliRun r = Explain({"--help"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_EQ(r.out.rfind("usage: tessera explain OP", 0), 0u);
}

}  // namespace
}  // namespace cli
}  // namespace tessera
