#include "core/eager/interpreter.h"

#include <string>

#include "core/comm/call_check.h"
#include "core/comm/mpi_world.h"
#include "core/infer/infer_cache.h"
#include "core/kernel/kernel.h"
#include "core/kernel/kernel_providers.h"
#include "core/op/op_registry.h"
#include "core/tensor/capture_hook.h"
#include "core/tensor/cuda_device.h"
#include "core/tensor/global_cast.h"

namespace tessera {
namespace eager {
namespace {

using tensor::CudaDevice;
using tensor::GlobalTensor;
using tensor::Tensor;

// Per-thread scratch reused by every Apply, so a warm call allocates only its outputs.
struct Scratch {
  std::vector<infer::TensorMeta> metas;
  std::vector<Tensor> boxed;  // the inputs as the signature wants them
  std::vector<kernels::LocalTensor> kernel_inputs;
  std::vector<Shape> logical_shapes;  // of the kernel inputs
  std::vector<kernels::LocalTensor> kernel_outputs;
  std::vector<std::shared_ptr<GlobalTensor>> fresh_outputs;
  // The last call, for explain.
  std::shared_ptr<const infer::InferResult> last_result;
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// Check mode: what an op call's fingerprint covers, and its text for a mismatch.
struct OpCall {
  const op::OpDef* def;
  const std::vector<infer::TensorMeta>* metas;
  const op::AttrMap* attrs;
  const std::vector<infer::SbpConstraint>* constraints;
};

std::string DescribeOpCall(const void* context) {
  const OpCall& call = *static_cast<const OpCall*>(context);
  std::string text = "op " + call.def->name() + "(";
  for (size_t i = 0; i < call.metas->size(); ++i) {
    text += (i ? ", " : "") + (*call.metas)[i].ToString();
  }
  text += ")";
  if (!call.attrs->empty()) text += " " + call.attrs->ToString();
  for (const infer::SbpConstraint& c : *call.constraints) {
    text += std::string(" pin ") + (c.is_output ? "out" : "in") + std::to_string(c.slot) + "=" +
            c.nd_sbp.ToString();
  }
  return text;
}

// The ranks of the inputs' placement agree on the call before anything collective.
Status AgreeOpCall(const OpCall& call) {
  comm::CallFingerprint fp("op", call.def->name());
  fp.Add(comm::CallField::kAttributes, call.attrs->Hash());
  for (const infer::SbpConstraint& c : *call.constraints) {
    fp.Add(comm::CallField::kAttributes, (c.is_output ? 1000 : 0) + static_cast<uint64_t>(c.slot));
    fp.Add(comm::CallField::kNdSbps, c.nd_sbp.Hash());
  }
  for (const infer::TensorMeta& m : *call.metas) {
    fp.AddLayout(m.shape, m.dtype, m.placement, m.nd_sbp);
  }
  fp.SetDescribe(&DescribeOpCall, &call);
  Status s = comm::AgreeCallOnPlacement((*call.metas)[0].placement, fp);
  if (s.ok()) return s;
  return Status(s.code(), call.def->name() + ": " + s.message());
}

}  // namespace

Status Apply(const op::OpDef& def, const Tensor* inputs, size_t num_inputs,
             const op::AttrMap& attrs, std::vector<Tensor>* outputs,
             const std::vector<infer::SbpConstraint>& constraints) {
  if (outputs == nullptr) return InvalidArgument(def.name() + ": outputs vector is NULL");
  outputs->clear();
  if (num_inputs > 0 && inputs == nullptr) {
    return InvalidArgument(def.name() + ": inputs is NULL but num_inputs is " +
                           std::to_string(num_inputs));
  }
  Scratch& s = ThreadScratch();
  s.metas.clear();
  bool captured = false;
  for (size_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] == nullptr) {
      return InvalidArgument(def.name() + ": input #" + std::to_string(i) + " is NULL");
    }
    captured |= inputs[i]->is_placeholder();
    s.metas.push_back(inputs[i]->meta());
  }
  if (captured)
    return tensor::RecordCapturedCall(def, inputs, num_inputs, attrs, constraints, outputs);
  if (comm::CheckModeEnabled() && num_inputs > 0) {
    TESS_RETURN_IF_ERROR(AgreeOpCall(OpCall{&def, &s.metas, &attrs, &constraints}));
  }
  TESS_ASSIGN_OR_RETURN(
      std::shared_ptr<const infer::InferResult> result,
      infer::ThreadLocalInferCache().GetOrInfer(def, s.metas, attrs, constraints));
  s.last_result = result;

