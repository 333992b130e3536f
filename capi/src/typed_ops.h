// What the generated typed ops (capi/src/ops_generated.cc, written by tools/opgen) share
// with tess_op_call_apply: the op lookup, per-thread attribute maps that change only when a
// value does, and the run itself (explain record, eager::Apply, output handles).
#ifndef TESSERA_CAPI_SRC_TYPED_OPS_H_
#define TESSERA_CAPI_SRC_TYPED_OPS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/op/attr.h"
#include "core/op/op_def.h"
#include "core/tensor/global_tensor.h"
#include "tessera/tessera.h"

namespace tessera::capi {

// The registered op `name`, or NULL (a build out of step with the registry; RunTypedOp
// reports it as INTERNAL). Call once per op and keep the result.
const op::OpDef* TypedOpDef(const char* name);

// The empty attribute map.
const op::AttrMap& NoAttrs();

// This thread's input array for ops with a repeated input (cleared by RunTypedOp).
std::vector<const tess_tensor*>& TypedOpInputs();

// INVALID_ARGUMENT "<list>[<i>] is NULL" for `function`.
tess_status NullListItem(const char* function, const char* list, size_t i);

// An op's attributes for one thread: each setter replaces a value only when it differs
// from the one already set, so a call repeating its previous attributes allocates
// nothing.
class TypedOpAttrs {
 public:
  void SetInt(std::string_view name, int64_t v);
  void SetFloat(std::string_view name, double v);
  void SetBool(std::string_view name, bool v);
  void SetInts(std::string_view name, const int64_t* v, size_t n);
  // False (with the error reported for `function`) for a value that is no dtype.
  bool SetDType(const char* function, std::string_view name, tess_dtype v);
  const op::AttrMap& map() const { return map_; }

 private:
  op::AttrMap map_;
};

// Runs `def` on inputs[0..num_inputs) (all non-NULL) with `attrs` and writes one new
// handle per output to *outs[i] (num_outs == def->num_outputs()); on failure writes
// nothing. An input that requires a gradient (tessera/autograd.h) makes the call go
// through the autograd tape, and the outputs carry their records. `release`, when
// given, is cleared once the op has run (TypedOpInputs()).
tess_status RunTypedOp(const char* function, const op::OpDef* def, const tess_tensor* const* inputs,
                       size_t num_inputs, const op::AttrMap& attrs, tess_tensor** const* outs,
                       size_t num_outs, std::vector<const tess_tensor*>* release = nullptr);

}  // namespace tessera::capi

#endif  // TESSERA_CAPI_SRC_TYPED_OPS_H_
