// Program: a graph of op calls on placeholder tensors, the input of Compile (compile.h).
//
// Values are numbered in the order they are added: data inputs (fed at every run),
// variables (eager tensors the program holds and every run reads in place, so they
// persist across runs), and op outputs. An op may only use values added before it, so
// the order of AddOp calls is a topological order of the graph.
//
// Every AddOp runs SBP signature inference at once (core/infer), so a bad call (an
// unknown op, a shape mismatch, inputs on different placements, an unsatisfiable
// constraint) fails at the call that is wrong, and every value has its global meta
// (shape, dtype, placement, nd-sbp) as soon as it exists. A data input without an
// nd-sbp is split along axis 0 on every hierarchy axis (broadcast for a scalar), as a
// data-parallel batch is; a variable keeps its own nd-sbp.
//
// Assigns (training). AddAssign(variable, value) makes every run end by copying op output
// `value` into `variable`'s storage, after every step has run: all steps of a run read the
// variable's old contents, the next run reads the new ones. This is how a captured
// optimizer step (core/optim) writes the updated parameters and state back; the copy
// allocates nothing. The value's register lives to the end of the run (like an output).
//
// Not thread-safe; build a program on one thread. Every rank builds the same program.
#ifndef TESSERA_CORE_PLAN_PROGRAM_H_
#define TESSERA_CORE_PLAN_PROGRAM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/infer/infer.h"
#include "core/infer/tensor_meta.h"
#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/placement/placement.h"
#include "core/sbp/sbp.h"
#include "core/tensor/global_tensor.h"

namespace tessera::plan {

using ValueId = int64_t;

enum class ValueKind { kInput, kVariable, kOpOutput };

struct ProgramValue {
  ValueKind kind = ValueKind::kInput;
  // The input's or variable's name; "<op>.<output arg>" (made unique with "#<n>") for
  // an op output.
  std::string name;
  infer::TensorMeta meta;
  tensor::Tensor variable;  // kVariable only
  int64_t op_index = -1;    // kOpOutput: the producing op
};

// Program::AddAssign's record: at the end of every run, `value` is copied into `variable`.
struct ProgramAssign {
  ValueId variable = -1;
  ValueId value = -1;
};

struct ProgramOp {
  const op::OpDef* def = nullptr;
  std::vector<ValueId> inputs;
  op::AttrMap attrs;
  std::vector<infer::SbpConstraint> constraints;
  std::vector<ValueId> outputs;
  infer::InferResult inference;  // the chosen signature
};

class Program {
 public:
  // A data input fed at every run. INVALID_ARGUMENT for an empty or repeated name, or an
  // nd-sbp that does not fit the shape and placement (TensorMeta::Make's message).
  Result<ValueId> AddInput(std::string name, const Shape& shape, DType dtype,
                           const Placement& placement,
                           const std::optional<NdSbp>& nd_sbp = std::nullopt);
  // A weight the program reads in place at every run; the program keeps `value` alive.
  // INVALID_ARGUMENT for an empty or repeated name or a null tensor.
  Result<ValueId> AddVariable(std::string name, tensor::Tensor value);
  // Appends an op call; returns its output values. NOT_FOUND for an unknown op (naming
  // close names); INVALID_ARGUMENT for an unknown input id (naming it and the number of
  // values) and for every inference error, prefixed with the op's index.
  Result<std::vector<ValueId>> AddOp(std::string_view op_name, const std::vector<ValueId>& inputs,
                                     const op::AttrMap& attrs = {},
                                     const std::vector<infer::SbpConstraint>& constraints = {});
  // Makes `id` an output of the program (in call order). INVALID_ARGUMENT for an unknown
  // id or one already marked.
  Status MarkOutput(ValueId id);
  // Makes every run end by copying op output `value` into variable `variable` (file
  // comment). INVALID_ARGUMENT for an unknown id, a `variable` that is not a variable, a
  // `value` that is not an op output, metas that differ (shape, dtype, placement or
  // nd-sbp, naming both), or a variable already assigned.
  Status AddAssign(ValueId variable, ValueId value);

  const std::vector<ProgramValue>& values() const { return values_; }
  const std::vector<ProgramOp>& ops() const { return ops_; }
  const std::vector<ValueId>& inputs() const { return inputs_; }  // data inputs, in order
  const std::vector<ValueId>& outputs() const { return outputs_; }
  const std::vector<ProgramAssign>& assigns() const { return assigns_; }
  const ProgramValue& value(ValueId id) const { return values_[static_cast<size_t>(id)]; }

  // One line per value and op:
  //   %0 = input "x" [8,16] f32 cpu:[0,1] S(0)
  //   %3 = matmul(%0, %1) {} -> [8,32] f32 cpu:[0,1] S(0)
  // then "outputs: %5, %7" and, if any, "assigns: %1 <- %9, %2 <- %10".
  std::string ToString() const;

 private:
  Status CheckNewName(const std::string& name, const char* where) const;
  Status CheckId(ValueId id, const std::string& where) const;

  std::vector<ProgramValue> values_;
  std::vector<ProgramOp> ops_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
  std::vector<ProgramAssign> assigns_;
};

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_PROGRAM_H_
