/* The one SWIG interface over capi/include/tessera/tessera.h.
 *
 * It produces the Python module `tessera._capi` (the Python build passes -module),
 * the Java package `org.tessera` and the Go package `tessera` (its raw layer,
 * internal/capi). What is shared lives here:
 *
 * - Explicit API (the OR-Tools discipline): everything in the header is ignored,
 *   then each intended function and constant is exposed with its `tess_`/`TESS_`
 *   prefix stripped. A new C function appears in the bindings only once it is
 *   listed below.
 * - Handles: each opaque `tess_x` becomes a class whose destructor calls
 *   `tess_x_destroy` (TESS_HANDLE).
 * - Calling convention. The language sections (python/, java/, go/) define the
 *   typemaps; this file applies them by parameter name, so the header's own
 *   conventions (out-params first and named out/out_*, inputs const) decide:
 *     tess_status return    -> exception (Python, Java) / error (Go), carrying the
 *                              code and tess_last_error_message() read inside the
 *                              same wrapper call, on the same OS thread;
 *     T** (any handle)      -> an owned handle out-param;
 *     int32_t*, int64_t*,   -> scalar out-params when named `out` or `out_*` (see
 *     uint64_t*, size_t*,      TESS_OUT_PARAMS; tess_sbp_kind, tess_device_type,
 *     double*                  tess_dtype are int32_t typedefs and follow);
 *     (const int64_t* x, size_t n), (const int32_t* x, size_t n)
 *                           -> one array argument, for the pairs listed in
 *                              the %apply list below.
 *   Names are matched explicitly because SWIG ignores names-less multi-argument
 *   typemaps once a one-argument one matches, and strips `const` when matching
 *   one-argument typemaps, so `int64_t*` alone would also catch `const int64_t*`.
 */
%module tessera

%{
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"
%}

%include <stdint.i>

/* TESS_API expands to a GNU attribute that SWIG's parser does not take. */
#define __attribute__(x)

/* ---------------------------------------------------------------------------- */
/* Explicit API                                                                  */
/* ---------------------------------------------------------------------------- */

%define %tess_ignoreall %ignore ""; %enddef
%define %tess_unignoreall %rename("%s") ""; %enddef
/* A function or type name: tess_placement_parse -> placement_parse. */
%define %tess_expose(NAME) %rename("%(strip:[tess_])s") NAME; %enddef
/* A constant: TESS_INVALID_ARGUMENT -> INVALID_ARGUMENT. */
%define %tess_expose_constant(NAME) %rename("%(strip:[TESS_])s") NAME; %enddef

/* An opaque handle type: class CLASS, destroyed by CTYPE##_destroy. Instances only
 * come from the functions that create them. */
%define TESS_HANDLE(CTYPE, CLASS)
/* The header only forward-declares the struct; SWIG needs a (memberless) class to
 * attach the destructor to. This definition is seen by SWIG alone. */
