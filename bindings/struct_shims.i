/* The shims of tessera.i for the option and stats structs (see the comment before its
 * %include of this file): each fills struct_size itself and takes or returns plain
 * scalars named like the header's out-params. Part of tessera.i, included by it. */
%inline %{
static tess_status tess_shim_infer_cache_get_stats(uint64_t* out_hits, uint64_t* out_misses,
                                                   uint64_t* out_evictions, size_t* out_size,
                                                   size_t* out_capacity) {
  tess_infer_cache_stats s = TESS_INFER_CACHE_STATS_INIT;
  tess_status status = tess_infer_cache_get_stats(&s);
  if (status != TESS_OK) return status;
  *out_hits = s.hits;
  *out_misses = s.misses;
  *out_evictions = s.evictions;
  *out_size = (size_t)s.size;
  *out_capacity = (size_t)s.capacity;
  return TESS_OK;
}

static tess_status tess_shim_runtime_init_with_options(double collective_timeout_seconds,
                                                       int32_t cuda_device, int32_t check_mode) {
  tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
  o.collective_timeout_seconds = collective_timeout_seconds;
  o.cuda_device = cuda_device;
  o.check_mode = check_mode;
  return tess_runtime_init_with_options(&o);
}

static tess_status tess_shim_allocator_get_stats(
    uint64_t* out_bytes_in_use, uint64_t* out_peak_bytes_in_use, uint64_t* out_bytes_reserved,
    uint64_t* out_num_allocs, uint64_t* out_num_frees, uint64_t* out_num_cache_hits,
    uint64_t* out_num_system_allocs, uint64_t* out_num_system_frees, uint64_t* out_num_segments,
    int32_t allocator) {
  tess_allocator_stats s = TESS_ALLOCATOR_STATS_INIT;
  tess_status status = tess_allocator_get_stats(&s, allocator);
  if (status != TESS_OK) return status;
  *out_bytes_in_use = s.bytes_in_use;
  *out_peak_bytes_in_use = s.peak_bytes_in_use;
  *out_bytes_reserved = s.bytes_reserved;
  *out_num_allocs = s.num_allocs;
  *out_num_frees = s.num_frees;
  *out_num_cache_hits = s.num_cache_hits;
  *out_num_system_allocs = s.num_system_allocs;
  *out_num_system_frees = s.num_system_frees;
  *out_num_segments = s.num_segments;
  return TESS_OK;
}

static tess_status tess_shim_bucketed_allreducer_create(tess_bucketed_allreducer** out,
                                                        int64_t bucket_bytes) {
  tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
  o.bucket_bytes = bucket_bytes;
  return tess_bucketed_allreducer_create(out, &o);
}

static tess_status tess_shim_runtime_topology(
    int32_t* out_world_size, int32_t* out_world_rank, int32_t* out_host_count,
    int32_t* out_host_index, int32_t* out_local_rank, int32_t* out_local_size,
    int32_t* out_min_ranks_per_host, int32_t* out_max_ranks_per_host,
    int32_t* out_pretend_ranks_per_host, int32_t* out_cuda_device) {
  tess_topology t = TESS_TOPOLOGY_INIT;
  tess_status status = tess_runtime_topology(&t);
  if (status != TESS_OK) return status;
  *out_world_size = t.world_size;
  *out_world_rank = t.world_rank;
  *out_host_count = t.host_count;
  *out_host_index = t.host_index;
  *out_local_rank = t.local_rank;
  *out_local_size = t.local_size;
  *out_min_ranks_per_host = t.min_ranks_per_host;
  *out_max_ranks_per_host = t.max_ranks_per_host;
  *out_pretend_ranks_per_host = t.pretend_ranks_per_host;
  *out_cuda_device = t.cuda_device;
  return TESS_OK;
}

static tess_status tess_shim_bucketed_allreducer_get_stats(
    int64_t* out_calls, int64_t* out_plans_built, int64_t* out_buckets,
    int64_t* out_in_place_buckets, const tess_bucketed_allreducer* reducer) {
  tess_bucketed_allreducer_stats s = TESS_BUCKETED_ALLREDUCER_STATS_INIT;
  tess_status status = tess_bucketed_allreducer_get_stats(&s, reducer);
  if (status != TESS_OK) return status;
  *out_calls = s.calls;
  *out_plans_built = s.plans_built;
  *out_buckets = s.buckets;
  *out_in_place_buckets = s.in_place_buckets;
  return TESS_OK;
}

static tess_status tess_shim_plan_compile(tess_plan** out, const tess_program* program,
                                          int32_t input_register_num) {
  tess_plan_compile_options o = TESS_PLAN_COMPILE_OPTIONS_INIT;
  o.input_register_num = input_register_num;
  return tess_plan_compile(out, program, &o);
}

static tess_status tess_shim_plan_instance_get_stats(
    int64_t* out_registers, int64_t* out_steps, int64_t* out_boxing_steps, int64_t* out_runs,
    int64_t* out_allocator_calls, int64_t* out_heap_allocations, int64_t* out_cuda_graphs,
    int64_t* out_cuda_graph_launches, const tess_plan_instance* instance) {
  tess_plan_stats s = TESS_PLAN_STATS_INIT;
  tess_status status = tess_plan_instance_get_stats(&s, instance);
  if (status != TESS_OK) return status;
  *out_registers = s.registers;
  *out_steps = s.steps;
  *out_boxing_steps = s.boxing_steps;
  *out_runs = s.runs;
  *out_allocator_calls = s.allocator_calls_last_run;
  *out_heap_allocations = s.heap_allocations_last_run;
  *out_cuda_graphs = s.cuda_graphs;
  *out_cuda_graph_launches = s.cuda_graph_launches;
  return TESS_OK;
}

static tess_status tess_shim_server_create(tess_server** out, int32_t driver_rank,
                                           double follower_timeout_seconds,
                                           int64_t follower_poll_max_us) {
  tess_server_options o = TESS_SERVER_OPTIONS_INIT;
  o.driver_rank = driver_rank;
  o.follower_timeout_seconds = follower_timeout_seconds;
  o.follower_poll_max_us = follower_poll_max_us;
  return tess_server_create(out, &o);
}

static tess_status tess_shim_server_add_plan(int32_t* out, tess_server* server,
                                             const tess_plan* plan, int32_t batching,
                                             int64_t max_batch_rows, int64_t max_queue_delay_us,
                                             int64_t max_queued_requests) {
  tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT;
  o.batching = batching;
  o.max_batch_rows = max_batch_rows;
  o.max_queue_delay_us = max_queue_delay_us;
  o.max_queued_requests = max_queued_requests;
  return tess_server_add_plan(out, server, plan, &o);
}

static tess_status tess_shim_server_get_plan_info(
    int64_t* out_num_inputs, int64_t* out_num_outputs, int64_t* out_capacity_rows,
    int64_t* out_max_batch_rows, int64_t* out_max_queue_delay_us,
    int64_t* out_max_queued_requests, int32_t* out_batching, const tess_server* server,
    int32_t plan_id) {
  tess_serve_plan_info s = TESS_SERVE_PLAN_INFO_INIT;
  tess_status status = tess_server_get_plan_info(&s, server, plan_id);
  if (status != TESS_OK) return status;
  *out_num_inputs = s.num_inputs;
  *out_num_outputs = s.num_outputs;
  *out_capacity_rows = s.capacity_rows;
  *out_max_batch_rows = s.max_batch_rows;
  *out_max_queue_delay_us = s.max_queue_delay_us;
  *out_max_queued_requests = s.max_queued_requests;
  *out_batching = s.batching;
  return TESS_OK;
}

static tess_status tess_shim_server_get_stats(
    int64_t* out_requests, int64_t* out_failed_requests, int64_t* out_runs, int64_t* out_rows,
    int64_t* out_queued_requests, int64_t* out_health_checks, int32_t* out_available,
    int32_t* out_stopped, int64_t* out_heap_allocations_last_batch, const tess_server* server) {
  tess_server_stats s = TESS_SERVER_STATS_INIT;
  tess_status status = tess_server_get_stats(&s, server);
  if (status != TESS_OK) return status;
  *out_requests = s.requests;
  *out_failed_requests = s.failed_requests;
  *out_runs = s.runs;
  *out_rows = s.rows;
  *out_queued_requests = s.queued_requests;
  *out_health_checks = s.health_checks;
  *out_available = s.available;
  *out_stopped = s.stopped;
  *out_heap_allocations_last_batch = s.heap_allocations_last_batch;
  return TESS_OK;
}

static tess_status tess_shim_serve_request_get_info(int64_t* out_batch_rows,
                                                    int64_t* out_batch_requests,
                                                    double* out_queue_seconds,
                                                    double* out_run_seconds,
                                                    const tess_serve_request* request) {
  tess_serve_request_info s = TESS_SERVE_REQUEST_INFO_INIT;
  tess_status status = tess_serve_request_get_info(&s, request);
  if (status != TESS_OK) return status;
  *out_batch_rows = s.batch_rows;
  *out_batch_requests = s.batch_requests;
  *out_queue_seconds = s.queue_seconds;
  *out_run_seconds = s.run_seconds;
  return TESS_OK;
}

/* tess_autograd_backward with its options as a flag. `grads` may be empty (each root's
 * gradient is then ones) or hold one entry per root (a NULL entry: ones). Lists of
 * different lengths are both padded with NULL to the longer one, so the C API refuses
 * the NULL root by its index rather than this shim guessing. */
static tess_status tess_shim_autograd_backward(const tess_tensor* const* roots, size_t num_roots,
                                               const tess_tensor* const* grads, size_t num_grads,
                                               int32_t retain_graph) {
  tess_backward_options o = TESS_BACKWARD_OPTIONS_INIT;
  o.retain_graph = retain_graph;
  if (num_grads == 0 || num_grads == num_roots) {
    return tess_autograd_backward(roots, num_roots, num_grads == 0 ? NULL : grads, &o);
  }
  size_t n = num_roots > num_grads ? num_roots : num_grads;
  const tess_tensor** padded = (const tess_tensor**)calloc(2 * n, sizeof(const tess_tensor*));
  if (padded == NULL) return TESS_RESOURCE_EXHAUSTED;
  memcpy(padded, roots, num_roots * sizeof(const tess_tensor*));
  memcpy(padded + n, grads, num_grads * sizeof(const tess_tensor*));
  tess_status status = tess_autograd_backward(padded, n, padded + n, &o);
  free(padded);
  return status;
}
%}

