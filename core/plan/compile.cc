#include "core/plan/compile.h"

#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "core/comm/mpi_world.h"
#include "core/kernel/kernel_providers.h"
#include "core/sbp/physical_layout.h"
#include "core/tensor/cuda_device.h"
#include "core/tensor/device_boxing.h"

namespace tessera::plan {
namespace {

std::string OperandString(const Operand& o, const Program& program) {
  if (o.register_id >= 0) return "r" + std::to_string(o.register_id);
  if (o.variable >= 0) return "var \"" + program.value(o.variable).name + "\"";
  return "-";
}

std::string RegisterString(int64_t id) { return id >= 0 ? "r" + std::to_string(id) : "-"; }

std::string ValueString(ValueId id, const ProgramValue& value) {
  return "value %" + std::to_string(id) + " (\"" + value.name + "\")";
}

// The device an op runs on: its outputs' placement (its inputs' when it has none).
DeviceType OpDevice(const Program& program, const ProgramOp& op) {
  if (!op.outputs.empty()) return program.value(op.outputs[0]).meta.placement.device_type();
  if (!op.inputs.empty()) return program.value(op.inputs[0]).meta.placement.device_type();
  return DeviceType::kCpu;
}

// Builds the plan in one pass; a class so the register tables are not threaded through
// every helper.
class Compiler {
 public:
  Compiler(const Program& program, int32_t rank, const CompileOptions& options) {
    plan_ = std::make_shared<CompiledPlan>();
    plan_->program = program;
    plan_->rank = rank;
    plan_->input_register_num = options.input_register_num;
  }

  Result<std::shared_ptr<const CompiledPlan>> Run() {
    const Program& program = plan_->program;
    if (program.outputs().empty()) {
      return InvalidArgument("Compile: the program has no outputs (call MarkOutput)");
    }
    const size_t num_values = program.values().size();
    plan_->value_registers.assign(num_values, -1);
    plan_->local_shapes.resize(num_values);
    plan_->has_local.assign(num_values, false);
    bool needs_device = false;
    for (size_t v = 0; v < num_values; ++v) {
      const ProgramValue& value = program.values()[v];
      const Placement& placement = value.meta.placement;
      // Asks nothing of the device, so every rank gives the same answer.
      if (!tensor::CheckDeviceBuild(placement).ok()) {
        return Unimplemented("Compile: " + ValueString(static_cast<ValueId>(v), value) + " is on " +
                             placement.ToString() +
                             ": this Tessera was built without CUDA, so plans run on cpu "
                             "placements only (build with --config=cuda)");
      }
      TESS_ASSIGN_OR_RETURN(plan_->has_local[v], LocalShape(value.meta, &plan_->local_shapes[v]));
      needs_device |= plan_->has_local[v] && placement.device_type() == DeviceType::kCuda;
    }
    if (needs_device) {
      Result<const tensor::CudaDevice*> device = tensor::LocalCudaDevice();
      if (!device.ok()) {
        const std::string why = device.status().message();
        return Status(device.status().code(),
                      "Compile: the program has values on cuda placements, but " + why);
      }
      plan_->cuda_device = (*device)->index;
    }

    PlanStep feed;
    for (ValueId id : program.inputs()) {
      if (!plan_->has_local[id]) continue;
      plan_->value_registers[id] =
          NewValueRegister(id, program.value(id).name, plan_->local_shapes[id]);
      plan_->registers.back().register_num = plan_->input_register_num;
      feed.writes.push_back(plan_->value_registers[id]);
    }
    steps_.push_back(std::move(feed));

    for (size_t i = 0; i < program.ops().size(); ++i) TESS_RETURN_IF_ERROR(AddOpSteps(i));

    PlanStep fetch;
    for (ValueId id : program.outputs()) {
      if (plan_->value_registers[id] >= 0) fetch.reads.push_back(plan_->value_registers[id]);
    }
    // Assigns copy their values into the variables after the last step, so those
    // registers live to the end like outputs.
    for (const ProgramAssign& a : program.assigns()) {
      if (plan_->value_registers[a.value] >= 0) {
        fetch.reads.push_back(plan_->value_registers[a.value]);
      }
    }
    steps_.push_back(std::move(fetch));

    TESS_ASSIGN_OR_RETURN(std::vector<Lifetime> lifetimes,
                          ComputeLifetimes(static_cast<int64_t>(plan_->registers.size()), steps_));
    for (size_t r = 0; r < lifetimes.size(); ++r) plan_->registers[r].lifetime = lifetimes[r];
    TESS_ASSIGN_OR_RETURN(plan_->memory, PlanMemory(plan_->registers));
    return std::shared_ptr<const CompiledPlan>(std::move(plan_));
  }

