// Plan mode through the C API: programs (explicit or captured), compiled plans and
// their runnable instances, over core/plan.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/handles.h"
#include "capi/src/plan_handle.h"
#include "capi/src/plan_run_check.h"
#include "capi/src/struct_args.h"
#include "capi/src/tensor_args.h"
#include "core/comm/call_check.h"
#include "core/plan/capture.h"
#include "core/plan/compile.h"
#include "core/plan/plan_exec.h"
#include "core/plan/program.h"
#include "tessera/tessera.h"

using tessera::DType;
using tessera::FailedPrecondition;
using tessera::InvalidArgument;
using tessera::NdSbp;
using tessera::OutOfRange;
using tessera::Result;
using tessera::Shape;
using tessera::Status;
using tessera::capi::AgreePlanRun;
using tessera::capi::NewTensorHandle;
using tessera::capi::NullArgument;
using tessera::capi::Report;
using tessera::capi::ReportIn;
using tessera::capi::ShapeArg;
using tessera::plan::CompiledPlan;
using tessera::plan::PlanInstance;
using tessera::plan::Program;
using tessera::plan::ValueId;

// A program being built, and its text, remade when the program has changed.
struct tess_program {
  Program value;
  mutable std::string text;
  mutable bool text_stale = true;
};

struct tess_plan_instance {
  std::unique_ptr<PlanInstance> value;
  std::vector<std::string> mem_case_names;
  // Each output's local piece shape (empty where this rank holds none), lent by
  // tess_plan_instance_output_local_shape.
  std::vector<Shape> output_local_shapes;
  // Scratch for the unwrapped inputs of tess_plan_instance_run and of tess_plan_instance_push
  // (which may run on another thread at the same time), kept so warm calls allocate nothing.
  std::vector<tessera::tensor::Tensor> inputs;
  std::vector<tessera::tensor::Tensor> push_inputs;
  std::vector<tessera::kernels::LocalTensor> locals;
  // Check mode: the plan's identity (a hash of its program's text) and the world ranks of its
  // placements, which agree each run.
  uint64_t check_hash = 0;
  std::vector<int32_t> check_ranks;
};

namespace {

// The (shape, dtype, nd-sbp) of an input declaration, checked.
struct InputArgs {
  Shape shape;
  DType dtype;
  std::optional<NdSbp> nd_sbp;
};

tess_status CheckInputArgs(const char* function, const char* name, const int64_t* shape,
                           size_t ndim, tess_dtype dtype, const tess_placement* placement,
                           const tess_nd_sbp* nd_sbp, InputArgs* args) {
  if (name == nullptr) return NullArgument(function, "name");
  if (ndim > 0 && shape == nullptr) return NullArgument(function, "shape");
  if (placement == nullptr) return NullArgument(function, "placement");
  Result<Shape> s = ShapeArg("shape", shape, ndim);
  if (!s.ok()) return ReportIn(function, s.status());
  Result<DType> t = tessera::capi::DTypeArg(dtype);
  if (!t.ok()) return ReportIn(function, t.status());
  args->shape = *s;
  args->dtype = *t;
  if (nd_sbp != nullptr) args->nd_sbp = nd_sbp->value;
  return TESS_OK;
}

// What the output functions know of output `index` before reading it: OUT_OF_RANGE for a
// bad index and, with `need_piece`, FAILED_PRECONDITION on a rank that holds no piece.
Result<PlanInstance::OutputPiece> OutputPiece(const PlanInstance& instance, size_t index,
                                              bool need_piece) {
  TESS_ASSIGN_OR_RETURN(PlanInstance::OutputPiece piece, instance.OutputLocalPiece(index));
  if (need_piece && !piece.has_local) {
    return FailedPrecondition("this rank holds no piece of output #" + std::to_string(index) +
                              " (" + instance.output_meta(index).ToString() + ")");
  }
  return piece;
}

// The handles' tensors in `scratch` (shared, not copied; the caller clears it after
// the call). Its capacity is the program's input count, so a right-sized call does
// not allocate.
std::vector<tessera::tensor::Tensor>& Unwrapped(const tess_tensor* const* inputs, size_t num_inputs,
                                                std::vector<tessera::tensor::Tensor>& scratch) {
  scratch.clear();
  for (size_t i = 0; i < num_inputs; ++i) {
    scratch.push_back(inputs[i] == nullptr ? nullptr : inputs[i]->value);
  }
  return scratch;
}

}  // namespace

