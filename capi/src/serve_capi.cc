// The serving C API (tessera/serve.h) over core/serve.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "capi/src/capi_error.h"
#include "capi/src/plan_handle.h"
#include "capi/src/struct_args.h"
#include "core/serve/server.h"
#include "tessera/tessera.h"

using tessera::InvalidArgument;
using tessera::Result;
using tessera::Status;
using tessera::capi::ReadOptions;
using tessera::capi::Report;
using tessera::capi::WriteStats;
using tessera::serve::Request;
using tessera::serve::ServedPlan;
using tessera::serve::ServedTensor;
using tessera::serve::Server;

struct tess_server {
  std::unique_ptr<Server> value;
};

struct tess_serve_request {
  std::unique_ptr<Request> value;
};

namespace {

Status CheckReserved(const char* function, const char* argument, int32_t reserved) {
  if (reserved == 0) return Status::Ok();
  return InvalidArgument(std::string(function) + ": " + argument + "->reserved is " +
                         std::to_string(reserved) + "; it must be 0");
}

// Input or output `index` of plan `plan_id`.
Result<const ServedTensor*> Io(const char* function, const tess_server* server, int32_t plan_id,
                               size_t index, bool output) {
  TESS_ASSIGN_OR_RETURN(const ServedPlan* plan, server->value->plan(function, plan_id));
  const std::vector<ServedTensor>& list = output ? plan->outputs() : plan->inputs();
  if (index >= list.size()) {
    return tessera::OutOfRange(std::string(function) + ": index " + std::to_string(index) +
                               " is out of range; plan " + std::to_string(plan_id) + " has " +
                               std::to_string(list.size()) + (output ? " output(s)" : " input(s)"));
  }
  return &list[index];
}

}  // namespace

extern "C" {

tess_status tess_server_create(tess_server** out, const tess_server_options* options) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  *out = nullptr;
  tess_server_options o = TESS_SERVER_OPTIONS_INIT;
  Status s = ReadOptions(__func__, "options", "tess_server_options", options,
                         TESS_STRUCT_SIZE_UP_TO(tess_server_options, follower_poll_max_us), &o);
  if (s.ok()) s = CheckReserved(__func__, "options", o.reserved);
  if (!s.ok()) return Report(s);
  tessera::serve::ServerOptions so;
  so.driver_rank = o.driver_rank;
  so.follower_timeout_seconds = o.follower_timeout_seconds;
  so.follower_poll_max_us = o.follower_poll_max_us;
  Result<std::unique_ptr<Server>> server = Server::Create(so);
  if (!server.ok()) return Report(server.status());
  *out = new tess_server{std::move(*server)};
  return TESS_OK;
  TESS_CAPI_END
}

void tess_server_destroy(tess_server* server) {
  try {
    delete server;
  } catch (...) {
  }
}

tess_status tess_server_is_driver(int32_t* out, const tess_server* server) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(server);
  *out = server->value->is_driver() ? 1 : 0;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_server_add_plan(int32_t* out, tess_server* server, const tess_plan* plan,
                                 const tess_serve_plan_options* options) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(server);
  TESS_CAPI_REQUIRE(plan);
  tess_serve_plan_options o = TESS_SERVE_PLAN_OPTIONS_INIT;
  Status s = ReadOptions(__func__, "options", "tess_serve_plan_options", options,
                         TESS_STRUCT_SIZE_UP_TO(tess_serve_plan_options, max_queued_requests), &o);
  if (s.ok()) s = CheckReserved(__func__, "options", o.reserved);
  if (s.ok() && o.batching != 0 && o.batching != 1) {
    s = InvalidArgument(std::string(__func__) + ": options->batching is " +
                        std::to_string(o.batching) + "; it must be 0 (off) or 1 (on)");
  }
  if (!s.ok()) return Report(s);
  tessera::serve::ServePlanOptions so;
  so.batching = o.batching == 1;
  so.max_batch_rows = o.max_batch_rows;
  so.max_queue_delay_us = o.max_queue_delay_us;
  so.max_queued_requests = o.max_queued_requests;
  Result<int32_t> id = server->value->AddPlan(plan->value, so);
  if (!id.ok()) return Report(id.status());
  *out = *id;
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_server_num_plans(int32_t* out, const tess_server* server) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(server);
  *out = server->value->num_plans();
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_server_get_plan_info(tess_serve_plan_info* out, const tess_server* server,
                                      int32_t plan_id) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(server);
  Result<const ServedPlan*> plan = server->value->plan(__func__, plan_id);
  if (!plan.ok()) return Report(plan.status());
  const tessera::serve::ServePlanOptions& o = (*plan)->options();
  tess_serve_plan_info full = TESS_SERVE_PLAN_INFO_INIT;
  full.num_inputs = static_cast<int64_t>((*plan)->inputs().size());
  full.num_outputs = static_cast<int64_t>((*plan)->outputs().size());
  full.capacity_rows = (*plan)->capacity();
  full.max_batch_rows = o.max_batch_rows;
  full.max_queue_delay_us = o.max_queue_delay_us;
  full.max_queued_requests = o.max_queued_requests;
  full.batching = o.batching ? 1 : 0;
  return Report(WriteStats(__func__, "out", "tess_serve_plan_info", full,
                           TESS_STRUCT_SIZE_UP_TO(tess_serve_plan_info, reserved), out));
  TESS_CAPI_END
}