%rename(CLASS) CTYPE;
%rename("%s") CTYPE::~CTYPE;
%nodefaultctor CTYPE;
struct CTYPE {};
%extend CTYPE {
  ~CTYPE() { CTYPE##_destroy($self); }
}
%enddef

%tess_ignoreall

/* Each section defines, for its language:
 *   %typemap(...) tess_status                       the status -> error rule;
 *   %typemap(...) SWIGTYPE**                        handle out-params;
 *   %typemap(...) T* TESS_OUT for T in int32_t, int64_t, uint64_t, size_t, double;
 *   %typemap(...) (const T* TESS_ARRAY, size_t TESS_LEN) for T in int32_t, int64_t;
 *   %typemap(...) (const tess_sbp_kind* kinds, const int32_t* split_axes,
 *                  size_t num_axes)                 tess_nd_sbp_create's input;
 *   %typemap(...) const void* TESS_IN_BUFFER        a host buffer the C API reads
 *                                                   (NULL allowed);
 *   %typemap(...) (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES)
 *                                                   a host buffer it writes;
 *   %typemap(...) const int64_t* TESS_OPT_SHAPE     an optional shape (NULL allowed)
 *                                                   whose length the C API implies;
 *   %typemap(...) (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES)
 *                                                   a host buffer the C API reads, with
 *                                                   its size (NULL, 0 allowed);
 *   %typemap(...) void* TESS_INOUT_BUFFER           a host buffer it reduces in place
 *                                                   (NULL allowed; the count is a
 *                                                   separate argument);
 *   %typemap(...) void* const* TESS_BUFFER_LIST     a list of such buffers (the count
 *                                                   and length are separate);
 *   %typemap(...) (tess_tensor** outputs, size_t outputs_capacity,
 *                  size_t* num_outputs)             tess_op_call_apply's outputs;
 *   %typemap(...) (const tess_tensor* const* inputs, size_t num_inputs)
 *                                                   tess_op_call_apply's inputs (and, by
 *                                                   %apply, any list of tensors);
 *   %typemap(...) (const void* const* TESS_IN_BUFFER_LIST,
 *                  const size_t* TESS_IN_BYTES_LIST, size_t TESS_LIST_LEN)
 *                                                   host buffers the C API reads,
 *                                                   with their sizes. */
#if defined(SWIGPYTHON)
%include "python/tessera_python.i"
#elif defined(SWIGJAVA)
%include "java/tessera_java.i"
#elif defined(SWIGGO)
%include "go/tessera_go.i"
#else
#error "tessera.i: only Python, Java and Go are supported"
#endif

TESS_HANDLE(tess_placement, Placement)
TESS_HANDLE(tess_nd_sbp, NdSbp)
TESS_HANDLE(tess_layout, Layout)
TESS_HANDLE(tess_op_call, OpCall)
TESS_HANDLE(tess_infer_result, InferResult)
TESS_HANDLE(tess_explanation, Explanation)
TESS_HANDLE(tess_tensor, Tensor)
TESS_HANDLE(tess_boxing_plan, BoxingPlan)
TESS_HANDLE(tess_bucketed_allreducer, BucketedAllReducer)
TESS_HANDLE(tess_program, Program)
TESS_HANDLE(tess_plan, Plan)
TESS_HANDLE(tess_plan_instance, PlanInstance)
TESS_HANDLE(tess_server, Server)
TESS_HANDLE(tess_serve_request, ServeRequest)
TESS_HANDLE(tess_checkpoint_writer, CheckpointWriter)
TESS_HANDLE(tess_checkpoint_index, CheckpointIndex)
TESS_HANDLE(tess_optimizer, Optimizer)

/* Versions. */
%tess_expose(tess_version)
%tess_expose(tess_version_number)
%tess_expose_constant(TESS_VERSION_MAJOR)
%tess_expose_constant(TESS_VERSION_MINOR)
%tess_expose_constant(TESS_VERSION_PATCH)
%tess_expose_constant(TESS_VERSION_NUMBER)

/* Status. The last-error functions are not exposed: every binding reports errors
 * itself, inside the failing call. */
%tess_expose(tess_status_string)
%tess_expose_constant(TESS_OK)
%tess_expose_constant(TESS_CANCELLED)
%tess_expose_constant(TESS_UNKNOWN)
%tess_expose_constant(TESS_INVALID_ARGUMENT)
%tess_expose_constant(TESS_DEADLINE_EXCEEDED)
%tess_expose_constant(TESS_NOT_FOUND)
%tess_expose_constant(TESS_ALREADY_EXISTS)
%tess_expose_constant(TESS_PERMISSION_DENIED)
%tess_expose_constant(TESS_RESOURCE_EXHAUSTED)
%tess_expose_constant(TESS_FAILED_PRECONDITION)
%tess_expose_constant(TESS_ABORTED)
%tess_expose_constant(TESS_OUT_OF_RANGE)
%tess_expose_constant(TESS_UNIMPLEMENTED)
%tess_expose_constant(TESS_INTERNAL)
%tess_expose_constant(TESS_UNAVAILABLE)
%tess_expose_constant(TESS_DATA_LOSS)

/* Runtime. */
%tess_expose(tess_runtime_init)
%rename(runtime_init_with_options) tess_shim_runtime_init_with_options;
#if defined(SWIGJAVA)
/* A static finalize() cannot hide Object.finalize(). */
%rename(shutdown) tess_runtime_finalize;
#else
%tess_expose(tess_runtime_finalize)
#endif
%tess_expose(tess_runtime_world_rank)
%tess_expose(tess_runtime_world_size)
%tess_expose(tess_runtime_cuda_info)
%rename(runtime_topology) tess_shim_runtime_topology;
%tess_expose(tess_runtime_rank_host)
%tess_expose(tess_runtime_topology_string)

/* Placements. */
%tess_expose_constant(TESS_DEVICE_CPU)
%tess_expose_constant(TESS_DEVICE_CUDA)
%tess_expose(tess_placement_parse)
%tess_expose(tess_placement_create)
%tess_expose(tess_placement_string)
%tess_expose(tess_placement_device_type)
%tess_expose(tess_placement_num_axes)
%tess_expose(tess_placement_hierarchy_dim)
%tess_expose(tess_placement_parallel_num)
%tess_expose(tess_placement_rank_at)
%tess_expose(tess_placement_index_of)
%tess_expose(tess_placement_contains)
%tess_expose(tess_placement_axis_group)
%tess_expose(tess_placement_equal)
%tess_expose(tess_placement_hash)

/* SBP. */
%tess_expose_constant(TESS_SBP_SPLIT)
%tess_expose_constant(TESS_SBP_BROADCAST)
%tess_expose_constant(TESS_SBP_PARTIAL_SUM)
%tess_expose_constant(TESS_SBP_PARTIAL_MAX)
%tess_expose_constant(TESS_SBP_PARTIAL_MIN)
%tess_expose(tess_nd_sbp_parse)
%tess_expose(tess_nd_sbp_create)
%tess_expose(tess_nd_sbp_string)
%tess_expose(tess_nd_sbp_num_axes)
%tess_expose(tess_nd_sbp_get)
%tess_expose(tess_nd_sbp_equal)

/* Physical layout. */
%tess_expose(tess_layout_create)
%tess_expose(tess_layout_range)
%tess_expose(tess_layout_num_elements)
%tess_expose(tess_layout_string)

/* Element types. */
%tess_expose_constant(TESS_DTYPE_F32)
%tess_expose_constant(TESS_DTYPE_F64)
%tess_expose_constant(TESS_DTYPE_I32)
%tess_expose_constant(TESS_DTYPE_I64)
%tess_expose_constant(TESS_DTYPE_F16)
%tess_expose_constant(TESS_DTYPE_BF16)
%tess_expose_constant(TESS_DTYPE_BOOL)
%tess_expose(tess_dtype_parse)
%tess_expose(tess_dtype_name)

/* Ops and SBP signature inference. */
%tess_expose(tess_op_count)
%tess_expose(tess_op_name)
%tess_expose(tess_op_call_create)
%tess_expose(tess_op_call_signature)
%tess_expose(tess_op_call_set_attr_int)
%tess_expose(tess_op_call_set_attr_float)
%tess_expose(tess_op_call_set_attr_bool)
%tess_expose(tess_op_call_set_attr_ints)
%tess_expose(tess_op_call_set_attr_dtype)
%tess_expose(tess_op_call_add_input)
%tess_expose(tess_op_call_num_inputs)
%tess_expose(tess_op_call_constrain_input)
%tess_expose(tess_op_call_constrain_output)
%tess_expose(tess_op_call_infer)
%tess_expose(tess_infer_result_num_outputs)
%tess_expose(tess_infer_result_output_dtype)
%tess_expose(tess_infer_result_output_placement)
%tess_expose(tess_infer_result_output_nd_sbp)
%tess_expose(tess_infer_result_num_inputs)
%tess_expose(tess_infer_result_input_nd_sbp)
%tess_expose(tess_infer_result_needs_boxing)
%tess_expose(tess_infer_result_input_cost)
%tess_expose(tess_infer_result_total_cost)
%tess_expose(tess_infer_result_signature_index)
%tess_expose(tess_infer_result_num_candidates)
%tess_expose(tess_op_call_explain)
%tess_expose(tess_explanation_text)
%tess_expose(tess_explanation_json)
%tess_expose(tess_explanation_failure)
%rename(infer_cache_get_stats) tess_shim_infer_cache_get_stats;
%tess_expose(tess_infer_cache_clear)
%tess_expose(tess_infer_cache_set_capacity)

/* Eager tensors. (DLPack is Python's alone: python/tessera_python.i wraps it as
 * capsules.) */
%tess_expose(tess_tensor_from_host)
%tess_expose(tess_tensor_from_local)
%tess_expose(tess_tensor_full)
%tess_expose(tess_tensor_arange)
%tess_expose(tess_tensor_rand)
%tess_expose(tess_tensor_randn)
%tess_expose(tess_tensor_num_elements)
%tess_expose(tess_tensor_dtype)
%tess_expose(tess_tensor_placement)
%tess_expose(tess_tensor_nd_sbp)
%tess_expose(tess_tensor_has_local)
%tess_expose(tess_tensor_local_num_elements)
%tess_expose(tess_tensor_string)
%tess_expose(tess_tensor_to_host)
%tess_expose(tess_tensor_copy_local)
%tess_expose(tess_tensor_synchronize)
%tess_expose(tess_tensor_to_global)

/* Autograd (tessera/autograd.h): requires_grad, leaves and their gradients, detach,
 * backward (through a shim: its options struct), the per-thread grad mode. */
%tess_expose(tess_tensor_set_requires_grad)
%tess_expose(tess_tensor_requires_grad)
%tess_expose(tess_tensor_is_leaf)
%tess_expose(tess_tensor_grad)
%tess_expose(tess_tensor_zero_grad)
%tess_expose(tess_tensor_detach)
%rename(autograd_backward) tess_shim_autograd_backward;
%tess_expose(tess_autograd_set_grad_enabled)
%tess_expose(tess_autograd_is_grad_enabled)

/* Ops on eager tensors: tess_op_call_apply, the typed ops (one per registered op) and
 * tess_explanation_last, with their array parameters and Python's GIL release; generated
 * by tools/opgen from the op registry. */
%include "ops_generated.i"

/* Boxing of local buffers. */
%tess_expose(tess_boxing_run)
%tess_expose(tess_boxing_plan_create)
%tess_expose(tess_boxing_plan_string)
%tess_expose(tess_boxing_plan_num_steps)
%tess_expose(tess_boxing_plan_step_string)
%tess_expose(tess_boxing_plan_cost)

/* Collectives on host buffers. */
%tess_expose_constant(TESS_REDUCE_SUM)
%tess_expose_constant(TESS_REDUCE_MAX)
%tess_expose_constant(TESS_REDUCE_MIN)
%tess_expose_constant(TESS_ALLREDUCE_FLAT)
%tess_expose_constant(TESS_ALLREDUCE_AUTO)
%tess_expose_constant(TESS_ALLREDUCE_HIERARCHICAL)
%tess_expose(tess_comm_allreduce)
%rename(bucketed_allreducer_create) tess_shim_bucketed_allreducer_create;
%tess_expose(tess_bucketed_allreducer_run)
%rename(bucketed_allreducer_get_stats) tess_shim_bucketed_allreducer_get_stats;
%tess_expose(tess_comm_set_collective_timeout)
%tess_expose(tess_comm_collective_timeout)

/* Plan mode: programs, capture, compiled plans and their instances. */
%tess_expose(tess_program_create)
%tess_expose(tess_program_add_input)
%tess_expose(tess_program_add_variable)
%tess_expose(tess_program_add_op)
%tess_expose(tess_program_mark_output)
%tess_expose(tess_program_sizes)
%tess_expose(tess_program_string)
%tess_expose(tess_capture_begin)
%tess_expose(tess_capture_active)
%tess_expose(tess_capture_placeholder)
%tess_expose(tess_capture_end)
%tess_expose(tess_capture_abort)
%tess_expose(tess_capture_assign)
%rename(plan_compile) tess_shim_plan_compile;
%tess_expose(tess_plan_string)
%tess_expose(tess_plan_instantiate)
%tess_expose(tess_plan_instance_run)
%tess_expose(tess_plan_instance_push)
%tess_expose(tess_plan_instance_run_pushed)
%tess_expose(tess_plan_instance_close)
%tess_expose(tess_plan_instance_num_outputs)
%tess_expose(tess_plan_instance_output)
%tess_expose(tess_plan_instance_output_local)
%tess_expose(tess_plan_instance_output_local_num_elements)
%tess_expose(tess_plan_instance_output_dtype)
%rename(plan_instance_get_stats) tess_shim_plan_instance_get_stats;
%tess_expose(tess_plan_instance_num_mem_cases)
%tess_expose(tess_plan_instance_mem_case_bytes)
%tess_expose(tess_plan_instance_mem_case_name)
%tess_expose(tess_plan_instance_run_local)

/* Serving: a driver rank takes requests, followers run in lockstep. */
%rename(server_create) tess_shim_server_create;
%tess_expose(tess_server_is_driver)
%rename(server_add_plan) tess_shim_server_add_plan;
%tess_expose(tess_server_num_plans)
%rename(server_get_plan_info) tess_shim_server_get_plan_info;
%tess_expose(tess_server_plan_input_width)
%tess_expose(tess_server_plan_output_width)
%tess_expose(tess_server_plan_input_dtype)
%tess_expose(tess_server_plan_output_dtype)
%tess_expose(tess_server_follow)
%tess_expose(tess_server_stop)
%tess_expose(tess_server_check_health)
%rename(server_get_stats) tess_shim_server_get_stats;
%tess_expose(tess_serve_request_create)
%tess_expose(tess_serve_request_set_input)
%tess_expose(tess_serve_request_rows)
%tess_expose(tess_server_run)
%tess_expose(tess_serve_request_output_bytes)
%tess_expose(tess_serve_request_output)
%rename(serve_request_get_info) tess_shim_serve_request_get_info;

/* Sharded checkpoints: a writer collects named tensors and saves them; load reshards;
 * an index lists what a checkpoint holds. */
%tess_expose(tess_checkpoint_writer_create)
%tess_expose(tess_checkpoint_writer_add)
%tess_expose(tess_checkpoint_writer_save)
%tess_expose(tess_checkpoint_load)
%tess_expose(tess_checkpoint_load_checked)
%tess_expose(tess_checkpoint_index_open)
%tess_expose(tess_checkpoint_index_num_tensors)
%tess_expose(tess_checkpoint_index_name)
%tess_expose(tess_checkpoint_index_placement)
%tess_expose(tess_checkpoint_index_nd_sbp)
%tess_expose(tess_checkpoint_index_shape)
%tess_expose(tess_checkpoint_index_dtype)
%tess_expose(tess_checkpoint_index_num_shards)

/* Optimizers (tessera/optim.h): create and get_stats through shims (their sized structs;
 * create also takes the parameter list as a list of tensors). */
%tess_expose_constant(TESS_OPTIMIZER_SGD)
%tess_expose_constant(TESS_OPTIMIZER_ADAM)
%tess_expose_constant(TESS_OPTIMIZER_ADAMW)
%rename(optimizer_create) tess_shim_optimizer_create;
%tess_expose(tess_optimizer_step)
%tess_expose(tess_optimizer_zero_grad)
%tess_expose(tess_optimizer_set_lr)
%tess_expose(tess_optimizer_capture_step)
%rename(optimizer_get_stats) tess_shim_optimizer_get_stats;

/* Host allocator counters. */
%tess_expose_constant(TESS_ALLOCATOR_HOST)
%tess_expose_constant(TESS_ALLOCATOR_HOST_THREAD)
%rename(allocator_get_stats) tess_shim_allocator_get_stats;

/* Borrowed shapes: each language's section maps (const int64_t** TESS_SHAPE_OUT,
 * size_t* TESS_SHAPE_NDIM) to its own array of the dims, copied while the handle the
 * C API lent them from is alive (inside the wrapper call). */
%tess_expose(tess_tensor_shape)
%tess_expose(tess_tensor_local_shape)
%tess_expose(tess_layout_local_shape)
%tess_expose(tess_infer_result_output_shape)
%tess_expose(tess_plan_instance_output_local_shape)
%apply (const int64_t** TESS_SHAPE_OUT, size_t* TESS_SHAPE_NDIM) {
  (const int64_t** out_dims, size_t* out_ndim)
};

/* Every out-param name the header uses. A new function whose out-param has a new
 * name adds it here. */
%define TESS_OUT_PARAMS(T)
%apply T* TESS_OUT {
  T* out, T* out_rank, T* out_size, T* out_kind, T* out_split_axis, T* out_begin,
  T* out_end, T* out_hits, T* out_misses, T* out_evictions, T* out_capacity, T* out_calls,
  T* out_plans_built, T* out_buckets, T* out_in_place_buckets, T* out_first_output,
  T* out_num_outputs, T* out_values, T* out_ops, T* out_inputs, T* out_outputs,
  T* out_registers, T* out_steps, T* out_boxing_steps, T* out_runs, T* out_allocator_calls,
  T* out_heap_allocations, T* out_block_bytes, T* out_lower_bound, T* out_no_reuse_bytes,
  T* out_built_with_cuda, T* out_device_count, T* out_bytes_in_use, T* out_peak_bytes_in_use,
  T* out_bytes_reserved, T* out_num_allocs, T* out_num_frees, T* out_num_cache_hits,
  T* out_num_system_allocs, T* out_num_system_frees, T* out_num_segments,
  T* out_num_inputs, T* out_capacity_rows, T* out_max_batch_rows, T* out_max_queue_delay_us,
  T* out_max_queued_requests, T* out_batching, T* out_requests, T* out_failed_requests,
  T* out_rows, T* out_queued_requests, T* out_health_checks, T* out_available, T* out_stopped,
  T* out_batch_rows, T* out_batch_requests, T* out_queue_seconds, T* out_run_seconds,
  T* out_heap_allocations_last_batch, T* previous, T* out_num_params, T* out_num_buckets,
  T* out_allreduces_in_backward, T* out_allreduce_seconds, T* out_allreduce_wait_seconds,
  T* out_state_bytes, T* out_cuda_graphs, T* out_cuda_graph_launches, T* out_world_size,
  T* out_world_rank, T* out_host_count, T* out_host_index, T* out_local_rank,
  T* out_local_size, T* out_min_ranks_per_host, T* out_max_ranks_per_host,
  T* out_pretend_ranks_per_host, T* out_cuda_device, T* out_host
};
%enddef
TESS_OUT_PARAMS(int32_t)
TESS_OUT_PARAMS(int64_t)
TESS_OUT_PARAMS(uint64_t)
TESS_OUT_PARAMS(size_t)
TESS_OUT_PARAMS(double)

/* Every (array, length) pair the header uses. */
%apply (const int32_t* TESS_ARRAY, size_t TESS_LEN) { (const int32_t* ranks, size_t num_ranks) };
%apply (const int64_t* TESS_ARRAY, size_t TESS_LEN) {
  (const int64_t* hierarchy, size_t num_axes),
  (const int64_t* shape, size_t ndim),
  (const int64_t* values, size_t num_values),
  (const int64_t* local_shape, size_t ndim),
  (const int64_t* axes, size_t num_axes),
  (const int64_t* counts, size_t num_tensors),
  (const int64_t* value_ids, size_t num_values)
};

/* Lists of tensors: tess_op_call_apply's and tess_plan_instance_run's inputs, tess_capture_end's
 * outputs, the roots and gradients of autograd_backward (its shim's). */
%apply (const tess_tensor* const* inputs, size_t num_inputs) {
  (const tess_tensor* const* tensors, size_t num_tensors),
  (const tess_tensor* const* roots, size_t num_roots),
  (const tess_tensor* const* grads, size_t num_grads),
  (const tess_tensor* const* params, size_t num_params)
};

/* Host buffers and optional shapes of the tensor functions. */
%apply const void* TESS_IN_BUFFER { const void* data, const void* local };
%apply (void* TESS_OUT_BUFFER, size_t TESS_OUT_BYTES) {
  (void* out, size_t out_bytes),
  (void* out_local, size_t out_bytes)
};
%apply const int64_t* TESS_OPT_SHAPE { const int64_t* logical_shape };

/* Host buffers of tess_boxing_run and the collectives. */
%apply (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) {
  (const void* in_local, size_t in_bytes)
};
%apply void* TESS_INOUT_BUFFER { void* buffer };
%apply void* const* TESS_BUFFER_LIST { void* const* buffers };
/* tess_plan_instance_run_local's pieces. */
%apply (const void* const* TESS_IN_BUFFER_LIST, const size_t* TESS_IN_BYTES_LIST,
        size_t TESS_LIST_LEN) {
  (const void* const* locals, const size_t* local_bytes, size_t num_inputs)
};
/* tess_serve_request_set_input's rows. */
%apply (const void* TESS_IN_BUFFER, size_t TESS_IN_BYTES) {
  (const void* rows_data, size_t rows_bytes)
};

/* SWIG does not follow #include: each module header of tessera/tessera.h, in its order. */
%include "tessera/common.h"
%include "tessera/version.h"
%include "tessera/status.h"
%include "tessera/runtime.h"
%include "tessera/placement.h"
%include "tessera/sbp.h"
%include "tessera/layout.h"
%include "tessera/dtype.h"
%include "tessera/infer.h"
%include "tessera/tensor.h"
%include "tessera/ops.h"
%include "tessera/boxing.h"
%include "tessera/comm.h"
%include "tessera/plan.h"
%include "tessera/memory.h"
%include "tessera/serve.h"
%include "tessera/autograd.h"
%include "tessera/checkpoint.h"
%include "tessera/optim.h"

/* Option and stats structs (struct_size first; docs/c-api.md, "ABI") do not cross into
 * the languages: each function taking one is wrapped through a shim below that fills
 * struct_size itself and takes or returns plain scalars, named like the header's
 * out-params, so the scalar typemaps above apply. The shims keep the C function's
 * name in the bindings (tess_shim_plan_compile is `plan_compile`), and each reads
 * tess_last_error_message() inside the same wrapper call, like every function. */
%include "struct_shims.i"

%tess_unignoreall

/* Idiomatic layers that need the wrapped functions above. (Python's is the package
 * python/src/tessera over this module, Java's in java/src/org/tessera, Go's in a
 * separate package: bindings/go/tessera/*.go.) */
#if defined(SWIGPYTHON)
%include "python/tessera_python_dlpack.i"
#endif