extern "C" {

tess_status tess_program_create(tess_program** out) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  *out = new tess_program();
  return TESS_OK;
  TESS_CAPI_END
}

void tess_program_destroy(tess_program* program) { delete program; }

tess_status tess_program_add_input(int64_t* out, tess_program* program, const char* name,
                                   const int64_t* shape, size_t ndim, tess_dtype dtype,
                                   const tess_placement* placement, const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(program);
  InputArgs args;
  if (tess_status s = CheckInputArgs(__func__, name, shape, ndim, dtype, placement, nd_sbp, &args);
      s != TESS_OK) {
    return s;
  }
  Result<ValueId> id =
      program->value.AddInput(name, args.shape, args.dtype, placement->value, args.nd_sbp);
  if (!id.ok()) return ReportIn(__func__, id.status());
  program->text_stale = true;
  *out = *id;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_program_add_variable(int64_t* out, tess_program* program, const char* name,
                                      const tess_tensor* value) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(program);
  TESS_CAPI_REQUIRE(name);
  TESS_CAPI_REQUIRE(value);
  if (value->value->is_placeholder()) {
    return ReportIn(__func__, FailedPrecondition("variable \"" + std::string(name) + "\" (" +
                                                 value->value->meta().ToString() +
                                                 ") is a placeholder; a variable needs a value"));
  }
  Result<ValueId> id = program->value.AddVariable(name, value->value);
  if (!id.ok()) return ReportIn(__func__, id.status());
  program->text_stale = true;
  *out = *id;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_program_add_op(int64_t* out_first_output, size_t* out_num_outputs,
                                tess_program* program, const tess_op_call* call,
                                const int64_t* value_ids, size_t num_values) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out_first_output);
  TESS_CAPI_REQUIRE(out_num_outputs);
  TESS_CAPI_REQUIRE(program);
  TESS_CAPI_REQUIRE(call);
  if (num_values > 0 && value_ids == nullptr) return NullArgument(__func__, "value_ids");
  const tessera::infer::OpCall& c = call->value;
  if (!c.inputs().empty()) {
    return ReportIn(__func__, InvalidArgument(c.def().name() + ": the op call has " +
                                              std::to_string(c.inputs().size()) +
                                              " input metas; a program op takes value ids "
                                              "(make a fresh call without add_input)"));
  }
  const std::vector<ValueId> inputs(value_ids, value_ids + num_values);
  Result<std::vector<ValueId>> outputs =
      program->value.AddOp(c.def().name(), inputs, c.attrs(), c.constraints());
  if (!outputs.ok()) return ReportIn(__func__, outputs.status());
  program->text_stale = true;
  *out_first_output =
      outputs->empty() ? static_cast<int64_t>(program->value.values().size()) : outputs->front();
  *out_num_outputs = outputs->size();
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_program_mark_output(tess_program* program, int64_t value_id) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(program);
  Status s = program->value.MarkOutput(value_id);
  if (!s.ok()) return ReportIn(__func__, s);
  program->text_stale = true;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_program_sizes(int64_t* out_values, int64_t* out_ops, int64_t* out_inputs,
                               int64_t* out_outputs, const tess_program* program) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out_values);
  TESS_CAPI_REQUIRE(out_ops);
  TESS_CAPI_REQUIRE(out_inputs);
  TESS_CAPI_REQUIRE(out_outputs);
  TESS_CAPI_REQUIRE(program);
  *out_values = static_cast<int64_t>(program->value.values().size());
  *out_ops = static_cast<int64_t>(program->value.ops().size());
  *out_inputs = static_cast<int64_t>(program->value.inputs().size());
  *out_outputs = static_cast<int64_t>(program->value.outputs().size());
  return TESS_OK;
  TESS_CAPI_END
}

const char* tess_program_string(const tess_program* program) {
  if (program == nullptr) return "";
  try {
    if (program->text_stale) {
      program->text = program->value.ToString();
      program->text_stale = false;
    }
    return program->text.c_str();
  } catch (...) {
    return "";
  }
}

