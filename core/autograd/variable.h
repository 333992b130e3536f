// Reverse-mode autograd over global tensors: the tape.
//
// A Variable is a global tensor (immutable data) plus its autograd record. Records
// live beside the data, never inside it: a node of the tape saves the plain tensors
// of its forward call, so saving an output creates no reference cycle, and detach is
// just the data without the record.
//
// - A leaf that requires a gradient (a parameter) has a record with requires_grad
//   set and no grad_fn; backward accumulates into its `grad`.
// - An op applied with grad mode on (the default; NoGradGuard turns it off for the
//   calling thread) to any input that requires a gradient records a Node: the op, its
//   attributes, its inputs and outputs, and an Edge per input saying where that
//   input's gradient goes. Its floating outputs get records pointing at the node.
// - Backward (backward.h) walks the nodes from the roots in reverse order of
//   recording and runs each op's declared gradient (core/op/grad.h) eagerly.
//
// Threads: a graph belongs to the thread that builds it; grad mode is per thread.
// Records are shared_ptrs, so handles to one variable may be copied freely.
#ifndef TESSERA_CORE_AUTOGRAD_VARIABLE_H_
#define TESSERA_CORE_AUTOGRAD_VARIABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/tensor/global_tensor.h"

namespace tessera {
namespace autograd {

struct Node;
struct AutogradMeta;

// The dtypes that have gradients.
inline bool IsFloatingDType(DType d) {
  return d == DType::kF32 || d == DType::kF64 || d == DType::kF16 || d == DType::kBF16;
}

// Where a gradient flows: output `slot` of `node`, or a leaf's accumulator. Empty
// when the input needs no gradient.
struct Edge {
  std::shared_ptr<Node> node;
  int slot = 0;
  std::shared_ptr<AutogradMeta> leaf;
  bool empty() const { return node == nullptr && leaf == nullptr; }
};

// Called when a leaf's gradient is final for the current backward pass (the fused
// optimizer starts a bucket's all-reduce from here, overlapping the rest of backward).
using GradReadyHook = std::function<void(const tensor::Tensor& grad)>;

struct AutogradMeta {
  bool requires_grad = false;
  // Set on non-leaves: the node that made this value, and which of its outputs it is.
  std::shared_ptr<Node> grad_fn;
  int output_slot = 0;
  // Leaves only: the accumulated gradient (null until a backward reaches the leaf).
  tensor::Tensor grad;
  std::vector<GradReadyHook> hooks;

  bool is_leaf() const { return grad_fn == nullptr; }
};

struct Node {
  const op::OpDef* def = nullptr;
  op::AttrMap attrs;  // every declared attribute, defaults filled in
  std::vector<tensor::Tensor> inputs;
  std::vector<tensor::Tensor> outputs;
  std::vector<Edge> next;  // per input slot
  // Recording order: backward runs ready nodes latest first, as the forward's reverse.
  uint64_t sequence = 0;
  // Set once a backward without retain_graph ran through the node: its saved tensors
  // are gone.
  bool released = false;
};

struct Variable {
  tensor::Tensor value;
  std::shared_ptr<AutogradMeta> meta;  // null: a plain tensor that needs no gradient

  bool requires_grad() const { return meta != nullptr && (meta->requires_grad || meta->grad_fn); }
};

// A leaf that requires a gradient. INVALID_ARGUMENT for a non-floating dtype.
Result<Variable> MakeLeaf(tensor::Tensor value);
// Sets or clears requires_grad on `v`, which must be a leaf (INVALID_ARGUMENT for the
// result of a recorded op: it is part of a graph; detach it first).
Status SetRequiresGrad(Variable* v, bool requires_grad);
// The same data with no record: gradients stop here.
inline Variable Detach(const Variable& v) { return Variable{v.value, nullptr}; }

// Grad mode of the calling thread (on by default).
bool GradModeEnabled();
void SetGradModeEnabled(bool enabled);
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// Runs `def` as eager::Apply does and, when grad mode is on and an input requires a
// gradient, records the call. `outputs` is cleared first.
Status Apply(const op::OpDef& def, const Variable* inputs, size_t num_inputs,
             const op::AttrMap& attrs, std::vector<Variable>* outputs,
             const std::vector<infer::SbpConstraint>& constraints = {});

// tensor::ToGlobal that gradients flow through: on the same placement, recorded as
// "identity" with its output pinned to `nd_sbp` (inference does the boxing, and the
// gradient flows back through identity's). UNIMPLEMENTED for a tensor that requires a
// gradient and moves to another placement (detach it first).
Result<Variable> ToGlobal(const Variable& x, const Placement& placement, const NdSbp& nd_sbp);

}  // namespace autograd
}  // namespace tessera

#endif  // TESSERA_CORE_AUTOGRAD_VARIABLE_H_
