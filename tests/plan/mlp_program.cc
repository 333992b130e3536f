#include "tests/plan/mlp_program.h"

#include <string>
#include <utility>

#include "core/eager/interpreter.h"
#include "core/tensor/creation.h"

namespace tessera::plan_test {
namespace {

using plan::Program;
using plan::ValueId;

// Adds op `name` with one output and returns it.
Result<ValueId> Op(Program* p, const char* name, std::vector<ValueId> inputs,
                   const op::AttrMap& attrs = {}) {
  TESS_ASSIGN_OR_RETURN(std::vector<ValueId> outs, p->AddOp(name, inputs, attrs));
  return outs[0];
}

Result<ValueId> Weight(Program* p, const std::string& name, const Shape& shape, uint64_t seed,
                       const Placement& placement, const NdSbp& nd_sbp) {
  TESS_ASSIGN_OR_RETURN(tensor::Tensor t,
                        tensor::Randn(shape, DType::kF32, seed, placement, nd_sbp));
  return p->AddVariable(name, std::move(t));
}

// matmul + bias_add + activation: 3 ops.
Result<ValueId> Dense(Program* p, ValueId x, ValueId w, ValueId b, const char* activation) {
  TESS_ASSIGN_OR_RETURN(ValueId h, Op(p, "matmul", {x, w}));
  TESS_ASSIGN_OR_RETURN(h, Op(p, "bias_add", {h, b}));
  return Op(p, activation, {h});
}

}  // namespace

NdSbp Broadcast(const Placement& placement) {
  NdSbp b;
  for (int i = 0; i < placement.num_axes(); ++i) b.Append(Sbp::Broadcast());
  return b;
}

Result<Program> BuildMlp(const MlpConfig& c) {
  Program p;
  const Placement& pl = c.placement;
  const NdSbp b = Broadcast(pl);
  TESS_ASSIGN_OR_RETURN(ValueId x, p.AddInput("x", Shape({c.batch, c.in}), DType::kF32, pl));
  TESS_ASSIGN_OR_RETURN(ValueId w1, Weight(&p, "w1", Shape({c.in, c.width}), 11, pl, c.w1_nd_sbp));
  TESS_ASSIGN_OR_RETURN(ValueId b1, Weight(&p, "b1", Shape({c.width}), 12, pl, b));
  TESS_ASSIGN_OR_RETURN(ValueId w2,
                        Weight(&p, "w2", Shape({c.width, c.width}), 13, pl, c.w2_nd_sbp));
  TESS_ASSIGN_OR_RETURN(ValueId b2, Weight(&p, "b2", Shape({c.width}), 14, pl, b));
  TESS_ASSIGN_OR_RETURN(ValueId w3, Weight(&p, "w3", Shape({c.width, c.width}), 15, pl, b));
  TESS_ASSIGN_OR_RETURN(ValueId b3, Weight(&p, "b3", Shape({c.width}), 16, pl, b));
  TESS_ASSIGN_OR_RETURN(ValueId w4, Weight(&p, "w4", Shape({c.width, c.out}), 17, pl, b));
  TESS_ASSIGN_OR_RETURN(ValueId b4, Weight(&p, "b4", Shape({c.out}), 18, pl, b));

  TESS_ASSIGN_OR_RETURN(ValueId h1, Dense(&p, x, w1, b1, "relu"));      // 3
  TESS_ASSIGN_OR_RETURN(ValueId h2, Dense(&p, h1, w2, b2, "tanh"));     // 6
  TESS_ASSIGN_OR_RETURN(ValueId h3, Op(&p, "add", {h2, h1}));           // 7
  TESS_ASSIGN_OR_RETURN(ValueId h4, Dense(&p, h3, w3, b3, "sigmoid"));  // 10
  TESS_ASSIGN_OR_RETURN(ValueId h5, Op(&p, "mul", {h4, h3}));           // 11
  TESS_ASSIGN_OR_RETURN(ValueId h6, Dense(&p, h5, w4, b4, "relu"));     // 14
  TESS_ASSIGN_OR_RETURN(ValueId probs, Op(&p, "softmax", {h6}));        // 15
  TESS_ASSIGN_OR_RETURN(ValueId logp, Op(&p, "log_softmax", {h6}));     // 16
  TESS_ASSIGN_OR_RETURN(ValueId e, Op(&p, "exp", {logp}));              // 17
  TESS_ASSIGN_OR_RETURN(ValueId d, Op(&p, "sub", {probs, e}));          // 18
  TESS_ASSIGN_OR_RETURN(ValueId n, Op(&p, "neg", {d}));                 // 19
  TESS_ASSIGN_OR_RETURN(ValueId y, Op(&p, "add", {n, probs}));          // 20
  TESS_RETURN_IF_ERROR(p.MarkOutput(probs));
  TESS_RETURN_IF_ERROR(p.MarkOutput(y));
  return p;
}

Result<std::vector<tensor::Tensor>> RunEager(const Program& program,
                                             const std::vector<tensor::Tensor>& inputs) {
  if (inputs.size() != program.inputs().size()) {
    return InvalidArgument("RunEager: " + std::to_string(inputs.size()) + " inputs for " +
                           std::to_string(program.inputs().size()));
  }
  std::vector<tensor::Tensor> values(program.values().size());
  for (size_t i = 0; i < inputs.size(); ++i) values[program.inputs()[i]] = inputs[i];
  for (size_t v = 0; v < values.size(); ++v) {
    if (program.values()[v].kind == plan::ValueKind::kVariable) {
      values[v] = program.values()[v].variable;
    }
  }
  for (const plan::ProgramOp& op : program.ops()) {
    std::vector<tensor::Tensor> args;
    for (ValueId id : op.inputs) args.push_back(values[id]);
    TESS_ASSIGN_OR_RETURN(std::vector<tensor::Tensor> outs,
                          eager::Apply(op.def->name(), args, op.attrs, op.constraints));
    for (size_t k = 0; k < outs.size(); ++k) values[op.outputs[k]] = outs[k];
  }
  std::vector<tensor::Tensor> outputs;
  for (ValueId id : program.outputs()) outputs.push_back(values[id]);
  return outputs;
}

}  // namespace tessera::plan_test
