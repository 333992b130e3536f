// Compile: turns a Program into a CompiledPlan for the calling rank.
//
// Inference already ran op by op as the program was built (program.h); Compile walks the
// ops in that (topological) order and
//   1. makes every input whose nd-sbp differs from the op's chosen signature an explicit
//      boxing step into a fresh register (one per (value, nd-sbp): a value boxed the same
//      way for two consumers is boxed once);
//   2. gives every data input, op output and boxing result that has a local piece on this
//      rank a register sized by its local shape; variables are read in place from their
//      eager tensors and get none;
//   3. derives lifetimes in plan order: step 0 feeds the inputs, steps 1..n are the kernel
//      and boxing steps, step n+1 fetches the outputs and copies the assigned values into
//      their variables (program.h; so outputs and assigned values outlive the run);
//   4. packs the registers with PlanMemory (mem_plan.h).
// With CompileOptions::input_register_num = n > 1 every data-input register holds n copies
// (register_desc.h): PlanInstance::Push fills one copy while RunPushed runs the steps on
// another. Such registers never share memory (mem_plan.h), so each extra copy costs the
// input's full bytes.
// The plan is per rank (SPMD: every rank compiles the same program; local shapes, and so
// the memory plan, differ). Ranks outside a step's placement skip its kernel but still
// take part in its boxing, which is collective.
//
// cuda placements (--config=cuda builds). A value on a cuda placement has its registers in
// MemCase::Cuda(d), d the rank's device (tensor::LocalCudaDevice: local_rank % device
// count), and its ops run their CUDA kernels. Boxing such a value runs on the devices, as
// eager layout changes do (core/tensor/device_boxing.h): NCCL collectives and device copies
// from the step's input register into its output register, device staging from the plan
// instance's own workspace, after the eager stream's wait and the world's agreement. Where
// two ranks of the world drive one device (more ranks than GPUs on a host: NCCL cannot
// group them; tensor::WorldSharesDevices, asked once at compile time) the step is staged
// through the host instead: the source piece is copied down into a host register, boxed
// there by the host Box between the cpu placements with the same ranks and hierarchy, and
// the result, in a second host register, is copied up into the step's device register.
// Both host registers live for that one step only, so they share the host block with
// every other step's staging and a run allocates nothing for them.
#ifndef TESSERA_CORE_PLAN_COMPILE_H_
#define TESSERA_CORE_PLAN_COMPILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/infer/tensor_meta.h"
#include "core/kernel/kernel.h"
#include "core/kernel/kernel_registry.h"
#include "core/placement/placement.h"
#include "core/plan/mem_plan.h"
#include "core/plan/program.h"
#include "core/plan/register_desc.h"
#include "core/sbp/sbp.h"

namespace tessera::plan {

// Where a step reads a tensor: a register, or a variable's eager storage. Both -1: the
// rank holds no local piece.
struct Operand {
  int64_t register_id = -1;
  ValueId variable = -1;
};

enum class StepKind { kKernel, kBoxing };

struct CompiledStep {
  StepKind kind = StepKind::kKernel;
  // kKernel: the op (index into the program's ops), its kernel (null on ranks that hold
  // no local piece: they skip it), inputs already in the signature's nd-sbps, outputs.
  int64_t op_index = -1;
  kernels::KernelFn kernel = nullptr;
  std::vector<Operand> inputs;
  std::vector<int64_t> outputs;  // register ids, -1 where the rank holds no piece
  // kBoxing: value `boxed_value` (read through inputs[0]) re-laid out as `dst_nd_sbp` on
  // its placement, written to outputs[0].
  ValueId boxed_value = -1;
  NdSbp dst_nd_sbp;
  // Where the step's values live: its kernel's device, or the boxed value's.
  DeviceType device = DeviceType::kCpu;
  // kBoxing on a cuda placement whose ranks share devices (file comment): staged through
  // the host, in these host registers (the source piece copied down, the boxed piece
  // before it is copied up); -1 on cpu placements, for device boxing, and on ranks outside
  // the placement.
  bool through_host = false;
  int64_t host_src = -1;
  int64_t host_dst = -1;
};

// The most copies of an input register a plan may ask for: pipelining gains nothing past
// a few slots, and each copy is a full input.
inline constexpr int kMaxInputRegisterNum = 8;

struct CompileOptions {
  // Copies of every data-input register, in [1, kMaxInputRegisterNum]: how many input sets
  // PlanInstance::Push can hold ahead of RunPushed.
  int input_register_num = 1;
};

struct CompiledPlan {
  Program program;
  int32_t rank = 0;
  int input_register_num = 1;  // the option it was compiled with
  // Plan step i + 1 is steps[i]; step 0 feeds the inputs, step steps.size() + 1 fetches.
  std::vector<CompiledStep> steps;
  std::vector<RegisterDesc> registers;   // by register id
  std::vector<int64_t> value_registers;  // by value id; -1: a variable or no local piece
  std::vector<Shape> local_shapes;       // by value id; meaningful where the rank holds one
  std::vector<bool> has_local;           // by value id
  MemoryPlan memory;
  int64_t num_boxing_steps = 0;
  // The rank's CUDA device index when any register or variable of the rank lives on a
  // cuda placement, else -1.
  int cuda_device = -1;

  // The program, the steps ("3: box %1 S(1) -> B into r4", "4: kernel matmul r0, r4 -> r5")
  // and the memory table.
  std::string ToString() const;
};

// Errors: INVALID_ARGUMENT for input_register_num outside [1, kMaxInputRegisterNum];
// FAILED_PRECONDITION without an MPI world (comm::InitWorld); INVALID_ARGUMENT for a
// program without outputs; UNIMPLEMENTED for a value on a cuda placement in a build
// without CUDA (on every rank, naming the value), and for an op without a kernel for its
// placement's device, naming the op and the device; where the rank holds a piece on a
// cuda placement, tensor::LocalCudaDevice's errors (UNAVAILABLE "no CUDA device visible");
// PlanMemory's errors. (An op mixing cpu and cuda inputs never reaches Compile:
// Program::AddOp rejects it with the inference error eager gives.)
Result<std::shared_ptr<const CompiledPlan>> Compile(const Program& program,
                                                    const CompileOptions& options = {});

}  // namespace tessera::plan

#endif  // TESSERA_CORE_PLAN_COMPILE_H_
