// SBP-signature inference over random op calls, built the way tess_op_call builds
// them (infer::OpCall): a registered op, attributes of the schema's names with values
// of the right type or not, 0-5 inputs of random shapes (edge dims included), dtypes,
// placements and nd-sbps, and random constraints. InferSignature and Explain either
// fail with INVALID_ARGUMENT and a message, or agree with each other and give outputs
// on the inputs' placement whose nd-sbps fit their shapes.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/status.h"
#include "core/infer/explain.h"
#include "core/infer/infer.h"
#include "core/infer/op_call.h"
#include "core/op/op_registry.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "fuzz/core_values.h"
#include "fuzz/fuzz_input.h"

namespace tessera::fuzz {
namespace {

const std::vector<Placement>& Placements() {
  static const std::vector<Placement>* placements = [] {
    auto* v = new std::vector<Placement>;
    for (const char* text :
         {"cpu:[0]", "cpu:[0,1]", "cpu:[0,1,2]", "cpu:[[0,1],[2,3]]", "cpu:[[0,1,2],[3,4,5]]",
          "cuda:[0,1,2,3]", "cpu:[[[0],[1]]]", "cpu:[[0],[1],[2]]"}) {
      v->push_back(Placement::Parse(text).value());
    }
    return v;
  }();
  return *placements;
}

op::AttrValue RandomValue(FuzzInput& in, op::AttrType type) {
  switch (type) {
    case op::AttrType::kInt: return op::AttrValue::Int(in.Bool() ? in.InRange(-4, 4) : in.Edgy());
    case op::AttrType::kFloat: {
      static constexpr double kFloats[] = {0.0, -0.0, 1e-5, 1.0, -1.0, 1e300, NAN, INFINITY};
      return op::AttrValue::Float(in.Bool() ? kFloats[in.Byte() % 8] : in.Raw<double>());
    }
    case op::AttrType::kBool: return op::AttrValue::Bool(in.Bool());
    case op::AttrType::kInts: {
      std::vector<int64_t> v(in.InRange(0, 9));
      for (int64_t& x : v) x = in.Bool() ? in.InRange(-4, 4) : in.Edgy();
      return op::AttrValue::Ints(std::move(v));
    }
    case op::AttrType::kDType:
      return op::AttrValue::OfDType(static_cast<DType>(in.InRange(0, kNumDTypes - 1)));
  }
  return op::AttrValue::Int(0);
}

}  // namespace
}  // namespace tessera::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  using fuzz::FuzzInput;
  FuzzInput in(data, size);
  const std::vector<std::string> names = op::OpRegistry::Global().Names();
  const std::string& name = names[in.Byte() % names.size()];
  infer::OpCall call = infer::OpCall::Make(name).value();

  // Attributes: each declared one set or not (with the right type, mostly), plus
  // sometimes an unknown name.
  for (const op::AttrDef& a : call.def().attrs()) {
    const uint8_t how = in.Byte() % 8;
    if (how < 2) continue;
    const op::AttrType type = how == 7 ? static_cast<op::AttrType>(in.InRange(0, 4)) : a.type;
    Status s = call.SetAttr(a.name, fuzz::RandomValue(in, type));
    if (!s.ok()) fuzz::CheckInvalidArgument(s, name + ": SetAttr " + a.name);
  }
  if (in.Byte() % 16 == 0) {
    fuzz::CheckInvalidArgument(call.SetAttr("no_such_attr", op::AttrValue::Int(1)),
                               "unknown attribute");
  }

  const std::vector<Placement>& placements = fuzz::Placements();
  const Placement& placement = placements[in.Byte() % placements.size()];
  const int num_inputs = static_cast<int>(in.InRange(0, 5));
  for (int i = 0; i < num_inputs; ++i) {
    std::vector<int64_t> shape(in.InRange(0, 4) + (in.Byte() % 32 == 0 ? 6 : 0));
    for (int64_t& d : shape) d = in.Bool() ? in.InRange(0, 7) : in.Edgy();
    const int dtype = in.Byte() % 16 == 0 ? static_cast<int>(in.InRange(-1, 7))
                                          : static_cast<int>(in.InRange(0, 3));
    const Placement& p =
        in.Byte() % 16 == 0 ? placements[in.Byte() % placements.size()] : placement;
    Status s = call.AddInput(shape, dtype, p, fuzz::RandomNdSbp(in, p.num_axes()));
    if (!s.ok()) fuzz::CheckInvalidArgument(s, name + ": AddInput");
  }
  const int num_constraints = static_cast<int>(in.InRange(0, 2));
  for (int i = 0; i < num_constraints; ++i) {
    const bool output = in.Bool();
    const int slot = static_cast<int>(in.InRange(-1, 3));
    Status s = call.Constrain(output, slot, fuzz::RandomNdSbp(in, placement.num_axes()));
    if (!s.ok()) fuzz::CheckInvalidArgument(s, name + ": Constrain");
  }

  Result<infer::InferResult> result =
      infer::InferSignature(call.def(), call.inputs(), call.attrs(), call.constraints());
  Result<infer::Explanation> explanation = call.Explain();
  if (!explanation.ok()) {
    fuzz::CheckInvalidArgument(explanation.status(), name + ": Explain");
    FUZZ_CHECK(!result.ok(), name + ": Explain fails where InferSignature succeeds: " +
                                 explanation.status().message());
  } else {
    const std::string text = explanation->ToString();
    FUZZ_CHECK(!text.empty(), name + ": empty explanation");
    FUZZ_CHECK(result.ok() == explanation->failure.empty(),
               name + ": InferSignature and Explain disagree on whether a signature fits");
  }
  if (!result.ok()) {
    fuzz::CheckInvalidArgument(result.status(), name + ": InferSignature");
    return 0;
  }
  const std::string what = name + call.attrs().ToString() + " on " +
                           (call.inputs().empty() ? "no inputs" : call.inputs()[0].ToString());
  FUZZ_CHECK(result->input_nd_sbps.size() == call.inputs().size() &&
                 result->needs_boxing.size() == call.inputs().size(),
             what + ": one input nd-sbp per input");
  FUZZ_CHECK(static_cast<int>(result->outputs.size()) == call.def().num_outputs(),
             what + ": output count");
  FUZZ_CHECK(std::isfinite(result->total_cost) && result->total_cost >= 0,
             what + ": total cost " + std::to_string(result->total_cost));
  for (size_t i = 0; i < call.inputs().size(); ++i) {
    const infer::TensorMeta& input = call.inputs()[i];
    FUZZ_CHECK(ValidateNdSbp(result->input_nd_sbps[i], input.placement, input.shape).ok(),
               what + ": input nd-sbp " + result->input_nd_sbps[i].ToString() + " does not fit");
  }
  for (const infer::TensorMeta& out : result->outputs) {
    if (!call.inputs().empty()) {
      FUZZ_CHECK(out.placement == call.inputs()[0].placement,
                 what + ": output on another placement");
    }
    FUZZ_CHECK(ValidateNdSbp(out.nd_sbp, out.placement, out.shape).ok(),
               what + ": output " + out.ToString() + " does not fit its nd-sbp");
    FUZZ_CHECK(out.shape.CheckByteSize(DTypeSize(out.dtype), DTypeName(out.dtype)).ok(),
               what + ": output " + out.ToString() + " has a byte size past int64");
  }
  return 0;
}