tess_status tess_capture_begin(void) {
  TESS_CAPI_BEGIN
  Status s = tessera::plan::BeginCapture();
  return s.ok() ? TESS_OK : ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_capture_active(int32_t* out) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  *out = tessera::plan::Capturing() ? 1 : 0;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_capture_placeholder(tess_tensor** out, const char* name, const int64_t* shape,
                                     size_t ndim, tess_dtype dtype, const tess_placement* placement,
                                     const tess_nd_sbp* nd_sbp) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  InputArgs args;
  if (tess_status s = CheckInputArgs(__func__, name, shape, ndim, dtype, placement, nd_sbp, &args);
      s != TESS_OK) {
    return s;
  }
  return tessera::capi::EmitTensor(
      __func__, out,
      tessera::plan::CapturePlaceholder(name, args.shape, args.dtype, placement->value,
                                        args.nd_sbp));
  TESS_CAPI_END
}

tess_status tess_capture_end(tess_program** out, const tess_tensor* const* tensors,
                             size_t num_tensors) {
  TESS_CAPI_BEGIN
  if (out == nullptr || (num_tensors > 0 && tensors == nullptr)) {
    // The capture ends on every path, as documented.
    tessera::plan::AbortCapture();
    return NullArgument(__func__, out == nullptr ? "out" : "tensors");
  }
  std::vector<tessera::tensor::Tensor> outputs;
  outputs.reserve(num_tensors);
  for (size_t i = 0; i < num_tensors; ++i) {
    outputs.push_back(tensors[i] == nullptr ? nullptr : tensors[i]->value);
  }
  Result<std::unique_ptr<Program>> program = tessera::plan::EndCapture(outputs);
  if (!program.ok()) return ReportIn(__func__, program.status());
  *out = new tess_program{std::move(**program)};
  return TESS_OK;
  TESS_CAPI_END
}

void tess_capture_abort(void) { tessera::plan::AbortCapture(); }

tess_status tess_capture_assign(tess_tensor* target, const tess_tensor* value) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(target);
  TESS_CAPI_REQUIRE(value);
  return ReportIn(__func__, tessera::plan::CaptureAssign(target->value, value->value));
  TESS_CAPI_END
}

tess_status tess_plan_compile(tess_plan** out, const tess_program* program,
                              const tess_plan_compile_options* options) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(program);
  tess_plan_compile_options o = TESS_PLAN_COMPILE_OPTIONS_INIT;
  Status s = tessera::capi::ReadOptions(
      __func__, "options", "tess_plan_compile_options", options,
      TESS_STRUCT_SIZE_UP_TO(tess_plan_compile_options, input_register_num), &o);
  if (!s.ok()) return Report(s);
  // 0 means the default (one copy); Compile checks the range and names it.
  tessera::plan::CompileOptions compile_options;
  if (o.input_register_num != 0) compile_options.input_register_num = o.input_register_num;
  Result<std::shared_ptr<const CompiledPlan>> plan =
      tessera::plan::Compile(program->value, compile_options);
  if (!plan.ok()) return ReportIn(__func__, plan.status());
  auto handle = std::make_unique<tess_plan>();
  handle->value = std::move(plan).value();
  handle->text = handle->value->ToString();
  *out = handle.release();
  return TESS_OK;
  TESS_CAPI_END
}

void tess_plan_destroy(tess_plan* plan) { delete plan; }

const char* tess_plan_string(const tess_plan* plan) {
  return plan == nullptr ? "" : plan->text.c_str();
}

tess_status tess_plan_instantiate(tess_plan_instance** out, const tess_plan* plan) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(plan);
  Result<std::unique_ptr<PlanInstance>> instance = PlanInstance::Create(plan->value);
  if (!instance.ok()) return ReportIn(__func__, instance.status());
  auto handle = std::make_unique<tess_plan_instance>();
  handle->value = std::move(instance).value();
  for (const auto& m : handle->value->stats().mem_cases) {
    handle->mem_case_names.push_back(m.mem_case.ToString());
  }
  for (size_t i = 0; i < handle->value->num_outputs(); ++i) {
    Result<PlanInstance::OutputPiece> piece = handle->value->OutputLocalPiece(i);
    if (!piece.ok()) return ReportIn(__func__, piece.status());
    handle->output_local_shapes.push_back(piece->has_local ? piece->shape : Shape());
  }
  // The program's text, not the plan's: the plan's shows this rank's pieces and memory.
  const std::string program_text = plan->value->program.ToString();
  handle->check_hash = tessera::comm::HashBytes(program_text.data(), program_text.size());
  for (const tessera::plan::ProgramValue& v : plan->value->program.values()) {
    const std::vector<int32_t>& ranks = v.meta.placement.ranks();
    handle->check_ranks.insert(handle->check_ranks.end(), ranks.begin(), ranks.end());
  }
  std::sort(handle->check_ranks.begin(), handle->check_ranks.end());
  handle->check_ranks.erase(std::unique(handle->check_ranks.begin(), handle->check_ranks.end()),
                            handle->check_ranks.end());
  const size_t num_inputs = plan->value->program.inputs().size();
  handle->inputs.reserve(num_inputs);
  handle->push_inputs.reserve(num_inputs);
  handle->locals.reserve(num_inputs);
  *out = handle.release();
  return TESS_OK;
  TESS_CAPI_END
}

