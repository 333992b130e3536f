// PlanInstance: checking the inputs of a run and copying them into the input registers.
#include <cstring>
#include <string>

#include "core/boxing/boxing.h"
#include "core/plan/exec_util.h"
#include "core/plan/plan_exec.h"
#include "core/tensor/global_cast.h"

namespace tessera::plan {
namespace {

// The same ranks and hierarchy: a tensor on one placement can feed an input on the other
// by copying each rank's piece.
bool SameRanks(const Placement& a, const Placement& b) {
  return a.ranks() == b.ranks() && a.hierarchy() == b.hierarchy();
}

std::string InputName(const Program& program, size_t i) {
  return "input #" + std::to_string(i) + " (\"" + program.value(program.inputs()[i]).name + "\")";
}

}  // namespace

Status PlanInstance::CheckInputCount(const char* where, size_t num_inputs) const {
  const size_t want = plan_->program.inputs().size();
  if (num_inputs != want) {
    return InvalidArgument(std::string(where) + ": the program takes " + std::to_string(want) +
                           " inputs but got " + std::to_string(num_inputs));
  }
  return Status::Ok();
}

Status PlanInstance::CheckLocal(const char* where, const void* raw, size_t num_inputs,
                                bool* needs_boxing) const {
  *needs_boxing = false;
  TESS_RETURN_IF_ERROR(CheckInputCount(where, num_inputs));
  const auto* inputs = static_cast<const kernels::LocalTensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    if (!plan.has_local[id]) continue;
    if (inputs == nullptr) return InvalidArgument(std::string(where) + ": inputs is NULL");
    const infer::TensorMeta& meta = plan.program.value(id).meta;
    const Shape& want = plan.local_shapes[id];
    if (inputs[i].shape != want || inputs[i].dtype != meta.dtype) {
      return InvalidArgument(std::string(where) + ": " + InputName(plan.program, i) + " on rank " +
                             std::to_string(plan.rank) + " has local shape " +
                             inputs[i].shape.ToString() + " " + DTypeName(inputs[i].dtype) +
                             " but " + meta.ToString() + " needs " + want.ToString() + " " +
                             DTypeName(meta.dtype));
    }
    if (want.num_elements() > 0 && inputs[i].data == nullptr) {
      return InvalidArgument(std::string(where) + ": " + InputName(plan.program, i) +
                             " data is NULL");
    }
  }
  return Status::Ok();
}

Status PlanInstance::FillLocal(const void* raw, size_t num_inputs, int slot) {
  const auto* inputs = static_cast<const kernels::LocalTensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    if (!plan.has_local[id]) continue;
    const size_t bytes = static_cast<size_t>(plan.local_shapes[id].num_elements()) *
                         DTypeSize(plan.program.value(id).meta.dtype);
    TESS_RETURN_IF_ERROR(CopyBytes(device_, slot_bodies_[slot][i],
                                   register_on_device(plan.value_registers[id]), inputs[i].data,
                                   /*src_on_device=*/false, bytes));
  }
  return Status::Ok();
}

Status PlanInstance::CheckTensors(const char* where, const void* raw, size_t num_inputs,
                                  bool* needs_boxing) const {
  *needs_boxing = false;
  TESS_RETURN_IF_ERROR(CheckInputCount(where, num_inputs));
  const auto* inputs = static_cast<const tensor::Tensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    const infer::TensorMeta& want = plan.program.value(id).meta;
    if (inputs == nullptr || inputs[i] == nullptr) {
      return InvalidArgument(std::string(where) + ": " + InputName(plan.program, i) + " is NULL");
    }
    const infer::TensorMeta& got = inputs[i]->meta();
    if (got.shape != want.shape || got.dtype != want.dtype ||
        !SameRanks(got.placement, want.placement)) {
      return InvalidArgument(std::string(where) + ": " + InputName(plan.program, i) + " is " +
                             got.ToString() + " but the program declares " + want.ToString() +
                             " (shape, dtype and placement must match; the placement's device "
                             "type may differ)");
    }
    if (got.nd_sbp != want.nd_sbp) *needs_boxing = true;
  }
  return Status::Ok();
}

Status PlanInstance::FillTensors(const void* raw, size_t num_inputs, int slot) {
  const auto* inputs = static_cast<const tensor::Tensor*>(raw);
  const CompiledPlan& plan = *plan_;
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = plan.program.inputs()[i];
    const infer::TensorMeta& want = plan.program.value(id).meta;
    const infer::TensorMeta& got = inputs[i]->meta();
    void* body = slot_bodies_[slot][i];
    const bool on_device = body != nullptr && register_on_device(plan.value_registers[id]);
    const bool host_to_host = got.placement.device_type() == DeviceType::kCpu &&
                              want.placement.device_type() == DeviceType::kCpu;
    tensor::Tensor piece = inputs[i];
    if (got.nd_sbp != want.nd_sbp && host_to_host) {
      TESS_RETURN_IF_ERROR(boxing::Box(inputs[i]->local_data(), body, want.shape, want.dtype,
                                       got.placement, got.nd_sbp, want.placement, want.nd_sbp,
                                       &push_workspace_));
      continue;
    }
    // Device memory on either side: eager's layout change, onto the input's placement.
    if (got.nd_sbp != want.nd_sbp) {
      TESS_ASSIGN_OR_RETURN(piece, tensor::ToGlobal(inputs[i], want.placement, want.nd_sbp));
    }
    if (body == nullptr || piece->local_bytes() == 0) continue;
    const tensor::CudaDevice* device = device_ != nullptr ? device_ : piece->cuda_device();
    TESS_RETURN_IF_ERROR(CopyBytes(device, body, on_device, piece->local_data(),
                                   piece->cuda_device() != nullptr,
                                   static_cast<size_t>(piece->local_bytes())));
  }
  return Status::Ok();
}

}  // namespace tessera::plan