 private:
  // Whether this rank holds a piece of `meta`, and its shape.
  Result<bool> LocalShape(const infer::TensorMeta& meta, Shape* shape) const {
    if (!meta.placement.contains(plan_->rank)) return false;
    TESS_ASSIGN_OR_RETURN(PhysicalLayout layout, PhysicalLayoutOfRank(meta.shape, meta.placement,
                                                                      meta.nd_sbp, plan_->rank));
    *shape = layout.local_shape;
    return true;
  }

  int64_t NewRegister(const std::string& name, const Shape& shape, DType dtype,
                      const MemCase& mem_case) {
    RegisterDesc desc;
    desc.name = name;
    desc.mem_case = mem_case;
    desc.shape = shape;
    desc.dtype = dtype;
    plan_->registers.push_back(std::move(desc));
    return static_cast<int64_t>(plan_->registers.size() - 1);
  }

  // A register for a piece of value `id` in the memory of the value's placement.
  int64_t NewValueRegister(ValueId id, const std::string& name, const Shape& shape) {
    const infer::TensorMeta& meta = plan_->program.value(id).meta;
    const bool on_device = meta.placement.device_type() == DeviceType::kCuda;
    return NewRegister(name, shape, meta.dtype,
                       on_device ? MemCase::Cuda(plan_->cuda_device) : MemCase::Host());
  }

  Operand OperandOf(ValueId id) const {
    Operand o;
    if (plan_->program.value(id).kind == ValueKind::kVariable) {
      if (plan_->has_local[id]) o.variable = id;
    } else {
      o.register_id = plan_->value_registers[id];
    }
    return o;
  }

  static void AddRead(const Operand& o, PlanStep* step) {
    if (o.register_id >= 0) step->reads.push_back(o.register_id);
  }

  // The operand holding `id` as `nd_sbp`: the value itself, or the register of a boxing
  // step (added once per (value, nd-sbp)).
  Result<Operand> Boxed(ValueId id, const NdSbp& nd_sbp) {
    const std::pair<ValueId, std::string> key(id, nd_sbp.ToString());
    auto it = boxed_.find(key);
    if (it != boxed_.end()) return it->second;
    const ProgramValue& value = plan_->program.value(id);
    infer::TensorMeta dst = value.meta;
    dst.nd_sbp = nd_sbp;
    CompiledStep step;
    step.kind = StepKind::kBoxing;
    step.boxed_value = id;
    step.dst_nd_sbp = nd_sbp;
    step.device = value.meta.placement.device_type();
    step.inputs.push_back(OperandOf(id));
    Operand out;
    Shape local;
    TESS_ASSIGN_OR_RETURN(bool has_local, LocalShape(dst, &local));
    const std::string out_name = value.name + " as " + nd_sbp.ToString();
    if (has_local) out.register_id = NewValueRegister(id, out_name, local);
    step.outputs.push_back(out.register_id);
    PlanStep uses;
    AddRead(step.inputs[0], &uses);
    if (out.register_id >= 0) uses.writes.push_back(out.register_id);
    // Ranks sharing devices box through the host (compile.h), in host staging used by this
    // step alone. Asked on every rank: the first ask in a process is collective.
    if (step.device == DeviceType::kCuda) {
      TESS_ASSIGN_OR_RETURN(step.through_host, tensor::WorldSharesDevices());
    }
    if (step.through_host && plan_->has_local[id]) {
      step.host_src = NewRegister(value.name + " staged on host", plan_->local_shapes[id],
                                  value.meta.dtype, MemCase::Host());
      uses.writes.push_back(step.host_src);
    }
    if (step.through_host && has_local) {
      step.host_dst =
          NewRegister(out_name + " staged on host", local, value.meta.dtype, MemCase::Host());
      uses.writes.push_back(step.host_dst);
    }
    steps_.push_back(std::move(uses));
    plan_->steps.push_back(std::move(step));
    ++plan_->num_boxing_steps;
    boxed_.emplace(key, out);
    return out;
  }