void tess_plan_instance_destroy(tess_plan_instance* instance) { delete instance; }

tess_status tess_plan_instance_run(tess_plan_instance* instance, const tess_tensor* const* inputs,
                                   size_t num_inputs) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(instance);
  if (num_inputs > 0 && inputs == nullptr) return NullArgument(__func__, "inputs");
  std::vector<tessera::tensor::Tensor>& scratch = Unwrapped(inputs, num_inputs, instance->inputs);
  Status s;
  if (tessera::comm::CheckModeEnabled()) {
    s = AgreePlanRun({"tess_plan_instance_run", instance->check_hash, &instance->check_ranks,
                      scratch.data(), scratch.size()});
  }
  if (s.ok()) s = instance->value->Run(scratch.data(), scratch.size());
  scratch.clear();
  return s.ok() ? TESS_OK : ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_plan_instance_push(tess_plan_instance* instance, const tess_tensor* const* inputs,
                                    size_t num_inputs, double timeout_seconds) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(instance);
  if (num_inputs > 0 && inputs == nullptr) return NullArgument(__func__, "inputs");
  std::vector<tessera::tensor::Tensor>& scratch =
      Unwrapped(inputs, num_inputs, instance->push_inputs);
  Status s;
  if (tessera::comm::CheckModeEnabled()) {
    s = AgreePlanRun({"tess_plan_instance_push", instance->check_hash, &instance->check_ranks,
                      scratch.data(), scratch.size()});
  }
  if (s.ok()) s = instance->value->Push(scratch.data(), scratch.size(), timeout_seconds);
  scratch.clear();
  return s.ok() ? TESS_OK : ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_plan_instance_run_pushed(tess_plan_instance* instance, double timeout_seconds) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(instance);
  Status s = instance->value->RunPushed(timeout_seconds);
  return s.ok() ? TESS_OK : ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_plan_instance_close(tess_plan_instance* instance) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(instance);
  instance->value->Close();
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_plan_instance_run_local(tess_plan_instance* instance, const void* const* locals,
                                         const size_t* local_bytes, size_t num_inputs) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(instance);
  if (num_inputs > 0 && locals == nullptr) return NullArgument(__func__, "locals");
  if (num_inputs > 0 && local_bytes == nullptr) return NullArgument(__func__, "local_bytes");
  const CompiledPlan& plan = instance->value->plan();
  const std::vector<ValueId>& ids = plan.program.inputs();
  if (num_inputs != ids.size()) {
    return ReportIn(__func__, InvalidArgument("the program takes " + std::to_string(ids.size()) +
                                              " inputs but got " + std::to_string(num_inputs)));
  }
  instance->locals.clear();
  for (size_t i = 0; i < num_inputs; ++i) {
    const ValueId id = ids[i];
    const DType dtype = plan.program.value(id).meta.dtype;
    const Shape& shape = plan.has_local[id] ? plan.local_shapes[id] : Shape();
    const size_t want = plan.has_local[id]
                            ? static_cast<size_t>(shape.num_elements()) * tessera::DTypeSize(dtype)
                            : 0;
    if (local_bytes[i] != want) {
      return ReportIn(
          __func__,
          InvalidArgument("input #" + std::to_string(i) + " (\"" + plan.program.value(id).name +
                          "\") has " + std::to_string(local_bytes[i]) +
                          " bytes but this rank's piece has " + std::to_string(want)));
    }
    instance->locals.push_back(
        tessera::kernels::LocalTensor{const_cast<void*>(locals[i]), shape, dtype});
  }
  if (tessera::comm::CheckModeEnabled()) {
    Status agreed = AgreePlanRun({"tess_plan_instance_run_local", instance->check_hash,
                                  &instance->check_ranks, nullptr, num_inputs});
    if (!agreed.ok()) return ReportIn(__func__, agreed);
  }
  Status s = instance->value->Run(instance->locals.data(), instance->locals.size());
  return s.ok() ? TESS_OK : ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_plan_instance_num_outputs(size_t* out, const tess_plan_instance* instance) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(instance);
  *out = instance->value->num_outputs();
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_plan_instance_output(tess_tensor** out, const tess_plan_instance* instance,
                                      size_t index) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(instance);
  return tessera::capi::EmitTensor(__func__, out, instance->value->OutputTensor(index));
  TESS_CAPI_END
}

