/*
 * Tessera C API. Plan mode: programs, capture, compiled plans and their instances.
 *
 * Part of <tessera/tessera.h>, which includes every module; this header
 * compiles alone. Conventions: <tessera/common.h>.
 */
#ifndef TESSERA_PLAN_H_
#define TESSERA_PLAN_H_

#include <stddef.h>
#include <stdint.h>

#include "tessera/common.h"
#include "tessera/dtype.h"
#include "tessera/infer.h"
#include "tessera/placement.h"
#include "tessera/sbp.h"
#include "tessera/status.h"
#include "tessera/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A program: a graph of op calls on values, numbered 0, 1, ... in the order they
 * are added: data inputs (fed at every run), variables (eager tensors the program
 * keeps and every run reads in place) and op outputs. Each op call is inferred at
 * once (SBP signature inference), so a bad call fails at the call. Build one
 * explicitly (tess_program_*) or record it from eager calls (tess_capture_*).
 * Every rank builds the same program. Not thread-safe: one thread builds a
 * program; a finished program may be read (compiled, printed) by any thread. */
typedef struct tess_program tess_program;

/* An empty program. Local. */
TESS_API tess_status tess_program_create(tess_program** out);
TESS_API void tess_program_destroy(tess_program* program);
/* A data input named `name` of `shape` (ndim dims), `dtype` and `placement`, held as
 * `nd_sbp` (NULL: split along axis 0 on every placement axis, as a data-parallel
 * batch is; broadcast for a 0-d input). *out = its value id. INVALID_ARGUMENT for an
 * empty or repeated name, a bad shape or dtype, or an nd-sbp that does not fit. */
TESS_API tess_status tess_program_add_input(int64_t* out, tess_program* program, const char* name,
                                            const int64_t* shape, size_t ndim, tess_dtype dtype,
                                            const tess_placement* placement,
                                            const tess_nd_sbp* nd_sbp);
/* A variable (a weight) named `name`: the program keeps `value` alive and every run
 * reads its storage. *out = its value id. INVALID_ARGUMENT for an empty or repeated
 * name; FAILED_PRECONDITION for a placeholder. */
TESS_API tess_status tess_program_add_variable(int64_t* out, tess_program* program,
                                               const char* name, const tess_tensor* value);
/* Appends the op of `call` (its attributes and constraints; tess_op_call_add_input
 * must not have been used) applied to the values `value_ids` (num_values of them).
 * Its outputs are the values *out_first_output .. *out_first_output +
 * *out_num_outputs - 1. NOT_FOUND never (the call names a known op);
 * INVALID_ARGUMENT for an unknown value id (naming it and the number of values), a
 * call with input metas, and every inference error, prefixed with the op's index. */
TESS_API tess_status tess_program_add_op(int64_t* out_first_output, size_t* out_num_outputs,
                                         tess_program* program, const tess_op_call* call,
                                         const int64_t* value_ids, size_t num_values);
/* Makes value `value_id` the program's next output. INVALID_ARGUMENT for an unknown
 * id or one already an output. */
TESS_API tess_status tess_program_mark_output(tess_program* program, int64_t value_id);
/* Counts of values, ops, data inputs and outputs. */
TESS_API tess_status tess_program_sizes(int64_t* out_values, int64_t* out_ops, int64_t* out_inputs,
                                        int64_t* out_outputs, const tess_program* program);
/* The graph, one line per value and op:
 *   %0 = input "x" [8,16] f32 cpu:[0,1] S(0)
 *   %3 = matmul(%0, %1) {} -> [8,32] f32 cpu:[0,1] S(0)
 * then "outputs: %5, %7". Valid until `program` changes or is destroyed. "" for
 * NULL. */
TESS_API const char* tess_program_string(const tess_program* program);

/* Capture: records eager ops into a program instead of listing them.
 *   tess_capture_begin();
 *   tess_capture_placeholder(&x, "x", shape, 2, TESS_DTYPE_F32, placement, NULL);
 *   tess_matmul(&h, x, w, 0, 0);      recorded: h is a placeholder; w, a real
 *   tess_relu(&y, h);                 tensor, becomes a variable
 *   tess_capture_end(&program, &y, 1);
 * While a capture is active on a thread, every op there (tess_op_call_apply and the typed
 * ops) with a placeholder input is recorded and returns placeholders carrying the
 * inferred metadata. A real tensor used with a placeholder becomes a variable ("v0",
 * "v1", ... by first use; one tensor used twice is one variable). Ops on real
 * tensors alone run eagerly as usual. tess_tensor_to_global of a placeholder to a
 * new nd-sbp on its placement records a boxing step (UNIMPLEMENTED for another
 * placement). A placeholder has no data: to_host, copy_local and the DLPack export
 * fail with FAILED_PRECONDITION. One capture per thread; placeholders work only in
 * their own capture, on its thread (FAILED_PRECONDITION otherwise). Local: every
 * rank captures the same calls. */