#define TESS_SERVE_IO_GETTER(NAME, TYPE, OUTPUT, EXPR)                                    \
  tess_status NAME(TYPE* out, const tess_server* server, int32_t plan_id, size_t index) { \
    TESS_CAPI_BEGIN                                                                       \
    TESS_CAPI_REQUIRE(out);                                                               \
    TESS_CAPI_REQUIRE(server);                                                            \
    Result<const ServedTensor*> t = Io(__func__, server, plan_id, index, OUTPUT);         \
    if (!t.ok()) return Report(t.status());                                               \
    *out = EXPR;                                                                          \
    return TESS_OK;                                                                       \
    TESS_CAPI_END                                                                         \
  }

TESS_SERVE_IO_GETTER(tess_server_plan_input_width, int64_t, false, (*t)->width)
TESS_SERVE_IO_GETTER(tess_server_plan_output_width, int64_t, true, (*t)->width)
TESS_SERVE_IO_GETTER(tess_server_plan_input_dtype, tess_dtype, false,
                     static_cast<tess_dtype>((*t)->dtype))
TESS_SERVE_IO_GETTER(tess_server_plan_output_dtype, tess_dtype, true,
                     static_cast<tess_dtype>((*t)->dtype))

tess_status tess_server_follow(tess_server* server) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(server);
  return Report(server->value->Follow());
  TESS_CAPI_END
}

tess_status tess_server_stop(tess_server* server) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(server);
  return Report(server->value->Stop());
  TESS_CAPI_END
}

tess_status tess_server_check_health(tess_server* server, double timeout_seconds) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(server);
  return Report(server->value->CheckHealth(timeout_seconds));
  TESS_CAPI_END
}

tess_status tess_server_get_stats(tess_server_stats* out, const tess_server* server) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(server);
  const tessera::serve::ServerStats s = server->value->stats();
  tess_server_stats full = TESS_SERVER_STATS_INIT;
  full.requests = s.requests;
  full.failed_requests = s.failed_requests;
  full.runs = s.runs;
  full.rows = s.rows;
  full.queued_requests = s.queued_requests;
  full.health_checks = s.health_checks;
  full.available = s.available ? 1 : 0;
  full.stopped = s.stopped ? 1 : 0;
  full.heap_allocations_last_batch = s.heap_allocations_last_batch;
  return Report(WriteStats(__func__, "out", "tess_server_stats", full,
                           TESS_STRUCT_SIZE_UP_TO(tess_server_stats, heap_allocations_last_batch),
                           out));
  TESS_CAPI_END
}

tess_status tess_serve_request_create(tess_serve_request** out, const tess_server* server,
                                      int32_t plan_id) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  *out = nullptr;
  TESS_CAPI_REQUIRE(server);
  Result<const ServedPlan*> plan = server->value->plan(__func__, plan_id);
  if (!plan.ok()) return Report(plan.status());
  *out = new tess_serve_request{std::make_unique<Request>(server->value.get(), plan_id, *plan)};
  return TESS_OK;
  TESS_CAPI_END
}

void tess_serve_request_destroy(tess_serve_request* request) {
  try {
    delete request;
  } catch (...) {
  }
}

tess_status tess_serve_request_set_input(tess_serve_request* request, size_t index,
                                         const void* rows_data, size_t rows_bytes) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(request);
  return Report(request->value->SetInput(index, rows_data, rows_bytes));
  TESS_CAPI_END
}

tess_status tess_serve_request_rows(int64_t* out, const tess_serve_request* request) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(request);
  *out = request->value->rows();
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_server_run(tess_server* server, tess_serve_request* request) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(server);
  TESS_CAPI_REQUIRE(request);
  return Report(server->value->Run(request->value.get()));
  TESS_CAPI_END
}

tess_status tess_serve_request_output_bytes(size_t* out, const tess_serve_request* request,
                                            size_t index) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(request);
  Result<const std::vector<char>*> o = request->value->Output(index);
  if (!o.ok()) return Report(o.status());
  *out = (*o)->size();
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_serve_request_output(void* out, size_t out_bytes,
                                      const tess_serve_request* request, size_t index) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(request);
  Result<const std::vector<char>*> o = request->value->Output(index);
  if (!o.ok()) return Report(o.status());
  const size_t need = (*o)->size();
  if (out_bytes < need) {
    return Report(InvalidArgument(
        std::string(__func__) + ": out_bytes is " + std::to_string(out_bytes) + " but output " +
        std::to_string(index) + " holds " + std::to_string(need) + " bytes"));
  }
  TESS_CAPI_REQUIRE(out);
  std::memcpy(out, (*o)->data(), need);
  return TESS_OK;
  TESS_CAPI_END
}

tess_status tess_serve_request_get_info(tess_serve_request_info* out,
                                        const tess_serve_request* request) {
  TESS_CAPI_BEGIN
  TESS_CAPI_REQUIRE(out);
  TESS_CAPI_REQUIRE(request);
  Result<Request::Info> info = request->value->info();
  if (!info.ok()) return Report(info.status());
  tess_serve_request_info full = TESS_SERVE_REQUEST_INFO_INIT;
  full.batch_rows = info->batch_rows;
  full.batch_requests = info->batch_requests;
  full.queue_seconds = info->queue_seconds;
  full.run_seconds = info->run_seconds;
  return Report(WriteStats(__func__, "out", "tess_serve_request_info", full,
                           TESS_STRUCT_SIZE_UP_TO(tess_serve_request_info, run_seconds), out));
  TESS_CAPI_END
}

}  // extern "C"