/* tess_optimizer_create with its options as scalars. The bindings' tensor lists are
 * const; the C API rebinds the parameters' data in fused mode (the handles are the
 * caller's, so casting the constness away is what the C caller does too). */
%inline %{
static tess_status tess_shim_optimizer_create(tess_optimizer** out,
                                              const tess_tensor* const* params, size_t num_params,
                                              int32_t algorithm, double lr, double weight_decay,
                                              double momentum, double dampening, int32_t nesterov,
                                              double beta1, double beta2, double eps,
                                              int32_t fused, int64_t bucket_bytes, int32_t zero1) {
  tess_optimizer_options o = TESS_OPTIMIZER_OPTIONS_INIT;
  o.algorithm = algorithm;
  o.lr = lr;
  o.weight_decay = weight_decay;
  o.momentum = momentum;
  o.dampening = dampening;
  o.nesterov = nesterov;
  o.beta1 = beta1;
  o.beta2 = beta2;
  o.eps = eps;
  o.fused = fused;
  o.bucket_bytes = bucket_bytes;
  o.zero1 = zero1;
  return tess_optimizer_create(out, (tess_tensor* const*)params, num_params, &o);
}

static tess_status tess_shim_optimizer_get_stats(
    int64_t* out_steps, int64_t* out_num_params, int64_t* out_num_buckets,
    int64_t* out_allreduces_in_backward, double* out_allreduce_seconds,
    double* out_allreduce_wait_seconds, int64_t* out_state_bytes,
    const tess_optimizer* optimizer) {
  tess_optimizer_stats s = TESS_OPTIMIZER_STATS_INIT;
  tess_status status = tess_optimizer_get_stats(&s, optimizer);
  if (status != TESS_OK) return status;
  *out_steps = s.steps;
  *out_num_params = s.num_params;
  *out_num_buckets = s.num_buckets;
  *out_allreduces_in_backward = s.allreduces_in_backward;
  *out_allreduce_seconds = s.allreduce_seconds;
  *out_allreduce_wait_seconds = s.allreduce_wait_seconds;
  *out_state_bytes = s.state_bytes;
  return TESS_OK;
}
%}
