#include "core/op/op_test_util.h"

#include <gtest/gtest.h>

#include "core/op/op_registry.h"
#include "core/op/signature.h"

namespace tessera {
namespace op {

std::vector<TensorDesc> Descs(std::initializer_list<Shape> shapes, DType dtype) {
  std::vector<TensorDesc> v;
  for (const Shape& s : shapes) v.push_back({s, dtype});
  return v;
}

namespace {

Result<OpContext> Run(std::string_view name, std::vector<TensorDesc> inputs, const AttrMap& attrs) {
  TESS_ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global().Find(name));
  TESS_ASSIGN_OR_RETURN(OpContext ctx, OpContext::Make(*def, std::move(inputs), attrs));
  TESS_RETURN_IF_ERROR(def->shape_fn()(&ctx));
  return ctx;
}

}  // namespace

Result<std::vector<TensorDesc>> InferShapes(std::string_view name, std::vector<TensorDesc> inputs,
                                            const AttrMap& attrs) {
  TESS_ASSIGN_OR_RETURN(OpContext ctx, Run(name, std::move(inputs), attrs));
  return ctx.outputs();
}

std::string ShapeError(std::string_view name, std::vector<TensorDesc> inputs,
                       const AttrMap& attrs) {
  Result<std::vector<TensorDesc>> r = InferShapes(name, std::move(inputs), attrs);
  if (r.ok()) {
    ADD_FAILURE() << name << ": expected a shape error";
    return "";
  }
  return r.status().message();
}

Result<std::vector<std::string>> Signatures(std::string_view name, std::vector<TensorDesc> inputs,
                                            const AttrMap& attrs, int64_t n, int64_t total) {
  TESS_ASSIGN_OR_RETURN(OpContext ctx, Run(name, std::move(inputs), attrs));
  TESS_ASSIGN_OR_RETURN(std::vector<SbpSignature> sigs,
                        ListSignatures(&ctx, n, total == 0 ? n : total));
  std::vector<std::string> out;
  for (const SbpSignature& s : sigs) out.push_back(s.ToString(ctx));
  return out;
}

std::vector<std::string> Sigs(std::string_view name, std::vector<TensorDesc> inputs,
                              const AttrMap& attrs, int64_t n, int64_t total) {
  auto s = Signatures(name, std::move(inputs), attrs, n, total);
  EXPECT_TRUE(s.ok()) << name << ": " << s.status().ToString();
  return s.ok() ? *s : std::vector<std::string>{};
}

}  // namespace op
}  // namespace tessera