/* FAILED_PRECONDITION when a capture is already active on this thread. */
TESS_API tess_status tess_capture_begin(void);
/* *out = 1 while a capture is active on this thread, else 0. */
TESS_API tess_status tess_capture_active(int32_t* out);
/* A data input of the program being captured (tess_program_add_input's arguments
 * and errors), as a placeholder tensor. FAILED_PRECONDITION without a capture. */
TESS_API tess_status tess_capture_placeholder(tess_tensor** out, const char* name,
                                              const int64_t* shape, size_t ndim, tess_dtype dtype,
                                              const tess_placement* placement,
                                              const tess_nd_sbp* nd_sbp);
/* Ends the capture and returns its program, whose outputs are `tensors`
 * (num_tensors placeholders of this capture, in order). The capture ends whether
 * or not this succeeds. FAILED_PRECONDITION without a capture; INVALID_ARGUMENT for
 * no outputs, a NULL, a real tensor, a placeholder of another capture (naming its
 * index) or one listed twice. */
TESS_API tess_status tess_capture_end(tess_program** out, const tess_tensor* const* tensors,
                                      size_t num_tensors);
/* Ends the capture, if any, dropping what it recorded. */
TESS_API void tess_capture_abort(void);
/* Training in plan mode (docs/training.md, "Plan mode"): every run of the captured
 * program ends, after all its steps, by copying `value` (a placeholder of this capture,
 * an op's result) into `target`'s storage (a real tensor; it becomes a program variable
 * if it is not one yet), so the next run reads the new contents. The copy allocates
 * nothing. `target`'s data changes in place, as a parameter's does in
 * tess_optimizer_step. FAILED_PRECONDITION without a capture or for a placeholder of
 * another capture; INVALID_ARGUMENT for a NULL, a placeholder `target`, a real `value`,
 * shapes, dtypes, placements or nd-sbps that differ (naming both), or a target already
 * assigned. Local: every rank captures the same calls. */
TESS_API tess_status tess_capture_assign(tess_tensor* target, const tess_tensor* value);

/* A compiled plan: the program's steps for this rank (kernels and explicit boxing
 * steps) and its register memory, packed with reuse. Immutable: any thread may read
 * it; any number of instances may be made from it. */
typedef struct tess_plan tess_plan;

/* Options of tess_plan_compile. Start from TESS_PLAN_COMPILE_OPTIONS_INIT
 * (docs/c-api.md, "ABI"). Append only. */
typedef struct tess_plan_compile_options {
  size_t struct_size; /* sizeof(tess_plan_compile_options) */
  /* The number of copies ("slots") of each data input's register, 1 to 8 (0, the
   * default, means 1): with 2 or more, one thread can push the next inputs
   * (tess_plan_instance_push) while another runs the plan on earlier ones
   * (tess_plan_instance_run_pushed). */
  int32_t input_register_num;
} tess_plan_compile_options;

#define TESS_PLAN_COMPILE_OPTIONS_INIT \
  { sizeof(tess_plan_compile_options), 0 }

/* Compiles `program` for this rank; `options` NULL means the defaults. The plan holds
 * its own copy of the program. FAILED_PRECONDITION before tess_runtime_init; INVALID_ARGUMENT
 * for a program without outputs, a bad options->struct_size or an input_register_num
 * outside [0, 8]; UNIMPLEMENTED for a cuda placement in a build without CUDA, or an
 * op without a kernel for its device (naming it); UNAVAILABLE for a cuda placement on
 * a rank with no CUDA device. Values on a cuda placement live in that rank's device
 * memory and run CUDA kernels; their boxing steps are staged through host registers
 * (not NCCL yet). Local. */
TESS_API tess_status tess_plan_compile(tess_plan** out, const tess_program* program,
                                       const tess_plan_compile_options* options);
