// Bad inputs: collectives, boxing, programs, plans, runtime and memory (catalogue.h).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {

std::vector<Case> RunCases() {
  return {
    // ---- collectives
    CASE("tess_comm_allreduce", "buffer NULL with count 4", kInvalid, "buffer",
         return tess_comm_allreduce(nullptr, 4, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p,
                                    TESS_ALLREDUCE_AUTO);),
        CASE("tess_comm_allreduce", "count -1", kInvalid, "-1",
             return tess_comm_allreduce(f.data, -1, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p,
                                        TESS_ALLREDUCE_AUTO);),
        CASE("tess_comm_allreduce", "dtype 42", kInvalid, "42",
             return tess_comm_allreduce(f.data, 4, 42, TESS_REDUCE_SUM, f.p, TESS_ALLREDUCE_AUTO);),
        CASE("tess_comm_allreduce", "reduce op 99", kInvalid, "99",
             return tess_comm_allreduce(f.data, 4, TESS_DTYPE_F32, 99, f.p, TESS_ALLREDUCE_AUTO);),
        CASE("tess_comm_allreduce", "algorithm 77", kInvalid, "77",
             return tess_comm_allreduce(f.data, 4, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p, 77);),
        CASE("tess_comm_allreduce", "placement cpu:[3] (rank 3 of a 1-rank world)", kOutOfRange,
             "rank 3", tess_placement* q = nullptr;
             tess_status st = tess_placement_parse(&q, "cpu:[3]"); if (st != TESS_OK) return st;
             st = tess_comm_allreduce(f.data, 4, TESS_DTYPE_F32, TESS_REDUCE_SUM, q,
                                      TESS_ALLREDUCE_AUTO);
             tess_placement_destroy(q); return st;),
        CASE("tess_comm_set_collective_timeout", "NaN seconds", kInvalid, "nan",
             return tess_comm_set_collective_timeout(kNaN);),
        CASE("tess_comm_set_collective_timeout", "-1 seconds", kInvalid, "-1",
             return tess_comm_set_collective_timeout(-1.0);),
        CASE("tess_comm_set_collective_timeout", "1e10 seconds (above the 1e6 limit)", kInvalid,
             "1e+10", return tess_comm_set_collective_timeout(1e10);),
        CASE("tess_comm_set_collective_timeout", "+inf seconds", kInvalid, "inf",
             return tess_comm_set_collective_timeout(kInf);),
        CASE("tess_comm_collective_timeout", "out is NULL", kInvalid, "out",
             return tess_comm_collective_timeout(nullptr);),
        CASE("tess_bucketed_allreducer_create", "out is NULL", kInvalid, "out",
             return tess_bucketed_allreducer_create(nullptr, nullptr);),
        CASE("tess_bucketed_allreducer_create", "options.struct_size 0", kInvalid, "struct_size",
             tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
             o.struct_size = 0; tess_bucketed_allreducer* r = nullptr;
             return tess_bucketed_allreducer_create(&r, &o);),
        CASE("tess_bucketed_allreducer_create", "bucket_bytes -5", kInvalid, "-5",
             tess_bucketed_allreducer_options o = TESS_BUCKETED_ALLREDUCER_OPTIONS_INIT;
             o.bucket_bytes = -5; tess_bucketed_allreducer* r = nullptr;
             return tess_bucketed_allreducer_create(&r, &o);),
        CASE("tess_bucketed_allreducer_run", "reducer is NULL", kInvalid, "reducer",
             void* bufs[] = {f.data};
             const int64_t counts[] = {4}; return tess_bucketed_allreducer_run(
                 nullptr, bufs, counts, 1, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p);),
        CASE("tess_bucketed_allreducer_run", "counts NULL with 1 tensor", kInvalid, "counts",
             void* bufs[] = {f.data};
             return tess_bucketed_allreducer_run(f.reducer, bufs, nullptr, 1, TESS_DTYPE_F32,
                                                 TESS_REDUCE_SUM, f.p);),
        CASE("tess_bucketed_allreducer_run", "count -4", kInvalid, "-4", void* bufs[] = {f.data};
             const int64_t counts[] = {-4}; return tess_bucketed_allreducer_run(
                 f.reducer, bufs, counts, 1, TESS_DTYPE_F32, TESS_REDUCE_SUM, f.p);),
        CASE("tess_bucketed_allreducer_run", "counts 2^63-1 and 2 (past MPI's int counts)",
             kOutOfRange, "9223372036854775807", void* bufs[] = {f.data, f.data};
             const int64_t counts[] = {std::numeric_limits<int64_t>::max(), 2};
             return tess_bucketed_allreducer_run(f.reducer, bufs, counts, 2, TESS_DTYPE_F32,
                                                 TESS_REDUCE_SUM, f.p);),
        CASE("tess_bucketed_allreducer_get_stats", "struct_size 0", kInvalid, "struct_size",
             tess_bucketed_allreducer_stats s = TESS_BUCKETED_ALLREDUCER_STATS_INIT;
             s.struct_size = 0; return tess_bucketed_allreducer_get_stats(&s, f.reducer);),

        // ---- boxing
        CASE("tess_boxing_run", "in_local NULL with 24 bytes", kInvalid, "in_local", float out[6];
             return tess_boxing_run(out, sizeof(out), nullptr, 24, kShape23, 2, TESS_DTYPE_F32, f.p,
                                    f.b, f.p, f.s0);),
        CASE("tess_boxing_run", "out_bytes 8 for 24", kInvalid, "8", float out[6];
             return tess_boxing_run(out, 8, f.data, 24, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, f.p,
                                    f.s0);),
        CASE("tess_boxing_run", "in_bytes 20 for 24", kInvalid, "20", float out[6];
             return tess_boxing_run(out, sizeof(out), f.data, 20, kShape23, 2, TESS_DTYPE_F32, f.p,
                                    f.b, f.p, f.s0);),
        CASE("tess_boxing_run", "shape [2^62+1,4]", kInvalid, "overflows", float out[6];
             return tess_boxing_run(out, sizeof(out), f.data, 24, kOverflowing, 2, TESS_DTYPE_F32,
                                    f.p, f.b, f.p, f.s0);),
        CASE("tess_boxing_run", "dst nd_sbp NULL", kInvalid, "dst", float out[6];
             return tess_boxing_run(out, sizeof(out), f.data, 24, kShape23, 2, TESS_DTYPE_F32, f.p,
                                    f.b, f.p, nullptr);),
        CASE("tess_boxing_run", "src 2-axis nd-sbp on a 1-axis placement", kInvalid, "(B, B)",
             float out[6];
             return tess_boxing_run(out, sizeof(out), f.data, 24, kShape23, 2, TESS_DTYPE_F32, f.p,
                                    f.bb, f.p, f.s0);),
        CASE("tess_boxing_plan_create", "out is NULL", kInvalid, "out",
             return tess_boxing_plan_create(nullptr, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, f.p,
                                            f.s0);),
        CASE("tess_boxing_plan_create", "shape [2^62+1,4]", kInvalid, "overflows",
             tess_boxing_plan* o = nullptr;
             return tess_boxing_plan_create(&o, kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b, f.p,
                                            f.s0);),
        CASE("tess_boxing_plan_create", "dst S(2) of a 2-d shape", kInvalid, "S(2)",
             tess_boxing_plan* o = nullptr;
             return tess_boxing_plan_create(&o, kShape23, 2, TESS_DTYPE_F32, f.p, f.b, f.p, f.s2);),
        CASE("tess_boxing_plan_num_steps", "plan is NULL", kInvalid, "plan", size_t n;
             return tess_boxing_plan_num_steps(&n, nullptr);),
        CASE("tess_boxing_plan_cost", "out is NULL", kInvalid, "out",
             return tess_boxing_plan_cost(nullptr, f.boxing);),

        // ---- programs and capture
        CASE("tess_program_create", "out is NULL", kInvalid, "out",
             return tess_program_create(nullptr);),
        CASE("tess_program_add_input", "program is NULL", kInvalid, "program", int64_t id;
             return tess_program_add_input(&id, nullptr, "a", kShape23, 2, TESS_DTYPE_F32, f.p,
                                           f.b);),
        CASE("tess_program_add_input", "name is NULL", kInvalid, "name", int64_t id;
             return tess_program_add_input(&id, f.program, nullptr, kShape23, 2, TESS_DTYPE_F32,
                                           f.p, f.b);),
        CASE("tess_program_add_input", "name \"a\" already taken", kInvalid, "a", int64_t id;
             return tess_program_add_input(&id, f.program, "a", kShape23, 2, TESS_DTYPE_F32, f.p,
                                           f.b);),
        CASE("tess_program_add_input", "shape [2^62+1,4]", kInvalid, "overflows", int64_t id;
             return tess_program_add_input(&id, f.program, "huge", kOverflowing, 2, TESS_DTYPE_F32,
                                           f.p, f.b);),
        CASE("tess_program_add_variable", "value is NULL", kInvalid, "value", int64_t id;
             return tess_program_add_variable(&id, f.program, "w", nullptr);),
        CASE("tess_program_add_op", "value id 99 not in the program", kInvalid, "99", int64_t first;
             size_t n; const int64_t ids[] = {99};
             return tess_program_add_op(&first, &n, f.program, f.bare_relu, ids, 1);),
        CASE("tess_program_add_op", "2 values for relu's 1 input", kInvalid, "2", int64_t first;
             size_t n; const int64_t ids[] = {f.program_input, f.program_input};
             return tess_program_add_op(&first, &n, f.program, f.bare_relu, ids, 2);),
        CASE("tess_program_add_op", "value ids NULL with 1 value", kInvalid, "value_ids",
             int64_t first;
             size_t n; return tess_program_add_op(&first, &n, f.program, f.bare_relu, nullptr, 1);),
        CASE("tess_program_add_op", "a call holding input metas", kInvalid, "input metas",
             int64_t first;
             size_t n; const int64_t ids[] = {f.program_input};
             return tess_program_add_op(&first, &n, f.program, f.relu, ids, 1);),
        CASE("tess_program_mark_output", "value id -4", kInvalid, "-4",
             return tess_program_mark_output(f.program, -4);),
        CASE("tess_program_sizes", "program is NULL", kInvalid, "program", int64_t a, b, c, d;
             return tess_program_sizes(&a, &b, &c, &d, nullptr);),
        CASE("tess_capture_end", "no capture active", kPrecondition, "capture",
             tess_program* o = nullptr;
             return tess_capture_end(&o, nullptr, 0);),
        CASE("tess_capture_placeholder", "no capture active", kPrecondition, "capture",
             tess_tensor* o = nullptr;
             return tess_capture_placeholder(&o, "a", kShape23, 2, TESS_DTYPE_F32, f.p, f.b);),
        CASE("tess_capture_begin", "a capture already active", kPrecondition, "capture",
             tess_status st = tess_capture_begin();
             if (st != TESS_OK) return st; st = tess_capture_begin(); tess_capture_abort();
             return st;),
        CASE("tess_capture_placeholder", "shape [2^62+1,4]", kInvalid, "overflows",
             tess_status st = tess_capture_begin();
             if (st != TESS_OK) return st; tess_tensor* o = nullptr;
             st = tess_capture_placeholder(&o, "a", kOverflowing, 2, TESS_DTYPE_F32, f.p, f.b);
             tess_capture_abort(); return st;),
        CASE("tess_capture_active", "out is NULL", kInvalid, "out",
             return tess_capture_active(nullptr);),
        CASE("tess_capture_assign", "no capture active", kPrecondition, "capture",
             return tess_capture_assign(f.x, f.x);),
        CASE("tess_capture_assign", "value is NULL", kInvalid, "value",
             tess_status st = tess_capture_begin();
             if (st != TESS_OK) return st; st = tess_capture_assign(f.x, nullptr);
             tess_capture_abort(); return st;),
        CASE("tess_capture_assign", "value is a real tensor", kInvalid, "real tensor",
             tess_status st = tess_capture_begin();
             if (st != TESS_OK) return st; st = tess_capture_assign(f.x, f.y); tess_capture_abort();
             return st;),
        CASE("tess_optimizer_capture_step", "optimizer is NULL", kInvalid, "optimizer",
             return tess_optimizer_capture_step(nullptr);),

        // ---- plans
        CASE("tess_plan_compile", "program is NULL", kInvalid, "program", tess_plan* o = nullptr;
             return tess_plan_compile(&o, nullptr, nullptr);),
        CASE("tess_plan_compile", "a program without outputs", kInvalid, "output",
             tess_program* prog = nullptr;
             tess_status st = tess_program_create(&prog); if (st != TESS_OK) return st;
             tess_plan* o = nullptr; st = tess_plan_compile(&o, prog, nullptr);
             tess_program_destroy(prog); tess_plan_destroy(o); return st;),
        CASE("tess_plan_compile", "options.struct_size 3", kInvalid, "struct_size",
             tess_plan_compile_options o = TESS_PLAN_COMPILE_OPTIONS_INIT;
             o.struct_size = 3; tess_plan* p = nullptr;
             return tess_plan_compile(&p, f.program, &o);),
        CASE("tess_plan_compile", "input_register_num 9", kInvalid, "9",
             tess_plan_compile_options o = TESS_PLAN_COMPILE_OPTIONS_INIT;
             o.input_register_num = 9; tess_plan* p = nullptr;
             return tess_plan_compile(&p, f.program, &o);),
        CASE("tess_plan_compile", "input_register_num -1", kInvalid, "-1",
             tess_plan_compile_options o = TESS_PLAN_COMPILE_OPTIONS_INIT;
             o.input_register_num = -1; tess_plan* p = nullptr;
             return tess_plan_compile(&p, f.program, &o);),
        CASE("tess_plan_instantiate", "plan is NULL", kInvalid, "plan",
             tess_plan_instance* o = nullptr;
             return tess_plan_instantiate(&o, nullptr);),
        CASE("tess_plan_instance_run", "0 inputs for 1", kInvalid, "0",
             return tess_plan_instance_run(f.instance, nullptr, 0);),
        CASE("tess_plan_instance_run", "input of shape [3,2] for [2,3]", kInvalid, "[3,2]",
             const tess_tensor* in[] = {f.y};
             return tess_plan_instance_run(f.instance, in, 1);),
        CASE("tess_plan_instance_run", "input of dtype i32 for f32", kInvalid, "i32",
             const tess_tensor* in[] = {f.xi};
             return tess_plan_instance_run(f.instance, in, 1);),
        CASE("tess_plan_instance_run", "a NULL input", kInvalid, "input",
             const tess_tensor* in[] = {nullptr};
             return tess_plan_instance_run(f.instance, in, 1);),
        CASE("tess_plan_instance_run", "instance is NULL", kInvalid, "instance",
             const tess_tensor* in[] = {f.x};
             return tess_plan_instance_run(nullptr, in, 1);),
        CASE("tess_plan_instance_push", "timeout NaN", kInvalid, "NaN",
             const tess_tensor* in[] = {f.x};
             return tess_plan_instance_push(f.instance, in, 1, kNaN);),
        CASE("tess_plan_instance_push", "timeout 1e10 s", kInvalid, "1e+10",
             const tess_tensor* in[] = {f.x};
             return tess_plan_instance_push(f.instance, in, 1, 1e10);),
        CASE("tess_plan_instance_run_pushed", "timeout NaN", kInvalid, "NaN",
             return tess_plan_instance_run_pushed(f.instance, kNaN);),
        CASE("tess_plan_instance_run_pushed", "nothing pushed, timeout 0.01 s",
             TESS_DEADLINE_EXCEEDED, "0.01",
             return tess_plan_instance_run_pushed(f.instance, 0.01);),
        CASE("tess_plan_instance_run_local", "local_bytes 4 for 24", kInvalid, "4",
             const void* locals[] = {f.data};
             const size_t bytes[] = {4};
             return tess_plan_instance_run_local(f.instance, locals, bytes, 1);),
        CASE("tess_plan_instance_run_local", "a NULL local", kInvalid, "local",
             const void* locals[] = {nullptr};
             const size_t bytes[] = {24};
             return tess_plan_instance_run_local(f.instance, locals, bytes, 1);),
        CASE("tess_plan_instance_output", "index 3 of 1", kOutOfRange, "3",
             tess_tensor* o = nullptr;
             return tess_plan_instance_output(&o, f.instance, 3);),
        CASE("tess_plan_instance_output_local", "an instance that has not run", kPrecondition,
             "not run yet", float out[6];
             return tess_plan_instance_output_local(out, 2, f.instance, 0);),
        CASE("tess_plan_instance_output_local_shape", "index 8 of 1", kOutOfRange, "8",
             const int64_t* d;
             size_t n; return tess_plan_instance_output_local_shape(&d, &n, f.instance, 8);),
        CASE("tess_plan_instance_output_dtype", "out is NULL", kInvalid, "out",
             return tess_plan_instance_output_dtype(nullptr, f.instance, 0);),
        CASE("tess_plan_instance_get_stats", "struct_size 1", kInvalid, "struct_size",
             tess_plan_stats s = TESS_PLAN_STATS_INIT;
             s.struct_size = 1; return tess_plan_instance_get_stats(&s, f.instance);),
        CASE("tess_plan_instance_mem_case_bytes", "index 99", kOutOfRange, "99", int64_t a, b, c;
             return tess_plan_instance_mem_case_bytes(&a, &b, &c, f.instance, 99);),
        CASE("tess_plan_instance_num_mem_cases", "instance is NULL", kInvalid, "instance", size_t n;
             return tess_plan_instance_num_mem_cases(&n, nullptr);),

        // ---- runtime and memory
        CASE("tess_runtime_init_with_options", "struct_size 3", kInvalid, "struct_size",
             tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
             o.struct_size = 3; return tess_runtime_init_with_options(&o);),
        CASE("tess_runtime_init_with_options", "collective timeout NaN", kInvalid, "nan",
             tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
             o.collective_timeout_seconds = kNaN; return tess_runtime_init_with_options(&o);),
        CASE("tess_runtime_init_with_options", "collective timeout 1e10", kInvalid, "1e+10",
             tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
             o.collective_timeout_seconds = 1e10; return tess_runtime_init_with_options(&o);),
        CASE("tess_runtime_init_with_options", "MPI thread level 7", kInvalid, "7",
             tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
             o.mpi_thread_level = 7; return tess_runtime_init_with_options(&o);),
        CASE("tess_runtime_init_with_options", "MPI thread level SINGLE", kInvalid, "0",
             tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
             o.mpi_thread_level = TESS_MPI_THREAD_SINGLE;
             return tess_runtime_init_with_options(&o);),
        CASE("tess_runtime_init_with_options", "cuda_device -7", kInvalid, "-7",
             tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
             o.cuda_device = -7; return tess_runtime_init_with_options(&o);),
        CASE("tess_runtime_init_with_options", "check_mode 5", kInvalid, "5",
             tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
             o.check_mode = 5; return tess_runtime_init_with_options(&o);),
        CASE("tess_runtime_init_with_options", "reserved 1", kInvalid, "reserved",
             tess_runtime_init_options o = TESS_RUNTIME_INIT_OPTIONS_INIT;
             o.reserved = 1; return tess_runtime_init_with_options(&o);),
        CASE("tess_runtime_world_rank", "out_rank is NULL", kInvalid, "out_rank",
             return tess_runtime_world_rank(nullptr);),
        CASE("tess_runtime_world_size", "out_size is NULL", kInvalid, "out_size",
             return tess_runtime_world_size(nullptr);),
        CASE("tess_runtime_topology", "out is NULL", kInvalid, "out",
             return tess_runtime_topology(nullptr);),
        CASE("tess_runtime_topology", "struct_size 4", kInvalid, "struct_size",
             tess_topology t = TESS_TOPOLOGY_INIT;
             t.struct_size = 4; return tess_runtime_topology(&t);),
        CASE("tess_runtime_rank_host", "out_host is NULL", kInvalid, "out_host", int32_t l;
             return tess_runtime_rank_host(nullptr, &l, 0);),
        CASE("tess_runtime_rank_host", "out_local_rank is NULL", kInvalid, "out_local_rank",
             int32_t h;
             return tess_runtime_rank_host(&h, nullptr, 0);),
        CASE("tess_runtime_rank_host", "world_rank -1", kOutOfRange, "-1", int32_t h; int32_t l;
             return tess_runtime_rank_host(&h, &l, -1);),
        CASE("tess_runtime_rank_host", "world_rank past the world", kOutOfRange, "world of 1",
             int32_t h;
             int32_t l; return tess_runtime_rank_host(&h, &l, 1);),
        CASE("tess_runtime_cuda_info", "out_device_count is NULL", kInvalid, "out_device_count",
             int32_t b;
             return tess_runtime_cuda_info(&b, nullptr);),
        CASE("tess_allocator_get_stats", "allocator 99", kInvalid, "99",
             tess_allocator_stats s = TESS_ALLOCATOR_STATS_INIT;
             return tess_allocator_get_stats(&s, 99);),
        CASE("tess_allocator_get_stats", "out is NULL", kInvalid, "out",
             return tess_allocator_get_stats(nullptr, TESS_ALLOCATOR_HOST);),
        CASE("tess_allocator_get_stats", "struct_size 2", kInvalid, "struct_size",
             tess_allocator_stats s = TESS_ALLOCATOR_STATS_INIT;
             s.struct_size = 2; return tess_allocator_get_stats(&s, TESS_ALLOCATOR_HOST);),
  };
}

}  // namespace tessera::bad_inputs