  s.boxed.clear();
  for (size_t i = 0; i < num_inputs; ++i) {
    // A change only on size-1 hierarchy axes is a relabel: the local piece is the same.
    if (result->needs_boxing[i]) {
      TESS_ASSIGN_OR_RETURN(Tensor boxed, tensor::ToGlobal(inputs[i], inputs[i]->placement(),
                                                           result->input_nd_sbps[i]));
      s.boxed.push_back(std::move(boxed));
    } else {
      s.boxed.push_back(inputs[i]);
    }
  }

  TESS_ASSIGN_OR_RETURN(int32_t rank, comm::WorldRank());
  s.fresh_outputs.clear();
  for (const infer::TensorMeta& meta : result->outputs) {
    TESS_ASSIGN_OR_RETURN(std::shared_ptr<GlobalTensor> out, GlobalTensor::Allocate(meta, rank));
    s.fresh_outputs.push_back(std::move(out));
  }
  const bool runs_here = s.fresh_outputs.empty() ? s.boxed.empty() || s.boxed[0]->has_local()
                                                 : s.fresh_outputs[0]->has_local();
  if (runs_here) {
    const DeviceType device = result->outputs.empty() ? s.boxed[0]->placement().device_type()
                                                      : result->outputs[0].placement.device_type();
    kernels::KernelFn kernel = kernels::LinkedKernels().Find(def.name(), device);
    if (kernel == nullptr) {
      return Unimplemented(def.name() + ": no " +
                           (device == DeviceType::kCuda ? std::string("cuda") : "cpu") +
                           " kernel is registered");
    }
    s.kernel_inputs.clear();
    s.logical_shapes.clear();
    for (const Tensor& t : s.boxed) {
      s.kernel_inputs.push_back(t->local());
      s.logical_shapes.push_back(t->shape());
    }
    s.kernel_outputs.clear();
    for (const auto& t : s.fresh_outputs) s.kernel_outputs.push_back(t->local());
    kernels::KernelContext ctx;
    ctx.def = &def;
    ctx.attrs = &attrs;
    ctx.inputs = s.kernel_inputs.data();
    ctx.num_inputs = static_cast<int>(s.kernel_inputs.size());
    ctx.logical_input_shapes = s.logical_shapes.data();
    ctx.outputs = s.kernel_outputs.data();
    ctx.num_outputs = static_cast<int>(s.kernel_outputs.size());
    if (device == DeviceType::kCuda) {
      TESS_ASSIGN_OR_RETURN(const CudaDevice* cuda, tensor::LocalCudaDevice());
      TESS_RETURN_IF_ERROR(tensor::RunCudaKernel(*cuda, kernel, &ctx));
    } else {
      TESS_RETURN_IF_ERROR(kernel(ctx));
    }
  }
  s.boxed.clear();  // drop the boxed copies now, not at the next call
  for (auto& t : s.fresh_outputs) outputs->push_back(std::move(t));
  s.fresh_outputs.clear();
  return Status::Ok();
}

Result<std::vector<Tensor>> Apply(std::string_view op_name, const std::vector<Tensor>& inputs,
                                  const op::AttrMap& attrs,
                                  const std::vector<infer::SbpConstraint>& constraints) {
  TESS_ASSIGN_OR_RETURN(const op::OpDef* def, op::OpRegistry::Global().Find(op_name));
  std::vector<Tensor> outputs;
  TESS_RETURN_IF_ERROR(Apply(*def, inputs.data(), inputs.size(), attrs, &outputs, constraints));
  return outputs;
}

std::shared_ptr<const infer::InferResult> LastInferResult() { return ThreadScratch().last_result; }

}  // namespace eager
}  // namespace tessera
