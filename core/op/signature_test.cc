#include "core/op/signature.h"

#include <gtest/gtest.h>

namespace tessera {
namespace op {
namespace {

Status NoShape(OpContext* ctx) {
  *ctx->mutable_output("out") = ctx->input("a");
  return Status::Ok();
}

// A signature function chosen per test.
void (*g_sigs)(const OpContext&, SignatureList*) = nullptr;
void Dispatch(const OpContext& ctx, SignatureList* list) { g_sigs(ctx, list); }

OpDef Def() {
  return OpDef("f")
      .Input("a")
      .RepeatedInput("in", 1)
      .Output("out")
      .SetShapeFn(NoShape)
      .SetSignatureFn(Dispatch);
}

Result<std::vector<std::string>> RunSigs(void (*sigs)(const OpContext&, SignatureList*)) {
  g_sigs = sigs;
  static const OpDef def = Def();
  static const AttrMap attrs;
  TESS_ASSIGN_OR_RETURN(
      OpContext ctx,
      OpContext::Make(def, {{{4, 6}, DType::kF32}, {{4}, DType::kF32}, {{4}, DType::kF32}}, attrs));
  TESS_RETURN_IF_ERROR(def.shape_fn()(&ctx));
  TESS_ASSIGN_OR_RETURN(std::vector<SbpSignature> list, ListSignatures(&ctx, 2, 2));
  std::vector<std::string> out;
  for (const SbpSignature& s : list) out.push_back(s.ToString(ctx));
  return out;
}

TEST(SignatureBuilderTest, SelectorsAndDedup) {
  auto r = RunSigs([](const OpContext&, SignatureList* l) {
    l->NewBuilder().Split(AllInputs(), 0).Split(AllOutputs(), 0).Build();
    // One copy of a repeated argument, then the rest of it.
    l->NewBuilder()
        .Split("a", 1)
        .Broadcast("in")
        .PartialMax(Arg("in", 1))
        .PartialSum("out")
        .Build();
    // A duplicate and an explicit all-B are dropped.
    l->NewBuilder().Split(AllInputs(), 0).Split(AllOutputs(), 0).Build();
    l->NewBuilder().Broadcast(AllInputs()).Broadcast(AllOutputs()).Build();
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<std::string>{
                    "a:S(0), in[0]:S(0), in[1]:S(0) -> out:S(0)",
                    "a:S(1), in[0]:B, in[1]:P(max) -> out:P",
                    "a:B, in[0]:B, in[1]:B -> out:B",
                }));
}

TEST(SignatureBuilderTest, DefinitionBugsAreInternalErrors) {
  auto unset =
      RunSigs([](const OpContext&, SignatureList* l) { l->NewBuilder().Split("a", 0).Build(); });
  EXPECT_EQ(unset.status().code(), StatusCode::kInternal);
  EXPECT_EQ(unset.status().message(), "f: signature builder: input \"in[0]\" left unset");
  auto axis = RunSigs([](const OpContext&, SignatureList* l) {
    l->NewBuilder().Split(AllInputs(), 1).Split("out", 0).Build();
  });
  EXPECT_EQ(axis.status().message(),
            "f: signature builder: input \"in[0]\" split on axis 1 of shape [4]");
  auto name = RunSigs([](const OpContext&, SignatureList* l) {
    l->NewBuilder().Split("b", 0).Broadcast(AllInputs()).Broadcast("out").Build();
  });
  EXPECT_EQ(name.status().message(), "f: signature builder: no argument named \"b\"");
  auto index = RunSigs([](const OpContext&, SignatureList* l) {
    l->NewBuilder().Broadcast(AllInputs()).Split(Arg("in", 5), 0).Broadcast("out").Build();
  });
  EXPECT_EQ(index.status().message(), "f: signature builder: input in[5] does not exist (2 given)");
}

}  // namespace
}  // namespace op
}  // namespace tessera
