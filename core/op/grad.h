// An op's gradient, declared in the op table next to its shape and signature
// functions (OpDef::SetGradFn). A gradient function writes the backward computation
// as calls of other registered ops on opaque values, through a GradBuilder; it never
// touches data. The autograd layer (core/autograd) implements the builder by running
// each call eagerly, so a gradient's SBP comes out of signature inference like any
// op's (a B weight used by S(0) data gets a P gradient from matmul's own
// signatures), and boxing happens only where inference asks. Under plan capture the
// same calls are recorded into the plan.
//
// The builder is error-sticky: a failed call returns kNoValue and keeps the first
// error, calls on kNoValue return kNoValue, and the gradient function returns
// builder.status() at the end. That keeps each rule as short as its mathematics.
#ifndef TESSERA_CORE_OP_GRAD_H_
#define TESSERA_CORE_OP_GRAD_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/dtype.h"
#include "core/common/shape.h"
#include "core/common/status.h"
#include "core/op/attr.h"

namespace tessera {
namespace op {

class OpDef;

class GradBuilder {
 public:
  using Value = int;
  static constexpr Value kNoValue = -1;

  virtual ~GradBuilder() = default;

  // The forward call: its op, attributes (defaults filled in), inputs and outputs
  // (flat slots, as OpContext numbers them), and the gradient of each output.
  virtual const OpDef& def() const = 0;
  virtual const AttrMap& attrs() const = 0;
  virtual int num_inputs() const = 0;
  virtual int num_outputs() const = 0;
  virtual Value input(int slot) = 0;
  virtual Value output(int slot) = 0;
  // Zeros of the output's shape when no gradient reached that output.
  virtual Value output_grad(int slot) = 0;
  // Whether a gradient reached output `slot` (rules of several-output ops skip the
  // terms of the others).
  virtual bool has_output_grad(int slot) const = 0;
  // Whether the input's gradient is wanted: rules skip the work of the others.
  virtual bool needs_input_grad(int slot) const = 0;

  // The shape and dtype of a value (a 0-d shape / f32 for kNoValue).
  virtual Shape shape(Value v) const = 0;
  virtual DType dtype(Value v) const = 0;

  // Runs op `op` on `inputs` with `attrs`; returns its output `output_index`.
  virtual Value Call(std::string_view op, const std::vector<Value>& inputs,
                     const AttrMap& attrs = {}, int output_index = 0) = 0;
  // A tensor of `shape` filled with `value`, with the dtype of `like`, on the
  // forward call's placement, broadcast.
  virtual Value Full(const Shape& shape, double value, Value like) = 0;

  // The gradient of input `slot`: a value of the input's shape and dtype.
  virtual void SetInputGrad(int slot, Value grad) = 0;

  // Records an error (the first one wins) and returns kNoValue.
  virtual Value Fail(Status status) = 0;
  virtual const Status& status() const = 0;

  // Attribute lookup with the schema's default (attrs() already holds every one).
  int64_t Int(std::string_view name) const;
  double Float(std::string_view name) const;
  bool Bool(std::string_view name) const;
  std::vector<int64_t> Ints(std::string_view name) const;

  // Shorthands for the calls every rule needs.
  Value Call(std::string_view op, std::initializer_list<Value> inputs, const AttrMap& attrs = {}) {
    return Call(op, std::vector<Value>(inputs), attrs, 0);
  }
  // `grad` summed over the axes numpy broadcasting added or stretched to reach its
  // shape from `shape`, then reshaped to `shape`: the gradient of a broadcast input.
  Value SumToShape(Value grad, const Shape& shape);
  // `grad` (of a tensor reduced from `shape` over `axes`, [] = all, with or without
  // keepdims) broadcast back to `shape`.
  Value ExpandFromReduced(Value grad, const Shape& shape, std::vector<int64_t> axes, bool keepdims);
};

// Declared with OpDef::SetGradFn. Returns builder->status() (or an error of its own).
using GradFn = Status (*)(GradBuilder* builder);

}  // namespace op
}  // namespace tessera

#endif  // TESSERA_CORE_OP_GRAD_H_