TESS_API void tess_plan_destroy(tess_plan* plan);
/* The program, the steps ("3: box %1 S(1) -> B into r4", "4: kernel matmul r0, r4
 * -> r5") and the memory table. Valid while `plan` lives; "" for NULL. */
TESS_API const char* tess_plan_string(const tess_plan* plan);

/* A runnable plan: its register memory is allocated once, here; every run reuses
 * it. After the first run, a run allocates nothing (tess_plan_instance_get_stats
 * shows it). Mutable: one thread runs an instance, except that with
 * input_register_num >= 2 one pusher thread (tess_plan_instance_push) and one runner thread
 * (tess_plan_instance_run_pushed and the output functions) may work at once. */
typedef struct tess_plan_instance tess_plan_instance;

/* RESOURCE_EXHAUSTED when the register memory cannot be allocated. Local. */
TESS_API tess_status tess_plan_instantiate(tess_plan_instance** out, const tess_plan* plan);
TESS_API void tess_plan_instance_destroy(tess_plan_instance* instance);
/* Runs the plan on `inputs` (num_inputs eager tensors, in the program's input
 * order; each must have its input's shape, dtype and placement, whose device type
 * may differ (a cpu tensor feeds a cuda input on the same ranks); a different
 * nd-sbp is boxed in). The outputs stay in the instance until the next run.
 * INVALID_ARGUMENT naming the input for a wrong count, a NULL or a mismatch.
 * Collective over the program's placements, like the ops it runs. */
TESS_API tess_status tess_plan_instance_run(tess_plan_instance* instance,
                                            const tess_tensor* const* inputs, size_t num_inputs);
/* Pipelining. Copies one input set (tess_plan_instance_run's checks; the tensors are not read
 * after this returns) into the next free input slot, waiting up to timeout_seconds
 * (negative: forever; 0: only try) while every slot is full. An input whose nd-sbp
 * differs from the program's is boxed, which is collective: such a push first waits
 * until every set pushed before it has run, so the collectives keep one order on
 * every rank (it overlaps nothing; push tensors already in the program's nd-sbp to
 * overlap). DEADLINE_EXCEEDED when the wait times out; CANCELLED after
 * tess_plan_instance_close; INVALID_ARGUMENT as tess_plan_instance_run, or for a NaN timeout
 * or one above 1e6 s (docs/c-api.md, "Limits"); nothing is pushed on error. */
TESS_API tess_status tess_plan_instance_push(tess_plan_instance* instance,
                                             const tess_tensor* const* inputs, size_t num_inputs,
                                             double timeout_seconds);
/* Waits up to timeout_seconds (negative: forever) for the oldest pushed set, runs
 * the plan on it and frees its slot; the outputs then read as after tess_plan_instance_run
 * and stay valid until the next run (input_register_num >= 2). DEADLINE_EXCEEDED
 * when nothing was pushed in time; CANCELLED after tess_plan_instance_close. tess_plan_instance_run
 * fails with FAILED_PRECONDITION while pushed sets wait. INVALID_ARGUMENT for a NaN
 * timeout or one above 1e6 s. */
TESS_API tess_status tess_plan_instance_run_pushed(tess_plan_instance* instance,
                                                   double timeout_seconds);
/* Wakes every waiting push and run_pushed with CANCELLED and makes later ones fail
 * the same way (to stop a pipeline, say, from the runner after an error). Any
 * thread; idempotent. tess_plan_instance_destroy closes too and waits for calls in
 * progress. */
TESS_API tess_status tess_plan_instance_close(tess_plan_instance* instance);
/* The same with this rank's local pieces: locals[i] holds input i's piece in its
 * declared nd-sbp (host memory, also for a cuda input; row-major, local_bytes[i]
 * bytes, which must equal the piece's size: 0, and NULL allowed, on a rank the
 * placement lacks). */
TESS_API tess_status tess_plan_instance_run_local(tess_plan_instance* instance,
                                                  const void* const* locals,
                                                  const size_t* local_bytes, size_t num_inputs);
/* The number of the program's outputs. */
TESS_API tess_status tess_plan_instance_num_outputs(size_t* out,
                                                    const tess_plan_instance* instance);
/* Output `index` of the last run as a new eager tensor (a copy; its metadata is the
 * program's). OUT_OF_RANGE for a bad index; FAILED_PRECONDITION before the first
 * run. Collective over the output's placement, as tess_tensor_from_local is. */