tess_status tess_plan_instance_output_local(void* out, size_t out_bytes,
                                            const tess_plan_instance* instance, size_t index) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(instance);
  Status s = instance->value->OutputLocal(index, out, out_bytes);
  return s.ok() ? TESS_OK : ReportIn(__func__, s);
  TESS_CAPI_END
}

tess_status tess_plan_instance_output_local_num_elements(int64_t* out,
                                                         const tess_plan_instance* instance,
                                                         size_t index) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(instance);
  Result<PlanInstance::OutputPiece> piece = OutputPiece(*instance->value, index, false);
  if (!piece.ok()) return ReportIn(__func__, piece.status());
  *out = piece->has_local ? piece->shape.num_elements() : 0;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_plan_instance_output_dtype(tess_dtype* out, const tess_plan_instance* instance,
                                            size_t index) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(instance);
  Result<PlanInstance::OutputPiece> piece = OutputPiece(*instance->value, index, false);
  if (!piece.ok()) return ReportIn(__func__, piece.status());
  *out = static_cast<tess_dtype>(piece->dtype);
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_plan_instance_output_local_shape(const int64_t** out_dims, size_t* out_ndim,
                                                  const tess_plan_instance* instance,
                                                  size_t index) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out_dims);
  TESS_CAPI_REQUIRE(out_ndim);
  TESS_CAPI_REQUIRE(instance);
  Result<PlanInstance::OutputPiece> piece = OutputPiece(*instance->value, index, true);
  if (!piece.ok()) return ReportIn(__func__, piece.status());
  // The pieces' shapes are fixed by the plan, so the handle keeps one copy each and
  // lends it out.
  return tessera::capi::LendShape(instance->output_local_shapes[index], out_dims, out_ndim);
  TESS_CAPI_END
}

tess_status tess_plan_instance_get_stats(tess_plan_stats* out, const tess_plan_instance* instance) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(instance);
  const tessera::plan::PlanStats s = instance->value->stats();
  tess_plan_stats full = TESS_PLAN_STATS_INIT;
  full.registers = s.num_registers;
  full.steps = s.num_steps;
  full.boxing_steps = s.num_boxing_steps;
  full.runs = s.num_runs;
  full.allocator_calls_last_run = s.allocator_calls_last_run;
  full.heap_allocations_last_run = s.heap_allocations_last_run;
  full.cuda_graphs = s.cuda_graphs;
  full.cuda_graph_launches = s.cuda_graph_launches;
  return Report(tessera::capi::WriteStats(
      __func__, "out", "tess_plan_stats", full,
      TESS_STRUCT_SIZE_UP_TO(tess_plan_stats, heap_allocations_last_run), out));
  TESS_CAPI_END
}

tess_status tess_plan_instance_num_mem_cases(size_t* out, const tess_plan_instance* instance) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(instance);
  *out = instance->mem_case_names.size();
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_plan_instance_mem_case_bytes(int64_t* out_block_bytes, int64_t* out_lower_bound,
                                              int64_t* out_no_reuse_bytes,
                                              const tess_plan_instance* instance, size_t index) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out_block_bytes);
  TESS_CAPI_REQUIRE(out_lower_bound);
  TESS_CAPI_REQUIRE(out_no_reuse_bytes);
  TESS_CAPI_REQUIRE(instance);
  const tessera::plan::PlanStats s = instance->value->stats();
  if (index >= s.mem_cases.size()) {
    return ReportIn(__func__,
                    OutOfRange("memory case index " + std::to_string(index) + " but the plan has " +
                               std::to_string(s.mem_cases.size())));
  }
  *out_block_bytes = s.mem_cases[index].block_bytes;
  *out_lower_bound = s.mem_cases[index].lower_bound;
  *out_no_reuse_bytes = s.mem_cases[index].no_reuse_bytes;
  return TESS_OK;
  TESS_CAPI_END
}

const char* tess_plan_instance_mem_case_name(const tess_plan_instance* instance, size_t index) {
  if (instance == nullptr || index >= instance->mem_case_names.size()) return "";
  return instance->mem_case_names[index].c_str();
}

}  // extern "C"
