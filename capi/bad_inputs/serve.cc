// Bad inputs: serving (catalogue.h). The fixture's server runs on one rank, which is
// the driver; its plan 0 takes rows of 3 f32 (capacity 2).
#include <cstdint>

#include "capi/bad_inputs/catalogue.h"

namespace tessera::bad_inputs {

std::vector<Case> ServeCases() {
  return {
    CASE("tess_server_create", "out is NULL", kInvalid, "out",
         return tess_server_create(nullptr, nullptr);),
        CASE("tess_server_create", "options.struct_size 4", kInvalid, "struct_size",
             tess_server_options o = TESS_SERVER_OPTIONS_INIT;
             o.struct_size = 4; tess_server* s = nullptr; return tess_server_create(&s, &o);),
        CASE("tess_server_create", "driver_rank 7 in a 1-rank world", kInvalid, "7",
             tess_server_options o = TESS_SERVER_OPTIONS_INIT;
             o.driver_rank = 7; tess_server* s = nullptr; return tess_server_create(&s, &o);),
        CASE("tess_server_create", "follower_timeout_seconds NaN", kInvalid,
             "follower_timeout_seconds", tess_server_options o = TESS_SERVER_OPTIONS_INIT;
             o.follower_timeout_seconds = kNaN; tess_server* s = nullptr;
             return tess_server_create(&s, &o);),
        CASE("tess_server_create", "follower_poll_max_us -1", kInvalid, "-1",
             tess_server_options o = TESS_SERVER_OPTIONS_INIT;
             o.follower_poll_max_us = -1; tess_server* s = nullptr;
             return tess_server_create(&s, &o);),
        CASE("tess_server_create", "reserved 3", kInvalid, "reserved",
             tess_server_options o = TESS_SERVER_OPTIONS_INIT;
             o.reserved = 3; tess_server* s = nullptr; return tess_server_create(&s, &o);),
        CASE("tess_server_is_driver", "server is NULL", kInvalid, "server", int32_t d;
             return tess_server_is_driver(&d, nullptr);),
        CASE("tess_server_add_plan", "plan is NULL", kInvalid, "plan", int32_t id;
             return tess_server_add_plan(&id, f.server, nullptr, nullptr);),
        CASE("tess_server_add_plan", "batching 2", kInvalid, "batching is 2", int32_t id;
             tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT; o.batching = 2;
             return tess_server_add_plan(&id, f.server, f.plan, &o);),
        CASE("tess_server_add_plan", "max_batch_rows 3 for a plan of 2 rows", kInvalid,
             "max_batch_rows is 3", int32_t id;
             tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT; o.max_batch_rows = 3;
             return tess_server_add_plan(&id, f.server, f.plan, &o);),
        CASE("tess_server_add_plan", "max_queue_delay_us 2e7", kInvalid, "20000000", int32_t id;
             tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT;
             o.max_queue_delay_us = 20000000;
             return tess_server_add_plan(&id, f.server, f.plan, &o);),
        CASE("tess_server_add_plan", "max_queued_requests -1", kInvalid, "max_queued_requests",
             int32_t id;
             tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT; o.max_queued_requests = -1;
             return tess_server_add_plan(&id, f.server, f.plan, &o);),
        CASE("tess_server_add_plan", "options.struct_size 1", kInvalid, "struct_size", int32_t id;
             tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT; o.struct_size = 1;
             return tess_server_add_plan(&id, f.server, f.plan, &o);),
        CASE("tess_server_num_plans", "out is NULL", kInvalid, "out",
             return tess_server_num_plans(nullptr, f.server);),
        CASE("tess_server_get_plan_info", "plan id 4 of 1", kOutOfRange, "plan id 4",
             tess_serve_plan_info i = TESS_SERVE_PLAN_INFO_INIT;
             return tess_server_get_plan_info(&i, f.server, 4);),
        CASE("tess_server_get_plan_info", "struct_size 0", kInvalid, "struct_size",
             tess_serve_plan_info i = TESS_SERVE_PLAN_INFO_INIT;
             i.struct_size = 0; return tess_server_get_plan_info(&i, f.server, 0);),
        CASE("tess_server_plan_input_width", "index 1 of 1 input", kOutOfRange, "index 1",
             int64_t w;
             return tess_server_plan_input_width(&w, f.server, 0, 1);),
        CASE("tess_server_plan_output_width", "plan id -1", kOutOfRange, "plan id -1", int64_t w;
             return tess_server_plan_output_width(&w, f.server, -1, 0);),
        CASE("tess_server_plan_input_dtype", "out is NULL", kInvalid, "out",
             return tess_server_plan_input_dtype(nullptr, f.server, 0, 0);),
        CASE("tess_server_plan_output_dtype", "index 9 of 1 output", kOutOfRange, "index 9",
             tess_dtype d;
             return tess_server_plan_output_dtype(&d, f.server, 0, 9);),
        CASE("tess_server_follow", "on the driver", kPrecondition, "is the driver",
             return tess_server_follow(f.server);),
        CASE("tess_server_stop", "server is NULL", kInvalid, "server",
             return tess_server_stop(nullptr);),
        CASE("tess_server_check_health", "timeout 0 s", kInvalid, "timeout_seconds",
             return tess_server_check_health(f.server, 0);),
        CASE("tess_server_check_health", "timeout NaN", kInvalid, "timeout_seconds",
             return tess_server_check_health(f.server, kNaN);),
        CASE("tess_server_get_stats", "struct_size 2", kInvalid, "struct_size",
             tess_server_stats s = TESS_SERVER_STATS_INIT;
             s.struct_size = 2; return tess_server_get_stats(&s, f.server);),
        CASE("tess_serve_request_create", "plan id 3 of 1", kOutOfRange, "plan id 3",
             tess_serve_request* r = nullptr;
             return tess_serve_request_create(&r, f.server, 3);),
        CASE("tess_serve_request_create", "server is NULL", kInvalid, "server",
             tess_serve_request* r = nullptr;
             return tess_serve_request_create(&r, nullptr, 0);),
        CASE("tess_serve_request_set_input", "13 bytes for rows of 12", kInvalid, "13 bytes",
             return tess_serve_request_set_input(f.request, 0, f.data, 13);),
        CASE("tess_serve_request_set_input", "3 rows for at most 2", kInvalid, "3 rows",
             return tess_serve_request_set_input(f.request, 0, f.data, 36);),
        CASE("tess_serve_request_set_input", "rows_data NULL with 12 bytes", kInvalid, "rows_data",
             return tess_serve_request_set_input(f.request, 0, nullptr, 12);),
        CASE("tess_serve_request_set_input", "index 2 of 1 input", kOutOfRange, "index 2",
             return tess_serve_request_set_input(f.request, 2, f.data, 12);),
        CASE("tess_serve_request_rows", "out is NULL", kInvalid, "out",
             return tess_serve_request_rows(nullptr, f.request);),
        CASE("tess_server_run", "input 0 never set", kInvalid, "never set",
             return tess_server_run(f.server, f.request);),
        CASE("tess_server_run", "request is NULL", kInvalid, "request",
             return tess_server_run(f.server, nullptr);),
        CASE("tess_serve_request_output_bytes", "before a run", kPrecondition, "no answer yet",
             size_t n;
             return tess_serve_request_output_bytes(&n, f.request, 0);),
        CASE("tess_serve_request_output", "index 5 of 1 output", kOutOfRange, "index 5",
             float out[6];
             return tess_serve_request_output(out, sizeof(out), f.request, 5);),
        CASE("tess_serve_request_get_info", "before a run", kPrecondition, "no answer yet",
             tess_serve_request_info i = TESS_SERVE_REQUEST_INFO_INIT;
             return tess_serve_request_get_info(&i, f.request);),
  };
}

}  // namespace tessera::bad_inputs
