// PlanInstance: reading outputs, as local pieces, views, host copies or global tensors.
#include <cstring>
#include <string>

#include "core/plan/exec_util.h"
#include "core/plan/plan_exec.h"
#include "core/tensor/creation.h"
#include "core/tensor/device_boxing.h"
#include "core/tensor/global_cast.h"

namespace tessera::plan {

const infer::TensorMeta& PlanInstance::output_meta(size_t i) const {
  return plan_->program.value(plan_->program.outputs()[i]).meta;
}

size_t PlanInstance::OutputPiece::bytes() const {
  return has_local ? static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype) : 0;
}

Status PlanInstance::CheckOutputIndex(const char* where, size_t i) const {
  if (i < num_outputs()) return Status::Ok();
  return OutOfRange(std::string(where) + ": output index " + std::to_string(i) +
                    " but the program has " + std::to_string(num_outputs()) + " outputs");
}

Result<PlanInstance::OutputPiece> PlanInstance::OutputLocalPiece(size_t i) const {
  TESS_RETURN_IF_ERROR(CheckOutputIndex("PlanInstance::OutputLocalPiece", i));
  const ValueId id = plan_->program.outputs()[i];
  OutputPiece piece;
  piece.has_local = plan_->has_local[id];
  if (piece.has_local) piece.shape = plan_->local_shapes[id];
  piece.dtype = plan_->program.value(id).meta.dtype;
  return piece;
}

Result<PlanInstance::OutputView> PlanInstance::View(const char* where, size_t i) const {
  TESS_RETURN_IF_ERROR(CheckOutputIndex(where, i));
  int last_slot = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (num_runs_ == 0) {
      return FailedPrecondition(std::string(where) + ": the plan has not run yet");
    }
    last_slot = last_run_slot_;
  }
  const ValueId id = plan_->program.outputs()[i];
  const ProgramValue& value = plan_->program.value(id);
  OutputView view;
  view.has_local = plan_->has_local[id];
  const Operand o = value.kind == ValueKind::kVariable ? Operand{-1, view.has_local ? id : -1}
                                                       : Operand{plan_->value_registers[id], -1};
  view.local = Bound(o, plan_->local_shapes[id], value.meta.dtype);
  if (o.register_id >= 0) {
    view.mem_case = plan_->registers[o.register_id].mem_case;
  } else if (o.variable >= 0 && value.variable->cuda_device() != nullptr) {
    view.mem_case = MemCase::Cuda(value.variable->cuda_device()->index);
  }
  // A data input marked as an output: the slot the last run read.
  if (o.register_id >= 0 && input_of_register_[o.register_id] >= 0) {
    view.local.data = slot_bodies_[last_slot][input_of_register_[o.register_id]];
  }
  return view;
}

Result<PlanInstance::OutputView> PlanInstance::Output(size_t i) const {
  return View("PlanInstance::Output", i);
}

Status PlanInstance::OutputLocal(size_t i, void* out, size_t out_bytes) const {
  constexpr const char* kWhere = "PlanInstance::OutputLocal";
  TESS_ASSIGN_OR_RETURN(OutputView view, View(kWhere, i));
  if (!view.has_local) {
    return FailedPrecondition(std::string(kWhere) + ": this rank holds no piece of output #" +
                              std::to_string(i) + " (" + output_meta(i).ToString() + ")");
  }
  const size_t bytes =
      static_cast<size_t>(view.local.shape.num_elements()) * DTypeSize(view.local.dtype);
  if (out_bytes < bytes) {
    return InvalidArgument(std::string(kWhere) + ": out_bytes is " + std::to_string(out_bytes) +
                           " but output #" + std::to_string(i) + "'s piece has " +
                           std::to_string(bytes) + " bytes");
  }
  if (out == nullptr && bytes > 0) {
    return InvalidArgument(std::string(kWhere) + ": out is NULL but output #" + std::to_string(i) +
                           "'s piece has " + std::to_string(bytes) + " bytes");
  }
  const bool on_device = !view.mem_case.is_host();
  // A variable's device is the process's one device too (tensor::LocalCudaDevice).
  const tensor::CudaDevice* device = device_;
  if (on_device && device == nullptr) {
    TESS_ASSIGN_OR_RETURN(device, tensor::LocalCudaDevice());
  }
  return CopyBytes(device, out, /*dst_on_device=*/false, view.local.data, on_device, bytes);
}

Result<tensor::Tensor> PlanInstance::OutputTensor(size_t i) const {
  constexpr const char* kWhere = "PlanInstance::OutputTensor";
  TESS_ASSIGN_OR_RETURN(OutputView view, View(kWhere, i));
  const infer::TensorMeta& meta = output_meta(i);
  if (meta.placement.device_type() == DeviceType::kCpu) {
    return tensor::FromLocal(view.local.data, view.local.shape, meta.dtype, meta.placement,
                             meta.nd_sbp, &meta.shape);
  }
  // FromLocal takes host memory, so device pieces come down first; FromLocal may be
  // collective, so every rank agrees they did before it.
  std::vector<unsigned char> host;
  Status copied = Status::Ok();
  if (view.has_local) {
    host.resize(static_cast<size_t>(view.local.shape.num_elements()) * DTypeSize(meta.dtype));
    copied = OutputLocal(i, host.data(), host.size());
  }
  TESS_RETURN_IF_ERROR(tensor::AgreeOnWorld(copied, kWhere));
  return tensor::FromLocal(host.data(), view.local.shape, meta.dtype, meta.placement, meta.nd_sbp,
                           &meta.shape);
}

}  // namespace tessera::plan