  Status AddOpSteps(size_t op_index) {
    const Program& program = plan_->program;
    const ProgramOp& op = program.ops()[op_index];
    CompiledStep step;
    step.kind = StepKind::kKernel;
    step.op_index = static_cast<int64_t>(op_index);
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (op.inference.needs_boxing[i]) {
        TESS_ASSIGN_OR_RETURN(Operand o, Boxed(op.inputs[i], op.inference.input_nd_sbps[i]));
        step.inputs.push_back(o);
      } else {
        step.inputs.push_back(OperandOf(op.inputs[i]));
      }
    }
    step.device = OpDevice(program, op);
    bool runs_here = false;
    for (ValueId id : op.outputs) {
      if (!plan_->has_local[id]) continue;
      runs_here = true;
      plan_->value_registers[id] =
          NewValueRegister(id, program.value(id).name, plan_->local_shapes[id]);
    }
    for (ValueId id : op.outputs) step.outputs.push_back(plan_->value_registers[id]);
    if (runs_here) {
      step.kernel = kernels::LinkedKernels().Find(op.def->name(), step.device);
      if (step.kernel == nullptr) {
        return Unimplemented("Compile: op #" + std::to_string(op_index) + " (" + op.def->name() +
                             ") has no " + DeviceTypeName(step.device) + " kernel");
      }
    }
    PlanStep uses;
    for (const Operand& o : step.inputs) AddRead(o, &uses);
    for (int64_t r : step.outputs) {
      if (r >= 0) uses.writes.push_back(r);
    }
    steps_.push_back(std::move(uses));
    plan_->steps.push_back(std::move(step));
    return Status::Ok();
  }

  std::shared_ptr<CompiledPlan> plan_;
  std::vector<PlanStep> steps_;
  std::map<std::pair<ValueId, std::string>, Operand> boxed_;
};

}  // namespace

Result<std::shared_ptr<const CompiledPlan>> Compile(const Program& program,
                                                    const CompileOptions& options) {
  if (options.input_register_num < 1 || options.input_register_num > kMaxInputRegisterNum) {
    return InvalidArgument("Compile: options.input_register_num is " +
                           std::to_string(options.input_register_num) + "; it must be in [1, " +
                           std::to_string(kMaxInputRegisterNum) + "]");
  }
  Result<int32_t> rank = comm::WorldRank();
  if (!rank.ok()) return FailedPrecondition("Compile: " + rank.status().message());
  return Compiler(program, rank.value(), options).Run();
}

std::string CompiledPlan::ToString() const {
  std::string s = "program:\n" + program.ToString();
  s += "plan on rank " + std::to_string(rank) + ": " + std::to_string(steps.size()) + " steps (" +
       std::to_string(num_boxing_steps) + " boxing), " + std::to_string(registers.size()) +
       " registers, " + std::to_string(input_register_num) + " cop" +
       (input_register_num == 1 ? "y" : "ies") + " of each input\n  0: feed";
  for (ValueId id : program.inputs()) s += " " + RegisterString(value_registers[id]);
  s += "\n";
  for (size_t i = 0; i < steps.size(); ++i) {
    const CompiledStep& step = steps[i];
    s += "  " + std::to_string(i + 1) + ": ";
    if (step.kind == StepKind::kBoxing) {
      s += "box %" + std::to_string(step.boxed_value) + " " +
           program.value(step.boxed_value).meta.ToString() + " -> " + step.dst_nd_sbp.ToString() +
           ": " + OperandString(step.inputs[0], program) + " -> " + RegisterString(step.outputs[0]);
      if (step.host_src >= 0 || step.host_dst >= 0) {
        s += " (staged on host: " + RegisterString(step.host_src) + " -> " +
             RegisterString(step.host_dst) + ")";
      } else if (step.device == DeviceType::kCuda && !step.through_host) {
        s += " (on the devices)";
      }
    } else {
      s += "kernel " + program.ops()[step.op_index].def->name() + " (op #" +
           std::to_string(step.op_index) + "):";
      for (size_t k = 0; k < step.inputs.size(); ++k) {
        s += (k ? ", " : " ") + OperandString(step.inputs[k], program);
      }
      s += " ->";
      for (size_t k = 0; k < step.outputs.size(); ++k) {
        s += (k ? ", " : " ") + RegisterString(step.outputs[k]);
      }
      if (step.kernel == nullptr) s += " (skipped: no local piece)";
    }
    s += "\n";
  }
  s += "  " + std::to_string(steps.size() + 1) + ": fetch";
  for (ValueId id : program.outputs()) {
    if (value_registers[id] >= 0) {
      s += " " + RegisterString(value_registers[id]);
    } else {
      s += " %" + std::to_string(id) + (has_local[id] ? " (variable)" : " (no local piece)");
    }
  }
  for (const ProgramAssign& a : program.assigns()) {
    s += ", assign " + RegisterString(value_registers[a.value]) + " -> var \"" +
         program.value(a.variable).name + "\"";
  }
  s += "\nmemory:\n" + memory.ToString();
  return s;
}

}  // namespace tessera::plan