TESS_API tess_status tess_plan_instance_output(tess_tensor** out,
                                               const tess_plan_instance* instance, size_t index);
/* Copies this rank's piece of output `index` (row-major) to `out` (host memory),
 * without allocating; from a cuda placement it waits for the device first and
 * reports errors of its queued kernels. INVALID_ARGUMENT when out_bytes is too
 * small (naming both sizes); FAILED_PRECONDITION before the first run or on a rank
 * the output's placement lacks. Local. */
TESS_API tess_status tess_plan_instance_output_local(void* out, size_t out_bytes,
                                                     const tess_plan_instance* instance,
                                                     size_t index);
/* The element count of this rank's piece of output `index` (0 on a rank outside its
 * placement). */
TESS_API tess_status tess_plan_instance_output_local_num_elements(
    int64_t* out, const tess_plan_instance* instance, size_t index);
/* Output `index`'s dtype and, below, the shape of this rank's piece of it (what
 * tess_plan_instance_output_local writes, row-major): enough to shape that buffer without
 * the collective tess_plan_instance_output. Valid before the first run. OUT_OF_RANGE for a
 * bad index. Local. */
TESS_API tess_status tess_plan_instance_output_dtype(tess_dtype* out,
                                                     const tess_plan_instance* instance,
                                                     size_t index);
/* The dims of this rank's piece of output `index`, borrowed: *out_dims points at
 * *out_ndim dims, valid while `instance` lives. OUT_OF_RANGE for a bad index;
 * FAILED_PRECONDITION on a rank the output's placement lacks. Local. */
TESS_API tess_status tess_plan_instance_output_local_shape(const int64_t** out_dims,
                                                           size_t* out_ndim,
                                                           const tess_plan_instance* instance,
                                                           size_t index);
/* An instance's counters. The caller sets struct_size (TESS_PLAN_STATS_INIT); the
 * library fills the fields that fit in it (docs/c-api.md, "ABI"). Append only. */
typedef struct tess_plan_stats {
  size_t struct_size; /* sizeof(tess_plan_stats) */
  int64_t registers;
  int64_t steps;        /* kernel and boxing steps */
  int64_t boxing_steps; /* boxing steps among them */
  int64_t runs;         /* runs so far */
  /* The last run's calls to the host caching allocator and, for a plan on a cuda
   * placement, to the device's caching allocator (0 once warm). */
  int64_t allocator_calls_last_run;
  /* The last run's heap allocations on the calling thread (-1: not counted;
   * libtessera.so does not replace operator new, tests linking Tessera statically
   * do). */
  int64_t heap_allocations_last_run;
  /* Grown after the first version (a caller passing the first version's struct_size
   * gets the fields above only). CUDA graph replay of a plan on a cuda placement
   * (docs/gpu.md): graphs captured (one per input slot and stretch of kernels between
   * boxing steps), and their launches; both 0 on cpu placements, with
   * TESSERA_CUDA_GRAPHS=0, or where the stream refused the capture. */
  int64_t cuda_graphs;
  int64_t cuda_graph_launches;
} tess_plan_stats;

#define TESS_PLAN_STATS_INIT \
  { sizeof(tess_plan_stats), 0, 0, 0, 0, 0, 0, 0, 0 }

/* Fills *out. INVALID_ARGUMENT for a NULL argument or a struct_size below the first
 * version's. Local. */
TESS_API tess_status tess_plan_instance_get_stats(tess_plan_stats* out,
                                                  const tess_plan_instance* instance);
/* The memory cases ("cpu", one per CUDA device) the plan's registers live in. */
TESS_API tess_status tess_plan_instance_num_mem_cases(size_t* out,
                                                      const tess_plan_instance* instance);
/* Memory case `index`: its packed block's bytes, the lower bound (the most bytes
 * live at one step: no packing does better), and the bytes without reuse.
 * OUT_OF_RANGE for a bad index. */
TESS_API tess_status tess_plan_instance_mem_case_bytes(int64_t* out_block_bytes,
                                                       int64_t* out_lower_bound,
                                                       int64_t* out_no_reuse_bytes,
                                                       const tess_plan_instance* instance,
                                                       size_t index);
/* Memory case `index`'s name ("cpu", "cuda:0"); "" for a bad index or NULL. Valid
 * while `instance` lives. */
TESS_API const char* tess_plan_instance_mem_case_name(const tess_plan_instance* instance,
                                                      size_t index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLAN_H_ */
